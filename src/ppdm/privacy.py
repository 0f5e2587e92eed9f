"""Privacy figures: amplification gamma, rho1-to-rho2 breaches, epsilon, posteriors, error bounds.

References
----------
Evfimievski, Gehrke & Srikant (2003), amplification and rho1-to-rho2 breaches, as used by
Dowd, Xu & Zhang, Sec. 5.1; Kang, Theorem 1 (error bound); Ma & Sivakumar, Sec. 3 (K).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .exceptions import ParameterError
from .limits import MAX_RECORDS
from .matrix import PerturbationMatrix, StratifiedMatrix
from .validation import check_amplification, check_at_least, check_gamma, check_probability

if TYPE_CHECKING:  # ppdm.additive loads pandas: the command line starts without it
    from .additive import AdditiveNoise

__all__ = [
    "RHO1_LEVELS",
    "rho2_from_gamma",
    "gamma_from_rho",
    "posterior",
    "kang_bound",
    "repeated_amplification",
    "attribute_privacy",
    "additive_privacy",
    "changes_nothing",
    "copies_reveal",
    "power_or_inf",
    "PROPERTY_SIZES",
    "BUDGET_TOLERANCE",
    "record_privacy",
    "split_budget",
]

#: Sizes k of the properties whose amplification a report states per record ("all" too).
PROPERTY_SIZES = (1, 2, 3)
#: Relative tolerance of a per-record budget check: a total within ``E (1 + 1e-9)`` of
#: the budget ``E`` is within it (``m ln gamma`` of a gamma given as ``exp(E / m)``
#: rounds either way); a planned split is never above ``E`` at all.
BUDGET_TOLERANCE = 1e-9

#: rho1 levels reported in every privacy report.
RHO1_LEVELS = (0.01, 0.05, 0.1, 0.2)


def rho2_from_gamma(gamma: float, rho1: float) -> float:
    """Largest posterior rho2 reachable from a prior below rho1 under amplification gamma.

    ``rho2 = gamma rho1 / (1 - rho1 + gamma rho1)``, the equality case of
    ``rho2 (1 - rho1) / (rho1 (1 - rho2)) <= gamma``.

    Examples
    --------
    >>> round(rho2_from_gamma(9, 0.1), 6)
    0.5
    """
    g = check_amplification(gamma, error=ParameterError)
    r1 = check_probability(rho1, "rho1", error=ParameterError)
    if math.isinf(g):
        return 1.0
    return g * r1 / (1.0 - r1 + g * r1)


def gamma_from_rho(rho1: float, rho2: float) -> float:
    """Largest gamma that still guarantees no rho1-to-rho2 breach (``rho1 < rho2``).

    ``gamma = rho2 (1 - rho1) / (rho1 (1 - rho2))``.
    """
    r1 = check_probability(rho1, "rho1", error=ParameterError)
    r2 = check_probability(rho2, "rho2", error=ParameterError)
    if r2 <= r1:
        raise ParameterError(f"rho2 must be larger than rho1 (got rho1={rho1}, rho2={rho2})")
    return round(r2 * (1 - r1) / (r1 * (1 - r2)), 12)


def posterior(matrix: PerturbationMatrix, prior: np.ndarray) -> np.ndarray:
    """P(original = k | perturbed = h) for every h (rows) and k (columns), by Bayes' rule;
    rows with zero probability of being observed are uniform."""
    m = matrix.dense()
    p = np.asarray(prior, dtype=np.float64)
    joint = m * p[None, :]
    total = joint.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, joint / np.where(total > 0, total, 1.0), 1.0 / m.shape[0])


def kang_bound(gamma: float, n_values: int, n: int) -> float:
    """Kang's bound on the relative estimation error sigma(X_hat) / ||X||.

    ``sqrt(N (N-1) (N + 2 (gamma-1))) / ((gamma - 1) sqrt(n))`` for a gamma-diagonal
    matrix of N values and n records.

    References
    ----------
    Kang, Theorem 1.
    """
    g = check_gamma(gamma) if not math.isinf(float(gamma)) else math.inf
    check_at_least(n, "n", 1, error=ParameterError)
    if math.isinf(g):
        return 0.0
    N = int(n_values)
    return math.sqrt(N * (N - 1) * (N + 2 * (g - 1))) / ((g - 1) * math.sqrt(n))


def repeated_amplification(gamma: float, m: int) -> float:
    """Amplification of m independent perturbed copies of one record: gamma^m (Kang, Sec. 3)."""
    check_at_least(m, "m", 1, error=ParameterError)
    return float(gamma) ** int(m)


def changes_nothing(matrix: PerturbationMatrix) -> bool:
    """Whether ``matrix`` protects nothing: it changes a value with probability below
    1 / :data:`MAX_RECORDS`, so even the largest table would come out unchanged.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5 (gamma and the privacy it gives).
    """
    return matrix.least_change() < 1 / MAX_RECORDS


def copies_reveal(matrix: PerturbationMatrix, copies: int) -> bool:
    """Whether ``copies`` perturbed copies of a record together reveal its value (the most
    likely value given them is wrong with probability below 1 / :data:`MAX_RECORDS`; at
    gamma 9 and N = 20, 154 copies do).

    References
    ----------
    Kang, Sec. 3 (m copies of one record; their amplification is gamma^m).
    """
    return copies > 1 and matrix.misread_bound(copies) < 1 / MAX_RECORDS


def attribute_privacy(matrix: PerturbationMatrix, n_records: int | None, copies: int = 1) -> dict:
    """Privacy figures of one attribute: gamma, epsilon, rho2 per rho1, entropy, N, K, Kang.

    Parameters
    ----------
    n_records : int, optional
        Records released (for Kang's bound).
    copies : int, default=1
        Independent perturbed copies per record: the amplification is ``gamma**copies``.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5; Kang, Theorem 1 and Sec. 3; Ma & Sivakumar, Sec. 3 (K).
    """
    if isinstance(matrix, StratifiedMatrix):  # the least private stratum's figures
        out = attribute_privacy(matrix.worst(), n_records, copies)
        out["strata"] = matrix.strata
        out["gamma_per_stratum"] = {
            v: power_or_inf(m.amplification(), copies) for v, m in matrix.matrices.items()
        }
        return out
    gamma = power_or_inf(matrix.amplification(), copies)
    finite = np.isfinite(gamma)
    out = {
        "N": matrix.n_values,
        "gamma": float(gamma) if finite else None,
        "epsilon": float(np.log(gamma)) if finite else None,
        "rho2": {str(r): (rho2_from_gamma(gamma, r) if finite else 1.0) for r in RHO1_LEVELS},
        "entropy_bits": matrix.entropy(),
        "max_entropy_bits": float(np.log2(matrix.n_values)),
        "condition_number": matrix.condition_number(),
        "K": matrix.min_row_support(),
    }
    realised = getattr(matrix, "realised_gamma", None)
    if realised is not None:
        # the integer sampler's exact channel: never above gamma (see GammaDiagonal.draw)
        out["gamma_realised"] = power_or_inf(realised, copies)
    if copies > 1:
        out["copies"] = copies
        out["gamma_per_copy"] = matrix.amplification()
    if n_records and finite and gamma > 1:
        out["kang_bound"] = kang_bound(matrix.amplification(), matrix.n_values, n_records * copies)
    return out


def additive_privacy(noise: AdditiveNoise, low: float, high: float) -> dict:
    """Privacy figures of an additive attribute: noise, variance, 95 % interval width.

    References
    ----------
    Agrawal & Srikant (2000), Sec. 2.1 (the interval-width privacy metric).
    """
    width = noise.interval_width(0.95)
    return {
        "noise": noise.kind,
        "scale": noise.scale,
        "variance": noise.variance,
        "interval_width_95": width,
        "relative_interval_width_95": width / (high - low),
    }


def power_or_inf(base: float, exponent: int) -> float:
    """``base ** exponent``, ``inf`` where a float overflows."""
    try:
        return float(base) ** int(exponent)
    except OverflowError:
        return math.inf


def record_privacy(gammas: dict[str, float], copies: int = 1, budget: float | None = None) -> dict:
    """Privacy figures of a whole record: its total epsilon and the amplification of a
    property of k attributes.

    A record's perturbed attributes are perturbed independently, so the amplification
    of a property that involves k of them is at most the product of their gammas, and
    the record as a whole is ``sum_j copies ln gamma_j``-locally differentially private.

    Parameters
    ----------
    gammas : dict of attribute -> float
        Amplification of each perturbed attribute for one copy (``inf`` if unbounded).
    copies : int, default=1
        Independent perturbed copies per record: each gamma counts ``copies`` times.
    budget : float, optional
        The owner's per-record budget E: the figures say whether the record is within it.

    Returns
    -------
    dict
        ``attributes`` (m), ``epsilon`` (None if unbounded), ``amplification``
        (``{"1", "2", "3", "all"}`` -> product of the k largest gammas with copies,
        None if unbounded or beyond a float; sizes above m are left out),
        ``budget`` and ``within_budget`` (None without a budget).

    Examples
    --------
    >>> rec = record_privacy({f"a{j}": 9.0 for j in range(20)})
    >>> round(rec["epsilon"], 1), rec["amplification"]["2"], rec["amplification"]["3"]
    (43.9, 81.0, 729.0)

    References
    ----------
    Evfimievski, Gehrke & Srikant (2003), amplification of independent randomization
    operators; Kang, Sec. 3 (m copies of one record).
    """
    check_at_least(copies, "copies", 1, error=ParameterError)
    each = sorted((power_or_inf(g, copies) for g in gammas.values()), reverse=True)
    logs = [int(copies) * math.log(g) if math.isfinite(g) else math.inf for g in gammas.values()]
    epsilon = math.fsum(logs) if all(math.isfinite(x) for x in logs) else None
    sizes = [k for k in PROPERTY_SIZES if k < len(each)] + ([len(each)] if each else [])
    amplification = {}
    for k in sizes:
        amp = math.prod(each[:k])  # a float product overflows to inf
        amplification["all" if k == len(each) else str(k)] = amp if math.isfinite(amp) else None
    within = None
    if budget is not None:
        within = epsilon is not None and epsilon <= budget * (1 + BUDGET_TOLERANCE)
    return {
        "attributes": len(logs),
        "copies": int(copies),
        "epsilon": epsilon,
        "amplification": amplification,
        "budget": budget,
        "within_budget": within,
    }


def split_budget(
    budget: float, weights: dict[str, float], copies: int = 1, fixed: dict[str, float] | None = None
) -> dict[str, float]:
    """The gammas that spend a per-record budget E over attributes in proportion to weights.

    ``gamma_j = exp(E w_j / (copies sum_i w_i))``: with equal weights
    ``gamma = exp(E / (m copies))``. Each gamma is then lowered by the least float step
    needed for ``sum_j copies ln gamma_j`` (as :func:`record_privacy` sums it) to be at
    most E: the split never spends more than the budget, whatever the rounding.

    Parameters
    ----------
    budget : float
        E > 0, finite.
    weights : dict of attribute -> float
        Positive finite weights (equal weights give the equal split).
    copies : int, default=1
    fixed : dict of attribute -> float, optional
        Gammas (one copy) of other attributes that spend the budget first: the weights
        split what they leave, ``E - sum copies ln gamma``.

    Returns
    -------
    dict of attribute -> float
        The gamma of each attribute, for one copy (1.0 where the share is too small for a
        float above 1: no valid matrix, for the caller to refuse).

    Examples
    --------
    >>> g = split_budget(20 * math.log(9), {f"a{j}": 1.0 for j in range(20)})
    >>> round(g["a0"], 9)
    9.0
    >>> split_budget(3.0, {"a": 2.0, "b": 1.0})["a"] == math.exp(2.0)
    True

    References
    ----------
    Evfimievski, Gehrke & Srikant (2003), amplification of independent operators.
    """
    if not weights:
        return {}
    fixed = fixed or {}
    left = budget - (record_privacy(fixed, copies)["epsilon"] or 0.0) if fixed else budget
    total = math.fsum(weights.values())
    gammas = {n: _exp_or_inf(left * w / (total * copies)) for n, w in weights.items()}
    for _ in range(16 * len(gammas)):  # a few float steps at most: each lowers the total
        spent = record_privacy({**fixed, **gammas}, copies)["epsilon"]
        if spent is None or spent <= budget:
            break
        top = max(gammas, key=gammas.get)
        gammas[top] = math.nextafter(gammas[top], 1.0)
    return gammas


def _exp_or_inf(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf
