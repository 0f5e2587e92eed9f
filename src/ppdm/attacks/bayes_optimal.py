"""The Bayes-optimal per-record attack on a substitution release.

The adversary knows the matrix ``M`` (it is public) and estimates the prior ``P`` of the
original values from the release. For a record released as ``h`` the posterior of its
original value is ``P(k | h) = M[h, k] P_k / sum_j M[h, j] P_j``; guessing the most
probable ``k`` (MAP) maximises the chance of being right, record by record.

No rule that sees only the released value can do better, and the amplification limits
how well even this one does. For every ``h`` and every property ``S`` of the original,
``P(S | h) <= rho2(gamma, P(S)) = gamma P(S) / (1 - P(S) + gamma P(S))`` (Evfimievski,
Gehrke & Srikant 2003). A guess ``g(h)`` is right when the original lies in ``{g(h)}``
(or within a tolerance of it), a property of prior at most ``q*``, the best success of
any fixed guess. Averaging over ``h`` and using that ``rho2`` increases in its second
argument::

    P(success) = sum_h P(h) P(x in g(h) | h) <= rho2(gamma, q*).

So the gain of any attack over the best prior-only guess is at most
``rho2(gamma, q*) - q*``. An attack that also reads other perturbed attributes of the
record sees a channel whose amplification is the product of theirs, and the same
inequality holds with ``gamma`` replaced by that product.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..exceptions import ParameterError
from ..matrix import PerturbationMatrix
from ..privacy import posterior, rho2_from_gamma
from ..validation import check_probability
from ._substitution import check_codes, check_prior, estimated_prior

__all__ = ["PosteriorAttack", "bayes_optimal_attack", "recovery_bound"]


@dataclass(frozen=True)
class PosteriorAttack:
    """Per-record MAP guesses and what the adversary believes about them.

    Attributes
    ----------
    guess : numpy.ndarray of int, shape (n,)
        MAP code of every record.
    confidence : numpy.ndarray, shape (n,)
        Posterior probability of that guess.
    posterior : numpy.ndarray, shape (N, N)
        ``posterior[h, k] = P(original k | released h)``.
    prior : numpy.ndarray, shape (N,)
        The prior used (estimated from the release unless given).
    expected_success : float
        ``sum_h P(h) max_k P(k | h)``: the success rate the model predicts.

    Examples
    --------
    >>> from ppdm.matrix import GammaDiagonal
    >>> res = bayes_optimal_attack(np.array([0, 1, 1]), GammaDiagonal(3, 9.0), [0.5, 0.3, 0.2])
    >>> res.guess.tolist()
    [0, 1, 1]
    """

    guess: np.ndarray
    confidence: np.ndarray
    posterior: np.ndarray
    prior: np.ndarray
    expected_success: float


def bayes_optimal_attack(
    perturbed_codes, matrix: PerturbationMatrix, prior=None, *, method: str = "set-scale"
) -> PosteriorAttack:
    """Guess every record's original code as its posterior mode (MAP).

    Parameters
    ----------
    perturbed_codes : array-like of int, shape (n,)
        Released codes of one attribute.
    matrix : PerturbationMatrix
        The public ``M`` of that attribute.
    prior : array-like of shape (N,), optional
        The adversary's prior. Default: estimated from the release with ``method``.
    method : str, default="set-scale"
        Estimation method for the default prior (see :func:`ppdm.estimate.estimate_counts`).

    Returns
    -------
    PosteriorAttack

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5.1 (the rho1-to-rho2 requirement on ``M``); Evfimievski,
    Gehrke & Srikant (2003), "Limiting privacy breaches in privacy preserving data
    mining", PODS, Sec. 3 (amplification bounds the posterior).

    Examples
    --------
    >>> from ppdm.matrix import GammaDiagonal
    >>> res = bayes_optimal_attack(np.zeros(10, int), GammaDiagonal(4, 9.0), [0.7, 0.1, 0.1, 0.1])
    >>> round(float(res.confidence[0]), 4)
    0.9545
    """
    n = matrix.n_values
    codes = check_codes(perturbed_codes, n)
    p = estimated_prior(codes, matrix, method) if prior is None else check_prior(prior, n)
    post = posterior(matrix, p)
    best = post.argmax(axis=1)
    observed = matrix.dense() @ p
    expected = float(observed @ post.max(axis=1))
    return PosteriorAttack(
        guess=best[codes],
        confidence=post.max(axis=1)[codes],
        posterior=post,
        prior=p,
        expected_success=expected,
    )


def recovery_bound(gamma: float, prior_success: float) -> float:
    """Highest success rate any attack can reach: ``rho2(gamma, q*)``.

    Parameters
    ----------
    gamma : float
        Amplification of the channel the attack reads (a product over attributes for
        an attack that reads several), >= 1; ``inf`` gives 1.
    prior_success : float
        ``q*``, the success of the best guess made from the prior alone, in [0, 1].

    Returns
    -------
    float

    References
    ----------
    Evfimievski, Gehrke & Srikant (2003), Sec. 3; the averaging step is in the module
    docstring.

    Examples
    --------
    >>> recovery_bound(9.0, 0.1)
    0.5
    """
    q = check_probability(prior_success, "prior_success", closed=True, error=ParameterError)
    if q in (0.0, 1.0):
        return q
    return rho2_from_gamma(gamma, q)
