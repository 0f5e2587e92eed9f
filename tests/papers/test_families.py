"""Every family runs its cells through ``run_cells``: same rows for any mapper or jobs."""

import functools

import pandas as pd
import pytest

from ppdm import cells as runner
from ppdm_papers.cellrun import CellRun


def _backwards(f, cells):
    """A mapper that finishes the cells in reverse order."""
    return [f(c) for c in cells][::-1]


@pytest.fixture
def seen(monkeypatch):
    """Descriptions of the grids sent through ``run_cells``."""
    names = []
    real = runner.run_cells

    def spy(fn, cells, **kw):
        names.append(kw.get("description"))
        return real(fn, cells, **kw)

    monkeypatch.setattr(runner, "run_cells", spy)
    return names


def test_bn_runs_are_cells_and_do_not_depend_on_the_mapper(seen):
    from ppdm_papers.bayesnet import privacy_accuracy_table, table2_table

    small = functools.partial(privacy_accuracy_table, seed=3, quick=True, n=2000)
    one = small()
    pd.testing.assert_frame_equal(one, small(cell_run=CellRun(mapper=_backwards)))
    assert list(dict.fromkeys(one["run"])) == [0, 1, 2]
    t = functools.partial(table2_table, seed=1, quick=True, n=2000)
    pd.testing.assert_frame_equal(t(), t(cell_run=CellRun(mapper=_backwards)))
    assert "bn-privacy-accuracy" in seen and "bn-table2" in seen


def test_attacks_cells_come_back_in_grid_order(seen, tmp_path):
    from ppdm_papers.attacks import run as attacks

    a = attacks(tmp_path / "a", quick=True, cell_run=CellRun(mapper=_backwards))
    # cells come back in the order of the grid, not of completion
    rec = a[a.experiment == "recovery"]
    assert list(dict.fromkeys(zip(rec.dataset, rec.privacy_level))) == [
        ("low-rank", 0.5),
        ("low-rank", 0.9),
        ("wisconsin", 0.5),
        ("wisconsin", 0.9),
    ]
    assert "attacks" in seen
