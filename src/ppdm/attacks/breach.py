"""The realised worst-case posterior against the rho1-to-rho2 bound.

A property ``S`` with prior ``P(S) <= rho1`` must keep ``P(S | h) <= rho2(gamma, rho1)``
after any released value ``h``. Searched over single values and greedy unions (the
search is described on docs/attacks.md), as the adversary's *model* posterior or
*counted* from the original and released codes.

References
----------
Dowd, Xu & Zhang, Sec. 5.1; Evfimievski, Gehrke & Srikant (2003), Def. 1.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..exceptions import DataError, ParameterError
from ..fields import fields_dict
from ..matrix import PerturbationMatrix
from ..privacy import RHO1_LEVELS, posterior, rho2_from_gamma
from ..validation import check_amplification, check_probability
from ._substitution import binomial_lower, binomial_upper, check_codes, check_prior

__all__ = ["BreachLevel", "worst_posterior", "empirical_breach"]


@dataclass(frozen=True)
class BreachLevel:
    """The worst posterior found for properties of prior at most ``rho1``, against ``bound``.

    ``worst_posterior`` (0 if no property fits the budget) occurs at released code
    ``observed_value`` (-1 if none) for the property ``property_values``; ``bound`` is
    ``rho2(gamma, rho1)`` for the gamma asked about. A counted level also has ``records``
    released as ``observed_value``, the ``hits`` among them in the property and one-sided
    confidence limits at level ``1 - alpha`` (Bonferroni-divided); a model level has
    limits equal to its posterior and no records.
    """

    rho1: float
    worst_posterior: float
    bound: float
    observed_value: int
    property_values: tuple
    prior: float
    lower_confidence: float
    upper_confidence: float = float("nan")
    records: int = 0
    hits: int = 0
    alpha: float = 0.0

    @property
    def violated(self) -> bool:
        """True when the (lower limit of the) posterior exceeds the bound."""
        return self.lower_confidence > self.bound + 1e-9

    def to_dict(self) -> dict:
        return {
            **fields_dict(
                self,
                "rho1 worst_posterior lower_confidence upper_confidence records hits alpha bound"
                " violated observed_value",
            ),
            "property_values": list(self.property_values),
            "prior": self.prior,
        }


def _candidates(post: np.ndarray, prior: np.ndarray, rho1: float):
    """Per row: posterior, prior and member mask of the best single and greedy union."""
    n_rows, n = post.shape
    fits = prior <= rho1 + 1e-12
    single_post = np.where(fits[None, :], post, -1.0)
    k_single = single_post.argmax(axis=1)
    best_single = single_post[np.arange(n_rows), k_single]
    # greedy union: likelihood order post[h, k] / prior[k], values of zero prior last
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(prior[None, :] > 0, post / np.where(prior > 0, prior, 1.0), -np.inf)
    order = np.argsort(-ratio, axis=1, kind="stable")
    cum_prior = np.cumsum(prior[order], axis=1)
    cum_post = np.cumsum(np.take_along_axis(post, order, axis=1), axis=1)
    length = (cum_prior <= rho1 + 1e-12).sum(axis=1)  # longest prefix within budget
    union_post = np.where(length > 0, cum_post[np.arange(n_rows), np.maximum(length - 1, 0)], -1.0)
    use_union = union_post > best_single
    value = np.where(use_union, union_post, best_single)
    members = np.zeros((n_rows, n), dtype=bool)
    rank = np.argsort(order, axis=1)
    members[use_union] = rank[use_union] < length[use_union, None]
    single_rows = np.flatnonzero(~use_union & (best_single >= 0))
    members[single_rows, k_single[single_rows]] = True
    return value, members


def _levels(rho1_levels) -> tuple[float, ...]:
    return tuple(check_probability(r, "rho1 levels", error=ParameterError) for r in rho1_levels)


def _level_at(
    rho1: float, g: float, value: np.ndarray, members: np.ndarray, h: int, prior: np.ndarray
) -> BreachLevel:
    """The level's row at released value ``h`` (a model row: limits equal the posterior).

    A posterior of 0 or less is no breach (observed value -1, no property).
    """
    worst = max(float(value[h]), 0.0)
    ks = tuple(int(k) for k in np.flatnonzero(members[h])) if worst > 0 else ()
    return BreachLevel(
        rho1=rho1,
        worst_posterior=worst,
        bound=rho2_from_gamma(g, rho1),
        observed_value=h if worst > 0 else -1,
        property_values=ks,
        prior=float(prior[list(ks)].sum()) if ks else 0.0,
        lower_confidence=worst,
        upper_confidence=worst,
    )


def worst_posterior(
    matrix: PerturbationMatrix, prior, gamma: float | None = None, rho1_levels=RHO1_LEVELS
) -> list[BreachLevel]:
    """Model worst-case posterior of single values and unions, per ``rho1`` level.

    Against the bound of ``gamma`` (default the matrix's own, which the model posterior can
    never exceed).

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5.1; Evfimievski, Gehrke & Srikant (2003), Def. 1 and Sec. 3.
    """
    p = check_prior(prior, matrix.n_values)
    g = check_amplification(
        matrix.amplification() if gamma is None else gamma, error=ParameterError
    )
    post = posterior(matrix, p)
    seen = matrix.dense() @ p > 0
    out = []
    for rho1 in _levels(rho1_levels):
        value, members = _candidates(post, p, rho1)
        value = np.where(seen, value, -1.0)
        out.append(_level_at(rho1, g, value, members, int(value.argmax()), p))
    return out


def empirical_breach(
    original_codes,
    perturbed_codes,
    n_values: int,
    gamma: float,
    rho1_levels=RHO1_LEVELS,
    *,
    alpha: float = 0.001,
) -> list[BreachLevel]:
    """Realised worst-case posterior counted from the original and released codes.

    A property's posterior after ``h`` is a binomial proportion among the ``n_h`` records
    released as ``h``; the row with the largest Clopper-Pearson lower limit at level
    ``1 - alpha / K`` (``K`` = rows x 2 candidates x levels) is reported, so ``alpha`` is the
    family-wise false-alarm probability.

    References
    ----------
    Evfimievski, Gehrke & Srikant (2003), Def. 1 (rho1-to-rho2 breach).
    """
    n = int(n_values)
    x = check_codes(original_codes, n, "original_codes")
    y = check_codes(perturbed_codes, n, "perturbed_codes")
    if x.shape != y.shape:
        raise DataError(
            f"original_codes and perturbed_codes must have the same length (got {x.size} and {y.size})"
        )
    check_probability(alpha, "alpha", error=ParameterError)
    g = check_amplification(gamma, error=ParameterError)
    levels = _levels(rho1_levels)
    joint = np.bincount(y * n + x, minlength=n * n).reshape(n, n).astype(np.float64)
    n_h = joint.sum(axis=1)
    prior = joint.sum(axis=0) / x.size
    seen = n_h > 0
    post = joint / np.where(seen, n_h, 1.0)[:, None]
    a_each = alpha / (int(seen.sum()) * 2 * len(levels))
    out = []
    for rho1 in levels:
        value, members = _candidates(post, prior, rho1)
        hits = np.rint(np.clip(value, 0.0, 1.0) * n_h)
        lower = np.where(seen & (value >= 0), binomial_lower(hits, n_h, a_each), -1.0)
        h = int(lower.argmax())
        level = _level_at(rho1, g, value, members, h, prior)
        found = level.worst_posterior > 0
        out.append(
            replace(
                level,
                lower_confidence=max(float(lower[h]), 0.0),
                upper_confidence=float(binomial_upper(hits[h], n_h[h], a_each)) if seen[h] else 1.0,
                records=int(n_h[h]) if found else 0,
                hits=int(hits[h]) if found else 0,
                alpha=a_each,
            )
        )
    return out
