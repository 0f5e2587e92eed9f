"""What the attacks on substitution releases share: codes, the estimated prior, numbers."""

from __future__ import annotations

import numpy as np
from scipy import stats

from ..domain import BinnedDomain, CategoricalDomain, Domain
from ..estimate import count_codes, estimate_counts
from ..exceptions import DataError, ParameterError
from ..matrix import PerturbationMatrix
from ..mechanism.additive import numeric_values_of
from ..validation import show

__all__ = [
    "binomial_lower",
    "binomial_upper",
    "check_codes",
    "check_prior",
    "estimated_prior",
    "numeric_values",
    "within_bin_variance",
]


def check_codes(codes, n_values: int, name: str = "perturbed_codes") -> np.ndarray:
    """Validate a 1-D array of codes in ``0..n_values-1``."""
    c = np.asarray(codes)
    if c.ndim != 1 or c.size == 0:
        raise DataError(f"{name} must be a non-empty 1-D array of codes (got shape {c.shape})")
    if not np.issubdtype(c.dtype, np.integer):
        raise DataError(f"{name} must hold integer codes (got dtype {c.dtype})")
    if c.min() < 0 or c.max() >= n_values:
        raise DataError(
            f"{name} must lie in 0..{n_values - 1} (got values in {int(c.min())}..{int(c.max())})"
        )
    return c.astype(np.int64, copy=False)


def check_prior(prior, n_values: int) -> np.ndarray:
    """Validate a prior: ``n_values`` non-negative numbers summing to 1."""
    p = np.asarray(prior, dtype=np.float64)
    if p.shape != (n_values,) or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise ParameterError(
            f"prior must be {n_values} non-negative numbers summing to 1 (got {show(p.tolist())})"
        )
    return p


def binomial_lower(successes, trials, alpha: float) -> np.ndarray:
    """Clopper-Pearson one-sided lower confidence limit of a proportion at level ``1 - alpha``.

    Exact, so it stays valid at shares of 0 and 1 where the normal approximation has zero width.
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = stats.beta.ppf(alpha, np.maximum(k, 1e-300), np.maximum(n - k + 1, 1e-300))
    return np.where((k > 0) & (n > 0), low, 0.0)


def binomial_upper(successes, trials, alpha: float) -> np.ndarray:
    """Clopper-Pearson one-sided upper confidence limit of a proportion at level ``1 - alpha``."""
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        up = stats.beta.ppf(1.0 - alpha, k + 1.0, np.maximum(n - k, 1e-300))
    return np.where((k < n) & (n > 0), up, 1.0)


def estimated_prior(
    perturbed_codes, matrix: PerturbationMatrix, method: str = "set-scale"
) -> np.ndarray:
    """The adversary's prior: the original distribution estimated from the release (Eq. 1)."""
    codes = check_codes(perturbed_codes, matrix.n_values)
    est = estimate_counts(count_codes(codes, matrix.n_values), matrix, method, replicates=0)
    return est.distribution


def numeric_values(domain: Domain) -> np.ndarray | None:
    """The number each code stands for (bin centres, numeric categories), else None."""
    if isinstance(domain, BinnedDomain):
        if domain.missing_category:
            return None
        return domain.edges[:-1] + 0.5 * domain.width
    return numeric_values_of(domain) if isinstance(domain, CategoricalDomain) else None


def within_bin_variance(domain: Domain) -> float:
    """Variance about its representative that the codes cannot show: ``w^2/12`` in a bin of
    width ``w`` (twice that for a ``random`` representative), 0 for categorical values.
    """
    if not isinstance(domain, BinnedDomain):
        return 0.0
    base = domain.width**2 / 12.0
    return 2.0 * base if domain.representative == "random" else base
