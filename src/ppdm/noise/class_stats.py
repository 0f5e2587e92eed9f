"""Closed forms of class noise (Islam & Brankovic): techniques, E(N), Var(N), p.

References
----------
Islam & Brankovic, Sec. 3.1.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import DataError, ParameterError

__all__ = [
    "CLASS_TECHNIQUES",
    "check_technique",
    "expected_changes",
    "all_leaves_probability",
    "variance_of_changes",
]

#: The three techniques of Sec. 3.1, by their command-line names.
CLASS_TECHNIQUES = ("random", "probabilistic", "all-leaves")


def check_technique(technique: str) -> str:
    """Validate a class-noise technique name; ``all_leaves`` is accepted for ``all-leaves``."""
    name = str(technique).strip().lower().replace("_", "-")
    if name not in CLASS_TECHNIQUES:
        raise ParameterError(
            f"technique must be one of {', '.join(CLASS_TECHNIQUES)} (got {technique!r})"
        )
    return name


def _counts(counts) -> np.ndarray:
    c = np.asarray(counts, dtype=float)
    if c.ndim == 1:
        c = c[None, :]
    if c.ndim != 2 or (c < 0).any() or not np.isfinite(c).all():
        raise DataError(
            "counts must be a (leaves x classes) array of non-negative class counts "
            f"(got shape {np.shape(counts)})"
        )
    return c


def leaf_changes(c: np.ndarray) -> np.ndarray:
    """Expected changes per leaf: ``N_k - sum_c n_kc^2 / N_k`` (``2 m n / (m + n)``)."""
    size = c.sum(axis=1)
    safe = np.where(size > 0, size, 1.0)
    return np.where(size > 0, size - (c**2).sum(axis=1) / safe, 0.0)


def expected_changes(counts) -> float:
    """Expected number of changed classes ``E(N)``, the same for all three techniques.

    Parameters
    ----------
    counts : array-like of shape (n_leaves, n_classes)
        Class counts per leaf of the original tree; homogeneous leaves add nothing.

    Returns
    -------
    float
        ``sum_k 2 m_k n_k / (m_k + n_k)`` for two classes; in general
        ``sum_k (N_k - sum_c n_kc^2 / N_k)``.

    References
    ----------
    Islam & Brankovic, Sec. 3.1 (E(N) of the Random technique).

    Examples
    --------
    >>> expected_changes([[32, 1], [248, 8], [10, 0]])  # 2*32/33 + 2*248*8/256
    17.439393939393938
    """
    return float(leaf_changes(_counts(counts)).sum())


def all_leaves_probability(counts, n_total: int) -> float:
    """Probability ``p = E(N) / N_Total`` with which All Leaves changes every class.

    The paper prints ``p = N_Total * sum_k 2 m_k n_k / (m_k + n_k)``; a probability that
    keeps ``E(N) = p * N_Total`` equal to the other techniques' must be the ratio.

    Parameters
    ----------
    counts : array-like of shape (n_leaves, n_classes)
    n_total : int
        Records in the data set, ``N_Total``.

    Returns
    -------
    float

    References
    ----------
    Islam & Brankovic, Sec. 3.1 (All Leaves Probabilistic technique; corrected).

    Examples
    --------
    >>> all_leaves_probability([[3, 1], [10, 0]], 14)  # E(N) = 1.5
    0.10714285714285714
    """
    n_total = int(n_total)
    c = _counts(counts)
    if n_total < c.sum() or n_total <= 0:
        raise ParameterError(
            f"n_total must be >= the records in counts ({int(c.sum())}) and > 0 (got {n_total})"
        )
    return expected_changes(c) / n_total


def variance_of_changes(counts, technique: str, n_total: int | None = None) -> float:
    """Variance of the number of changed classes ``N``, in closed form.

    * Random: per leaf, the unchanged records are a sum of hypergeometric counts
      (one per class); for two classes ``Var = 4 m^2 n^2 / (N^2 (N - 1))``.
    * Probabilistic: a sum of independent Bernoulli changes; for two classes
      ``Var = m n / N`` per leaf.
    * All Leaves: ``Binomial(N_Total, p)``, ``Var = N_Total p (1 - p)``.

    Parameters
    ----------
    counts : array-like of shape (n_leaves, n_classes)
    technique : {"random", "probabilistic", "all-leaves"}
    n_total : int, optional
        Records in the data set (All Leaves only; default: the records in ``counts``).

    Returns
    -------
    float

    References
    ----------
    Islam & Brankovic, Sec. 3.1 (``p_k^i``: the hypergeometric law of the Random technique).

    Examples
    --------
    >>> variance_of_changes([[3, 1]], "probabilistic")
    0.75
    """
    technique = check_technique(technique)
    c = _counts(counts)
    size = c.sum(axis=1)
    if technique == "all-leaves":
        n = int(c.sum()) if n_total is None else int(n_total)
        p = all_leaves_probability(c, n)
        return float(n * p * (1.0 - p))
    het = (c > 0).sum(axis=1) > 1
    c, size = c[het], size[het]
    if technique == "probabilistic":
        # record of class c changes with probability 1 - n_c / N
        q = 1.0 - c / size[:, None]
        return float((c * q * (1.0 - q)).sum())
    # random: U = sum_c X_c, X_c ~ Hypergeometric; Cov(X_c, X_d) = n_c^2 n_d^2 / (N^2 (N-1))
    s2 = (c**2).sum(axis=1, keepdims=True)
    N = size[:, None]
    num = (c**2 * ((N - c) ** 2 + s2 - c**2)).sum(axis=1)
    return float((num / (size**2 * (size - 1))).sum())
