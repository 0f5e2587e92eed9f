"""End to end: ``ppdm reproduce all --quick`` and the sanity of what it writes."""

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ppdm.cli import app
from ppdm_papers.accuracy import accuracy_cell
from ppdm_papers.data import TABLE1_DATASETS

LEARNER = "cart-entropy"  # the learner of the shared run (QUICK_LEARNER, tests/conftest.py)


@pytest.fixture
def quick(reproduce_quick):
    """The shared ``ppdm reproduce all --quick`` output (see tests/conftest.py)."""
    return reproduce_quick


def test_outputs_exist(quick):
    for name in [
        "fig2.csv",
        "fig2_summary.csv",
        "fig2.png",
        "fig2_kang.png",
        "fig3.csv",
        "fig3.png",
        "table1.csv",
        "fig4.csv",
        "fig4_mean.csv",
        "fig6_bands.csv",
        "fig4.png",
        "fig5.png",
        "fig6.png",
        "kang.csv",
        "kang.png",
        "beyond.csv",
        "beyond_summary.csv",
        "beyond.png",
        "attacks.csv",
        "attacks.png",
        "bn/bn-table2.csv",
        "bn/bn-privacy-accuracy.csv",
        "bn/bn-sample-size.csv",
        "noise/islam_brankovic_runs.csv",
        "claims.csv",
    ]:
        assert (quick / name).stat().st_size > 0, name
    stamp = json.loads((quick / "timings" / "reproduce-all-quick.json").read_text())
    assert stamp["learner"] == LEARNER
    from ppdm_papers.cli import ALL
    from ppdm_papers.registry import names

    assert set(stamp["seconds"]) == set(ALL) == set(names())


def test_fig2_shape_and_fix_never_hurts_on_average(quick):
    t = pd.read_csv(quick / "fig2.csv")
    assert len(t) == 2 * 16 * 2 * 4  # distributions x cells x reps x methods
    s = pd.read_csv(quick / "fig2_summary.csv")
    assert (s["E_set-scale"] <= s["E_inverse"] + 1e-12).all()
    assert s["E_set-scale"].mean() < s["E_inverse"].mean()
    # the exact expected error never exceeds Kang's bound
    assert (s["exact_rel_l2"] <= s["kang_bound"] + 1e-12).all()


def test_fig3_entropy_monotone(quick):
    t = pd.read_csv(quick / "fig3.csv")
    assert len(t) == 240
    for _, part in t.groupby("gamma"):
        assert np.all(np.diff(part.sort_values("N")["entropy"]) > 0)
    for _, part in t.groupby("N"):
        assert np.all(np.diff(part.sort_values("gamma")["entropy"]) < 0)


def test_fig4_shape_and_original_beats_reconstructed(quick):
    t = pd.read_csv(quick / "fig4.csv")
    assert len(t) == 7 * 4 * 2  # data sets x cells x modes (one repetition)
    assert set(t["dataset"]) == set(TABLE1_DATASETS)
    assert t["accuracy"].between(0, 1).all()
    orig = pd.read_csv(quick / "table1.csv").set_index("dataset")["accuracy"] / 100
    mean = t.groupby("dataset")["accuracy"].mean()
    assert (orig[mean.index] >= mean).mean() >= 6 / 7
    assert orig.mean() >= mean.mean()
    bands = pd.read_csv(quick / "fig6_bands.csv")
    assert len(bands) == 4 * 2 and (bands["n_datasets"] == 7).all()


def test_fig4_cells_independent_of_jobs(quick):
    """Rows written by 2 workers equal the same cells recomputed in this process."""
    t = pd.read_csv(quick / "fig4.csv")
    for key in [("spambase", 15, 10, 0), ("synth3", 3, 60, 0)]:
        rows = accuracy_cell(key, seed=0, quick=True, learner=LEARNER)
        got = t[(t["dataset"] == key[0]) & (t["gamma"] == key[1]) & (t["N"] == key[2])]
        assert got.sort_values("mode")["accuracy"].tolist() == [
            r["accuracy"] for r in sorted(rows, key=lambda r: r["mode"])
        ]


