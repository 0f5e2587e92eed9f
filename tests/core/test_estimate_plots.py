"""``ppdm estimate --plot``: one figure per attribute, laid out without overlaps."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.collections import LineCollection  # noqa: E402

from ppdm.estimate import Estimate  # noqa: E402
from ppdm.figures.estimates import estimate_figure, write_estimate_plots  # noqa: E402
from ppdm.pipeline import AttributeEstimate  # noqa: E402


def _estimate(perturbed, counts, stderr) -> Estimate:
    return Estimate(
        perturbed=np.asarray(perturbed, dtype=float),
        counts=np.asarray(counts, dtype=float),
        stderr=np.asarray(stderr, dtype=float),
        method="set-scale",
    )


def _attribute(n_values: int, n_classes: int, scale: float = 1e5) -> AttributeEstimate:
    rng = np.random.default_rng(n_values)
    labels = [f"[{i * 1234.5:.2f}, {(i + 1) * 1234.5:.2f})" for i in range(n_values)]

    def one():
        counts = rng.uniform(0, scale, n_values)
        counts[0] = 0.0  # a zero count: its lower whisker must stop at 0
        return _estimate(counts * 0.9 + scale * 0.05, counts, np.full(n_values, scale * 0.02))

    by_class = {str(c): one() for c in range(n_classes)} or None
    return AttributeEstimate("income", labels, one(), by_class, binned=True)


def _texts(ax, label: str) -> list:
    return [t for t in ax.texts if t.get_label() == label]


def _display_boxes(fig):
    fig.canvas.draw()
    return fig.canvas.get_renderer()


@pytest.mark.parametrize("n_values,n_classes", [(3, 0), (20, 2), (60, 5)])
def test_panels_titles_and_tick_labels_do_not_overlap(n_values, n_classes):
    fig = estimate_figure(_attribute(n_values, n_classes))
    renderer = _display_boxes(fig)
    axes = fig.axes
    assert len(axes) == 1 + n_classes
    width, height = fig.bbox.width, fig.bbox.height
    bottom = axes[-1]
    names = _texts(bottom, "_value names")
    assert [t.get_text() for t in names] == _attribute(n_values, n_classes).labels
    ticks = [t.get_window_extent(renderer) for t in names]  # the bottom panel names the values
    for i, ax in enumerate(axes):
        title = ax.title.get_window_extent(renderer)
        ylab = ax.yaxis.label.get_window_extent(renderer)
        counts = [t.get_window_extent(renderer) for t in _texts(ax, "_count names")]
        assert len(counts) >= 3  # the counts are named on every panel, left of the axes
        assert max(c.x1 for c in counts) < ax.bbox.x0 and min(c.x0 for c in counts) > ylab.x1
        for box in [*ticks, *counts, title, ylab]:
            assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= width and box.y1 <= height
        assert ax.get_xticklabels() == [] and ax.get_yticklabels() == []  # no tick objects
        if ax is not bottom:  # the panels above mark the same values without naming them
            assert _texts(ax, "_value names") == []
            (marks,) = [c for c in ax.collections if c.get_label() == "_value marks"]
            segments = marks.get_segments()
            np.testing.assert_allclose([seg[0, 0] for seg in segments], np.arange(n_values))
            low = min(ax.transAxes.transform((0, seg[1, 1]))[1] for seg in segments)
            below = axes[i + 1].title.get_window_extent(renderer)
            assert low > below.y1  # the marks clear the next panel's title
            assert ax.get_xlim() == bottom.get_xlim()
    xlabel = bottom.xaxis.label.get_window_extent(renderer)
    assert xlabel.y0 >= 0
    assert xlabel.y1 < min(t.y0 for t in ticks)


def test_legend_sits_above_every_bar_and_whisker_of_the_top_panel_only():
    # a tall last bar: a legend placed over the data would hide it
    r = _attribute(20, 3)
    fig = estimate_figure(r)
    renderer = _display_boxes(fig)
    panels = [r.overall, *r.by_class.values()]
    legend = fig.axes[0].get_legend().get_window_extent(renderer)
    top = max(np.max(r.overall.perturbed), np.max(r.overall.counts + r.overall.stderr))
    _, y_top = fig.axes[0].transData.transform((0, top))
    assert legend.y0 > y_top
    for ax, e in zip(fig.axes[1:], panels[1:]):
        assert ax.get_legend() is None
        assert ax.get_ylim()[1] > max(np.max(e.perturbed), np.max(e.counts + e.stderr))


@pytest.mark.parametrize("scale", [3.0, 1e5, 4e7])
def test_counts_are_named_as_matplotlib_would(scale):
    # the y ticks are plain artists: matplotlib's locator and formatter choose them
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = estimate_figure(_attribute(6, 1, scale=scale))
    fig.canvas.draw()
    for ax in fig.axes:
        names = [t.get_text() for t in _texts(ax, "_count names")]
        # the same axes drawn by matplotlib itself
        ref = Figure(figsize=fig.get_size_inches(), dpi=fig.dpi).add_axes(ax.get_position())
        ref.set_ylim(ax.get_ylim())
        FigureCanvasAgg(ref.figure).draw()
        lo, hi = ax.get_ylim()  # matplotlib draws the ticks in the view only
        shown = [t for t in ref.get_yticklabels() if lo <= t.get_position()[1] <= hi]
        assert names == [t.get_text() for t in shown]
        offset = [t.get_text() for t in _texts(ax, "_count offset")]
        assert offset == ([ref.yaxis.get_offset_text().get_text()] if scale > 1e6 else [])
        marks = [c for c in ax.collections if c.get_label() == "_count marks"]
        np.testing.assert_allclose(
            [seg[0, 1] for seg in marks[0].get_segments()], [t.get_position()[1] for t in shown]
        )


def test_whiskers_stop_at_zero_and_bars_match_counts():
    r = _attribute(8, 0)
    fig = estimate_figure(r)
    ax = fig.axes[0]
    assert ax.get_ylim()[0] == 0
    whiskers = [
        c
        for c in ax.collections
        if isinstance(c, LineCollection) and not c.get_label().endswith(" marks")
    ]
    lows = [min(seg[:, 1].min() for seg in c.get_segments()) for c in whiskers]
    assert min(lows) == 0.0  # the zero count's whisker is clipped, not drawn below 0
    bars = [c for c in ax.collections if c.get_label().startswith("estimated")]
    heights = [p.vertices[:, 1].max() for p in bars[0].get_paths()]
    np.testing.assert_allclose(heights, r.overall.counts)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["released (perturbed)", "estimated original (set-scale) ± 2 s.e."]


def _png(fig) -> bytes:
    import io

    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=110)
    return out.getvalue()


def test_a_figure_drawn_into_again_shows_nothing_of_the_one_before():
    # the command draws each figure into the axes of the one before (as many panels):
    # the image must be the one a new figure gives, whatever was drawn there before
    small = _attribute(3, 2, scale=3.0)
    big = AttributeEstimate("worst area", *_parts(_attribute(20, 2, scale=4e7)))
    fresh = estimate_figure(small)
    want = _png(fresh)
    fig = estimate_figure(big)  # rotated labels, a 1e7 offset, other sizes and titles
    _png(fig)
    again = estimate_figure(small, reuse=fig)
    assert again is fig
    assert _png(again) == want
    assert [len(ax.texts) for ax in again.axes] == [len(ax.texts) for ax in fresh.axes]
    assert [len(ax.collections) for ax in again.axes] == [len(ax.collections) for ax in fresh.axes]
    # another number of panels or another dpi: a new figure
    assert estimate_figure(_attribute(3, 0), reuse=fig) is not fig
    assert estimate_figure(small, reuse=fig, dpi=72) is not fig


def _parts(r: AttributeEstimate):
    return r.labels, r.overall, r.by_class, r.binned


def test_write_estimate_plots_names_files_after_attributes(tmp_path):
    a = _attribute(5, 2)
    b = AttributeEstimate("worst area/$x$", a.labels, a.overall, None)
    paths = write_estimate_plots([a, b], tmp_path)
    assert [p.name for p in paths] == ["income.png", "worst_area__x_.png"]
    for p in paths:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


class _Done:
    """A future of a helper that has already drawn (or failed to draw) its figure."""

    def __init__(self, error=None):
        self.error = error

    def cancel(self):
        return False

    def cancelled(self):
        return False

    def exception(self):
        return self.error

    def add_done_callback(self, fn):
        fn(self)


class _FailingHelper:
    """Takes every figure and fails to draw it, as a helper whose process died."""

    def __init__(self):
        self.taken = []

    def submit(self, fn, r, path, dpi):
        self.taken.append(r.name)
        return _Done(RuntimeError("helper died"))


def _named(n: int, n_classes: int = 1):
    base = _attribute(6, n_classes)
    return [AttributeEstimate(f"a{i}", base.labels, base.overall, base.by_class) for i in range(n)]


def test_a_helper_process_draws_the_same_bytes(tmp_path):
    from ppdm.figures.estimates import plot_helper

    results = _named(5)
    (tmp_path / "alone").mkdir()
    alone = write_estimate_plots(results, tmp_path / "alone")
    helper = plot_helper()
    try:
        (tmp_path / "helped").mkdir()
        calls = []
        helped = write_estimate_plots(
            results,
            tmp_path / "helped",
            helper=helper,
            meanwhile=lambda: calls.append("meanwhile"),
            progress=calls.append,
        )
    finally:
        helper.shutdown(cancel_futures=True)
    assert [p.name for p in helped] == [p.name for p in alone]
    for a, b in zip(alone, helped):
        assert a.read_bytes() == b.read_bytes()
    assert calls[0] == "meanwhile" and calls[1:] == [1] * len(results)


def test_figures_a_helper_fails_to_draw_are_drawn_here(tmp_path):
    helper = _FailingHelper()
    calls = []
    paths = write_estimate_plots(
        _named(4),
        tmp_path,
        helper=helper,
        meanwhile=lambda: calls.append(len(list(tmp_path.iterdir()))),
    )
    assert helper.taken == ["a3", "a2", "a1"]  # from the last one down
    assert calls == [0]  # nothing was drawn before meanwhile
    for p in paths:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_estimate_plot_with_many_panels_draws_on_a_helper_with_the_same_bytes(
    tmp_path, monkeypatch
):
    import pandas as pd
    from typer.testing import CliRunner

    from ppdm.cli import app
    from ppdm.figures import estimates as html_report
    from ppdm.pipeline import estimate_release, make_release, spare_core

    rng = np.random.default_rng(3)
    table = pd.DataFrame({f"x{j}": rng.uniform(0, 10, 400) for j in range(8)})
    table["cls"] = rng.choice(["a", "b", "c", "d"], 400)
    bounds = {f"x{j}": (0.0, 10.0) for j in range(8)}
    rel = tmp_path / "rel"
    with pytest.warns(UserWarning):
        make_release(table, rel, class_attribute="cls", bounds=bounds, n_bins=6, random_state=1)
    started = []
    real = html_report.plot_helper

    def spy():
        started.append(1)
        return real()

    monkeypatch.setattr(html_report, "plot_helper", spy)
    r = CliRunner().invoke(app, ["estimate", str(rel), "--by-class", "--plot", str(tmp_path / "p")])
    assert r.exit_code == 0, r.output
    assert "x7: class d" in r.output  # the tables, printed while the helper drew
    assert started == ([1] if spare_core() else [])  # 8 attributes x (1 + 4 classes) panels
    (tmp_path / "alone").mkdir()
    alone = write_estimate_plots(estimate_release(rel, by_class=True), tmp_path / "alone")
    assert len(alone) == 8
    for p in alone:
        assert (tmp_path / "p" / p.name).read_bytes() == p.read_bytes()


def test_estimate_prints_data_as_it_is_and_names_values_not_bins(tmp_path):
    """Categories that read as rich markup, an emoji code or a bin are printed as they
    are, under "value" (the domain says what a label names, not its first character)."""
    import json

    import pandas as pd
    from typer.testing import CliRunner

    from ppdm.cli import app
    from ppdm.pipeline import make_release

    rng = np.random.default_rng(5)
    odd = ["[red]", "[b]", ":thumbs_up:", "[1, 2)"]
    table = pd.DataFrame({"colour": rng.choice(odd, 300), "x": rng.uniform(0, 1, 300)})
    table["y"] = rng.choice(["n", "y"], 300)
    with pytest.warns(UserWarning):
        make_release(table, tmp_path / "rel", class_attribute="y", bounds={"x": (0, 1)},
                     random_state=2)  # fmt: skip
    r = CliRunner().invoke(app, ["estimate", str(tmp_path / "rel")])
    assert r.exit_code == 0, r.output
    colour = r.output.split("x (set-scale)")[0]
    for value in odd:
        assert f"│ {value}" in colour
    assert "┃ value" in colour and "┃ bin" in r.output.split("x (set-scale)")[1]
    r = CliRunner().invoke(app, ["estimate", str(tmp_path / "rel"), "--json"])
    by_name = {a["name"]: a for a in json.loads(r.output)["attributes"]}
    assert sorted(by_name["colour"]["values"]) == sorted(odd) and "bins" in by_name["x"]


def test_figures_of_names_that_meet_as_file_names_are_all_written(tmp_path):
    from ppdm.figures.estimates import plot_file_stems

    a = _attribute(4, 0)
    names = ["a b", "a_b", "A_B", "x" * 300, "", "é" * 100]
    stems = plot_file_stems(names)
    assert stems[:3] == ["a_b", "a_b-2", "A_B-3"]  # letter case aside, as on macOS
    assert stems[3].startswith("x" * 40 + "-") and len(stems[3]) == 53
    assert stems[4] == "_"
    assert len(stems[5].encode()) < 200  # 100 two-byte letters: cut, with a hash
    assert len({s.casefold() for s in stems}) == len(names)
    results = [AttributeEstimate(n, a.labels, a.overall, None, binned=True) for n in names]
    paths = write_estimate_plots(results, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{s}.png" for s in stems)
    assert [p.stem for p in paths] == stems


def test_control_characters_in_names_and_values_are_shown_as_escapes(recwarn):
    # a tab or a line break in a name, a value or a class: no glyph in the font, and a
    # second line a one-line title or tick label has no room for
    a = _attribute(3, 2)
    r = AttributeEstimate(
        "age\nyears",
        ["x\ty", "line1\nline2", "z"],
        a.overall,
        {"good\nclass": a.overall, "bad\tclass": a.overall},
    )
    fig = estimate_figure(r)
    fig.canvas.draw()
    texts = [t.get_text() for ax in fig.axes for t in (ax.title, *ax.texts)]
    texts.append(fig.axes[-1].xaxis.label.get_text())
    assert all(t.isprintable() for t in texts), texts
    assert "age\\nyears: class good\\nclass" in texts and "line1\\nline2" in texts
    assert not [w for w in recwarn if "Glyph" in str(w.message)]


def test_figures_drawn_under_other_matplotlib_settings_are_new(tmp_path):
    import matplotlib

    r = _attribute(4, 1)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    (plain,) = write_estimate_plots([r], tmp_path / "a")
    with matplotlib.rc_context({"axes.edgecolor": "red", "axes.titlesize": 14}):
        (styled,) = write_estimate_plots([r], tmp_path / "b")
        (fresh,) = write_estimate_plots([r], tmp_path / "c")  # drawn into the one before
    assert styled.read_bytes() != plain.read_bytes()
    assert fresh.read_bytes() == styled.read_bytes()
    with matplotlib.rc_context({"axes.edgecolor": "red", "axes.titlesize": 14}):
        styled_alone = estimate_figure(r)
        styled_alone.canvas.draw()
    assert styled.read_bytes() == _png_of(styled_alone)


def _png_of(fig) -> bytes:
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False}):
        return _png(fig)


def test_a_domain_of_thousands_of_values_names_every_kth_and_stays_a_page_wide():
    # N = 65536 made a figure 22,940 inches wide (the app's release page froze for minutes)
    r = _attribute(5000, 1, scale=10.0)
    fig = estimate_figure(r)
    names = _texts(fig.axes[-1], "_value names")
    assert 50 <= len(names) <= 100
    assert [t.get_text() for t in names] == r.labels[:: 5000 // len(names)][: len(names)]
    assert fig.get_size_inches()[0] <= 0.35 * 100 + 2
    bars = [c for c in fig.axes[0].collections if c.get_label().startswith("estimated")]
    assert len(bars[0].get_paths()) == 5000  # every value still has its bar
    assert len(_png(fig)) > 0
