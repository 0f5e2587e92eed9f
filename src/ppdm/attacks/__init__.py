"""Data-recovery attacks on perturbed releases.

Each attack takes the released table and what the adversary is assumed to know (here
the additive-noise variance or covariance) and returns an :class:`AttackResult` holding
an estimate of every original record.
"""

from ._common import AttackResult, noise_covariance
from .bayes import bayes_reconstruct
from .pca import pca_reconstruct
from .spectral import marchenko_pastur_bounds, spectral_filtering

__all__ = [
    "AttackResult",
    "bayes_reconstruct",
    "marchenko_pastur_bounds",
    "noise_covariance",
    "pca_reconstruct",
    "spectral_filtering",
]
