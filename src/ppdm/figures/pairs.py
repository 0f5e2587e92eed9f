"""The figure of a two-way table: released counts beside the estimated original ones, on
one colour scale (the standard errors are in ``estimate --json``).

References
----------
Ma & Sivakumar, Sec. 4 (joint estimates through the Kronecker product).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..validation import visible

__all__ = ["pair_figure", "write_pair_plots"]

#: At most this many values are named along an axis (every k-th one).
MAX_NAMED = 30


def _ticks(ax, axis: str, labels: Sequence[str]) -> None:
    step = max(1, -(-len(labels) // MAX_NAMED))
    at = np.arange(len(labels))[::step]
    names = [visible(s) for s in labels][::step]
    if axis == "x":
        turned = len(at) > 6 or sum(len(n) for n in names) > 36
        ax.set_xticks(
            at, names, rotation=45 if turned else 0, ha="right" if turned else "center",
            rotation_mode="anchor", fontsize=7,
        )  # fmt: skip
    else:
        ax.set_yticks(at, names, fontsize=7)


def pair_figure(est, *, dpi: float = 110):
    """Two heat maps of one :class:`ppdm.pairs.PairEstimate`: released, then estimated."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    a, b = (visible(n) for n in est.names)
    na, nb = est.perturbed.shape
    side = min(6.0, max(2.6, 0.22 * max(na, nb) + 1.2))
    fig = Figure(figsize=(2 * side + 1.6, side + 1.4), dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2, sharey=True)
    top = float(max(est.perturbed.max(), np.clip(est.counts, 0, None).max(), 1.0))
    image = None
    panels = (
        ("released counts", est.perturbed),
        (f"estimated original ({est.method})", est.counts),
    )
    for ax, (title, table) in zip(axes, panels):
        image = ax.imshow(
            np.clip(table, 0, None), vmin=0, vmax=top, cmap="viridis", aspect="auto",
            origin="lower", interpolation="nearest",
        )  # fmt: skip
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(b, fontsize=9)
        _ticks(ax, "x", est.labels[1])
    axes[0].set_ylabel(a, fontsize=9)
    _ticks(axes[0], "y", est.labels[0])
    fig.colorbar(image, ax=list(axes), label="records per cell", shrink=0.9)
    fig.suptitle(f"{a} x {b}: released beside estimated (one colour scale)", fontsize=10)
    return fig


def write_pair_plots(estimates, directory: str | os.PathLike, *, dpi: float = 110) -> list[Path]:
    """One PNG per pair, ``A__x__B.png`` (names made file-safe), into ``directory``."""
    from .estimates import plot_file_stems

    stems = plot_file_stems([f"{e.names[0]}__x__{e.names[1]}" for e in estimates])
    paths = [Path(directory) / f"{stem}.png" for stem in stems]
    for est, path in zip(estimates, paths):
        pair_figure(est, dpi=dpi).savefig(path, dpi=dpi, metadata={"Software": None})
    return paths
