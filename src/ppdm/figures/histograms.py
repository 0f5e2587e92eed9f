"""Histograms of an attribute's original and released counts, side by side."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

__all__ = ["histograms"]


def _ticks(ax, labels: list[str]) -> None:
    step = max(1, len(labels) // 10)
    idx = np.arange(0, len(labels), step)
    ax.set_xticks(idx, [labels[i] for i in idx], rotation=45, ha="right", fontsize=7)


#: Beyond this many values a panel draws each series as one step line instead of a bar
#: per value: the bars are thinner than a pixel there, and at N = 65,536 matplotlib's bar per value held the app's server for 80 s.
MAX_BARS = 200


def _series(ax, x, heights, width: float, offset: float, *, label: str, color=None):
    """One series of counts: bars side by side, or a step line when there are many."""
    if len(x) <= MAX_BARS:
        ax.bar(x + offset, heights, width, label=label, color=color)
    else:
        ax.plot(x, heights, drawstyle="steps-mid", label=label, color=color, lw=0.8)


def histograms(panels: list[dict], path: Path) -> Path:
    """Before/after counts per attribute (``{"name", "labels", "original", "released"}``),
    one bar chart each on a grid of up to 3 columns, saved as a PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = min(len(panels), 3)
    rows = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False)
    for ax, p in zip(axes.flat, panels):
        x = np.arange(len(p["labels"]))
        _series(ax, x, p["original"], 0.4, -0.2, label="original", color="#4c72b0")
        _series(ax, x, p["released"], 0.4, 0.2, label="released", color="#dd8452")
        ax.legend(fontsize=7)
        ax.set_title(p["name"], fontsize=9)
        _ticks(ax, p["labels"])
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
