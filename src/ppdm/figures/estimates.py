"""Estimated distributions as figures: released and estimated counts side by side, with
error bars of :data:`ppdm.figures.SE_BARS` standard errors.

References
----------
Dowd, Xu & Zhang, Eq. (1) (the estimate) and Sec. 4 (its standard error).
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ..validation import visible
from . import SE_BARS, se_label

__all__ = [
    "estimate_bars",
    "estimate_figure",
    "plot_file_stems",
    "plot_helper",
    "write_estimate_plots",
]


def estimate_bars(ax, x, e, title: str, *, legend: bool = True) -> None:
    """Released and estimated counts of one estimate as paired bars, with ± 2 s.e.

    The lower whisker stops at 0 (a count cannot be negative); the axes' limits are set
    here, with room above the data for the legend.

    References
    ----------
    Dowd, Xu & Zhang, Eq. (1) (the estimate) and Sec. 4 (its standard error).
    """
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.lines import Line2D

    x = np.asarray(x, dtype=float)
    released = np.asarray(e.perturbed, dtype=float)
    counts = np.asarray(e.counts, dtype=float)
    err = SE_BARS * np.asarray(e.stderr, dtype=float)
    for left, heights, color, label in (
        (x - 0.4, released, "0.7", "released (perturbed)"),
        (x, counts, "tab:blue", f"estimated original ({e.method}) {se_label()}"),
    ):
        ax.add_collection(
            PolyCollection(
                _bar_outlines(left, np.clip(heights, 0, None), 0.4),
                facecolors=color,
                edgecolors="none",
                label=label,
            ),
            autolim=False,  # the limits are set below
        )
    # the whiskers one collection, their caps one line of markers (what errorbar draws,
    # without its containers and autoscaling)
    mid = x + 0.2
    low, high = counts - np.minimum(err, np.clip(counts, 0, None)), counts + err
    whiskers = np.stack([np.column_stack([mid, low]), np.column_stack([mid, high])], axis=1)
    ax.add_collection(
        LineCollection(whiskers, colors="black", linewidths=1, label="_whiskers"), autolim=False
    )
    ax.add_line(
        Line2D(np.r_[mid, mid], np.r_[low, high], linestyle="none", marker="_", markersize=4,
               markeredgewidth=1, markeredgecolor="black", label="_whisker caps")
    )  # fmt: skip
    tops = np.concatenate([released, counts + err, [0.0]])
    top = float(tops[np.isfinite(tops)].max())
    ax.set_xlim(x.min() - 0.5 - 0.05 * max(len(x), 1), x.max() + 0.5 + 0.05 * max(len(x), 1))
    ax.set_ylim(0, top * (_LEGEND_ROOM if legend else _HEADROOM) if top > 0 else 1.0)
    # a fixed y: matplotlib would otherwise lay the x axis out to check the title clears it
    ax.set_title(title, fontsize=9, y=1.0)
    ax.set_ylabel("records")
    if legend:
        ax.legend(fontsize=7, loc="upper right")


# the y axis reaches this multiple of the tallest bar or whisker: with the two-line legend
# (about a fifth of a panel) above the data, or without it
_LEGEND_ROOM, _HEADROOM = 1.32, 1.05


def _bar_outlines(left: np.ndarray, heights: np.ndarray, width: float) -> np.ndarray:
    """Corners of bars ``[left, left + width] x [0, height]``, shape (n, 4, 2)."""
    v = np.zeros((len(left), 4, 2))
    v[:, 0, 0] = v[:, 1, 0] = left
    v[:, 2, 0] = v[:, 3, 0] = left + width
    v[:, 1, 1] = v[:, 2, 1] = heights
    return v


def estimate_figure(r, *, dpi: float = 110, reuse=None):
    """One figure for one attribute's estimate: a panel for all records, then one per class.

    Laid out from the sizes of the longest labels (no ``tight_layout``). ``reuse``, a figure
    this function returned before with as many panels and the same dpi, is cleared and drawn
    into (making axes costs more than drawing them); the image is the same.

    References
    ----------
    Dowd, Xu & Zhang, Eq. (1); Agrawal & Srikant (2000), Sec. 4 (by-class estimates).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties

    panels = [("all records", r.overall)]
    if r.by_class:
        panels += [(f"class {visible(c)}", e) for c, e in r.by_class.items()]
    labels = [visible(lab) for lab in r.labels]
    name = visible(r.name)
    x = np.arange(len(labels))
    rotation = 60 if len(x) > 6 else 0
    # at most MAX_NAMED_VALUES values are named (every step-th): a domain of thousands of
    # values would make a figure hundreds of inches wide
    step = max(1, math.ceil(len(x) / MAX_NAMED_VALUES))
    named, labels = x[::step], labels[::step]
    width = max(5.5, 0.35 * len(named) + 2)
    fresh = reuse is None or len(reuse.axes) != len(panels) or reuse.dpi != dpi
    fig = Figure(dpi=dpi) if fresh else reuse
    if fresh:
        FigureCanvasAgg(fig)
    else:
        _clear_panels(fig)
    renderer = fig.canvas.get_renderer()

    def extent(text: str, size: float) -> tuple[float, float]:
        w, h, _ = renderer.get_text_width_height_descent(
            text, FontProperties(size=size), ismath=False
        )
        return w / dpi, h / dpi

    tick_w, tick_h = extent(max(labels, key=len) if labels else "0", 7)
    angle = np.deg2rad(rotation)
    below = tick_w * np.sin(angle) + tick_h * np.cos(angle) + 0.12  # ticks and pads
    tops = [
        np.nanmax(np.r_[e.perturbed, np.asarray(e.counts) + SE_BARS * np.asarray(e.stderr), 1.0])
        for _, e in panels
    ]
    # y tick labels: whole counts up to 6 digits; from 1e6 on, matplotlib writes "1.25"
    # and a "1e6" above the axis
    digits = max(len(f"{t * _LEGEND_ROOM:.0f}") if t * _LEGEND_ROOM < 1e6 else 4 for t in tops)
    left = extent("0" * digits, 10)[0] + 0.45  # tick labels, "records", pads
    title, axes_h, xlabel, marks = 0.3, 1.75, 0.3, 0.1
    height = len(panels) * (title + axes_h + marks) + below - marks + xlabel + 0.1
    fig.set_size_inches(width, height)
    y = height - 0.1
    kept = fig.axes
    for i in range(len(panels)):
        y -= title + axes_h
        rect = (left / width, y / height, (width - left - 0.15) / width, axes_h / height)
        if fresh:
            fig.add_axes(rect)
        else:
            kept[i].set_position(rect)
        y -= marks
    axes = fig.axes
    axes_w = width - left - 0.15
    for i, (ax, (panel, e)) in enumerate(zip(axes, panels)):
        estimate_bars(ax, x, e, f"{name}: {panel}", legend=i == 0)
        # ticks drawn as plain artists (marks one collection, labels one text each):
        # matplotlib's tick objects cost more to make than to draw
        _plain_ticks(ax, "x", named, labels if ax is axes[-1] else None, axes_h, rotation)
        _plain_ticks(ax, "y", None, None, axes_w)
    # the axis labels where the layout above leaves room for them: matplotlib would
    # otherwise measure every tick label of the axis to place its label
    for ax in axes:  # "records" ends 0.26 in from the left edge, clear of the tick labels
        ax.yaxis.set_label_coords((0.26 - left) / axes_w, 0.5)
    axes[-1].set_xlabel(f"{name} ({r.value_kind})")
    axes[-1].xaxis.set_label_coords(0.5, -below / axes_h)
    return fig


