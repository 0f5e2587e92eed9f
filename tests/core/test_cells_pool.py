"""Inside ``shared_pools`` the grids of a run share their workers, through early stops
and failures; outside, each grid has its own."""

from __future__ import annotations

import contextlib
import os
import time

import pytest

from ppdm.cells import local_mapper, shared_pools


def _pid(cell: tuple) -> int:
    time.sleep(0.02)  # long enough for both workers to take cells
    return os.getpid()


def _fail_on_two(cell: tuple) -> int:
    if cell[0] == 2:
        raise RuntimeError("cell 2 failed")
    return cell[0]


def _two_grids() -> tuple[set, set]:
    first = set(local_mapper(2)(_pid, [(i,) for i in range(8)]))
    second = set(local_mapper(2)(_pid, [(i,) for i in range(8)]))
    assert os.getpid() not in first | second
    return first, second


def test_grids_of_a_run_share_the_workers():
    with shared_pools():
        first, second = _two_grids()
    assert len(first | second) <= 2  # the same 2 worker processes, not 2 new ones per grid


def test_outside_a_run_every_grid_has_its_own_workers():
    first, second = _two_grids()
    assert not first & second


@pytest.mark.parametrize("shared", [False, True])
def test_an_early_stop_leaves_the_pool_usable(shared):
    cells = [(i,) for i in range(20)]
    with shared_pools() if shared else contextlib.nullcontext():
        stream = local_mapper(2)(_pid, cells)
        next(stream)
        stream.close()  # the consumer stops: pending cells are dropped
        assert len(list(local_mapper(2)(_pid, cells))) == len(cells)


@pytest.mark.parametrize("shared", [False, True])
def test_a_failed_cell_is_raised_and_the_next_grid_runs(shared):
    with shared_pools() if shared else contextlib.nullcontext():
        with pytest.raises(RuntimeError, match="cell 2 failed"):
            list(local_mapper(2)(_fail_on_two, [(i,) for i in range(6)]))
        assert sorted(local_mapper(2)(_fail_on_two, [(0,), (1,), (3,)])) == [0, 1, 3]
