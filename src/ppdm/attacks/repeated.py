"""The repeated-perturbation attack (Dowd, Xu & Zhang, Sec. 5.2, Theorem 2).

The adversary perturbs the released values ``t`` more times with the public ``M``; the
result has passed through ``M^(t+1)``, whose entries move monotonically towards ``1/N``
(Theorem 2), and by the data-processing inequality no estimate from the repeated values
beats the best one from the release itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..estimate import count_codes, estimate_counts
from ..exceptions import ParameterError
from ..matrix import GammaDiagonal, PerturbationMatrix
from ..random import RandomState, check_random_state
from ..validation import check_int
from ._substitution import check_codes, estimated_prior
from .bayes_optimal import bayes_optimal_attack

__all__ = [
    "RepeatedRound",
    "entropy_of_powers",
    "repeated_perturbation_attack",
    "theorem2_entries",
]


def theorem2_entries(n_values: int, gamma: float, t: int) -> tuple[float, float]:
    """Diagonal and off-diagonal entries of ``M^t`` by the closed form of Theorem 2.

    With ``lam = gamma - 1``, ``m_ij^t = (1/(lam+N)) sum_{i<t} (lam/(lam+N))^i`` and
    ``m_ii^t = (lam/(lam+N))^t + m_ij^t``.

    Parameters
    ----------
    n_values : int
        N >= 2.
    gamma : float
        Amplification of the gamma-diagonal ``M``, > 1.
    t : int
        Power, >= 1.

    Returns
    -------
    (float, float)
        ``(m_ii^t, m_ij^t)``.

    References
    ----------
    Dowd, Xu & Zhang, Appendix (Lemma 2 and the proof of Theorem 2).

    Examples
    --------
    >>> d, o = theorem2_entries(4, 9.0, 1)
    >>> round(d, 4), round(o, 4)
    (0.75, 0.0833)
    """
    m = GammaDiagonal(n_values, gamma)  # validates N and gamma
    n, g = m.n_values, m.gamma
    t = check_int(t, "t", error=ParameterError)
    lam = g - 1.0
    r = lam / (lam + n)
    geometric = (1.0 - r**t) / (1.0 - r)  # sum_{i=0}^{t-1} r^i
    off = geometric / (lam + n)
    return r**t + off, off


def entropy_of_powers(matrix: PerturbationMatrix, t_max: int) -> np.ndarray:
    """``H(M^t)`` in bits for ``t = 1..t_max`` (uniform prior, as in Sec. 5.2).

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5.2 (entropy of a perturbation matrix; Theorem 2).
    """
    t_max = check_int(t_max, "t_max", error=ParameterError)
    return np.array([matrix.power(t).entropy() for t in range(1, t_max + 1)])


@dataclass(frozen=True)
class RepeatedRound:
    """The release perturbed ``extra`` more times (0: the release itself), and its estimates.

    ``counts`` and ``guess`` (MAP) are estimated through ``channel = M^(extra+1)``.
    """

    extra: int
    channel: PerturbationMatrix
    codes: np.ndarray
    counts: np.ndarray
    guess: np.ndarray


def repeated_perturbation_attack(
    perturbed_codes,
    matrix: PerturbationMatrix,
    t: int,
    random_state: RandomState = None,
    *,
    method: str = "set-scale",
) -> list[RepeatedRound]:
    """Perturb the release ``t`` more times; round ``s`` of ``0..t`` is estimated through
    ``M^(s+1)`` and guessed by MAP under it with the prior estimated from the release.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5.2 ("Security against the repeated-perturbation attack").
    """
    n = matrix.n_values
    codes = check_codes(perturbed_codes, n)
    t = check_int(t, "t", error=ParameterError)
    rng = check_random_state(random_state)
    prior = estimated_prior(codes, matrix, method)
    out = []
    current = codes
    for s in range(t + 1):
        if s > 0:
            current = matrix.draw(current, rng).astype(np.int64)
        channel = matrix.power(s + 1)
        est = estimate_counts(count_codes(current, n), channel, method, replicates=0)
        guess = bayes_optimal_attack(current, channel, prior).guess
        out.append(RepeatedRound(s, channel, current, est.counts, guess))
    return out
