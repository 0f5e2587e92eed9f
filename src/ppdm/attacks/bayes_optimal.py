"""The Bayes-optimal per-record attack on a substitution release.

The adversary knows the public ``M``, estimates the prior ``P`` from the release and
guesses the mode of ``P(k | h) = M[h, k] P_k / sum_j M[h, j] P_j``. No rule that sees
only the released value succeeds more often than ``rho2(gamma, q*)``, ``q*`` the best
prior-only success (derivation on docs/attacks.md).

References
----------
Dowd, Xu & Zhang, Sec. 5.1; Evfimievski, Gehrke & Srikant (2003), PODS, Sec. 3.
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
    """Per-record MAP guesses, their posterior ``confidence`` and ``posterior[h, k] = P(k | h)``.

    ``expected_success = sum_h P(h) max_k P(k | h)`` is the success rate the model predicts.
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

    ``prior`` defaults to the distribution estimated from the release with ``method``.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5.1; Evfimievski, Gehrke & Srikant (2003), PODS, Sec. 3.
    """
    n = matrix.n_values
    codes = check_codes(perturbed_codes, n)
    p = estimated_prior(codes, matrix, method) if prior is None else check_prior(prior, n)
    post = posterior(matrix, p)
    return PosteriorAttack(
        guess=post.argmax(axis=1)[codes],
        confidence=post.max(axis=1)[codes],
        posterior=post,
        prior=p,
        expected_success=float(matrix.dense() @ p @ post.max(axis=1)),
    )


def recovery_bound(gamma: float, prior_success: float) -> float:
    """Highest success rate any attack can reach: ``rho2(gamma, q*)``.

    ``gamma`` is the amplification of what the attack reads (a product over attributes;
    ``inf`` gives 1) and ``q*`` (``prior_success``) the best prior-only success.

    References
    ----------
    Evfimievski, Gehrke & Srikant (2003), Sec. 3; the averaging step is on docs/attacks.md.
    """
    q = check_probability(prior_success, "prior_success", closed=True, error=ParameterError)
    if q in (0.0, 1.0):
        return q
    return rho2_from_gamma(gamma, q)
