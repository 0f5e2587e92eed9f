"""The benchmark scripts run end to end at a small size and print what BENCHMARKS.md quotes.

Timings are never asserted; what is checked is that each script finishes, prints a
ratio for every command against its yardstick, and (for the engines) that the bytes
agree.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _run(*args: str) -> str:
    proc = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_io_benchmark_prints_every_command_against_the_round_trip():
    out = _run(str(BENCH / "io.py"), "--rows", "20000", "--formats", "parquet",
               "--partitions", "2")  # fmt: skip
    for command in ("perturb", "estimate", "estimate --by-class --plot", "reconstruct"):
        row = re.search(rf"^parquet\s+{re.escape(command)}\s+([\d.]+)\s+([\d.]+)\s", out, re.M)
        assert row, f"no row for {command!r} in:\n{out}"
        seconds, ratio = map(float, row.groups())
        assert seconds > 0 and ratio > 0
    assert re.search(r"2 partitions, local engine: [\d.]+ s, [\d.]+ x single-stream", out)


def test_dask_scale_benchmark_finds_the_engines_write_the_same_bytes(tmp_path):
    pytest.importorskip("distributed")
    out = _run(str(BENCH / "dask_scale.py"), "--rows", "60000", "--partition-rows", "20000",
               "--workers", "2", "--workdir", str(tmp_path / "scale"))  # fmt: skip
    assert "identical release and reconstruction bytes (local, local-1core, dask): True" in out
    assert re.search(r"Dask \(2 workers\) over local-1core: perturb [\d.]+x", out)


def test_pairs_benchmark_writes_its_tables(tmp_path):
    out = _run(str(BENCH / "pairs_accuracy.py"), "--quick", "--out", str(tmp_path))
    import pandas as pd

    summary = pd.read_csv(tmp_path / "pairs_summary.csv")
    assert {"wisconsin", "synth2"} <= set(summary["set"])
    assert "error_product" in out
    # synth2's salary and commission: commission is zero above a salary of 75,000
    dep = summary[(summary["set"] == "synth2") & summary["dependent"]]
    assert (dep["error_pair"] < dep["error_product"]).all()


def test_oracle_variance_benchmark_matches_the_grr_formula():
    pytest.importorskip("multi_freq_ldpy")
    out = _run(str(BENCH / "oracle_variance.py"), "--quick")
    ratios = [
        float(r) for r in re.findall(r"^\s*\d+\s+\d+\s+\S+\s+\S+\s+\S+\s+\S+\s+(\S+)", out, re.M)
    ]
    assert len(ratios) == 6
    # 50 releases: a sample variance is within ~3 x sqrt(2 / 49) = 61 % of its mean, and the
    # ratio averages k values, so 0.6-1.4 holds with room
    assert all(0.6 < r < 1.4 for r in ratios)


def test_advise_benchmark_measures_advice_paper_and_best_on_fresh_releases(tmp_path):
    import pandas as pd

    out = _run(str(BENCH / "advise.py"), "--quick", "--sets", "wisconsin", "--fresh", "3",
               "--jobs", "1", "--out", str(tmp_path / "advise.csv"))  # fmt: skip
    assert re.search(r"^wisconsin: advice gamma [\d.]+ .* within one s\.e\.: (True|False)", out,
                     re.M), out  # fmt: skip
    row = pd.read_csv(tmp_path / "advise.csv").iloc[0]
    assert row["fresh"] == 3 and row["advice_gamma"] <= 9 and row["best_gamma"] <= 9
    assert row["paper_learner"].startswith("c45 on the global reconstruction")
    assert row["gain"] == pytest.approx(row["advice_accuracy"] - row["paper_accuracy"])
    assert row["gap"] == pytest.approx(row["best_accuracy"] - row["advice_accuracy"])
    assert row["within_one_se"] == (row["gap"] <= row["gap_se"])
    assert 0 < row["majority"] < row["c45_original"] <= 1


def test_mine_coverage_benchmark_scores_the_choice_against_the_best_measured(tmp_path):
    import pandas as pd

    out = _run(str(BENCH / "mine_coverage.py"), "--sets", "wisconsin", "--gammas", "9",
               "--repeats", "2", "--choice-repeats", "2", "--out", str(tmp_path / "cov.csv"),
               "--choice-out", str(tmp_path / "choice.csv"))  # fmt: skip
    choice = pd.read_csv(tmp_path / "choice.csv")
    assert len(choice) == 2
    # the best measured is at least the chosen one's (the chosen is a candidate too)
    assert (choice.best_measured >= choice.chosen_measured).all()
    gap = choice.best_measured - choice.chosen_measured
    assert (choice.within == (gap <= choice.stderr)).all()
    before = choice.best_measured - choice.before_measured
    assert (choice.before_within == (before <= choice.before_stderr)).all()
    assert (choice.best_measured >= choice.before_measured).all()
    # the chosen against itself has no paired difference
    same = choice.best == choice.chosen
    assert (choice.paired_z[same] == 0).all()
    assert (choice.best_fold_stderr[same] == choice.chosen_fold_stderr[same]).all()
    assert re.search(r"of the \d+ misses: the best's fold s\.e\. above 1/sqrt\(12\) \d+", out)
