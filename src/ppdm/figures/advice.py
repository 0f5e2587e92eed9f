"""The advisor's figure: accuracy against gamma per N, the paper's pipeline beside it, the
recommended release; error bars of two standard errors, as every ppdm figure.

References
----------
Dowd, Xu & Zhang, Sec. 7 (the parameter guide).
"""

from __future__ import annotations

import numpy as np

from ..advise.advice import Advice
from ..advise.grid import PAPER_PIPELINE
from . import SE_BARS, se_label


def plot_advice(advice: Advice, path) -> None:
    """Accuracy against gamma: the best learner, one line per N, the paper pipeline dashed,
    the baselines and the policy's gamma; the recommendation circled (docs/plots.md).
    """
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    from ..io import atomic_path

    table = advice.table[advice.table["status"] == "evaluated"]
    fig, ax = plt.subplots(figsize=(8.5, 5.5))
    best = table[table["best"]]
    for n, part in best.groupby("N"):
        part = part.sort_values("gamma")
        acc, spread = part["accuracy"].to_numpy(), SE_BARS * part["se"].fillna(0).to_numpy()
        bars = [
            100 * (acc - np.maximum(acc - spread, 0)),
            100 * (np.minimum(acc + spread, 1) - acc),
        ]
        ax.errorbar(part["gamma"], 100 * acc, yerr=bars, marker="o", capsize=2,
                    label=f"best learner, N={n} ({se_label()} of the mean, "
                          "within 0-100 %)")  # fmt: skip
    paper = table[table["learner"] == PAPER_PIPELINE.label]
    if len(paper):
        top = paper.loc[paper.groupby("gamma")["accuracy"].idxmax()].sort_values("gamma")
        ax.plot(top["gamma"], 100 * top["accuracy"], "k--", marker="s",
                label="paper pipeline (global Alg. 2 + C4.5), best N")  # fmt: skip
    lines = [(advice.original_accuracy, "C4.5 on the original", "black", "-"),
             (advice.majority, "majority class", "tab:red", ":")]  # fmt: skip
    if advice.min_accuracy is not None:
        lines.append((advice.min_accuracy, "target", "tab:green", "--"))
    for value, label, colour, style in lines:
        ax.axhline(100 * value, color=colour, ls=style, lw=1.2, label=f"{label} {100 * value:.1f}%")
    if advice.max_gamma is not None:
        ax.axvline(
            advice.max_gamma, color="grey", ls=":", label=f"policy gamma {advice.max_gamma:g}"
        )
    if advice.recommended:
        lo, hi = advice.release_range  # the text's interval, cut to [0, 1] as it is
        ax.errorbar([advice.gamma], [100 * advice.accuracy],
                    yerr=[[100 * (advice.accuracy - lo)], [100 * (hi - advice.accuracy)]],
                    fmt="o", ms=14, mfc="none", mec="red", ecolor="red", capsize=4,
                    label=f"recommended: {advice.learner} (± 2 s.e. of one release, "
                          "within 0-100 %)")  # fmt: skip
    ax.set_xlabel("gamma (larger: less privacy)")
    ax.set_ylabel("test accuracy on original records (%)")
    ax.set_title("Accuracy of releases mined by the best learner, per (gamma, N)")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    try:
        with atomic_path(path, suffix=".png") as tmp:
            fig.savefig(tmp, dpi=110, bbox_inches="tight")
    finally:
        plt.close(fig)
