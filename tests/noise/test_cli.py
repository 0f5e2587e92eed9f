"""``ppdm noise class | attributes`` through typer's CliRunner."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ppdm.cli import app
from ppdm.datasets import load_boston, load_wisconsin
from ppdm.io import read_table

runner = CliRunner()

pytestmark = pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")


@pytest.fixture
def boston(tmp_path):
    path = tmp_path / "boston.csv"
    load_boston().frame.to_csv(path, index=False)
    return path


@pytest.fixture
def wbc(tmp_path):
    path = tmp_path / "wbc.parquet"
    load_wisconsin().frame.to_parquet(path)
    return path


def _run(*args):
    return runner.invoke(app, ["noise", *map(str, args)])


@pytest.mark.parametrize("command", [[], ["class"], ["attributes"]])
def test_help(command, help_page):
    text = help_page("noise", *command)
    assert f"Usage: ppdm noise {' '.join(command)}".strip() in text


@pytest.mark.parametrize("technique", ["random", "probabilistic", "all-leaves"])
def test_class(boston, tmp_path, technique):
    out = tmp_path / "rel.csv"
    r = _run(
        "class",
        boston,
        "--class",
        "high_value",
        "--technique",
        technique,
        "--out",
        out,
        "--seed",
        1,
    )
    assert r.exit_code == 0, r.output
    assert "E(N) =" in r.output and "P(same|maj)" in r.output
    original = pd.read_csv(boston)
    released = pd.read_csv(out)
    assert released.drop(columns="high_value").equals(original.drop(columns="high_value"))
    if technique == "random":
        assert released["high_value"].sum() == original["high_value"].sum()


def test_class_json(boston, tmp_path):
    out = tmp_path / "rel.arff"
    r = _run("class", boston, "--class", "high_value", "--out", out, "--seed", 2, "--json")
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout, parse_constant=lambda c: pytest.fail(f"non-JSON {c}"))
    assert report["technique"] == "random"
    assert report["n_changed"] > 0
    assert report["class_counts_released"] == report["class_counts_original"]
    het = [leaf for leaf in report["leaves"] if leaf["heterogeneous"]]
    assert het and all(0 < leaf["p_same_minority"] < 1 for leaf in het)
    released, original = read_table(out), load_boston().frame
    changed = released["high_value"].astype(int).to_numpy() != original["high_value"].to_numpy()
    assert int(changed.sum()) == report["n_changed"]
    assert abs(report["n_changed"] - report["expected_changes"]) < 4 * report["sd_changes"]
    pd.testing.assert_frame_equal(
        released.drop(columns="high_value"),
        original.drop(columns="high_value"),
        check_dtype=False,
    )


def test_attributes(wbc, tmp_path):
    out = tmp_path / "rel.parquet"
    r = _run(
        "attributes",
        wbc,
        "--class",
        "class",
        "--target",
        "both",
        "--out",
        out,
        "--seed",
        3,
        "--json",
    )
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["noise"]["sd"] == pytest.approx(0.276)
    assert report["reidentification"]["n_targets"] == 683
    # baselines beside the intruder's figures: a uniform guess, the class shares
    rid = report["reidentification"]
    shares = pd.read_parquet(wbc)["class"].value_counts(normalize=True)
    assert rid["baseline_posterior_true"] == pytest.approx(1 / 683)
    assert rid["baseline_class_probability"] == pytest.approx(float((shares**2).sum()))
    released = pd.read_parquet(out)
    original = pd.read_parquet(wbc)
    assert (released.dtypes == original.dtypes).all()
    assert released["class"].equals(original["class"])
    assert released.drop(columns="class").ne(original.drop(columns="class")).any().any()
    lia = ["attributes", wbc, "-c", "class", "-t", "lia", "--sd-fraction", "0.1", "--scope",
           "heterogeneous", "--out", out, "--max-targets", "50"]  # fmt: skip
    r = _run(*lia)
    assert r.exit_code == 2 and "exists; pass --overwrite" in r.output  # the first release
    assert pd.read_parquet(out).equals(released)
    r = _run(*lia, "--overwrite")
    assert r.exit_code == 0, r.output
    assert "LIA noise" in r.output and "re-identification" in r.output
    assert "on 50 records" in r.output
    assert "(a guess without the release: 0.0015)" in r.output
    assert "(the class shares alone: 0." in r.output


def _fails(tmp_path, args, message):
    out = tmp_path / "bad.csv"
    r = _run(*args, "--out", out)
    assert r.exit_code != 0
    assert message in r.output, r.output
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".bad")]


def test_errors(tmp_path, boston):
    frame = pd.DataFrame(
        {"a": np.arange(30.0), "b": np.arange(30) % 4, "s": ["u", "v", "w"] * 10, "c": 1}
    )
    one = tmp_path / "one.csv"
    frame.to_csv(one, index=False)
    _fails(tmp_path, ["class", one, "--class", "c"], "has a single value")
    _fails(tmp_path, ["attributes", one, "--class", "c"], "has a single value")
    _fails(tmp_path, ["class", one, "--class", "zz"], "class column 'zz' is not in")
    frame["c"] = frame["a"] % 2
    frame.loc[[2, 7], "c"] = np.nan
    holes = tmp_path / "holes.csv"
    frame.to_csv(holes, index=False)
    for command in ("class", "attributes"):
        _fails(
            tmp_path,
            [command, holes, "--class", "c"],
            f"input file {str(holes)!r} class column 'c' has 2 missing value(s), the first at "
            "data row 3",
        )
    frame["c"] = (frame["a"] > 14).astype(int)
    pure = tmp_path / "pure.csv"
    frame.to_csv(pure, index=False)
    _fails(tmp_path, ["class", pure, "--class", "c"], "nothing to perturb")
    _fails(
        tmp_path,
        ["attributes", pure, "--class", "c", "--scope", "heterogeneous"],
        "nothing to perturb",
    )
    frame.loc[0, "c"] = 1
    mixed = tmp_path / "mixed.csv"
    frame.to_csv(mixed, index=False)
    _fails(tmp_path, ["attributes", mixed, "--class", "c"], "attribute 's' is not numeric")
    _fails(
        tmp_path,
        ["class", boston, "--class", "high_value", "--technique", "x"],
        "Invalid value for '--technique'",
    )
    _fails(
        tmp_path,
        ["attributes", boston, "--class", "high_value", "--sd-fraction", "2"],
        "sd_fraction must be in",
    )
    _fails(tmp_path, ["class", tmp_path / "missing.csv", "--class", "c"], "does not exist")


def test_reidentification_shows_the_records_a_target_could_be(run_cli, tmp_path):
    """On Boston every p(X -> Y), a product over 11 attributes, is below 0.01: the
    candidate count was 0 beside 100 % re-identification, with nothing to reconcile them."""
    src = tmp_path / "boston.csv"
    code, _, err = run_cli("datasets", "export", "boston", "--out", src)
    assert code == 0, err
    out = tmp_path / "noisy.csv"
    code, text, err = run_cli(
        "noise", "attributes", src, "-c", "high_value", "-o", out, "--target", "both"
    )
    assert code == 0, err
    possible = re.search(r"records a target could be \(p > 0\): median (\d+)", text)
    assert possible and int(possible[1]) >= 1
    if "candidates with p >= 0.01: median 0," in text:
        assert "for most targets even the true record's is below the threshold" in text
