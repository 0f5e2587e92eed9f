"""Kang's multiple random substitutions: m independent perturbed copies of each record.

The owner publishes m copies of the table, each perturbed independently with the same
matrix M. The miner can estimate the original counts in two ways:

- ``pool``: add the perturbed counts of all copies, ``y = sum_j y_j`` (``E[y] = m M X``),
  and estimate once from ``y / m``;
- ``average``: estimate from each copy and average the m estimates.

For the raw inverse the two are identical (the estimate is linear in y). For the
non-linear fixes (set-scale, Norm-Sub, IBU) pooling is the better choice, and the
default: the fix then acts on one estimate whose variance is already m times smaller,
whereas averaging m clipped-and-rescaled estimates keeps the bias each fix adds to a
noisy estimate. Either way the variance of the raw estimate falls by m, so Kang's bound
applies with ``m n`` records.

The price is privacy: an adversary who sees all m copies of one record faces
amplification ``gamma^m`` (:func:`ppdm.privacy.repeated_amplification`), not gamma.

References
----------
Kang, Sec. 2 (Theorem 1 and multiple random substitutions); Agrawal, Haritsa &
Prakash (2009), FRAPP (multiple independent perturbations).
"""

from __future__ import annotations

import numpy as np

from ppdm.estimate import count_codes, estimate_counts
from ppdm.exceptions import DataError, DomainError, ParameterError
from ppdm.matrix import PerturbationMatrix
from ppdm.privacy import kang_bound, repeated_amplification
from ppdm.random import RandomState, perturbation_generator
from ppdm.validation import check_choice, check_int

__all__ = [
    "COMBINE",
    "perturb_copies",
    "estimate_multiple",
    "multiple_kang_bound",
    "multiple_amplification",
]

COMBINE: tuple[str, ...] = ("pool", "average")


def _check_m(m: int) -> int:
    return check_int(m, "m (number of copies)", error=ParameterError)


def perturb_copies(
    codes: np.ndarray, matrix: PerturbationMatrix, m: int, random_state: RandomState = None
) -> np.ndarray:
    """m independently perturbed copies of ``codes`` (Algorithm 1 applied m times).

    Parameters
    ----------
    codes : int array (n,)
        Original codes in ``0..N-1``.
    matrix : PerturbationMatrix
    m : int
        Number of copies, >= 1.
    random_state : None, int, SeedSequence or Generator
        Resolved by :func:`ppdm.random.perturbation_generator`: ``None`` for a
        release (OS entropy), a seed for experiments.

    Returns
    -------
    int32 array (m, n)

    Examples
    --------
    >>> from ppdm.matrix import GammaDiagonal
    >>> perturb_copies(np.array([0, 1, 2]), GammaDiagonal(3, 9.0), 2, 0).shape
    (2, 3)

    References
    ----------
    Kang, Sec. 2.
    """
    m = _check_m(m)
    codes = np.asarray(codes)
    if codes.ndim != 1:
        raise DataError(f"codes must be one-dimensional (got shape {codes.shape})")
    if codes.size and (codes.min() < 0 or codes.max() >= matrix.n_values):
        raise DomainError(f"codes must lie in 0..{matrix.n_values - 1}")
    rng = perturbation_generator(random_state, "perturb-copies")
    return matrix.draw(np.broadcast_to(codes, (m, codes.size)), rng)


def estimate_multiple(
    copies: np.ndarray,
    matrix: PerturbationMatrix,
    method: str = "set-scale",
    combine: str = "pool",
) -> np.ndarray:
    """Estimated original counts (summing to n) from m perturbed copies.

    Parameters
    ----------
    copies : int array (m, n)
        Perturbed codes of each copy.
    matrix : PerturbationMatrix
    method : str, default="set-scale"
        Any method of :func:`ppdm.estimate.estimate_counts`.
    combine : {"pool", "average"}, default="pool"
        Pool the counts then estimate once, or estimate per copy and average.

    Returns
    -------
    float array (N,)

    Examples
    --------
    >>> from ppdm.matrix import GammaDiagonal
    >>> c = perturb_copies(np.repeat([0, 1], 500), GammaDiagonal(2, 9.0), 4, 0)
    >>> est = estimate_multiple(c, GammaDiagonal(2, 9.0), "inverse")
    >>> bool(abs(est.sum() - 1000) < 1e-6)
    True

    References
    ----------
    Kang, Sec. 2.
    """
    check_choice(combine, "combine", COMBINE, error=ParameterError)
    copies = np.atleast_2d(np.asarray(copies))
    m, n_values = copies.shape[0], matrix.n_values
    per_copy = np.stack([count_codes(c, n_values) for c in copies]).astype(np.float64)
    if combine == "pool":
        return estimate_counts(per_copy.sum(axis=0), matrix, method, replicates=0).counts / m
    return np.mean(
        [estimate_counts(y, matrix, method, replicates=0).counts for y in per_copy], axis=0
    )


def multiple_kang_bound(gamma: float, n_values: int, n: int, m: int) -> float:
    """Kang's bound for the pooled estimate from m copies of n records: the bound at m n.

    Examples
    --------
    >>> from ppdm.privacy import kang_bound
    >>> round(multiple_kang_bound(9, 10, 10_000, 4) / kang_bound(9, 10, 10_000), 6)
    0.5

    References
    ----------
    Kang, Theorem 1 and Sec. 2.
    """
    return kang_bound(gamma, n_values, int(n) * _check_m(m))


def multiple_amplification(gamma: float, m: int) -> float:
    """The privacy cost of m copies of one record: amplification ``gamma^m``.

    Examples
    --------
    >>> multiple_amplification(3.0, 2)
    9.0
    """
    return repeated_amplification(gamma, _check_m(m))
