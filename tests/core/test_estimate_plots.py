"""``ppdm estimate --plot``: one figure per attribute, laid out without overlaps."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.collections import LineCollection  # noqa: E402

from ppdm.estimate import Estimate  # noqa: E402
from ppdm.html_report import estimate_figure, write_estimate_plots  # noqa: E402
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
    return AttributeEstimate("income", labels, one(), by_class)


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
    for i, ax in enumerate(axes):
        ticks = [t.get_window_extent(renderer) for t in ax.get_xticklabels()]
        assert len(ticks) == n_values
        title = ax.title.get_window_extent(renderer)
        ylab = ax.yaxis.label.get_window_extent(renderer)
        for box in [*ticks, title, ylab]:
            assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= width and box.y1 <= height
        if i + 1 < len(axes):
            below = axes[i + 1].title.get_window_extent(renderer)
            assert min(b.y0 for b in ticks) > below.y1
    xlabel = axes[-1].xaxis.label.get_window_extent(renderer)
    assert xlabel.y0 >= 0
    assert xlabel.y1 < min(t.get_window_extent(renderer).y0 for t in axes[-1].get_xticklabels())


def test_legend_sits_above_every_bar_and_whisker():
    # a tall last bar: a legend placed over the data would hide it
    r = _attribute(20, 1)
    fig = estimate_figure(r)
    renderer = _display_boxes(fig)
    for ax, e in zip(fig.axes, [r.overall, *r.by_class.values()]):
        legend = ax.get_legend().get_window_extent(renderer)
        top = max(np.max(e.perturbed), np.max(e.counts + e.stderr))
        _, y_top = ax.transData.transform((0, top))
        assert legend.y0 > y_top


def test_whiskers_stop_at_zero_and_bars_match_counts():
    r = _attribute(8, 0)
    fig = estimate_figure(r)
    ax = fig.axes[0]
    assert ax.get_ylim()[0] == 0
    whiskers = [c for c in ax.collections if isinstance(c, LineCollection)]
    lows = [min(seg[:, 1].min() for seg in c.get_segments()) for c in whiskers]
    assert min(lows) == 0.0  # the zero count's whisker is clipped, not drawn below 0
    bars = [c for c in ax.collections if c.get_label().startswith("estimated")]
    heights = [p.vertices[:, 1].max() for p in bars[0].get_paths()]
    np.testing.assert_allclose(heights, r.overall.counts)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["released (perturbed)", "estimated original (set-scale) ± 1 s.e."]


def test_write_estimate_plots_names_files_after_attributes(tmp_path):
    a = _attribute(5, 2)
    b = AttributeEstimate("worst area/$x$", a.labels, a.overall, None)
    paths = write_estimate_plots([a, b], tmp_path)
    assert [p.name for p in paths] == ["income.png", "worst_area__x_.png"]
    for p in paths:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