#: A figure names at most this many values of an attribute (every k-th beyond it).
MAX_NAMED_VALUES = 100


def _clear_panels(fig) -> None:
    """Remove what :func:`estimate_figure` drew on the axes of ``fig``, keeping the axes."""
    for ax in fig.axes:
        for artist in [*ax.collections, *ax.lines, *ax.texts]:
            artist.remove()
        if ax.get_legend() is not None:
            ax.get_legend().remove()


def _plain_ticks(ax, which: str, values, labels, span: float, rotation: float = 0) -> None:
    """Ticks of ``ax``'s ``which`` axis as plain artists, where matplotlib puts them.

    ``values``/``labels`` give the x ticks (``labels`` None: marks only); the y ticks are
    matplotlib's own. ``span`` is the axes' length along the other axis, in inches.
    """
    from matplotlib import rcParams
    from matplotlib.collections import LineCollection
    from matplotlib.text import Text
    from matplotlib.ticker import AutoLocator, NullFormatter, NullLocator, ScalarFormatter
    from matplotlib.transforms import ScaledTranslation

    axis = ax.xaxis if which == "x" else ax.yaxis
    kind = "value" if which == "x" else "count"
    if which == "y":  # the linear axis's own locator and formatter, bound to this axis
        lo, hi = ax.get_ylim()
        locator, formatter = AutoLocator(), ScalarFormatter()
        locator.set_axis(axis)
        formatter.set_axis(axis)
        locs = np.asarray(locator(), dtype=float)
        texts = formatter.format_ticks(locs)
        offset = formatter.get_offset()
        tol = 1e-10 * (hi - lo)
        shown = (locs >= lo - tol) & (locs <= hi + tol)
        values, labels = locs[shown], [t for t, keep in zip(texts, shown) if keep]
    axis.set_major_locator(NullLocator())
    axis.set_major_formatter(NullFormatter())  # nor an offset of its own
    size, pad = rcParams[f"{which}tick.major.size"], rcParams[f"{which}tick.major.pad"]
    length = size / 72 / span  # points -> axes fraction
    if which == "x":
        segments, transform = [((v, 0.0), (v, -length)) for v in values], ax.get_xaxis_transform()
        (place, va, ha), fontsize = ax.get_xaxis_text1_transform(size + pad), 7
    else:
        segments, transform = [((0.0, v), (-length, v)) for v in values], ax.get_yaxis_transform()
        place, va, ha = ax.get_yaxis_text1_transform(size + pad)
        fontsize = rcParams["ytick.labelsize"]
    ax.add_collection(
        LineCollection(
            segments,
            colors=rcParams[f"{which}tick.color"],
            linewidths=rcParams[f"{which}tick.major.width"],
            transform=transform,
            clip_on=False,
            label=f"_{kind} marks",
        )
    )
    if labels is None:
        return
    for v, text in zip(values, labels):
        point = (v, 0) if which == "x" else (0, v)
        ax.add_artist(
            Text(*point, text, transform=place, va=va, ha=ha, rotation=rotation,
                 fontsize=fontsize, clip_on=False, label=f"_{kind} names")
        )  # fmt: skip
    if which == "y" and offset:  # where matplotlib writes it: above the axis, left
        above = ax.transAxes + ScaledTranslation(0, 3 / 72, ax.figure.dpi_scale_trans)
        ax.add_artist(
            Text(0, 1, offset, transform=above, va="baseline", ha="left",
                 fontsize=fontsize, clip_on=False, label="_count offset")
        )  # fmt: skip


