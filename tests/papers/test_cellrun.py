"""``CellRun``: one grid's mapper, jobs, progress, checkpoint and deadline, handed to ``run_cells``."""

import functools
import time

import pandas as pd
import pytest

from ppdm.cells import cell_rng, run_cells
from ppdm.exceptions import ParameterError
from ppdm_papers.cellrun import CellRun, CsvCheckpoint
from ppdm_papers.registry import RunContext

CELLS = [(a, b) for a in ("p", "q") for b in range(3)]


def _cell(cell, *, seed):
    return [{"a": cell[0], "b": cell[1], "x": float(cell_rng(seed, cell).random())}]


def _backwards(f, cells):
    return [f(c) for c in cells][::-1]


@pytest.mark.parametrize("jobs", [0, -1, True, 1.5, "2"])
def test_bad_jobs_are_refused(jobs):
    with pytest.raises(ParameterError, match=r"jobs must be an integer >= 1 \(got "):
        CellRun(jobs=jobs)


def test_run_hands_every_option_to_run_cells(tmp_path):
    fn = functools.partial(_cell, seed=4)
    want = run_cells(fn, CELLS, progress=False)
    pd.testing.assert_frame_equal(CellRun(mapper=_backwards).run(fn, CELLS, "t"), want)
    # order="cells": the rows in the order of the keys given, not sorted
    got = CellRun().run(fn, CELLS[::-1], "t", order="cells")
    assert list(zip(got["a"], got["b"])) == CELLS[::-1]
    # the checkpoint receives every finished cell
    ckpt = CsvCheckpoint(tmp_path / "c.csv", ["a", "b"])
    pd.testing.assert_frame_equal(CellRun(checkpoint=ckpt).run(fn, CELLS, "t"), want)
    assert ckpt.done() == set(CELLS)
    # a deadline already passed: the run stops after the first cell
    late = CellRun(deadline=time.monotonic() - 1.0).run(fn, CELLS, "t", order="cells")
    assert len(late) == 1


def test_context_builds_the_cell_run(tmp_path):
    ctx = RunContext(out=tmp_path, jobs=2, mapper=_backwards, progress=False)
    ckpt = CsvCheckpoint(tmp_path / "c.csv", ["a", "b"])
    run = ctx.cell_run(ckpt, 12.5)
    assert run == CellRun(jobs=2, mapper=_backwards, progress=False, checkpoint=ckpt, deadline=12.5)
    assert ctx.cell_run() == CellRun(jobs=2, mapper=_backwards, progress=False)
    assert ctx.deadline() is None
    before = time.monotonic()
    deadline = RunContext(out=tmp_path, options={"max_minutes": 2}).deadline()
    assert before + 120.0 <= deadline <= time.monotonic() + 120.0
