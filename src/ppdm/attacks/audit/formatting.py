"""The audit as text (the ``ppdm audit`` report) and as a figure."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ...validation import visible
from .._common import atomic_file
from ..linkage import format_linkage
from .results import EPS, AuditReport, as_report, bound_level, not_significant


def format_audit(report: AuditReport | Mapping) -> str:
    """Plain-text rendering of :func:`audit_release` (or of its ``to_dict()``).

    Every figure is shown with its interval, its bound and a verdict: ``within``,
    ``not significant`` (above the bound, the interval still holds it) or ``exceeds``
    (the interval lies above the bound: the test fails).
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

    rep = as_report(report)
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
        ax2.plot(pos[j], worst_model, "x", color=bad if worst_model > b.bound + EPS else "k")
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