def write_estimate_plots(
    results,
    directory: str | os.PathLike,
    *,
    dpi: float = 110,
    helper=None,
    meanwhile: Callable[[], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[Path]:
    """One PNG per attribute (see :func:`estimate_figure`), named after the attribute
    (:func:`plot_file_stems`).

    Parameters
    ----------
    results : list of ppdm.pipeline.AttributeEstimate
    directory : path-like
        An existing directory.
    dpi : float
    helper : concurrent.futures.Executor, optional
        A process (:func:`plot_helper`) drawing from the last figure down while this one
        draws from the first up; what it fails to draw is drawn here. Same bytes.
    meanwhile : callable, optional
        Called once the helper has the figures and before this process draws any (the
        command line prints its tables there).
    progress : callable, optional
        Called with 1 as each figure is written (from a helper's thread too).

    Returns
    -------
    list of Path
        The files written, in the order of ``results``.
    """
    results = list(results)
    paths = [Path(directory) / f"{stem}.png" for stem in plot_file_stems([r.name for r in results])]
    progress = progress or (lambda n: None)
    handed = {}
    for i in range(len(results) - 1, 0, -1) if helper is not None else ():
        handed[i] = helper.submit(_draw_estimate_plot, results[i], paths[i], dpi)  # from the last
        handed[i].add_done_callback(
            lambda f: f.cancelled() or f.exception() is not None or progress(1)
        )
    try:
        if meanwhile:
            meanwhile()
        for i, (r, path) in enumerate(zip(results, paths)):
            if i not in handed or handed[i].cancel():  # not taken by the helper
                _draw_estimate_plot(r, path, dpi)
                progress(1)
        for i, f in handed.items():
            if not f.cancelled() and f.exception() is not None:
                _draw_estimate_plot(results[i], paths[i], dpi)  # raises here if it must
                progress(1)
    finally:
        for f in handed.values():
            f.cancel()
        for f in handed.values():  # nothing is written after this returns
            if not f.cancelled():
                f.exception()
    return paths


#: a figure's file name keeps at most this many bytes of its attribute's name
_STEM_BYTES = 120


def plot_file_stems(names: Sequence[str]) -> list[str]:
    """A distinct file name stem for the figure of each attribute in ``names``.

    Characters but letters, digits, ``-`` and ``_`` become ``_``; a name over 120 bytes keeps
    40 characters and a hash; stems equal but for letter case get ``-2``, ``-3``, ...
    """
    import hashlib

    stems: list[str] = []
    taken: set[str] = set()
    for name in names:
        stem = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name) or "_"
        if len(stem.encode("utf-8")) > _STEM_BYTES:
            stem = f"{stem[:40]}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:12]}"
        unique, k = stem, 2
        while unique.casefold() in taken:
            unique, k = f"{stem}-{k}", k + 1
        taken.add(unique.casefold())
        stems.append(unique)
    return stems


# the last figure this thread drew and matplotlib's settings then, drawn into again by
# the next one of as many panels under the same settings
_last_figure = threading.local()


def _draw_estimate_plot(r, path: Path, dpi: float) -> None:
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False}):
        settings = dict.copy(matplotlib.rcParams)
        last = getattr(_last_figure, "figure", None)
        if getattr(_last_figure, "settings", None) != settings:
            last = None  # its axes were made under other settings
        _last_figure.figure = None  # not kept if drawing or saving fails half way
        fig = estimate_figure(r, dpi=dpi, reuse=last)
        fig.savefig(path, dpi=dpi)
        _last_figure.figure, _last_figure.settings = fig, settings


def plot_helper():
    """A second process for :func:`write_estimate_plots`, started now and loading matplotlib.

    Spawned, never forked (a fork could inherit a reader thread's lock); shut it down with
    ``helper.shutdown(cancel_futures=True)``.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_helper_started,
    )
    pool.submit(_load_matplotlib)
    return pool


def _helper_started() -> None:
    import atexit

    from ..quick_exit import flush_and_end

    # at the end the helper ends without unloading its modules (the command waits for it):
    # registered last, this runs before the interpreter's own exit functions, which have
    # nothing to finish for a process that only wrote PNG files
    atexit.register(flush_and_end, 0)


def _load_matplotlib() -> None:
    import matplotlib.backends.backend_agg  # noqa: F401
    import matplotlib.figure  # noqa: F401
