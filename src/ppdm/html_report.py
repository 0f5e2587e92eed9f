"""A release's privacy report as one self-contained HTML page, for the owner to hand on.

The page holds everything a reviewer needs to judge a release without running ppdm:
the privacy figures of every attribute (the same numbers as ``ppdm report``), the
guarantee in plain words, what the release leaves unprotected or leaks, the estimated
original distributions with their standard errors, and the audit's verdict if one was
run. It needs no network: the style sheet is inline, the figures are PNG data URIs,
and there are no scripts or external fonts.

References
----------
Dowd, Xu & Zhang, Sec. 5 (gamma, rho1-to-rho2, entropy) and Eq. (1) (estimation);
Kang, Theorem 1 (error bound); Evfimievski, Gehrke & Srikant (2003) (amplification).
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import math
import os
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from .exceptions import ParameterError
from .privacy import RHO1_LEVELS, rho2_from_gamma
from .validation import visible

__all__ = ["estimate_figure", "render_html_report", "write_estimate_plots", "write_html_report"]

_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 1100px; color: #222; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.6em; }
h3 { font-size: 1.05em; margin-bottom: 0.3em; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.6em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.55em; text-align: right; }
th { background: #f2f2f2; }
td.name, th.name { text-align: left; font-family: monospace; }
tr.unperturbed td { color: #a00; background: #fff4f4; }
.meta td { text-align: left; border: none; padding: 0.1em 0.8em 0.1em 0; }
.box { border-left: 4px solid #2a6; background: #f3fbf6; padding: 0.5em 0.9em; margin: 0.8em 0; }
.warn { border-left-color: #c60; background: #fff8ef; }
.bad { border-left-color: #c00; background: #fff2f2; }
pre { background: #f7f7f7; padding: 0.7em; overflow-x: auto; font-size: 0.8em; }
pre.wrap { white-space: pre-wrap; overflow-wrap: anywhere; }
img { max-width: 100%; }
.small { color: #666; font-size: 0.85em; }
"""


def _e(value) -> str:
    """Any value as escaped HTML text."""
    return html.escape(str(value), quote=True)


def _num(x, spec: str) -> str:
    if x is None:
        return "&infin;"
    if isinstance(x, float) and math.isinf(x):
        return "&infin;"
    return format(x, spec)


