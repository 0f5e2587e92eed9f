"""The repeated-perturbation attack (Dowd, Xu & Zhang, Sec. 5.2, Theorem 2).

The adversary perturbs the released values ``t`` more times with the public ``M``,
hoping the chain returns towards the original. The released-and-repeated value has
passed through ``M^(t+1)``, and by Theorem 2 the entries of ``M^t`` for the
gamma-diagonal matrix move strictly and monotonically towards ``1/N``:

``m_ii^t = (lam/(lam+N))^t + (1/(lam+N)) sum_{i<t} (lam/(lam+N))^i``,
``m_ij^t = (1/(lam+N)) sum_{i<t} (lam/(lam+N))^i``, with ``lam = gamma - 1``;

so the entropy of ``M^t`` rises to ``log2 N`` and the amplification of ``M^t`` falls to
1. Since the new perturbation is independent of the original given the release, the
data-processing inequality also says no estimate made from the repeated values can
beat the best one made from the release itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..estimate import count_codes, estimate_counts
from ..exceptions import ParameterError
from ..matrix import GammaDiagonal, PerturbationMatrix
from ..random import RandomState, check_random_state
from ..validation import check_int
from ._substitution import check_codes
from .bayes_optimal import bayes_optimal_attack

__all__ = [
    "RepeatedRound",
    "entropy_of_powers",
    "repeated_perturbation_attack",
    "theorem2_entries",
]


def theorem2_entries(n_values: int, gamma: float, t: int) -> tuple[float, float]:
    """Diagonal and off-diagonal entries of ``M^t`` by the closed form of Theorem 2.

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

    Parameters
    ----------
    matrix : PerturbationMatrix
    t_max : int
        Largest power, >= 1.

    Returns
    -------
    numpy.ndarray, shape (t_max,)

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5.2 (entropy of a perturbation matrix; Theorem 2).

    Examples
    --------
    >>> h = entropy_of_powers(GammaDiagonal(8, 9.0), 10)
    >>> bool(np.all(np.diff(h) > 0)), round(float(h[-1]), 4)
    (True, 3.0)
    """
    t_max = check_int(t_max, "t_max", error=ParameterError)
    return np.array([matrix.power(t).entropy() for t in range(1, t_max + 1)])


@dataclass(frozen=True)
class RepeatedRound:
    """The release perturbed ``extra`` more times, and what the adversary gets from it.

    Attributes
    ----------
    extra : int
        Additional perturbations applied (0 is the release itself).
    channel : PerturbationMatrix
        ``M^(extra+1)``, the channel from the original to these codes.
    codes : numpy.ndarray
        The codes after ``extra`` more perturbations.
    counts : numpy.ndarray, shape (N,)
        Original counts estimated from them through ``channel``.
    guess : numpy.ndarray
        MAP guess of every original code through ``channel``.

    Examples
    --------
    >>> from ppdm.matrix import GammaDiagonal
    >>> rounds = repeated_perturbation_attack(np.array([0, 1, 2, 0]), GammaDiagonal(3, 9.0), 2, 0)
    >>> [r.extra for r in rounds]
    [0, 1, 2]
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
    """Perturb the release ``t`` more times; estimate and guess from every round.

    Round ``s`` has codes that passed through ``M^(s+1)``: its counts are estimated
    with that channel (:func:`ppdm.estimate.estimate_counts`) and its records guessed
    by MAP under it with the prior estimated from the release (the adversary's best
    prior; :func:`bayes_optimal_attack`).

    Parameters
    ----------
    perturbed_codes : array-like of int, shape (n,)
        Released codes of one attribute.
    matrix : PerturbationMatrix
        Its public ``M``.
    t : int
        Number of extra perturbations, >= 1.
    random_state : None, int or Generator, default=None
    method : str, default="set-scale"
        Estimation method.

    Returns
    -------
    list of RepeatedRound
        Rounds ``0..t``.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5.2 ("Security against the repeated-perturbation attack").

    Examples
    --------
    >>> from ppdm.matrix import GammaDiagonal
    >>> rounds = repeated_perturbation_attack(np.zeros(100, int), GammaDiagonal(4, 9.0), 3, 0)
    >>> [round(r.channel.amplification(), 2) for r in rounds]
    [9.0, 4.2, 2.68, 1.98]
    """
    n = matrix.n_values
    codes = check_codes(perturbed_codes, n)
    t = check_int(t, "t", error=ParameterError)
    rng = check_random_state(random_state)
    prior = bayes_optimal_attack(codes, matrix, method=method).prior
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
