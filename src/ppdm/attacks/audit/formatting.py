"""The audit as text (the ``ppdm audit`` report) and as a figure."""

from __future__ import annotations

from collections.abc import Mapping

from ..linkage import format_linkage
from .results import AuditReport, as_report, bound_level, not_significant


def format_audit(report: AuditReport | Mapping) -> str:
    """Plain-text rendering of :func:`audit_release` (or of its ``to_dict()``): every figure with
    its interval, its bound and a verdict (``within``, ``not significant`` or ``exceeds``).
    """
    rep = as_report(report)
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
        f"limits at {bound_level(rep.alpha_recovery)} each",
    ]
    head = (
        "attribute, N, gamma, prior-only, q*, best attack, recovered, interval, allowed, bound of,"
        " gain, max gain, verdict"
    ).split(", ")
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
        level = bound_level(max(b.alpha for b in a.breach)) if a.breach else ""
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