def test_kang_error_falls_with_copies(quick):
    s = pd.read_csv(quick / "kang_summary.csv")
    cp = s[(s["scheme"] == "copies") & (s["method"] == "inverse")]
    for _, part in cp.groupby(["gamma", "N"]):
        part = part.sort_values("m")
        assert part["rms_rel_l2"].iloc[-1] < part["rms_rel_l2"].iloc[0]


def test_bad_inputs():
    r = CliRunner()
    res = r.invoke(app, ["reproduce", "fig99", "--quick"])
    assert res.exit_code != 0 and "unknown experiment 'fig99'" in res.output
    res = r.invoke(app, ["reproduce", "fig3", "--jobs", "0"])
    assert res.exit_code != 0 and "--jobs must be >= 1" in res.output
    res = r.invoke(app, ["reproduce", "fig3", "--learner", "id3"])
    assert res.exit_code != 0 and "--learner" in res.output


def test_list_names_every_family():
    res = CliRunner().invoke(app, ["reproduce", "--list"])
    assert res.exit_code == 0, res.output
    listed = [line.split()[0] for line in res.output.splitlines() if line.strip()]
    from ppdm_papers.registry import names

    assert listed == names()
    for family in ("fig2", "attacks", "islam-brankovic", "bn-table2", "beyond"):
        assert family in listed
    res = CliRunner().invoke(app, ["reproduce"])
    assert res.exit_code != 0 and "missing experiment NAME" in res.output


def test_bn_alias_adds_files_beside_the_others(tmp_path):
    """``ppdm bn reproduce`` writes into --out like ``ppdm reproduce``: it keeps other files
    of its directory (a note added to the results after a first run)."""
    out = tmp_path / "bn"
    args = ["bn", "reproduce", "bn-table2", "--quick", "--out", str(out), "--no-progress"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    (out / "notes.txt").write_text("keep me")
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert (out / "notes.txt").read_text() == "keep me"
    direct = tmp_path / "direct"
    res = CliRunner().invoke(
        app, ["reproduce", "bn-table2", "--quick", "--out", str(direct), "--no-progress"]
    )
    assert res.exit_code == 0, res.output
    # ppdm reproduce writes the Bayesian-network files into OUT/bn, as in results/bn
    assert (out / "bn-table2.csv").read_bytes() == (direct / "bn" / "bn-table2.csv").read_bytes()
    assert not (direct / "bn-table2.csv").exists()
    res = CliRunner().invoke(app, ["bn", "reproduce", "fig2", "--out", str(out)])
    assert res.exit_code != 0 and "unknown reproduction 'fig2'" in res.output
    res = CliRunner().invoke(app, ["bn", "reproduce", "bn-table2", "--seed", "-1"])
    assert res.exit_code != 0 and "--seed must be >= 0 (got -1)" in res.output


def test_reproduce_writes_only_into_a_directory_of_its_own(tmp_path):
    # it writes file by file and resumes from what it finds: never in the user's folder
    mine = tmp_path / "Documents"
    mine.mkdir()
    (mine / "fig3.png").write_text("my thesis figure\n")
    r = CliRunner().invoke(app, ["reproduce", "fig3", "--out", str(mine)])
    assert r.exit_code == 2
    assert f"--out {str(mine)!r} holds files ppdm did not write" in r.output
    assert [p.name for p in mine.iterdir()] == ["fig3.png"]
    assert (mine / "fig3.png").read_text() == "my thesis figure\n"
    out = tmp_path / "results"
    for _ in range(2):  # a new directory, then the same one again: its own
        r = CliRunner().invoke(app, ["reproduce", "fig3", "--out", str(out)])
        assert r.exit_code == 0, r.output
    assert (out / ".ppdm-output").is_file() and (out / "fig3.png").stat().st_size > 1000
    assert pd.read_csv(out / "fig3.csv").shape[0] > 0
