"""``ppdm perturb`` builds the release options from its flags; the library validates them."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(1)
    path = tmp_path / "in.csv"
    pd.DataFrame(
        {"x": rng.integers(0, 50, 120), "z": rng.normal(size=120), "y": rng.choice(["a", "b"], 120)}
    ).to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--gamma", "0.5"], "--gamma must be > 1 (got 0.5)"),
        (["--copies", "0"], "--copies must be >= 1 (got 0)"),
        (["--bins", "1"], "--bins (N) must be >= 2 (got 1)"),
        (["--bins", "10000000"], "--bins is 10000000, above the cap"),
        (["--bounds", "x=10:0"], "--bounds 'x=10:0' must have low < high (got 10.0:0.0)"),
        (["--bounds", "x=0:inf"], "--bounds 'x=0:inf' must be finite"),
        (["--rho", "0.5", "0.1"], "--rho: rho2 must be larger than rho1"),
        (["--method", "additive", "--noise-scale", "nan"], "--noise-scale must be a finite"),
        (["--method", "additive", "--copies", "3"], "--copies is for substitution releases"),
        (["--attributes", "x,x"], "--attributes names a column twice (got ['x', 'x'])"),
        (
            ["--class", "y", "--attributes", "x,y"],
            "--attributes names the class column 'y', which is released as is; add --perturb-class",
        ),
        (["--batch-size", "0"], "--batch-size must be >= 1 (got 0)"),
    ],
)
def test_a_bad_flag_is_one_usage_line_naming_the_flag(run_cli, tmp_path, table, args, message):
    before = hashlib.sha256(table.read_bytes()).hexdigest()
    out = tmp_path / "rel"
    code, stdout, stderr = run_cli("perturb", table, "--out", out, *args)
    assert code == 2, stderr
    assert stderr.startswith(f"error: {message}"), stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    assert not out.exists()
    assert hashlib.sha256(table.read_bytes()).hexdigest() == before


def test_the_class_named_by_a_spec_is_checked_against_attributes(run_cli, tmp_path, table):
    spec = tmp_path / "spec.json"
    spec.write_text('{"class_attribute": "y", "attributes": [{"name": "y", "perturbed": false}]}')
    code, _, stderr = run_cli(
        "perturb", table, "--out", tmp_path / "rel", "--spec", spec, "--attributes", "x,y"
    )
    assert code == 2 and stderr.startswith("error: --attributes names the class column 'y'")


def test_good_flags_release(run_cli, tmp_path, table):
    import json

    out = tmp_path / "rel"
    code, _, stderr = run_cli(
        "perturb",
        table,
        "--out",
        out,
        "--class",
        "y",
        "--rho",
        "0.1",
        "0.5",
        "--bins",
        "7",
        "--bounds",
        "z=-5:5",
        "--copies",
        "2",
        "--seed",
        "3",
    )
    assert code == 0, stderr
    spec = json.loads((out / "spec.json").read_text())
    assert spec["copies"] == 2 and spec["class_attribute"] == "y"
    z = next(a for a in spec["attributes"] if a["name"] == "z")
    assert z["domain"]["n_bins"] == 7 and (z["domain"]["low"], z["domain"]["high"]) == (-5, 5)
    assert z["matrix"]["gamma"] == 9.0
