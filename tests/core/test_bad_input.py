"""Bad input: a clear message naming what is wrong, a non-zero exit, and nothing written."""

import json

import numpy as np
import pandas as pd
import pytest


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "x": rng.uniform(0, 10, 200),
            "c": rng.choice(["a", "b"], 200),
            "y": rng.integers(0, 2, 200),
        }
    )
    path = tmp_path / "in.csv"
    df.to_csv(path, index=False)
    return path


def _fails(run_cli, tmp_path, args, pattern):
    out = tmp_path / "rel"
    code, stdout, stderr = run_cli(*args, "--out", out)
    assert code != 0
    assert pattern in stderr, stderr
    assert not out.exists(), "a failed run left output behind"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".rel")], (
        "temporary files left behind"
    )


def test_gamma_at_most_one(run_cli, tmp_path, data):
    _fails(run_cli, tmp_path, ["perturb", data, "--gamma", "1"], "gamma must be > 1 (got 1.0)")
    _fails(run_cli, tmp_path, ["perturb", data, "--gamma", "0.5"], "gamma must be > 1")


def test_too_few_bins(run_cli, tmp_path, data):
    _fails(run_cli, tmp_path, ["perturb", data, "--bins", "1"], "--bins (N) must be >= 2 (got 1)")


def test_unknown_column(run_cli, tmp_path, data):
    _fails(run_cli, tmp_path, ["perturb", data, "--class", "nope"], "unknown class column 'nope'")
    _fails(
        run_cli, tmp_path, ["perturb", data, "--bounds", "zz=0:1"], "unknown --bounds column 'zz'"
    )


def test_missing_value_names_column_and_row(run_cli, tmp_path, data):
    df = pd.read_csv(data)
    df.loc[17, "x"] = np.nan
    df.to_csv(data, index=False)
    _fails(run_cli, tmp_path, ["perturb", data], "column 'x' has a missing value at data row 18")
    code, _, _ = run_cli(
        "perturb", data, "--out", tmp_path / "ok", "--missing", "category", "--seed", "1"
    )
    assert code == 0


def test_out_of_bounds_value(run_cli, tmp_path, data):
    df = pd.read_csv(data)
    df.loc[5, "x"] = 42.0
    df.to_csv(data, index=False)
    _fails(
        run_cli,
        tmp_path,
        ["perturb", data, "--bounds", "x=0:10"],
        "column 'x' data row 6 has value 42.0 outside its bounds",
    )
    code, _, _ = run_cli(
        "perturb",
        data,
        "--out",
        tmp_path / "ok",
        "--bounds",
        "x=0:10",
        "--out-of-bounds",
        "clip",
        "--seed",
        "1",
    )
    assert code == 0


def test_empty_table(run_cli, tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("x,y\n")
    _fails(run_cli, tmp_path, ["perturb", empty], "empty")
    blank = tmp_path / "blank.csv"
    blank.write_text("")
    _fails(run_cli, tmp_path, ["perturb", blank], "empty")


def test_non_stochastic_and_singular_matrix_in_spec(run_cli, tmp_path, data):
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "attributes:\n  - name: c\n    domain: {kind: categorical, values: [a, b]}\n"
        "    matrix: {kind: explicit, matrix: [[0.5, 0.5], [0.4, 0.5]]}\n"
    )
    _fails(run_cli, tmp_path, ["perturb", data, "--spec", spec], "columns must sum to 1")
    spec.write_text(
        "attributes:\n  - name: c\n    domain: {kind: categorical, values: [a, b]}\n"
        "    matrix: {kind: explicit, matrix: [[0.5, 0.5], [0.5, 0.5]]}\n"
    )
    _fails(run_cli, tmp_path, ["perturb", data, "--spec", spec], "singular")


def test_malformed_spec(run_cli, tmp_path, data):
    spec = tmp_path / "spec.json"
    spec.write_text("{not json")
    _fails(run_cli, tmp_path, ["perturb", data, "--spec", spec], "is not valid JSON")
    spec.write_text(json.dumps({"attributes": [{"name": "x", "colour": 3}]}))
    _fails(run_cli, tmp_path, ["perturb", data, "--spec", spec], "invalid at attributes.0.colour")


