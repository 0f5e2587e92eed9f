"""The reproduction of Sec. 4: files, tidy rows, reproducibility whatever the number of jobs."""

from __future__ import annotations

import pandas as pd
import pytest

from ppdm.exceptions import ParameterError
from ppdm_papers.cellrun import CellRun
from ppdm_papers.noise import EXPERIMENTS, PAPER_STATEMENTS, run


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("ib")
    return out, run(out, quick=True, seed=0)


def test_files_and_rows(quick):
    out, runs = quick
    for name in ("runs.csv", "summary.csv", "trees.txt", ".png"):
        assert (out / f"islam_brankovic{'_' if name[0] != '.' else ''}{name}").stat().st_size > 0
    assert not [p for p in out.iterdir() if p.name.startswith(".")]
    assert len(runs) == 2 * len(EXPERIMENTS)
    assert set(runs["experiment"]) == set(PAPER_STATEMENTS)
    written = pd.read_csv(out / "islam_brankovic_runs.csv")
    assert written.shape == runs.shape and list(written.columns) == list(runs.columns)
    pd.testing.assert_series_equal(written["rules_kept"], runs["rules_kept"])
    assert (runs["n_train"].isin([300, 350])).all()
    assert (runs["n_original_attributes_kept"] <= runs["n_original_attributes"]).all()
    summary = pd.read_csv(out / "islam_brankovic_summary.csv")
    assert summary["paper"].notna().all()


def test_same_result_with_two_jobs(quick, reproduce_quick):
    # the shared ``ppdm reproduce all --quick --jobs 2`` run: same seed, two workers
    out, _ = quick
    for name in ("runs.csv", "summary.csv", "trees.txt"):
        two = (reproduce_quick / "noise" / f"islam_brankovic_{name}").read_bytes()
        assert two == (out / f"islam_brankovic_{name}").read_bytes(), name


def test_bad_arguments(tmp_path):
    with pytest.raises(ParameterError, match="jobs must be an integer >= 1"):
        run(tmp_path, cell_run=CellRun(jobs=0))
    with pytest.raises(ParameterError, match="seed must be an integer >= 0"):
        run(tmp_path, seed=-1)
