"""The owner's audit of a substitution release: run every attack, compare with the bounds.

The owner holds the original table, so every attack's success can be counted, not
only bounded. For each perturbed attribute the audit reports

- the share of records each attack recovers (the same value; for numbers, within a
  tolerance, one bin width by default), and the best of them;
- the share a guess from the prior alone recovers (the most frequent value of the
  distribution estimated from the release), and ``q*``, the best any fixed guess could
  do, counted from the original;
- the most any attack may recover under the owner's privacy policy,
  ``rho2(gamma, q*)`` (:mod:`ppdm.attacks.bayes_optimal`), with ``gamma`` the policy's
  amplification for attacks that read one attribute and its power over the attributes
  read for the record-level attacks;
- the realised worst posterior of properties with prior at most rho1, from the model
  and counted from the data (:mod:`ppdm.attacks.breach`), against ``rho2(gamma, rho1)``.

The policy is a rho1-to-rho2 pair (default 0.1 to 0.5, ppdm's default gamma of 9). A
release whose spec promises a larger gamma is flagged once the attacks show it. Counted
figures carry sampling noise of the perturbation; each is shown with its exact
(Clopper-Pearson) interval, whose two limits are one-sided confidence limits at level
``1 - alpha / K``, the false-alarm rate ``alpha`` shared (Bonferroni) over the ``K``
figures tested: half over the recovery rates (each against the policy's and the spec's
bound), half over the posterior searches. A figure fails only when its lower limit
exceeds its bound ("exceeds"); a figure above its bound whose interval still holds the
bound is "not significant" and does not fail the audit.

The report is typed (:class:`AuditReport` of :class:`AttributeAudit`, each holding its
:class:`RecoveryTest` and :class:`PosteriorTest` figures); :meth:`AuditReport.to_dict`
is the JSON of ``ppdm audit --json`` and :meth:`AuditReport.from_dict` reads it back.
The attacks run are the entries of :data:`ppdm.attacks.registry.ATTACKS`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import optimize

from ..exceptions import DataError, DomainError, ParameterError, SpecError
from ..fields import fields_dict
from ..io import label_text, read_table
from ..privacy import RHO1_LEVELS, gamma_from_rho, rho2_from_gamma
from ..random import RandomState, check_random_state
from ..validation import check_probability, visible
from ._common import atomic_file
from ._substitution import binomial_lower, binomial_upper, numeric_values
from .as_noise import attack_substitution_release
from .bayes_optimal import bayes_optimal_attack, recovery_bound
from .breach import empirical_breach, worst_posterior
from .linkage import check_keys, format_linkage, linkage_report
from .registry import code_attacks, noise_attacks

__all__ = [
    "AttributeAudit",
    "AuditReport",
    "PosteriorTest",
    "RecoveryTest",
    "check_auditable",
    "check_original",
    "audit_release",
    "format_audit",
    "plot_audit",
]

#: Slack of the comparisons with a bound (rounding of the bound itself).
_EPS = 1e-9


def _verdict(value: float, lower: float, bound: float, eps: float) -> str:
    """``exceeds`` (the interval lies above the bound), ``not significant`` or ``within``."""
    if lower > bound + eps:
        return "exceeds"
    if value > bound + eps:
        return "not significant"
    return "within"


def _level(alpha: float) -> str:
    """A one-sided confidence level ``1 - alpha`` as a percentage, e.g. ``99.9986 %``."""
    pct = 100.0 * (1.0 - alpha)
    digits = max(1, min(12, -int(math.floor(math.log10(max(alpha, 1e-15) * 100.0))) + 1))
    return f"{pct:.{digits}f}".rstrip("0").rstrip(".") + " %"


@dataclass(frozen=True)
class RecoveryTest:
    """One attack on one attribute: the share of records it recovers against the bound.

    The quantity is ``hits / n``, the share of the ``n`` records whose original the
    attack's guess recovers (the same value; for numbers, within the tolerance), counted
    with the original at hand. ``lower`` and ``upper`` are one-sided Clopper-Pearson
    limits at level ``1 - alpha``. The test fails when ``lower`` exceeds ``bound``
    (``rho2(gamma, q*)`` under the policy's gamma) or ``bound_spec`` (under the spec's).

    Attributes
    ----------
    attack : str
    hits, n : int
    lower, upper : float
    alpha : float
        One-sided level of each limit (already Bonferroni-divided).
    bound, bound_spec : float
    gamma, gamma_spec : float
        Amplification behind each bound (a product over the attributes an attack reads).
    reads : int, default=1
        Attributes of a record the attack reads: 1, an attribute-level bound under the
        policy's ``gamma``; ``k > 1``, a record-level bound under ``gamma^k``.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5.1 (the bound ``rho2(gamma, q*)``).
    """

    attack: str
    hits: int
    n: int
    lower: float
    upper: float
    alpha: float
    bound: float
    bound_spec: float
    gamma: float
    gamma_spec: float
    reads: int = 1

    @property
    def bound_level(self) -> str:
        """``attribute`` (the attack reads one attribute) or ``record`` (it reads several)."""
        return "attribute" if self.reads == 1 else "record"

    @property
    def bound_of(self) -> str:
        """Which bound, in words: ``attribute, gamma 9`` or ``record, gamma^7 = 9^7``."""
        if self.reads == 1:
            return f"attribute, gamma {self.gamma:.4g}"
        base = self.gamma ** (1.0 / self.reads)
        return f"record, gamma^{self.reads} = {base:.4g}^{self.reads}"

    @property
    def recovered(self) -> float:
        """``hits / n``."""
        return self.hits / self.n

    @property
    def exceeds_policy(self) -> bool:
        """The lower limit lies above the policy's bound."""
        return self.lower > self.bound + 1e-12

    @property
    def exceeds_spec(self) -> bool:
        """The lower limit lies above the spec's own bound."""
        return self.lower > self.bound_spec + 1e-12

    @property
    def violated(self) -> bool:
        """The test fails: the interval lies above a bound."""
        return self.exceeds_policy or self.exceeds_spec

    @property
    def verdict(self) -> str:
        """``exceeds``, ``not significant`` (above a bound, interval holds it) or ``within``."""
        if self.violated:
            return "exceeds"
        return _verdict(self.recovered, self.lower, min(self.bound, self.bound_spec), 1e-12)

    def describe(self) -> str:
        """One line: quantity, interval, bound and verdict."""
        return (
            f"{self.attack} recovers {self.recovered:.3f} = {self.hits}/{self.n} records "
            f"(interval {self.lower:.3f}-{self.upper:.3f}) vs bound {self.bound:.3f} "
            f"({self.bound_of}; spec {self.bound_spec:.3f}): {self.verdict}"
        )

    def to_dict(self) -> dict:
        return fields_dict(
            self,
            "recovered hits n lower upper alpha bound bound_spec gamma gamma_spec reads"
            " bound_level verdict violated",
            {"lower": "lower_confidence", "upper": "upper_confidence", "reads": "attributes_read"},
        )

    @classmethod
    def from_dict(cls, attack: str, d: Mapping) -> RecoveryTest:
        floats = "lower_confidence upper_confidence alpha bound bound_spec gamma gamma_spec"
        return cls(
            attack,
            int(d["hits"]),
            int(d["n"]),
            *(float(d[k]) for k in floats.split()),
            int(d.get("attributes_read", 1)),
        )