def test_spec_that_does_not_match_the_data(run_cli, tmp_path, data):
    spec = tmp_path / "spec.yaml"
    spec.write_text("attributes:\n  - name: weight\n    perturbed: true\n")
    _fails(run_cli, tmp_path, ["perturb", data, "--spec", spec], "unknown spec attribute 'weight'")
    # a miner's release whose data file lost a column
    code, _, _ = run_cli("perturb", data, "--out", tmp_path / "good", "--seed", "1")
    assert code == 0
    rel = tmp_path / "good"
    pd.read_csv(rel / "data.csv").drop(columns=["c"]).to_csv(rel / "data.csv", index=False)
    code, _, err = run_cli("reconstruct", rel, "--out", tmp_path / "rec.csv")
    assert code != 0 and "spec does not match the data: the data lacks ['c']" in err
    assert f"release data {str(rel / 'data.csv')!r}" in err  # the file is named
    assert not (tmp_path / "rec.csv").exists()


def test_value_outside_a_categorical_domain_in_the_spec(run_cli, tmp_path, data):
    spec = tmp_path / "spec.yaml"
    spec.write_text("attributes:\n  - name: c\n    domain: {kind: categorical, values: [a, z]}\n")
    _fails(
        run_cli,
        tmp_path,
        ["perturb", data, "--spec", spec],
        "which is not in its domain ['a', 'z']",
    )


def test_missing_input_and_bad_method(run_cli, tmp_path):
    _fails(run_cli, tmp_path, ["perturb", tmp_path / "nope.csv"], "does not exist")
    code, _, err = run_cli("estimate", tmp_path, "--method", "magic")
    assert code == 2 and "Invalid value for '--method'" in err and "'set-scale'" in err


@pytest.mark.parametrize(
    ("distinct", "rows", "refused"),
    [(99, 99, False), (100, 200, False), (101, 200, True), (5000, 5000, True)],
)
def test_a_column_like_an_identifier_is_not_listed_in_the_public_spec(
    run_cli, tmp_path, distinct, rows, refused
):
    # every value of a name column would be listed in the spec: refused, and the way
    # out (the domain given in a spec) works
    from ppdm.domain import IDENTIFIER_VALUES

    assert IDENTIFIER_VALUES == 100
    names = [f"person {i % distinct}" for i in range(rows)]
    table = tmp_path / "t.csv"
    pd.DataFrame({"name": names, "y": np.arange(rows) % 2}).to_csv(table, index=False)
    args = ["perturb", table, "--out", tmp_path / "rel", "--class", "y", "--seed", "1"]
    code, _, err = run_cli(*args)
    if not refused:
        assert code == 0, err
        return
    line = " ".join(err.split())
    assert code == 1 and f"column 'name' has {distinct:,} distinct values in {rows:,} rows" in line
    assert "looks like an identifier" in line and "give its domain" in line
    assert not (tmp_path / "rel").exists()
    spec = {
        "attributes": [
            {
                "name": "name",
                "perturbed": True,
                "domain": {"kind": "categorical", "values": sorted(set(names))},
                "matrix": {"kind": "gamma-diagonal", "gamma": 9.0},
            },
            {"name": "y", "perturbed": False},
        ],
        "class_attribute": "y",
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    code, _, err = run_cli(*args, "--spec", tmp_path / "spec.json")
    assert code == 0, err


def test_a_value_list_over_the_cap_is_named_with_its_column():
    from ppdm.domain import infer_domain
    from ppdm.exceptions import DomainError
    from ppdm.limits import MAX_VALUES

    values = pd.Series([f"c{i % (MAX_VALUES + 1)}" for i in range(3 * MAX_VALUES)])
    with pytest.raises(DomainError, match=r"column 'code' has 65,537 distinct values, above"):
        infer_domain(values, column="code")
