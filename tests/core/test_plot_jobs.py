"""``write_estimate_plots`` draws with two processes: the same files as with one."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import ppdm.html_report as hr  # noqa: E402
from ppdm.estimate import Estimate  # noqa: E402
from ppdm.pipeline import AttributeEstimate  # noqa: E402

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")


def _results(k: int = 5) -> list[AttributeEstimate]:
    rng = np.random.default_rng(0)
    out = []
    for i in range(k):
        counts = rng.uniform(0, 1e4, 6)
        est = Estimate(
            perturbed=counts * 0.9, counts=counts, stderr=np.full(6, 50.0), method="set-scale"
        )
        out.append(AttributeEstimate(f"a{i}", [str(v) for v in range(6)], est, {"x": est}))
    return out


@needs_fork
def test_two_processes_write_the_same_files(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    a = hr.write_estimate_plots(_results(), one, jobs=1)
    b = hr.write_estimate_plots(_results(), two, jobs=2)
    assert [p.name for p in a] == [p.name for p in b] == [f"a{i}.png" for i in range(5)]
    for p, q in zip(a, b):
        assert p.read_bytes() == q.read_bytes()


@needs_fork
def test_a_failed_drawing_process_is_made_up_for(tmp_path, monkeypatch):
    real = hr._draw_plots
    parent = os.getpid()

    def draw(results, paths, dpi):
        if os.getpid() != parent:  # the forked process fails before drawing
            raise RuntimeError("no drawing here")
        real(results, paths, dpi)

    monkeypatch.setattr(hr, "_draw_plots", draw)
    paths = hr.write_estimate_plots(_results(), tmp_path, jobs=2)
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in paths)


def test_one_process_for_few_figures(tmp_path, monkeypatch):
    forks = []
    monkeypatch.setattr(hr.os, "fork", lambda: forks.append(1) or 0)
    hr.write_estimate_plots(_results(2), tmp_path)
    assert forks == []
