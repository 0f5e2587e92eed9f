"""Figures of the app, drawn with matplotlib (Agg) into PNG files of the session."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

__all__ = ["LIBRARY_PLOT_SCALE", "MAX_PANELS", "histograms", "png_width"]

#: The library's plots (the audit's :func:`ppdm.figures.audit.plot_audit`, the
#: advisor's :func:`ppdm.figures.advice.plot_advice`) are shown at this multiple of their size
#: in pixels, in a box that scrolls: their smallest text, 6 pt at 110 dpi (9.2 px),
#: shows at 11 px. At 80 % of the card's width the audit's showed at 6 px.
LIBRARY_PLOT_SCALE = 1.2

#: The app's figures show every attribute up to this many (the histograms showed the first
#: 9 of wine's 13 without a word).
MAX_PANELS = 60


def png_width(path: str) -> int:
    """The width in pixels of a PNG file (its IHDR chunk)."""
    with open(path, "rb") as fh:
        head = fh.read(24)
    return int.from_bytes(head[16:20], "big")


def _ticks(ax, labels: list[str]) -> None:
    step = max(1, len(labels) // 10)
    idx = np.arange(0, len(labels), step)
    ax.set_xticks(idx, [labels[i] for i in idx], rotation=45, ha="right", fontsize=7)


#: Beyond this many values a panel draws each series as one step line (and its error
#: bars as one collection) instead of a bar per value: the bars are thinner than a pixel
#: there, and at N = 65,536 matplotlib's bar per value held the app's server for 80 s.
MAX_BARS = 200


def _series(ax, x, heights, width: float, offset: float, *, label: str, color=None, yerr=None):
    """One series of counts: bars side by side, or a step line when there are many."""
    heights = np.asarray(heights, dtype=float)
    if len(x) <= MAX_BARS:
        extra = (
            {} if yerr is None else {"yerr": yerr, "capsize": 2, "error_kw": {"elinewidth": 0.8}}
        )
        ax.bar(x + offset, heights, width, label=label, color=color, **extra)
        return
    (line,) = ax.plot(x, heights, drawstyle="steps-mid", label=label, color=color, lw=0.8)
    if yerr is not None:
        ax.vlines(x, heights - yerr, heights + yerr, color=line.get_color(), linewidth=0.5)


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
