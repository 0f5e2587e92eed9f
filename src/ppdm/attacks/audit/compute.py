"""Running the audit: load and check the original against the release, run every
attack and compare with the bounds.

References
----------
Dowd, Xu & Zhang, Sec. 6 (attacks); Evfimievski, Gehrke & Srikant (2003), rho1-to-rho2.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import optimize

from ...exceptions import DataError, DomainError, ParameterError, SpecError
from ...io import label_text, read_table
from ...mechanism import mechanism_of
from ...privacy import RHO1_LEVELS, gamma_from_rho, rho2_from_gamma
from ...random import RandomState, check_random_state
from ...validation import check_probability
from .._substitution import binomial_lower, binomial_upper, numeric_values
from ..as_noise import attack_substitution_release
from ..bayes_optimal import bayes_optimal_attack, recovery_bound
from ..breach import empirical_breach, worst_posterior
from ..linkage import check_keys, linkage_report
from ..registry import code_attacks, noise_attacks
from .results import AttributeAudit, AuditReport, PosteriorTest, RecoveryTest


def _prior_best(x: np.ndarray | None, codes: np.ndarray, n_values: int, tol: float | None) -> float:
    """``q*``: the largest share of originals any single fixed guess recovers."""
    if x is None:
        return float(np.bincount(codes, minlength=n_values).max() / codes.size)
    xs = np.sort(x)
    # an interval of length 2 tol holding the most values can start at a value
    inside = np.searchsorted(xs, xs + 2.0 * tol, side="right") - np.arange(xs.size)
    return float(inside.max() / xs.size)


def _default_tolerance(domain, values: np.ndarray) -> float:
    width = getattr(domain, "width", None)
    if width is not None:
        return float(width)
    gaps = np.diff(np.sort(values))
    return 0.5 * float(gaps.min()) * (1 - 1e-9)


def check_auditable(spec) -> None:
    """Raise :class:`SpecError` unless the audit applies: one copy per record, by substitution.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5 (the attacks) and Sec. 3.1 (the rho1-to-rho2 bound).
    """
    mechanism_of(spec).require("audit")
    if spec.copies != 1:
        raise SpecError(
            f"the audit needs one perturbed copy per record (this release has {spec.copies})"
        )
    if not spec.perturbed_attributes():
        raise SpecError("the release perturbs no attribute: nothing to audit")


#: Probability that :func:`check_original` refuses the true original, at most (shared
#: by its tests).
FALSE_REFUSAL = 1e-9


def _agreement_floor(p: np.ndarray, count: np.ndarray, delta: float) -> float:
    """The count below which ``count[j]`` independent Bernoullis of probability ``p[j]`` fall
    with probability at most ``delta`` (``-inf`` when no count is that unlikely).

    Chernoff: ``P(S <= s) <= exp(min_t t s + K(t))``, ``K(t) = sum log(1 - p + p e^-t)``; the
    floor is ``s(t) = sum p e^-t / (1 - p + p e^-t)`` at the ``t`` where
    ``t s(t) + K(t) = log(delta)``.
    """

    def tilt(t: float) -> tuple[float, float]:
        e = math.exp(-t)
        s_t = float(np.sum(count * p * e / (1.0 - p + p * e)))
        return s_t, t * s_t + float(np.sum(count * np.log1p(p * math.expm1(-t))))

    target = math.log(delta)
    with np.errstate(divide="ignore"):  # p = 1: no agreement has probability 0
        none_kept = float(np.sum(count * np.log1p(-p)))
    if none_kept >= target:
        return -math.inf  # even no agreement at all is not that unlikely
    hi = 1.0
    while tilt(hi)[1] > target:
        hi *= 2.0
    t = optimize.brentq(lambda u: tilt(u)[1] - target, 0.0, hi, xtol=1e-12)
    return tilt(t)[0]


def _same_values(orig: pd.Series, released: pd.Series) -> np.ndarray:
    """Record by record, whether an unperturbed column holds the same value (missing
    matches missing; ``1``, ``1.0`` and ``'1'`` are the same label)."""
    numeric = [
        pd.api.types.is_numeric_dtype(c) and not pd.api.types.is_bool_dtype(c)
        for c in (orig, released)
    ]
    if all(numeric):
        a, b = orig.to_numpy(np.float64), released.to_numpy(np.float64)
        return (a == b) | (np.isnan(a) & np.isnan(b))

    def text(c: pd.Series) -> np.ndarray:
        return np.array([("" if pd.isna(v) else label_text(v)) for v in c], dtype=object)

    return text(orig) == text(released)


def _check_lines_up(spec, orig, released, attrs: list[_Attr], label: str) -> None:
    """Raise :class:`DataError` unless ``orig`` is the table the release was made from,
    in its record order; see :func:`check_original`."""
    for name in [a.name for a in spec.attributes if not a.perturbed]:
        same = _same_values(orig[name], released[name])
        if not same.all():
            i = int(np.argmin(same))
            raise DataError(
                f"{label} does not line up with the release: column {name!r} is released "
                f"as is but differs at record {i + 1} (original "
                f"{label_text(orig[name].iloc[i])!r}, released "
                f"{label_text(released[name].iloc[i])!r}; {int((~same).sum())} of "
                f"{same.size} records differ); pass the table the release was made from, in "
                "its order"
            )
    tests = []  # (what, kept, distinct p, how many records have each)
    for attr in attrs:
        m = attr.matrix
        af = m.affine_form
        diag = np.full(m.n_values, af[0] + af[1]) if af else np.diag(m.dense())
        count = np.bincount(attr.x_codes, minlength=m.n_values)
        kept = int(np.count_nonzero(attr.x_codes == attr.y_codes))
        tests.append((f"in attribute {attr.name!r}", kept, diag, count))
    if len(tests) > 1:
        tests.append(
            (
                f"over all {len(tests)} perturbed attributes",
                sum(t[1] for t in tests),
                np.concatenate([t[2] for t in tests]),
                np.concatenate([t[3] for t in tests]),
            )
        )
    delta = FALSE_REFUSAL / len(tests)
    for what, kept, p, count in tests:
        floor = _agreement_floor(p, count, delta)
        if kept < floor:
            raise DataError(
                f"{label} does not line up with the release: {what}, {kept} released values "
                f"equal the original's where the release's matrices expect "
                f"{float(np.sum(p * count)):.1f} (fewer than {math.ceil(floor)} has "
                f"probability under {delta:.2g}); pass the table the release was made from, "
                "with its records in the release's order"
            )


def check_original(release, original, tolerance: float | None = None) -> None:
    """Raise :class:`~ppdm.exceptions.DataError` unless ``original`` is the table ``release``
    was made from, record by record in the same order.

    Columns released as is must agree; per perturbed attribute and over all of them, the
    count of kept values (record ``i`` keeps its original with probability ``M[x_i, x_i]``)
    must reach its Chernoff floor of probability :data:`FALSE_REFUSAL` divided over the tests.

    References
    ----------
    Chernoff's bound (Boucheron, Lugosi & Massart 2013, Sec. 2.2); Dowd, Xu & Zhang,
    Sec. 5.1 (the gamma-diagonal matrix and its diagonal).
    """
    _prepare(release, original, tolerance)


def _prepare(release, original, tolerance: float | None):
    """The release, spec, both frames and the attributes, the original read through the
    release's domains and checked to line up.
    """
    from ...pipeline import load_release

    rel = load_release(release)
    spec = rel.spec
    check_auditable(spec)
    if isinstance(original, pd.DataFrame):
        orig, label, where = original, "the original", "the original table"
    else:
        path = Path(original)
        if not path.exists():
            raise FileNotFoundError(f"original data file {str(path)!r} does not exist")
        if rel.holds(path):
            raise DataError(
                f"original data file {str(path)!r} is the release's own data (perturbed "
                "records); pass the table the release was made from"
            )
        orig, label = read_table(path), f"original data file {str(path)!r}"
        where = f"original data file {os.fspath(original)!r}"
    released = rel.frame(check_values=True)
    missing = [c for c in spec.names if c not in orig.columns]
    if missing:
        raise DataError(
            f"{label} lacks the release's columns {missing}; pass the table the release was "
            "made from"
        )
    if len(orig) != len(released):
        raise DataError(
            f"{label} has {len(orig)} records but the release has {len(released)}; "
            "pass the table the release was made from"
        )
    orig = orig.reset_index(drop=True)
    try:  # the release's values are checked already: a value that does not fit is the original's
        attrs = _attributes(spec, orig, released, tolerance)
    except DomainError as exc:
        raise DomainError(
            f"{where}: {str(exc).split('; ')[0]}; the audit reads the original through the "
            "release's domains"
        ) from None
    _check_lines_up(spec, orig, released, attrs, where)
    return rel, spec, orig, released, attrs


@dataclass
class _Attr:
    """What the audit needs of one perturbed attribute."""

    name: str
    domain: object
    matrix: object
    values: np.ndarray | None  # the number of each code (numeric domains)
    x: np.ndarray | None  # original numbers
    x_codes: np.ndarray
    y_codes: np.ndarray
    tolerance: float | None

    def hits(self, guess_codes=None, guess_values=None) -> np.ndarray:
        """Records whose original a guess recovers (numbers: within the tolerance)."""
        if self.values is None:
            return guess_codes == self.x_codes
        g = self.values[guess_codes] if guess_values is None else np.asarray(guess_values, float)
        return np.abs(g - self.x) <= self.tolerance


def _attributes(spec, orig, released, tolerance: float | None) -> list[_Attr]:
    out = []
    for a in spec.perturbed_attributes():
        dom, m = a.get_domain(), a.get_matrix()
        v = numeric_values(dom)
        x_codes = dom.encode(orig[a.name], column=a.name).astype(np.int64)  # names a bad value
        x = tol = None
        if v is not None:
            x = pd.to_numeric(orig[a.name], errors="raise").to_numpy(dtype=np.float64)
            tol = float(tolerance) if tolerance is not None else _default_tolerance(dom, v)
        y_codes = dom.encode(released[a.name], column=a.name).astype(np.int64)
        out.append(_Attr(a.name, dom, m, v, x, x_codes, y_codes, tol))
    return out


def _recovery_test(
    label: str,
    hit: np.ndarray,
    alpha: float,
    gamma: float,
    gamma_spec: float,
    q_star: float,
    reads: int = 1,
) -> RecoveryTest:
    k, n = int(hit.sum()), int(hit.size)
    return RecoveryTest(
        attack=label,
        hits=k,
        n=n,
        lower=float(binomial_lower(k, n, alpha)),
        upper=float(binomial_upper(k, n, alpha)),
        alpha=alpha,
        bound=recovery_bound(gamma, q_star),
        bound_spec=recovery_bound(gamma_spec, q_star),
        gamma=gamma,
        gamma_spec=gamma_spec,
        reads=reads,
    )


def _posterior_tests(
    attr: _Attr, prior: np.ndarray, policy_gamma: float, levels, alpha: float
) -> tuple[PosteriorTest, ...]:
    """Model and counted worst posteriors per rho1 level (:mod:`ppdm.attacks.breach`)."""
    m = attr.matrix
    gamma_spec = m.amplification()
    labels = attr.domain.labels()
    model = worst_posterior(m, prior, policy_gamma, levels)
    counted = empirical_breach(
        attr.x_codes, attr.y_codes, m.n_values, policy_gamma, levels, alpha=alpha
    )
    return tuple(
        PosteriorTest(
            rho1=lm.rho1,
            bound=lm.bound,
            bound_spec=rho2_from_gamma(gamma_spec, lm.rho1),
            model_posterior=lm.worst_posterior,
            counted_posterior=le.worst_posterior,
            lower=le.lower_confidence,
            upper=le.upper_confidence,
            records=le.records,
            hits=le.hits,
            alpha=le.alpha,
            released_value=str(labels[le.observed_value]) if le.observed_value >= 0 else "",
            property_values=tuple(str(labels[k]) for k in le.property_values),
        )
        for lm, le in zip(model, counted)
    )


def _audit_attribute(
    attr: _Attr,
    *,
    policy_gamma: float,
    record_estimates: dict[str, pd.DataFrame],
    gamma_record: tuple[float, float, int],
    alpha_rate: float,
    alpha_breach: float,
    levels,
    repeat: int,
    rng: np.random.Generator,
) -> tuple[AttributeAudit, np.ndarray, np.ndarray]:
    """Every test of one attribute; also its bayes-map and prior-guess hits per record."""
    m = attr.matrix
    gamma_spec = m.amplification()
    n = attr.y_codes.size
    bayes = bayes_optimal_attack(attr.y_codes, m)
    prior_hit = attr.hits(np.full(n, int(np.argmax(bayes.prior))))
    q_star = _prior_best(attr.x, attr.x_codes, m.n_values, attr.tolerance)
    tests: dict[str, RecoveryTest] = {}
    for attack in code_attacks().values():
        label = attack.label(repeat)
        hit = attr.hits(attack.guess(attr.y_codes, m, rng, repeat))
        tests[label] = _recovery_test(label, hit, alpha_rate, policy_gamma, gamma_spec, q_star)
    if attr.values is not None:
        g_pol, g_spec, reads = gamma_record
        for name, est in record_estimates.items():
            hit = attr.hits(guess_values=est[attr.name].to_numpy())
            tests[name] = _recovery_test(name, hit, alpha_rate, g_pol, g_spec, q_star, reads)
    result = AttributeAudit(
        name=attr.name,
        domain=attr.domain.kind,
        N=m.n_values,
        gamma=gamma_spec,
        tolerance=attr.tolerance,
        prior_only=float(prior_hit.mean()),
        prior_best=q_star,
        bound=recovery_bound(policy_gamma, q_star),
        attacks=tests,
        breach=_posterior_tests(attr, bayes.prior, policy_gamma, levels, alpha_breach),
    )
    return result, attr.hits(bayes.guess), prior_hit


def audit_release(
    release,
    original,
    *,
    tolerance: float | None = None,
    rho: tuple[float, float] = (0.1, 0.5),
    alpha: float = 0.001,
    repeat: int = 2,
    rho1_levels=RHO1_LEVELS,
    random_state: RandomState = 0,
    keys: Sequence[str] | None = None,
) -> AuditReport:
    """Attack a release with its original at hand and check the privacy policy.

    Parameters
    ----------
    release : Release or path
        A substitution release with one copy per record.
    original : pandas.DataFrame or path
        The table it was made from, in the same record order.
    tolerance : float, optional
        A numeric guess within this distance of the original counts as recovered.
        Default: one bin width (binned attributes), the value itself (categorical).
    rho : (float, float), default=(0.1, 0.5)
        The owner's policy: no property of prior below rho1 may reach posterior rho2;
        its amplification ``gamma = rho2 (1 - rho1) / (rho1 (1 - rho2))`` sets every bound.
    alpha : float, default=0.001
        False-alarm probability shared by all counted figures.
    repeat : int, default=2
        Extra perturbations of the repeated-perturbation attack.
    rho1_levels : sequence of float, default=(0.01, 0.05, 0.1, 0.2)
    random_state : None, int or Generator, default=0
        For the repeated-perturbation attack.
    keys : sequence of str, optional
        Key attributes: the report then holds ``linkage``, their k-anonymity and the
        linkage attack's re-identification share (:mod:`ppdm.attacks.linkage`).

    Returns
    -------
    AuditReport
        ``passed`` is False and ``violations`` lists every bound whose test fails (the
        interval of the figure lies above it); ``to_dict()`` is the JSON report.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3.3 and 5 (the attacks and the rho1-to-rho2 requirement);
    Evfimievski, Gehrke & Srikant (2003) (amplification); Kargupta et al. (2003) and
    Huang, Du & Chen (2005) (data-recovery attacks).

    Examples
    --------
    >>> import tempfile, warnings
    >>> from ppdm.pipeline import make_release
    >>> df = pd.DataFrame({"x": np.random.default_rng(0).integers(0, 5, 2000)})
    >>> with tempfile.TemporaryDirectory() as d, warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     _ = make_release(df, d, random_state=0, gamma=9.0)
    ...     report = audit_release(d, df)
    >>> report.passed
    True
    """
    if tolerance is not None and not (math.isfinite(tolerance) and tolerance >= 0):
        raise ParameterError(f"tolerance must be a finite number >= 0 (got {tolerance})")
    check_probability(alpha, "alpha", error=ParameterError)
    policy_gamma = gamma_from_rho(*rho)
    rel, spec, orig, released, attrs = _prepare(release, original, tolerance)
    if keys is not None:
        keys = check_keys(keys, orig, released)
    rng = check_random_state(random_state)
    n = len(released)
    numeric = [a.name for a in attrs if a.values is not None]
    record_estimates = {  # every noise attack, on all numeric attributes at once
        name: attack_substitution_release(released, spec, name, attributes=numeric).estimate
        for name in noise_attacks()
        if numeric and n > len(numeric)
    }
    # Bonferroni: half of alpha over recovery rates (policy and spec bounds), half over
    # the two empirical posterior searches (policy and spec bounds) of every attribute
    n_attacks = len(code_attacks()) + len(record_estimates)
    alpha_rate = 0.5 * alpha / (2 * len(attrs) * n_attacks)
    alpha_breach = 0.5 * alpha / (2 * len(attrs))
    # a record-level attack reads every numeric attribute: amplifications multiply
    reads = max(len(numeric), 1)
    spec_product = math.prod(a.matrix.amplification() for a in attrs if a.values is not None)
    levels = tuple(float(r) for r in rho1_levels)

    results = []
    all_hit = np.ones(n, dtype=bool)
    all_prior_hit = np.ones(n, dtype=bool)
    for attr in attrs:
        res, map_hit, prior_hit = _audit_attribute(
            attr,
            policy_gamma=policy_gamma,
            record_estimates=record_estimates,
            gamma_record=(policy_gamma**reads, spec_product, reads),
            alpha_rate=alpha_rate,
            alpha_breach=alpha_breach,
            levels=levels,
            repeat=repeat,
            rng=rng,
        )
        results.append(res)
        all_hit &= map_hit
        all_prior_hit &= prior_hit
    tried = [a.label(repeat) for a in code_attacks().values()] + list(record_estimates)
    return AuditReport(
        release=str(rel.data_path.parent),
        n_records=n,
        rho1=float(rho[0]),
        rho2=float(rho[1]),
        gamma=policy_gamma,
        alpha=float(alpha),
        alpha_recovery=alpha_rate,
        alpha_posterior=alpha_breach,
        attacks_tried=tuple(tried),
        attributes=tuple(results),
        records_fully_recovered=float(all_hit.mean()),
        records_fully_recovered_prior_only=float(all_prior_hit.mean()),
        rho1_levels=levels,
        linkage=linkage_report(orig, released, keys, spec) if keys else None,
    )