@dataclass(frozen=True)
class PosteriorTest:
    """The worst posterior of a property with prior at most ``rho1``, against ``rho2``.

    Two figures: the *model* posterior, computed from ``M`` and the prior estimated
    from the release (exact, no interval), and the *counted* posterior: among the
    ``records`` records released as ``released_value``, the share ``hits / records``
    whose original lies in the property (``property_values``), with one-sided
    Clopper-Pearson limits at level ``1 - alpha``. The test fails when the model
    posterior exceeds the policy's bound, or the counted lower limit exceeds the
    policy's bound or the spec's own.

    Attributes
    ----------
    rho1, bound, bound_spec : float
    model_posterior : float
    counted_posterior, lower, upper : float
    records, hits : int
    alpha : float
    released_value : str
    property_values : tuple of str

    References
    ----------
    Evfimievski, Gehrke & Srikant (2003), Def. 1; Dowd, Xu & Zhang, Sec. 5.1.
    """

    rho1: float
    bound: float
    bound_spec: float
    model_posterior: float
    counted_posterior: float
    lower: float
    upper: float
    records: int
    hits: int
    alpha: float
    released_value: str
    property_values: tuple[str, ...]

    @property
    def model_violated(self) -> bool:
        return self.model_posterior > self.bound + _EPS

    @property
    def counted_violated(self) -> bool:
        return self.lower > self.bound + _EPS

    @property
    def spec_violated(self) -> bool:
        return self.lower > self.bound_spec + _EPS

    @property
    def violated(self) -> bool:
        """The test fails: the model figure or the counted interval lies above a bound."""
        return self.model_violated or self.counted_violated or self.spec_violated

    @property
    def counted_verdict(self) -> str:
        """``exceeds``, ``not significant`` or ``within``, of the counted figure."""
        if self.counted_violated or self.spec_violated:
            return "exceeds"
        return _verdict(self.counted_posterior, self.lower, self.bound, _EPS)

    @property
    def verdict(self) -> str:
        """``exceeds`` when the test fails (model or counted), else the counted verdict."""
        return "exceeds" if self.violated else self.counted_verdict

    def describe(self) -> str:
        """One line: the bound, then each figure with its own verdict."""
        model = "exceeds" if self.model_violated else "within"
        counted = (
            f"counted {self.counted_posterior:.3f} = {self.hits}/{self.records} records "
            f"released as {self.released_value} (interval {self.lower:.3f}-{self.upper:.3f}) "
            f"{self.counted_verdict}"
            if self.records
            else "counted 0: no record released in a property of prior <= rho1"
        )
        return (
            f"rho1 {self.rho1:g}, bound {self.bound:.3f}: model {self.model_posterior:.3f} "
            f"{model}; {counted}"
        )

    def to_dict(self) -> dict:
        return {
            **fields_dict(
                self,
                "rho1 bound bound_spec model_posterior counted_posterior lower upper records hits"
                " alpha released_value",
                {
                    "counted_posterior": "empirical_posterior",
                    "lower": "empirical_lower_confidence",
                    "upper": "empirical_upper_confidence",
                },
            ),
            "property_values": list(self.property_values),
            **fields_dict(self, "model_violated verdict violated"),
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> PosteriorTest:
        floats = (
            "rho1 bound bound_spec model_posterior empirical_posterior"
            " empirical_lower_confidence empirical_upper_confidence"
        )
        return cls(
            *(float(d[k]) for k in floats.split()),
            int(d["records"]),
            int(d["hits"]),
            float(d["alpha"]),
            str(d["released_value"]),
            tuple(str(v) for v in d["property_values"]),
        )


@dataclass(frozen=True)
class AttributeAudit:
    """Every figure of one perturbed attribute.

    Attributes
    ----------
    name, domain : str
    N : int
    gamma : float
        The spec's amplification for this attribute.
    tolerance : float or None
        Numbers: a guess this close to the original counts as recovered.
    prior_only : float
        Share recovered by the most frequent value of the estimated distribution.
    prior_best : float
        ``q*``: the best share any fixed guess recovers, counted from the original.
    bound : float
        ``rho2(gamma_policy, q*)``: the most an attack reading this attribute may recover.
    attacks : dict of str to RecoveryTest
    breach : tuple of PosteriorTest
    """

    name: str
    domain: str
    N: int
    gamma: float
    tolerance: float | None
    prior_only: float
    prior_best: float
    bound: float
    attacks: dict[str, RecoveryTest]
    breach: tuple[PosteriorTest, ...]

    @property
    def best_attack(self) -> str:
        """The attack recovering the most records."""
        return max(self.attacks, key=lambda k: self.attacks[k].recovered)

    @property
    def best_recovered(self) -> float:
        return self.attacks[self.best_attack].recovered

    @property
    def gain(self) -> float:
        return self.best_recovered - self.prior_only

    @property
    def allowed_gain(self) -> float:
        return self.bound - self.prior_best

    @property
    def critical_attack(self) -> str:
        """The attack whose lower limit comes closest to (or lies furthest above) a bound."""
        return max(
            self.attacks,
            key=lambda k: (
                self.attacks[k].lower - min(self.attacks[k].bound, self.attacks[k].bound_spec)
            ),
        )

    @property
    def violated(self) -> bool:
        return any(t.violated for t in self.attacks.values()) or any(
            b.violated for b in self.breach
        )

    def to_dict(self) -> dict:
        return {
            **fields_dict(self, "name domain N gamma tolerance prior_only prior_best"),
            "bound": self.bound,
            "attacks": {k: t.to_dict() for k, t in self.attacks.items()},
            **fields_dict(self, "best_attack best_recovered gain allowed_gain"),
            "breach": [b.to_dict() for b in self.breach],
            "violated": self.violated,
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> AttributeAudit:
        return cls(
            str(d["name"]),
            str(d["domain"]),
            int(d["N"]),
            float(d["gamma"]),
            None if d["tolerance"] is None else float(d["tolerance"]),
            float(d["prior_only"]),
            float(d["prior_best"]),
            float(d["bound"]),
            {k: RecoveryTest.from_dict(k, t) for k, t in d["attacks"].items()},
            tuple(PosteriorTest.from_dict(b) for b in d["breach"]),
        )


@dataclass(frozen=True)
class AuditReport:
    """The owner's audit of one release: every attribute's figures and the verdict.

    ``passed`` is True when no test fails, that is no interval lies above its bound.
    :meth:`to_dict` gives the JSON of ``ppdm audit --json`` (keys documented in
    ``docs/attacks.md``); :meth:`from_dict` reads it back.

    Attributes
    ----------
    release : str
    n_records : int
    rho1, rho2, gamma : float
        The policy and its amplification.
    alpha : float
        Family-wise false-alarm probability.
    alpha_recovery : float
        One-sided level of each recovery limit (``alpha`` divided as in the module notes).
    alpha_posterior : float
        Share of ``alpha`` given to each attribute's counted posterior search, divided
        again over its released values, candidates and levels (each test's own level is
        in :attr:`PosteriorTest.alpha`).
    attacks_tried : tuple of str
    attributes : tuple of AttributeAudit
    records_fully_recovered, records_fully_recovered_prior_only : float
        Share of records whose every perturbed attribute bayes-map (the prior guess)
        recovers.
    rho1_levels : tuple of float
    linkage : dict or None
        :func:`ppdm.attacks.linkage.linkage_report` when key attributes were given.
    """

    release: str
    n_records: int
    rho1: float
    rho2: float
    gamma: float
    alpha: float
    alpha_recovery: float
    alpha_posterior: float
    attacks_tried: tuple[str, ...]
    attributes: tuple[AttributeAudit, ...]
    records_fully_recovered: float
    records_fully_recovered_prior_only: float
    rho1_levels: tuple[float, ...]
    linkage: dict | None = field(default=None)

    @property
    def spec_gamma(self) -> float:
        return max(a.gamma for a in self.attributes)

    @property
    def best_recovered(self) -> float:
        return float(np.mean([a.best_recovered for a in self.attributes]))

    @property
    def prior_only(self) -> float:
        return float(np.mean([a.prior_only for a in self.attributes]))

    @property
    def passed(self) -> bool:
        return not any(a.violated for a in self.attributes)

    @property
    def violations(self) -> list[str]:
        """One line per failed test (a test failing both bounds is named once per bound)."""
        out = []
        for a in self.attributes:
            for t in a.attacks.values():
                if t.exceeds_policy:
                    out.append(
                        f"{a.name}: {t.attack} recovers {t.recovered:.3f} of records "
                        f"(interval {t.lower:.3f}-{t.upper:.3f}); the policy allows at most "
                        f"{t.bound:.3f}"
                    )
                if t.exceeds_spec:
                    out.append(
                        f"{a.name}: {t.attack} recovers {t.recovered:.3f} (interval "
                        f"{t.lower:.3f}-{t.upper:.3f}), above the {t.bound_spec:.3f} its spec "
                        f"(gamma {t.gamma_spec:.4g}) allows: the release does not behave as "
                        "its spec says"
                    )
            for b in a.breach:
                if b.model_violated:
                    out.append(
                        f"{a.name}: the model posterior of a property of prior <= {b.rho1:g} "
                        f"is {b.model_posterior:.3f} (from the spec's matrix and the prior "
                        f"estimated from the release; exact, no interval); the policy allows "
                        f"{b.bound:.3f}: the spec's gamma {a.gamma:.4g} is above the policy's"
                    )
                if b.counted_violated:
                    out.append(
                        f"{a.name}: counted posterior {b.counted_posterior:.3f} = "
                        f"{b.hits}/{b.records} records released as {b.released_value} "
                        f"(interval {b.lower:.3f}-{b.upper:.3f}) at rho1 = {b.rho1:g}; the "
                        f"policy allows {b.bound:.3f}"
                    )
                if b.spec_violated:
                    out.append(
                        f"{a.name}: counted posterior {b.counted_posterior:.3f} (interval "
                        f"{b.lower:.3f}-{b.upper:.3f}) at rho1 = {b.rho1:g} exceeds the "
                        f"spec's own bound {b.bound_spec:.3f}: the release does not behave "
                        "as its spec says"
                    )
        return out

    def to_dict(self) -> dict:
        """The JSON-ready report (``ppdm audit --json``)."""
        best, prior = self.best_recovered, self.prior_only
        out = {
            "release": self.release,
            "n_records": self.n_records,
            "policy": {"rho1": self.rho1, "rho2": self.rho2, "gamma": self.gamma},
            "spec_gamma": self.spec_gamma,
            "alpha": self.alpha,
            "alpha_recovery": self.alpha_recovery,
            "alpha_posterior": self.alpha_posterior,
            "attacks_tried": list(self.attacks_tried),
            "attributes": [a.to_dict() for a in self.attributes],
            "overall": {
                "best_recovered": best,
                "prior_only": prior,
                "gain": best - prior,
                "records_fully_recovered": self.records_fully_recovered,
                "records_fully_recovered_prior_only": self.records_fully_recovered_prior_only,
                "policy_bound_at_rho1": {
                    str(r): rho2_from_gamma(self.gamma, r) for r in self.rho1_levels
                },
            },
            "passed": self.passed,
            "violations": self.violations,
        }
        if self.linkage:
            out["linkage"] = self.linkage
        return out

    @classmethod
    def from_dict(cls, d: Mapping) -> AuditReport:
        """Read back :meth:`to_dict` (for instance ``ppdm audit --json`` output)."""
        pol, o = d["policy"], d["overall"]
        return cls(
            release=str(d["release"]),
            n_records=int(d["n_records"]),
            rho1=float(pol["rho1"]),
            rho2=float(pol["rho2"]),
            gamma=float(pol["gamma"]),
            alpha=float(d["alpha"]),
            alpha_recovery=float(d["alpha_recovery"]),
            alpha_posterior=float(d["alpha_posterior"]),
            attacks_tried=tuple(d["attacks_tried"]),
            attributes=tuple(AttributeAudit.from_dict(a) for a in d["attributes"]),
            records_fully_recovered=float(o["records_fully_recovered"]),
            records_fully_recovered_prior_only=float(o["records_fully_recovered_prior_only"]),
            rho1_levels=tuple(float(r) for r in o["policy_bound_at_rho1"]),
            linkage=d.get("linkage"),
        )


def _as_report(report: AuditReport | Mapping) -> AuditReport:
    return report if isinstance(report, AuditReport) else AuditReport.from_dict(report)


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
    """Raise :class:`SpecError` unless the audit applies to a release of ``spec``: one
    perturbed copy per record, by substitution, of at least one attribute.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5 (the attacks) and Sec. 3.1 (the rho1-to-rho2 bound).
    """
    if spec.method != "substitution":
        raise SpecError(
            f"the audit checks substitution releases (this one uses {spec.method!r}); "
            "additive noise has no rho1-to-rho2 bound to check"
        )
    if spec.copies != 1:
        raise SpecError(
            f"the audit needs one perturbed copy per record (this release has {spec.copies})"
        )
    if not spec.perturbed_attributes():
        raise SpecError("the release perturbs no attribute: nothing to audit")


def _load(release, original):
    from ..pipeline import Release, load_release

    rel = release if isinstance(release, Release) else load_release(release)
    spec = rel.spec
    check_auditable(spec)
    if isinstance(original, pd.DataFrame):
        orig, label = original, "the original"
    else:
        path = Path(original)
        if not path.exists():
            raise FileNotFoundError(f"original data file {str(path)!r} does not exist")
        orig, label = read_table(path), f"original data file {str(path)!r}"
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
    return rel, spec, orig.reset_index(drop=True), released


#: Probability that :func:`check_original` refuses the true original, at most (shared
#: by its tests).
FALSE_REFUSAL = 1e-9


def _agreement_floor(p: np.ndarray, count: np.ndarray, delta: float) -> float:
    """The count of successes below which independent Bernoullis (``count[j]`` of them
    with probability ``p[j]``) fall with probability at most ``delta``; ``-inf`` when
    no count is that unlikely.

    Chernoff's bound ``P(S <= s) <= exp(min over t >= 0 of t s + K(t))``, ``K(t) =
    sum log(1 - p + p e^-t)``, is exact in the exponent; at ``t`` its minimiser is ``s(t)
    = sum p e^-t / (1 - p + p e^-t)``, so the floor is ``s(t)`` at the ``t`` where ``t
    s(t) + K(t) = log(delta)`` (decreasing in ``t``).
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
    for a in spec.attributes:
        if a.perturbed:
            continue
        same = _same_values(orig[a.name], released[a.name])
        if not same.all():
            i = int(np.argmin(same))
            raise DataError(
                f"{label} does not line up with the release: column {a.name!r} is released "
                f"as is but differs at record {i + 1} (original "
                f"{label_text(orig[a.name].iloc[i])!r}, released "
                f"{label_text(released[a.name].iloc[i])!r}; {int((~same).sum())} of "
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
    """Raise :class:`~ppdm.exceptions.DataError` unless ``original`` is the table
    ``release`` was made from, record by record in the same order.

    Columns released as they are must hold the same value in every record. For a
    perturbed attribute the release's own matrix says how often a released value keeps
    its original: record ``i`` keeps it with probability ``p_i = M[x_i, x_i]``, the
    diagonal at the original's code (``gamma / (gamma + N - 1)`` for a gamma-diagonal
    matrix), independently over records and attributes. So the number ``S`` of kept
    values is a sum of independent Bernoullis of known ``p_i`` (mean ``sum p_i``), and
    Chernoff's bound on its lower tail, exact in the exponent and with no normal
    approximation, gives the floor below which ``S`` falls with probability at most
    ``delta``. The table is refused when ``S`` lies below it, tested per attribute
    (a swap of two columns of one domain) and over all perturbed attributes together
    (shuffled rows, other records), ``delta`` = :data:`FALSE_REFUSAL` (1e-9) divided
    over these tests (Bonferroni): the true original is refused with probability at
    most 1e-9. A release of several copies per record would be tested per copy, and an
    additive one has no kept values; neither is audited (:func:`check_auditable`).

    Parameters
    ----------
    release : Release or path
    original : pandas.DataFrame or path
    tolerance : float, optional
        As in :func:`audit_release` (checked on the way).

    References
    ----------
    Chernoff's bound (Boucheron, Lugosi & Massart 2013, Sec. 2.2); Dowd, Xu & Zhang,
    Sec. 5.1 (the gamma-diagonal matrix and its diagonal).
    """
    _prepare(release, original, tolerance)


def _prepare(release, original, tolerance: float | None):
    """Load the release and the original, read the original through the release's
    domains and check that it lines up; the release, spec, both frames and the
    attributes."""
    rel, spec, orig, released = _load(release, original)
    label = (
        "the original table"
        if isinstance(original, pd.DataFrame)
        else f"original data file {os.fspath(original)!r}"
    )
    try:  # the release's values are checked already: a value that does not fit is the original's
        attrs = _attributes(spec, orig, released, tolerance)
    except DomainError as exc:
        raise DomainError(
            f"{label}: {str(exc).split('; ')[0]}; the audit reads the original through the "
            "release's domains"
        ) from None
    _check_lines_up(spec, orig, released, attrs, label)
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


def _record_estimates(released, spec, numeric: list[str]) -> dict[str, pd.DataFrame]:
    """Every noise attack of the registry on all numeric attributes at once."""
    if not numeric or len(released) <= len(numeric):
        return {}
    return {
        name: attack_substitution_release(released, spec, name, attributes=numeric).estimate
        for name in noise_attacks()
    }


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
    hit_by_attack: dict[str, np.ndarray] = {}
    for name, attack in code_attacks().items():
        label = attack.label(repeat)
        hit = attr.hits(attack.guess(attr.y_codes, m, rng, repeat))
        hit_by_attack[name] = hit
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
    map_hit = hit_by_attack.get("bayes-map", attr.hits(bayes.guess))
    return result, map_hit, prior_hit


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
    record_estimates = _record_estimates(released, spec, numeric)
    # Bonferroni: half of alpha over recovery rates (policy and spec bounds), half over
    # the two empirical posterior searches (policy and spec bounds) of every attribute
    n_attacks = len(code_attacks()) + len(record_estimates)
    alpha_rate = 0.5 * alpha / (2 * len(attrs) * n_attacks)
    alpha_breach = 0.5 * alpha / (2 * len(attrs))
    gamma_record_spec = (
        math.prod(a.matrix.amplification() for a in attrs if a.values is not None)
        if numeric
        else 1.0
    )
    gamma_record_policy = policy_gamma ** max(len(numeric), 1)
    levels = tuple(float(r) for r in rho1_levels)

    results = []
    all_hit = np.ones(n, dtype=bool)
    all_prior_hit = np.ones(n, dtype=bool)
    for attr in attrs:
        res, map_hit, prior_hit = _audit_attribute(
            attr,
            policy_gamma=policy_gamma,
            record_estimates=record_estimates,
            gamma_record=(gamma_record_policy, gamma_record_spec, max(len(numeric), 1)),
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


def format_audit(report: AuditReport | Mapping) -> str:
    """Plain-text rendering of :func:`audit_release` (or of its ``to_dict()``).

    Every figure is shown with its interval, its bound and a verdict: ``within``,
    ``not significant`` (above the bound, the interval still holds it) or ``exceeds``
    (the interval lies above the bound: the test fails).
    """
    rep = _as_report(report)
    lines = [
        "ppdm audit",
        f"release: {rep.release} ({rep.n_records} records)",
        f"policy: rho1 = {rep.rho1:g} -> rho2 = {rep.rho2:g} (gamma {rep.gamma:.4g}); "
        f"largest gamma in the spec: {rep.spec_gamma:.4g}",
        f"attacks tried: {', '.join(rep.attacks_tried)}",
        f"tests: every counted figure is shown with its exact (Clopper-Pearson) interval, "
        f"one-sided limits at level 1 - alpha/K (alpha = {rep.alpha:g} shared by the K "
        "tests, Bonferroni). A test fails only when the interval lies above the bound "
        "(exceeds); a figure above its bound whose interval holds the bound is not "
        "significant.",
        "",
        "recovery: share of the records whose original an attack recovers (numbers: within "
        "the tolerance), counted from the original; bound rho2(gamma, q*), q* the best fixed "
        "guess, gamma the policy's for an attack reading one attribute (bound of: attribute) "
        "and its power gamma^k for one reading k attributes of a record (bound of: record); "
        f"limits at {_level(rep.alpha_recovery)} each",
    ]
    head = [
        "attribute",
        "N",
        "gamma",
        "prior-only",
        "q*",
        "best attack",
        "recovered",
        "interval",
        "allowed",
        "bound of",
        "gain",
        "max gain",
        "verdict",
    ]
    rows = [head]
    for a in rep.attributes:
        best = a.attacks[a.best_attack]
        verdict = "EXCEEDS" if any(t.violated for t in a.attacks.values()) else best.verdict
        rows.append(
            [
                a.name,
                str(a.N),
                f"{a.gamma:.4g}",
                f"{a.prior_only:.3f}",
                f"{a.prior_best:.3f}",
                a.best_attack,
                f"{best.recovered:.3f}",
                f"{best.lower:.3f}-{best.upper:.3f}",
                f"{best.bound:.3f}",
                best.bound_of,
                f"{a.gain:+.3f}",
                f"{a.allowed_gain:+.3f}",
                verdict,
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    above = [
        f"  {a.name}: {t.describe()}"
        for a in rep.attributes
        for t in a.attacks.values()
        if t.verdict != "within"
    ]
    if above:
        lines += ["recovery figures above a bound:", *above]
    lines += [
        "",
        "worst posterior of a property with prior <= rho1: model (from M and the prior "
        "estimated from the release; exact) and counted (among the records released as one "
        "value, the share whose original lies in the property, with its interval); bound "
        "rho2(gamma, rho1)",
    ]
    for a in rep.attributes:
        level = _level(max(b.alpha for b in a.breach)) if a.breach else ""
        lines.append(f"  {a.name} (limits at {level} each):")
        lines += [f"    {b.describe()}" for b in a.breach]
    o = rep.to_dict()["overall"]
    lines += [
        "",
        f"overall: best attack recovers {o['best_recovered']:.3f} of values on average, the "
        f"prior alone {o['prior_only']:.3f} (gain {o['gain']:+.3f}); whole records recovered by "
        f"bayes-map {o['records_fully_recovered']:.3f}, by the prior "
        f"{o['records_fully_recovered_prior_only']:.3f}",
    ]
    if rep.linkage:
        lines += ["", *format_linkage(rep.linkage)]
    n_ns = not_significant(rep.to_dict())
    if rep.passed:
        lines.append(
            "PASSED: no interval lies above its bound"
            + (f" ({n_ns} figure(s) above a bound, not significant)." if n_ns else ".")
        )
    else:
        lines.append(f"FAILED: {len(rep.violations)} bound(s) exceeded:")
        lines += [f"  - {v}" for v in rep.violations]
    return "\n".join(lines) + "\n"


def not_significant(report: Mapping) -> int:
    """How many counted figures of ``report`` (:meth:`AuditReport.to_dict`) lie above
    their bound with an interval that still holds it (``not significant``)."""
    return sum(
        t["verdict"] == "not significant"
        for a in report["attributes"]
        for t in (*a["attacks"].values(), *a["breach"])
    )


def plain_verdict(report: Mapping) -> str:
    """The audit's verdict in plain words, for the HTML report and the app.

    A pass says whether counted figures lie above their bound within chance, so a
    page never reads as cleaner than the audit below it.

    Parameters
    ----------
    report : Mapping
        :meth:`AuditReport.to_dict`.

    Returns
    -------
    str
        Starting with ``PASSED:`` or ``FAILED:``.

    References
    ----------
    Evfimievski, Gehrke & Srikant (2003), rho1-to-rho2 privacy (the policy's bound).
    """
    pol = report["policy"]
    if not report["passed"]:
        return (
            f"FAILED: {len(report['violations'])} bound(s) exceeded; do not publish this "
            "release as it is."
        )
    text = (
        f"PASSED: no attack learns significantly more than the policy allows (a property "
        f"with prior {pol['rho1']:g} reaching {pol['rho2']:g}; alpha {report['alpha']:g})."
    )
    n = not_significant(report)
    if n:
        text += (
            f" {n} counted figure(s) lie above their bound, within chance: their intervals "
            "still hold it (small counts; see the audit)."
        )
    return text


def _failures(rep: AuditReport) -> dict[str, int]:
    """Number of failed tests of each kind."""
    rec = sum(t.violated for a in rep.attributes for t in a.attacks.values())
    model = sum(b.model_violated for a in rep.attributes for b in a.breach)
    counted = sum(b.counted_violated or b.spec_violated for a in rep.attributes for b in a.breach)
    return {
        "recovery share(s) (dot)": rec,
        "model posterior(s) (x)": model,
        "counted posterior(s) (dot)": counted,
    }


def _title(rep: AuditReport) -> str:
    if rep.passed:
        return (
            f"PASSED: no interval lies above its bound and no model posterior exceeds it "
            f"(policy gamma {rep.gamma:.3g}, alpha {rep.alpha:g})"
        )
    parts = [f"{n} {kind}" for kind, n in _failures(rep).items() if n]
    return (
        "FAILED: above the bound (red): " + ", ".join(parts) + "\n(a counted figure fails "
        "when its whole interval lies above the bound; the model posterior is exact)"
    )


def _point_with_interval(ax, x, value: float, lower: float, upper: float, color) -> None:
    """A point at ``value`` with the bar of its confidence interval ``lower``-``upper``."""
    yerr = [[value - lower], [upper - value]]
    ax.errorbar(x, value, yerr=yerr, fmt="o", color=color, ms=4, capsize=3)


def plot_audit(report: AuditReport | Mapping, path: str | os.PathLike) -> None:
    """Two panels: each figure with its interval against its bound; failures in red.

    A figure is blue when it is within its bound, orange when it lies above the bound
    but its interval still holds it (not significant), red when the whole interval lies
    above the bound (the test fails); a model posterior above its bound is a red x.

    Left, per attribute, the attack closest to (or furthest above) its bound: the share
    recovered with its interval, the bound (black tick) and the prior-only guess (grey
    bar). Right, per rho1, the attribute whose counted worst posterior comes closest to
    the bound: the counted posterior with its interval, the model posterior (x) and the
    policy bound (dashed). The title states the verdict. Written to a temporary file
    beside ``path`` and renamed into place.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rep = _as_report(report)
    attrs = rep.attributes
    names = [visible(a.name) for a in attrs]
    idx = np.arange(len(names))
    fig, (ax1, ax2) = plt.subplots(
        1,
        2,
        figsize=(max(9, 0.35 * len(names) + 7), 4.6),
        width_ratios=[max(1.2, len(names) / 8), 1],
    )
    ok, bad = "tab:blue", "tab:red"
    colour = {"within": ok, "not significant": "tab:orange", "exceeds": bad}
    ax1.bar(idx, [a.prior_only for a in attrs], 0.6, color="0.85", label="prior-only guess")
    crit = [a.attacks[a.critical_attack] for a in attrs]
    for i, t in enumerate(crit):
        _point_with_interval(ax1, i, t.recovered, t.lower, t.upper, colour[t.verdict])
        ax1.plot([i - 0.35, i + 0.35], [t.bound] * 2, color="k", lw=1.5)
    ax1.plot([], [], "o", color=ok, label="recovered, with interval")
    ax1.plot([], [], "o", color="tab:orange", label="above bound, not significant")
    ax1.plot([], [], "o", color=bad, label="interval above bound")
    ax1.plot([], [], "k-", label="bound rho2(gamma, q*)")
    ax1.set_xlim(-0.6, len(names) - 0.4)
    ax1.set_xticks(idx, names, rotation=60 if len(names) > 5 else 0, fontsize=7)
    ax1.set_ylim(0, 1.4)
    ax1.set_yticks(np.linspace(0, 1, 6))
    ax1.set_ylabel("share of records recovered")
    ax1.set_title("recovery: attack closest to its bound, per attribute", fontsize=9)
    ax1.legend(fontsize=7, loc="upper center", ncol=2)

    levels = list(rep.rho1_levels)
    pos = np.arange(len(levels))
    for j in range(len(levels)):
        tests = [(a.name, a.breach[j]) for a in attrs]
        # a figure counted on records first: "0 of 0" is no measurement, not a 0
        name, b = max(
            tests,
            key=lambda nb: (nb[1].records > 0, nb[1].lower - nb[1].bound, nb[1].counted_posterior),
        )
        worst_model = max(a.breach[j].model_posterior for a in attrs)
        ax2.plot(pos[j], worst_model, "x", color=bad if worst_model > b.bound + _EPS else "k")
        if b.records:
            colour_j = colour[b.counted_verdict]
            _point_with_interval(ax2, pos[j], b.counted_posterior, b.lower, b.upper, colour_j)
            label, at = f"{visible(name)}\n{b.hits}/{b.records}", b.upper
        else:
            label, at = "no record\nto count", max(worst_model, b.bound)
        ax2.annotate(
            label,
            (pos[j], at),
            textcoords="offset points",
            xytext=(0, 4),
            ha="center",
            fontsize=6,
        )
    ax2.plot(pos, [attrs[0].breach[j].bound for j in range(len(levels))], "k--")
    ax2.plot([], [], "o", color=ok, label="counted, with interval")
    ax2.plot([], [], "o", color="tab:orange", label="above bound, not significant")
    ax2.plot([], [], "o", color=bad, label="interval above bound")
    ax2.plot([], [], "kx", label="model (worst attribute)")
    ax2.plot([], [], "k--", label="policy bound rho2")
    ax2.set_xticks(pos, [f"{r:g}" for r in levels])
    ax2.set_xlim(-0.5, len(levels) - 0.5)
    ax2.set_xlabel("rho1 (prior of the property)")
    ax2.set_ylabel("worst posterior")
    ax2.set_ylim(0, 1.6)
    ax2.set_yticks(np.linspace(0, 1, 6))
    ax2.set_title("posterior: attribute closest to the bound", fontsize=9)
    ax2.legend(fontsize=7, loc="upper center", ncol=2)
    fig.suptitle(_title(rep), color=ok if rep.passed else bad, fontsize=11)
    fig.tight_layout()
    target = Path(path)
    with atomic_file(target) as tmp:
        fig.savefig(tmp, format=target.suffix.lstrip(".") or "png", dpi=110)
    plt.close(fig)
