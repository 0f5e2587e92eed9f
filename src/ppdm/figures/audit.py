"""The audit as a figure: each attribute's recovery rate and worst posterior against
their bounds, with exact (Clopper-Pearson) intervals, not standard errors.

References
----------
Dowd, Xu & Zhang, Sec. 6 (attacks); Evfimievski, Gehrke & Srikant (2003), rho1-to-rho2.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..attacks.audit.results import EPS, AuditReport, as_report
from ..io import atomic_path as atomic_file
from ..validation import visible

__all__ = ["plot_audit"]


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

    docs/attacks.md explains the panels. Written beside ``path`` and renamed into place.
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
