"""Data sets: the papers' real data (vendored) and synthetic generators."""

from .uci import (
    Dataset,
    load_boston,
    load_pendigits,
    load_spambase,
    load_wisconsin,
    train_test_split_fixed,
)

__all__ = [
    "Dataset",
    "load_boston",
    "load_pendigits",
    "load_spambase",
    "load_wisconsin",
    "train_test_split_fixed",
]
