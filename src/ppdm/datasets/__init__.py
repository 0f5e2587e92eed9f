"""Data sets: the papers' real data (vendored) and synthetic generators."""

from .agrawal import AGRAWAL_COLUMNS, agrawal, agrawal_class, load_synth
from .uci import Dataset, load_boston, load_pendigits, load_spambase, load_wisconsin

__all__ = [
    "AGRAWAL_COLUMNS",
    "agrawal",
    "agrawal_class",
    "load_synth",
    "Dataset",
    "load_boston",
    "load_pendigits",
    "load_spambase",
    "load_wisconsin",
]
