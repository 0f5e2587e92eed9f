import json

import numpy as np
import pandas as pd
import pytest

from ppdm.pipeline import load_release

pytest.importorskip("dask.distributed")


def test_cli_runs_the_pipeline_on_the_dask_engine(run_cli, tmp_path, cluster):
    # every command goes to the session's cluster instead of starting one of its own
    sched = ("--engine", "dask", "--scheduler", cluster.scheduler.address)
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {"x": rng.integers(0, 8, 3000), "y": rng.normal(size=3000), "c": rng.integers(0, 2, 3000)}
    )
    src = tmp_path / "in.parquet"
    df.to_parquet(src, index=False)
    code, _, err = run_cli(
        "perturb", src, "--out", tmp_path / "rel", "--class", "c", "--seed", "1", *sched
    )
    assert code == 0, err
    # the release is a function of the seed and the data, whatever the engine
    code, _, err = run_cli(
        "perturb", src, "--out", tmp_path / "local", "--class", "c", "--seed", "1"
    )
    assert code == 0, err
    dask_rel, local_rel = load_release(tmp_path / "rel"), load_release(tmp_path / "local")
    assert dask_rel.spec.attributes == local_rel.spec.attributes
    pd.testing.assert_frame_equal(dask_rel.frame(), local_rel.frame())
    code, out, err = run_cli("estimate", tmp_path / "rel", *sched, "--json")
    assert code == 0, err
    code, local, err = run_cli("estimate", tmp_path / "local", "--json")
    assert code == 0, err
    assert json.loads(out)["attributes"] == json.loads(local)["attributes"]
    code, _, err = run_cli(
        "reconstruct",
        tmp_path / "rel",
        "--out",
        tmp_path / "rec",
        *sched,
        "--seed",
        "2",
    )
    assert code == 0, err
    rec = pd.read_parquet(tmp_path / "rec")
    assert len(rec) == 3000 and rec["c"].tolist() == df["c"].tolist()
    code, _, err = run_cli("estimate", tmp_path / "rel", "--engine", "spark")
    assert code == 2 and "Invalid value for '--engine'" in err and "'dask'" in err


def test_a_failing_task_on_its_own_cluster_is_one_line_naming_the_file(tmp_path):
    # ppdm's own LocalCluster: the workers do not add their "Compute Failed" log and
    # traceback to the command's one-line error
    import subprocess
    import sys

    parts = tmp_path / "parts"
    parts.mkdir()
    df = pd.DataFrame({"x": np.arange(40) % 7, "c": np.arange(40) % 2})
    df.iloc[:20].to_csv(parts / "a.csv", index=False)
    df.iloc[20:].rename(columns={"x": "y"}).to_csv(parts / "b.csv", index=False)
    proc = subprocess.run(
        [sys.executable, "-m", "ppdm", "perturb", str(parts), "--out", str(tmp_path / "rel")]
        + ["--class", "c", "--engine", "dask"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert "b.csv" in lines[0] and "lacks 'x'" in lines[0] and "has 'y' in addition" in lines[0]
    assert not (tmp_path / "rel").exists()
