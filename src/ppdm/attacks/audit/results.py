"""The audit's typed results: a recovery test and a posterior test per attribute, an
attribute's audit, the whole report, and their JSON.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields

import numpy as np

from ...fields import fields_dict
from ...privacy import rho2_from_gamma

#: Slack of the comparisons with a bound (rounding of the bound itself).
EPS = 1e-9

_TYPES = {"int": int, "float": float, "str": str, "dict": dict}
_RECOVERY_KEYS = {
    "lower": "lower_confidence",
    "upper": "upper_confidence",
    "reads": "attributes_read",
}
_POSTERIOR_KEYS = {
    "counted_posterior": "empirical_posterior",
    "lower": "empirical_lower_confidence",
    "upper": "empirical_upper_confidence",
}


def _from_fields(cls, d: Mapping, keys: Mapping[str, str], **given):
    """The dataclass ``cls`` read back from its ``to_dict`` form ``d``, keys renamed by ``keys``."""
    for f in fields(cls):
        key = keys.get(f.name, f.name)
        if f.name in given or (key not in d and f.default is not MISSING):
            continue
        v = d[key]
        kind = f.type.split(" |")[0]
        given[f.name] = (
            tuple(v) if kind.startswith("tuple") else None if v is None else _TYPES[kind](v)
        )
    return cls(**given)


def _verdict(value: float, lower: float, bound: float, eps: float) -> str:
    """``exceeds`` (the interval lies above the bound), ``not significant`` or ``within``."""
    if lower > bound + eps:
        return "exceeds"
    if value > bound + eps:
        return "not significant"
    return "within"


def bound_level(alpha: float) -> str:
    """A one-sided confidence level ``1 - alpha`` as a percentage, e.g. ``99.9986 %``."""
    pct = 100.0 * (1.0 - alpha)
    digits = max(1, min(12, -int(math.floor(math.log10(max(alpha, 1e-15) * 100.0))) + 1))
    return f"{pct:.{digits}f}".rstrip("0").rstrip(".") + " %"


@dataclass(frozen=True)
class RecoveryTest:
    """One attack on one attribute: the share ``hits / n`` of records it recovers, against a bound.

    The test fails when the one-sided Clopper-Pearson ``lower`` limit (at level
    ``1 - alpha``, Bonferroni-divided) exceeds ``bound`` (``rho2(gamma, q*)``, the policy's)
    or ``bound_spec`` (the spec's). An attack reading ``reads`` attributes of a record is held
    to a record-level bound: ``gamma`` is then the policy's gamma to that power.

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
        return f"record, gamma^{self.reads} = {self.gamma ** (1.0 / self.reads):.4g}^{self.reads}"

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
            _RECOVERY_KEYS,
        )

    @classmethod
    def from_dict(cls, attack: str, d: Mapping) -> RecoveryTest:
        return _from_fields(cls, d, _RECOVERY_KEYS, attack=attack)


@dataclass(frozen=True)
class PosteriorTest:
    """The worst posterior of a property with prior at most ``rho1``, against ``rho2``.

    The *model* posterior comes from ``M`` and the estimated prior (exact); the *counted* one
    is ``hits / records`` among the records released as ``released_value``, with one-sided
    Clopper-Pearson limits at level ``1 - alpha``. The test fails when the model posterior
    exceeds the policy's bound, or the counted lower limit the policy's or the spec's.

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
        return self.model_posterior > self.bound + EPS

    @property
    def counted_violated(self) -> bool:
        return self.lower > self.bound + EPS

    @property
    def spec_violated(self) -> bool:
        return self.lower > self.bound_spec + EPS

    @property
    def violated(self) -> bool:
        """The test fails: the model figure or the counted interval lies above a bound."""
        return self.model_violated or self.counted_violated or self.spec_violated

    @property
    def counted_verdict(self) -> str:
        """``exceeds``, ``not significant`` or ``within``, of the counted figure."""
        if self.counted_violated or self.spec_violated:
            return "exceeds"
        return _verdict(self.counted_posterior, self.lower, self.bound, EPS)

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
                _POSTERIOR_KEYS,
            ),
            "property_values": list(self.property_values),
            **fields_dict(self, "model_violated verdict violated"),
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> PosteriorTest:
        return _from_fields(cls, d, _POSTERIOR_KEYS)


@dataclass(frozen=True)
class AttributeAudit:
    """Every figure of one perturbed attribute.

    ``gamma`` is the spec's; ``prior_only`` the share the most frequent estimated value
    recovers, ``prior_best`` (``q*``) the best share any fixed guess recovers, counted from
    the original, and ``bound = rho2(gamma_policy, q*)``; a numeric guess within
    ``tolerance`` of the original counts as recovered.
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
            **fields_dict(self, "name domain N gamma tolerance prior_only prior_best bound"),
            "attacks": {k: t.to_dict() for k, t in self.attacks.items()},
            **fields_dict(self, "best_attack best_recovered gain allowed_gain"),
            "breach": [b.to_dict() for b in self.breach],
            "violated": self.violated,
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> AttributeAudit:
        return _from_fields(
            cls,
            d,
            {},
            attacks={k: RecoveryTest.from_dict(k, t) for k, t in d["attacks"].items()},
            breach=tuple(PosteriorTest.from_dict(b) for b in d["breach"]),
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
        One-sided level of each recovery limit (``alpha`` divided as on docs/attacks.md).
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
            **fields_dict(self, "release n_records"),
            "policy": fields_dict(self, "rho1 rho2 gamma"),
            **fields_dict(self, "spec_gamma alpha alpha_recovery alpha_posterior"),
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
            **fields_dict(self, "passed violations"),
        }
        if self.linkage:
            out["linkage"] = self.linkage
        return out

    @classmethod
    def from_dict(cls, d: Mapping) -> AuditReport:
        """Read back :meth:`to_dict` (for instance ``ppdm audit --json`` output)."""
        o = d["overall"]
        return _from_fields(
            cls,
            {**d, **d["policy"], **o},
            {},
            attributes=tuple(AttributeAudit.from_dict(a) for a in d["attributes"]),
            rho1_levels=tuple(float(r) for r in o["policy_bound_at_rho1"]),
        )


def as_report(report: AuditReport | Mapping) -> AuditReport:
    return report if isinstance(report, AuditReport) else AuditReport.from_dict(report)


def not_significant(report: Mapping) -> int:
    """How many counted figures of ``report`` lie above their bound within chance."""
    return sum(
        t["verdict"] == "not significant"
        for a in report["attributes"]
        for t in (*a["attacks"].values(), *a["breach"])
    )


def plain_verdict(report: Mapping) -> str:
    """The verdict of an audit (:meth:`AuditReport.to_dict`) in plain words, for pages; a pass
    names the figures above their bound within chance, so a page never reads as cleaner.

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