def _png_uri(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _privacy_table(rep: dict) -> str:
    if rep.get("method") == "additive":
        head = ["attribute", "noise", "scale", "variance", "95% interval", "of range"]
        head += ["bounds from data"]
        rows = []
        for a in rep["attributes"]:
            if not a["perturbed"]:
                rows.append(_unperturbed_row(a["name"], len(head)))
                continue
            cells = [
                _e(a["noise"]),
                f"{a['scale']:.4g}",
                f"{a['variance']:.4g}",
                f"{a['interval_width_95']:.4g}",
                f"{a['relative_interval_width_95']:.0%}",
                "YES" if a["bounds_from_data"] else "no",
            ]
            rows.append(_row(a["name"], cells))
        return _table(head, rows)
    head = ["attribute", "N", "gamma", "gamma realised", "epsilon = ln gamma"]
    head += [f"rho2 at rho1 = {r}" for r in RHO1_LEVELS]
    head += ["entropy H(M) (bits)", "K", "Kang's bound", "bounds from data"]
    rows = []
    for a in rep["attributes"]:
        if not a["perturbed"]:
            rows.append(_unperturbed_row(a["name"], len(head)))
            continue
        cells = [
            str(a["N"]),
            _num(a["gamma"], ".4g"),
            _num(a.get("gamma_realised"), ".10g"),
            _num(a["epsilon"], ".3f"),
            *[f"{a['rho2'][str(r)]:.3f}" for r in RHO1_LEVELS],
            f"{a['entropy_bits']:.3f}",
            str(a["K"]),
            _num(a.get("kang_bound"), ".4f"),
            "YES" if a["bounds_from_data"] else "no",
        ]
        rows.append(_row(a["name"], cells))
    return _table(head, rows)


def _row(name: str, cells: list[str], cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    tds = "".join(f"<td>{c}</td>" for c in cells)
    return f'<tr{attr}><td class="name">{_e(name)}</td>{tds}</tr>'


def _unperturbed_row(name: str, width: int) -> str:
    return (
        f'<tr class="unperturbed"><td class="name">{_e(name)}</td>'
        f'<td colspan="{width - 1}" style="text-align:left">released as is: no protection</td></tr>'
    )


def _table(head: list[str], rows: list[str]) -> str:
    ths = "".join(
        f'<th class="name">{_e(h)}</th>' if i == 0 else f"<th>{_e(h)}</th>"
        for i, h in enumerate(head)
    )
    return f"<table><thead><tr>{ths}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _guarantee(rep: dict) -> str:
    """The guarantee in plain words (the same statement as the text report)."""
    if rep.get("method") == "additive":
        return (
            '<div class="box warn">Additive noise (Agrawal &amp; Srikant 2000): privacy is the '
            "width of the interval that holds the original value with 95 % confidence. There is "
            "<b>no</b> rho1-to-rho2 guarantee (the amplification of additive noise is "
            "unbounded), and correlated attributes can be recovered by spectral filtering.</div>"
        )
    worst = rep["worst_gamma"]
    if worst is None:
        return (
            '<div class="box bad"><b>No guarantee</b> for at least one attribute: a matrix with '
            "zero entries has infinite amplification and can reveal values exactly.</div>"
        )
    if not any(a["perturbed"] for a in rep["attributes"]):
        return '<div class="box bad"><b>No guarantee</b>: no attribute is perturbed.</div>'
    rho2 = rho2_from_gamma(worst, 0.1)
    return (
        f'<div class="box">Every perturbed attribute is at most <b>{worst:.4g}-amplifying</b> '
        f"(epsilon = {math.log(worst):.3f}). In plain words: whatever someone believed about "
        "a record before seeing the release, if a property of one of these attributes had "
        f"probability below 10 % for them, after seeing the release it has probability below "
        f"<b>{rho2:.1%}</b>. This holds for every record and every property, whatever the "
        "attacker knows about the other records, but only for the perturbed attributes.</div>"
    )


def _per_record(rep: dict) -> str:
    """The guarantee of a whole record: total epsilon, the amplification of a property of
    k attributes, the unprotected columns and the budget (as ``ppdm report`` says it)."""
    rec = rep.get("per_record")
    if rec is None:
        return ""
    m, copies = rec["attributes"], rec["copies"]
    each = f", {copies} copies each" if copies > 1 else ""
    rows = []
    if rep.get("method") == "additive":
        rows.append(("epsilon per record", "none: additive noise has no amplification bound"))
    elif rec["epsilon"] is None:
        rows.append(("epsilon per record", "&infin; (an attribute has no finite amplification)"))
    else:
        rows.append(("epsilon per record", f"{rec['epsilon']:.1f}"))
        for k, amp in rec["amplification"].items():
            size = f"all {m}" if k == "all" else k
            rows.append((f"amplification of a property of {size} attribute(s)", _num(amp, ".4g")))
    if rec["unprotected"]:
        names = ", ".join(f"<code>{_e(n)}</code>" for n in rec["unprotected"])
        rows.append(("unprotected (released as is or revealed)", names))
    body = "".join(f'<tr><td style="text-align:left">{k}</td><td>{v}</td></tr>' for k, v in rows)
    budget = ""
    if rec["budget"] is not None:
        word = "within" if rec["within_budget"] else "<b>over</b>"
        budget = f"<p>The release is {word} the per-record budget <b>{rec['budget']:.4g}</b>.</p>"
    cls = "box" if rec.get("epsilon") is not None and not rec["unprotected"] else "box warn"
    return (
        f'<div class="{cls}"><b>Per record</b> ({m} perturbed attribute{"" if m == 1 else "s"}'
        f"{each}): a record's attributes are perturbed independently, so its epsilon is the "
        "sum of theirs, and a property of k attributes can be amplified up to the product of "
        f"their gammas.<table>{body}</table>{budget}</div>"
    )


def _exposure(rep: dict) -> str:
    parts = []
    unperturbed = rep.get("unperturbed", [])
    unchanged = rep.get("unchanged", [])
    revealed = rep.get("revealed_by_copies", [])
    bare = [n for n in rep.get("unprotected", []) if n not in unperturbed + unchanged + revealed]
    if unperturbed:
        names = ", ".join(f"<code>{_e(n)}</code>" for n in unperturbed)
        parts.append(
            f'<div class="box bad"><b>Released as is (no protection):</b> {names}. Anyone '
            "holding the release reads these columns exactly as in the original table.</div>"
        )
    copies = _e(rep.get("copies"))
    for names, why in (
        (bare, "a matrix with infinite amplification (identity, permutation, zero entries) "
               "can reveal values exactly."),
        (unchanged, "a matrix so close to the identity that it almost never changes a value "
                    "(below one in a billion) releases these columns as they are."),
        (revealed, f"the {copies} copies of a record, taken together, reveal its value "
                   "(another value is the most likely one given them with probability below "
                   "one in a billion)."),
    ):  # fmt: skip
        if names:
            listed = ", ".join(f"<code>{_e(n)}</code>" for n in names)
            parts.append(f'<div class="box bad"><b>Unprotected:</b> {listed}: {why}</div>')
    if rep.get("leaks"):
        items = "".join(f"<li>{_e(x)}</li>" for x in rep["leaks"])
        parts.append(
            '<div class="box warn"><b>Leaks:</b> the release spec, which is published with the '
            f"data, reveals values read off the original data:<ul>{items}</ul>"
            "Give the bounds or values yourself (<code>--bounds</code>, <code>--spec</code>) "
            "to avoid this.</div>"
        )
    if not parts:
        parts.append(
            '<div class="box">Every column is perturbed with a finite amplification, and the '
            "spec reveals nothing read off the data.</div>"
        )
    return "".join(parts)


def estimate_bars(
    ax, x, e, title: str, *, grey: str = "0.7", fontsize: int = 9, legend: bool = True
) -> None:
    """Released and estimated counts of one estimate as paired bars, with ±1 s.e.

    The lower whisker stops at 0: a count cannot be negative. Shared by the HTML report
    and ``ppdm estimate --plot``. Each series of bars is one collection, the whiskers
    another and their caps one line of markers, whatever the number of values, none of
    them rescaling the axes: the cost is the panel's text, not its bars. The legend (unless ``legend=False``: a figure of panels alike shows it
    once) sits in the upper right corner, above the tallest bar and whisker (the y axis
    leaves room for it), so no search for a free place is needed.

    References
    ----------
    Dowd, Xu & Zhang, Eq. (1) (the estimate) and Sec. 4 (its standard error).
    """
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.lines import Line2D

    x = np.asarray(x, dtype=float)
    released = np.asarray(e.perturbed, dtype=float)
    counts = np.asarray(e.counts, dtype=float)
    err = np.asarray(e.stderr, dtype=float)
    for left, heights, color, label in (
        (x - 0.4, released, grey, "released (perturbed)"),
        (x, counts, "tab:blue", f"estimated original ({e.method}) ± 1 s.e."),
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
    tops = tops[np.isfinite(tops)]
    top = float(tops.max()) if tops.size else 0.0
    ax.set_xlim(x.min() - 0.5 - 0.05 * max(len(x), 1), x.max() + 0.5 + 0.05 * max(len(x), 1))
    ax.set_ylim(0, top * (_LEGEND_ROOM if legend else _HEADROOM) if top > 0 else 1.0)
    # a fixed y: matplotlib would otherwise lay the x axis out to check the title clears it
    ax.set_title(title, fontsize=fontsize, y=1.0)
    ax.set_ylabel("records")
    if legend:
        ax.legend(fontsize=7, loc="upper right")


# the y axis reaches this multiple of the tallest bar or whisker: the two-line legend
# (about a fifth of a panel) then sits above the data
_LEGEND_ROOM = 1.32
# without a legend, the tallest whisker's cap stays clear of the frame
_HEADROOM = 1.05


def _bar_outlines(left: np.ndarray, heights: np.ndarray, width: float) -> np.ndarray:
    """Corners of bars ``[left, left + width] x [0, height]``, shape (n, 4, 2)."""
    v = np.zeros((len(left), 4, 2))
    v[:, 0, 0] = v[:, 1, 0] = left
    v[:, 2, 0] = v[:, 3, 0] = left + width
    v[:, 1, 1] = v[:, 2, 1] = heights
    return v


def estimate_figure(r, *, dpi: float = 110, reuse=None):
    """One figure for one attribute's estimate: a panel for all records, then one per class.

    The layout is computed from the sizes of the longest labels (no ``tight_layout``,
    which lays every tick label out an extra time): each panel is 1.75 in high, with
    room above for its title. The panels share their x axis: every panel marks the
    values, and the bottom one names them (rotated by 60 degrees past six values), and
    the top one holds the legend, so a figure's text does not grow with its classes
    times its values.

    Parameters
    ----------
    r : ppdm.pipeline.AttributeEstimate
    dpi : float
        The resolution the figure is measured for.
    reuse : matplotlib.figure.Figure, optional
        A figure this function returned before: if it has as many panels and the same
        dpi, its content is removed and this estimate drawn into it (making the axes
        costs more than drawing them), else a new figure is made. The image is the same
        either way, if matplotlib's settings are those ``reuse`` was made under.

    Returns
    -------
    matplotlib.figure.Figure

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
    step = _label_step(len(x))
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
    tops = [np.nanmax(np.r_[e.perturbed, np.asarray(e.counts) + e.stderr, 1.0]) for _, e in panels]
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


def _label_step(n: int) -> int:
    """Name every ``step``-th of ``n`` values, so at most :data:`MAX_NAMED_VALUES`."""
    return max(1, math.ceil(n / MAX_NAMED_VALUES))


def _clear_panels(fig) -> None:
    """Remove what :func:`estimate_figure` drew on the axes of ``fig``, keeping the axes."""
    for ax in fig.axes:
        for artist in [*ax.collections, *ax.lines, *ax.texts]:
            artist.remove()
        if ax.get_legend() is not None:
            ax.get_legend().remove()


def _plain_ticks(ax, which: str, values, labels, span: float, rotation: float = 0) -> None:
    """Ticks of ``ax``'s ``which`` axis as plain artists, where matplotlib puts them.

    The marks are one collection labelled ``_value marks`` (x) or ``_count marks`` (y),
    and each label a text labelled ``_value names`` or ``_count names``; the axis
    itself gets no tick objects. ``values`` and ``labels`` give the x ticks (``labels``
    ``None``: marks only); the y ticks are those of matplotlib's locator and formatter
    for the axis's limits, with the formatter's offset (``1e6``) above the axis.
    ``span`` is the axes' length along the other axis, in inches.
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
    else:
        segments, transform = [((0.0, v), (-length, v)) for v in values], ax.get_yaxis_transform()
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
    if which == "x":
        place, va, ha = ax.get_xaxis_text1_transform(size + pad)
        fontsize = 7
    else:
        place, va, ha = ax.get_yaxis_text1_transform(size + pad)
        fontsize = rcParams["ytick.labelsize"]
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
        A process that draws figures beside this one (:func:`plot_helper`): it takes
        the figures from the last one down while this process draws from the first one
        up, so each is drawn once, by whichever gets to it first; a figure the helper
        fails to draw is drawn here. The bytes are the same either way.
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
    handed = {}
    if helper is not None:
        for i in range(len(results) - 1, 0, -1):  # the helper starts from the last one
            handed[i] = helper.submit(_draw_estimate_plot, results[i], paths[i], dpi)
            if progress:
                handed[i].add_done_callback(
                    lambda f: f.cancelled() or f.exception() is not None or progress(1)
                )
    try:
        if meanwhile:
            meanwhile()
        for i, (r, path) in enumerate(zip(results, paths)):
            if i not in handed or handed[i].cancel():  # not taken by the helper
                _draw_estimate_plot(r, path, dpi)
                if progress:
                    progress(1)
        for i, f in handed.items():
            if not f.cancelled() and f.exception() is not None:
                _draw_estimate_plot(results[i], paths[i], dpi)  # raises here if it must
                if progress:
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

    The name with every character but letters, digits, ``-`` and ``_`` replaced by
    ``_`` (``_`` for an empty name); a name longer than 120 bytes keeps its first 40
    characters and ends in a hash of the whole name. Stems that would meet, letter case
    aside (as on a file system that ignores it), get ``-2``, ``-3``, ... in order, so no
    figure overwrites another.
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
    """A second process for :func:`write_estimate_plots`, started now.

    It is a fresh interpreter (never a fork of this process, whose reader threads a fork
    could leave holding a lock) that loads matplotlib at once, so its start-up overlaps
    whatever this process does before the figures are drawn. Shut it down with
    ``helper.shutdown(cancel_futures=True)``.

    Returns
    -------
    concurrent.futures.ProcessPoolExecutor
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

    from .quick_exit import flush_and_end

    # at the end, once the pool has let it go, the helper ends without unloading its
    # modules (the command waits for it): registered after its interpreter's own exit
    # functions, this runs before them; they have nothing to finish for a process that
    # only wrote PNG files (multiprocessing ran its own when the worker returned)
    atexit.register(flush_and_end, 0)


def _load_matplotlib() -> None:
    import matplotlib.backends.backend_agg  # noqa: F401
    import matplotlib.figure  # noqa: F401


def _estimate_figure(r) -> str:
    """PNG data URI: perturbed and estimated counts with ±1 s.e., and the estimates by class."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.arange(len(r.labels))
    panels = 2 if r.by_class else 1
    width = min(max(6.0, 0.4 * len(x) + 2.5), 11.5)
    with plt.rc_context({"text.parse_math": False}):
        fig, axes = plt.subplots(panels, 1, figsize=(width, 3.0 * panels + 0.6), squeeze=False)
        ax = axes[0, 0]
        name = visible(r.name)
        estimate_bars(ax, x, r.overall, f"{name}: all records", grey="0.72", fontsize=10)
        if r.by_class:
            ax = axes[1, 0]
            k = len(r.by_class)
            step = 0.8 / k
            for i, (c, ec) in enumerate(r.by_class.items()):
                cc = np.asarray(ec.counts, dtype=float)
                ce = np.asarray(ec.stderr, dtype=float)
                ax.errorbar(
                    x - 0.4 + step * (i + 0.5),
                    cc,
                    yerr=np.vstack([np.minimum(ce, np.clip(cc, 0, None)), ce]),
                    fmt="o",
                    ms=3,
                    capsize=2,
                    label=f"class {visible(c)}",
                )
            ax.set_title(f"{name}: estimated original by class (± 1 s.e.)", fontsize=10)
            ax.set_ylabel("records")
            ax.set_ylim(bottom=0)
            ax.legend(fontsize=7, ncol=min(k, 5))
        for ax in axes[:, 0]:
            step = _label_step(len(x))
            ax.set_xticks(
                x[::step],
                [visible(lab) for lab in r.labels[::step]],
                rotation=60 if len(x) > 6 else 0,
                fontsize=7,
            )
        fig.tight_layout()
        uri = _png_uri(fig)
        plt.close(fig)
    return uri


def _estimates_section(results) -> str:
    out = []
    for r in results:
        e = r.overall
        rows = [
            f"<tr><td class='name'>{_e(lab)}</td><td>{y:.0f}</td><td>{c:.1f}</td><td>{s:.1f}</td></tr>"
            for lab, y, c, s in zip(r.labels, e.perturbed, e.counts, e.stderr)
        ]
        table = (
            "<details><summary>numbers</summary><table><thead><tr><th class='name'>value</th>"
            "<th>released</th><th>estimated</th><th>standard error</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></details>"
        )
        out.append(
            f"<h3>{_e(r.name)}</h3>"
            f'<img alt="estimated distribution of {_e(r.name)}" src="{_estimate_figure(r)}">'
            f"{table}"
        )
    return "".join(out)


def _audit_verdict(audit) -> str:
    from .attacks.audit import plain_verdict

    data = audit.to_dict() if hasattr(audit, "to_dict") else audit
    word, _, rest = plain_verdict(data).partition(": ")
    css = "box" if data["passed"] else "box bad"
    return f'<div class="{css}"><b>Audit {_e(word)}:</b> {_e(rest)}</div>'


def _audit_section(audit, audit_text: str) -> str:
    return _audit_verdict(audit) + _audit_body(audit_text)


def _audit_body(text: str) -> str:
    """The audit's text as the page shows it: its tables (a line starting ``attribute``
    and the lines under it up to a blank one, columns two spaces apart) as HTML tables,
    the rest as wrapped preformatted text, so nothing runs past the page's edge."""
    out: list[str] = []
    prose: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("attribute "):
            j = i + 1
            while j < len(lines) and lines[j].strip():
                j += 1
            table = _aligned_table(lines[i:j])
            if table is not None:
                if prose:
                    out.append(f'<pre class="wrap">{_e(chr(10).join(prose))}</pre>')
                    prose = []
                out.append(table)
                i = j
                continue
        prose.append(lines[i])
        i += 1
    if prose:
        out.append(f'<pre class="wrap">{_e(chr(10).join(prose))}</pre>')
    return "".join(out)


def _aligned_table(lines: list[str]) -> str | None:
    """An HTML table of text columns two or more spaces apart; None when a row does not
    split into as many cells as the header (a name holding two spaces, say)."""
    rows = [re.split(r" {2,}", line.strip()) for line in lines]
    if len(rows) < 2 or any(len(r) != len(rows[0]) for r in rows):
        return None
    head = "".join(
        f'<th class="name">{_e(c)}</th>' if k == 0 else f"<th>{_e(c)}</th>"
        for k, c in enumerate(rows[0])
    )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="name">{_e(c)}</td>' if k == 0 else f"<td>{_e(c)}</td>"
            for k, c in enumerate(r)
        )
        + "</tr>"
        for r in rows[1:]
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def render_html_report(
    rep: dict,
    *,
    estimates: Sequence | None = None,
    audit=None,
    audit_text: str | None = None,
    source: str = "",
    estimate_note: str | None = None,
    today: _dt.date | None = None,
) -> str:
    """The HTML page of a privacy report, with estimates and audit if given.

    Parameters
    ----------
    rep : dict
        :func:`ppdm.report.privacy_report` of the release.
    estimates : sequence of AttributeEstimate, optional
        :func:`ppdm.pipeline.estimate_release` of the release.
    audit : dict or report object, optional
        :func:`ppdm.attacks.audit.audit_release`'s result; only its ``passed`` is read.
    audit_text : str, optional
        :func:`ppdm.attacks.audit.format_audit` of ``audit``.
    source : str
        The release directory or spec file, as named by the owner.
    estimate_note : str, optional
        Shown instead of the estimates (why there are none).
    today : datetime.date, optional
        The report's date (default: today, UTC).

    Returns
    -------
    str
        A complete HTML document with no external references.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5; Kang, Theorem 1.
    """
    from . import __version__

    day = today or _dt.datetime.now(_dt.timezone.utc).date()
    cls = rep.get("class_attribute")
    class_text = (
        "none"
        if cls is None
        else f"<code>{_e(cls)}</code> ("
        + ("perturbed" if rep.get("class_perturbed") else "released unperturbed")
        + ")"
    )
    method = (
        "additive noise"
        if rep.get("method") == "additive"
        else "random substitution (gamma-diagonal matrices)"
    )
    meta = [
        ("release", f"<code>{_e(source)}</code>" if source else "-"),
        ("records (n)", _e(rep["n_records"])),
        ("perturbation", method),
        ("class attribute", class_text),
        ("copies per record", _e(rep.get("copies", 1))),
        ("report date", day.isoformat()),
        ("ppdm version", _e(__version__)),
    ]
    meta_html = "".join(f"<tr><td><b>{k}</b></td><td>{v}</td></tr>" for k, v in meta)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>ppdm privacy report: {_e(Path(source).name if source else 'release')}</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>Privacy report of a perturbed release</h1>",
        '<p class="small">Made with ppdm, a toolkit for privacy-preserving data mining by '
        "randomized perturbation. Every figure below is recomputed from the release's "
        "perturbation matrices.</p>",
        f'<table class="meta">{meta_html}</table>',
        "<h2>Guarantee</h2>",
        _guarantee(rep),
        _per_record(rep),
        _audit_verdict(audit) if audit is not None else "",
        "<h2>Unprotected columns and leaks</h2>",
        _exposure(rep),
        "<h2>Privacy figures per attribute</h2>",
        _privacy_table(rep),
        _legend(rep),
        "<h2>Estimated original distributions</h2>",
    ]
    if estimates:
        parts.append(
            "<p>What a data miner can learn from the release: the original distribution of each "
            "perturbed attribute, estimated from the released counts, with ± 1 standard error "
            "(grey: the released counts, blue: the estimate).</p>"
        )
        parts.append(_estimates_section(estimates))
    else:
        parts.append(f"<p>{_e(estimate_note or 'No estimates (no release data given).')}</p>")
    parts.append("<h2>Audit</h2>")
    if audit is not None:
        parts.append(
            "<p>The owner attacked the release with the original table at hand and compared "
            "what the attacks recover with what the policy allows.</p>"
        )
        parts.append(_audit_section(audit, audit_text or ""))
    else:
        parts.append(
            "<p>No audit was run for this report (<code>ppdm report DIR --html FILE "
            "--audit-original DATA</code> runs one).</p>"
        )
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _legend(rep: dict) -> str:
    if rep.get("method") == "additive":
        return ""
    return (
        '<p class="small"><b>N</b>: number of values (or bins) of the attribute. '
        "<b>gamma</b>: amplification, the largest ratio between the probabilities of two "
        "original values producing the same released value; <b>gamma realised</b>: that of "
        "the integer sampler actually used (at most gamma). <b>rho2 at rho1</b>: the most a "
        "property of prior probability rho1 can reach after the release. <b>H(M)</b>: "
        "entropy of the channel. <b>Kang's bound</b>: upper bound on the relative error "
        "sigma(X_hat)/||X|| of the raw estimate at this n, with <b>K</b> its constant. "
        "<b>bounds from data</b>: the domain was read off the original data (a leak).</p>"
    )


def write_html_report(
    target: str | os.PathLike,
    path: str | os.PathLike,
    *,
    method: str = "set-scale",
    audit_original: str | os.PathLike | None = None,
    audit_options: dict | None = None,
    today: _dt.date | None = None,
) -> Path:
    """Write the HTML report of a release (or spec) to ``path``, atomically.

    Parameters
    ----------
    target : path
        Release directory, or a spec file (then the page has no estimates and no audit).
    path : path
        The HTML file to write; never an input.
    method : str, default="set-scale"
        Estimation method of the distributions.
    audit_original : path, optional
        The original table: run :func:`ppdm.attacks.audit.audit_release` and include it.
    audit_options : dict, optional
        Keyword arguments of ``audit_release``.
    today : datetime.date, optional

    Returns
    -------
    Path
        ``path``.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5 and Eq. (1); Kang, Theorem 1.
    """
    from .io import atomic_path
    from .release import read_spec
    from .report import privacy_report

    target = Path(target)
    estimates = None
    note = None
    audit = audit_text = None
    if target.is_dir():
        from .pipeline import estimate_release, load_release

        rel = load_release(target)
        spec = rel.spec
        by_class = spec.class_attribute is not None and not spec.class_perturbed
        if spec.perturbed_attributes():
            estimates = estimate_release(rel, method, by_class=by_class)
        else:
            note = "No attribute is perturbed, so there is nothing to estimate."
        if audit_original is not None:
            from .attacks.audit import audit_release, format_audit

            audit = audit_release(rel, audit_original, **(audit_options or {}))
            audit_text = format_audit(audit)
    else:
        if audit_original is not None:
            raise ParameterError(
                f"--audit-original needs a release directory; {str(target)!r} is a spec file"
            )
        spec = read_spec(target)
        note = "This report was made from a spec file alone, so there are no released counts."
    page = render_html_report(
        privacy_report(spec),
        estimates=estimates,
        audit=audit,
        audit_text=audit_text,
        source=str(target),
        estimate_note=note,
        today=today,
    )
    with atomic_path(path) as tmp:
        Path(tmp).write_text(page, encoding="utf-8")
    return Path(path)
