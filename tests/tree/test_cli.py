"""``ppdm tree train|predict|show|compare`` through typer's CliRunner."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from ppdm.cli import app
from ppdm.datasets import load_wisconsin

runner = CliRunner()


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "w.csv"
    load_wisconsin().frame.to_csv(path, index=False)
    return path


def _train(table, out, *extra):
    return runner.invoke(
        app, ["tree", "train", str(table), "--class", "class", "--out", str(out), *extra]
    )


@pytest.mark.parametrize("command", [[], ["train"], ["predict"], ["show"], ["compare"]])
def test_help(command, help_page):
    text = help_page("tree", *command)
    assert f"Usage: ppdm tree {' '.join(command)}".strip() in text


def test_train_show_predict_compare(table, tmp_path):
    model, model2 = tmp_path / "m.pkl", tmp_path / "m2.pkl"
    r = _train(table, model)
    assert r.exit_code == 0, r.output
    assert "11 leaves, size 21" in r.output
    assert _train(table, model2, "--unpruned", "--min-leaf", "10", "-C", "0.1").exit_code == 0

    r = runner.invoke(app, ["tree", "show", str(model)])
    assert r.exit_code == 0 and r.output.startswith("J48 pruned tree")
    r = runner.invoke(app, ["tree", "show", str(model), "--rules"])
    assert "Rule 1: (395/2)" in r.output

    out = tmp_path / "pred.parquet"
    r = runner.invoke(
        app, ["tree", "predict", str(model), str(table), "--out", str(out), "--proba"]
    )
    assert r.exit_code == 0, r.output
    pred = pd.read_parquet(out)
    assert {"predicted", "p_2", "p_4"} <= set(pred.columns)
    assert (pred["predicted"] == pred["class"]).mean() == pytest.approx(0.9795, abs=1e-3)

    r = runner.invoke(
        app, ["tree", "compare", str(model), str(model2), "--data", str(table), "--json"]
    )
    assert r.exit_code == 0, r.output
    report = json.loads(r.output)
    assert report["same_root"] is True and 0.9 < report["prediction_agreement"] <= 1.0
    r = runner.invoke(app, ["tree", "compare", str(model), str(model)])
    assert "rules:              11 | 11; 11 match" in r.output


def test_bad_inputs_fail_cleanly_without_partial_files(table, tmp_path):
    model = tmp_path / "m.pkl"
    r = _train(table, model, "--confidence", "0.9")
    assert r.exit_code == 2 and "confidence must be" in r.output
    assert not model.exists()
    r = runner.invoke(app, ["tree", "train", str(table), "--class", "nope", "--out", str(model)])
    assert r.exit_code == 1 and "class column 'nope'" in r.output
    assert not model.exists()
    r = runner.invoke(app, ["tree", "show", str(table)])
    assert r.exit_code == 1 and "not a ppdm tree model" in r.output
    r = runner.invoke(app, ["tree", "show", str(tmp_path / "missing.pkl")])
    assert r.exit_code == 1 and "does not exist" in r.output

    assert _train(table, model).exit_code == 0
    other = tmp_path / "other.csv"
    load_wisconsin().frame.drop(columns=["mitoses"]).to_csv(other, index=False)
    out = tmp_path / "p.csv"
    r = runner.invoke(app, ["tree", "predict", str(model), str(other), "--out", str(out)])
    assert r.exit_code == 1 and "lacks the model's columns ['mitoses']" in r.output
    assert not out.exists()
    r = runner.invoke(
        app, ["tree", "predict", str(model), str(table), "--out", str(tmp_path / "p.xyz")]
    )
    assert r.exit_code == 2 and "extension" in r.output
    assert list(tmp_path.glob(".*.tmp")) == []


def test_scores_come_with_the_majority_baseline(table, tmp_path):
    frame = pd.read_csv(table)
    commonest = frame["class"].value_counts().idxmax().item()  # a plain int, as printed
    r = _train(table, tmp_path / "m.json")
    assert r.exit_code == 0, r.output
    share = (frame["class"] == commonest).mean()
    assert f"always predicting the commonest class {commonest!r}: {share:.4f}" in r.output
    # on another table, the baseline is the training's commonest class on that table
    other = tmp_path / "other.csv"
    part = frame[frame["class"] != commonest].head(40)
    pd.concat([part, frame[frame["class"] == commonest].head(10)]).to_csv(other, index=False)
    r = runner.invoke(
        app,
        ["tree", "predict", str(tmp_path / "m.json"), str(other), "--out", str(tmp_path / "p.csv")],
    )
    assert r.exit_code == 0, r.output
    assert f"always predicting the training's commonest class {commonest!r}: 0.2000" in r.output


def test_rows_without_a_class_are_left_out_and_not_scored(table, tmp_path):
    # a missing class was counted as a training row and scored as a wrong prediction;
    # a nullable-integer class with a missing value failed after writing the model
    frame = pd.read_csv(table)
    gaps = frame.copy()
    gaps["class"] = gaps["class"].astype("Int64")
    gaps.loc[gaps.index[::7], "class"] = pd.NA
    blank = int(gaps["class"].isna().sum())
    path = tmp_path / "gaps.parquet"
    gaps.to_parquet(path, index=False)
    model = tmp_path / "m.json"
    r = _train(path, model)
    assert r.exit_code == 0, r.output
    labelled = gaps.dropna(subset=["class"])
    commonest = labelled["class"].value_counts().idxmax()
    share = (labelled["class"] == commonest).mean()
    assert f"trained on {len(labelled)} rows ({blank} without a class, left out)" in r.output
    assert f": {share:.4f}); model written" in r.output
    out = tmp_path / "p.csv"
    r = runner.invoke(app, ["tree", "predict", str(model), str(path), "--out", str(out)])
    assert r.exit_code == 0, r.output
    pred = pd.read_csv(out)
    known = pred["class"].notna()
    accuracy = (pred.loc[known, "predicted"] == pred.loc[known, "class"]).mean()
    assert f"accuracy {accuracy:.4f} on the {len(labelled)} rows with a class" in r.output
    assert f"{blank} without one, not scored" in r.output


def test_predict_and_compare_read_the_model_columns_by_name(table, tmp_path):
    frame = pd.read_csv(table)
    extra = tmp_path / "extra.csv"
    frame.assign(id=range(len(frame)))[["id", *frame.columns[::-1]]].to_csv(extra, index=False)
    model = tmp_path / "m.json"
    assert _train(table, model).exit_code == 0
    r = runner.invoke(
        app, ["tree", "compare", str(model), str(model), "--data", str(extra), "--json"]
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["prediction_agreement"] == 1.0
    r = runner.invoke(
        app, ["tree", "compare", str(model), str(model), "--data", str(tmp_path / "none.csv")]
    )
    assert r.exit_code == 1 and "none.csv' does not exist" in r.output, r.output
    lacking = tmp_path / "lacking.csv"
    frame.drop(columns=[frame.columns[0]]).to_csv(lacking, index=False)
    r = runner.invoke(app, ["tree", "compare", str(model), str(model), "--data", str(lacking)])
    assert r.exit_code == 1 and f"lacks the model's columns ['{frame.columns[0]}']" in r.output


def test_mine_reads_the_release_columns_and_scores_rows_with_a_class(table, tmp_path):
    # an id column in --test failed with "X has different columns than at fit"; a test
    # record without a class was scored as a wrong prediction
    frame = pd.read_csv(table)
    train, test = frame.iloc[:500], frame.iloc[500:].copy()
    train.to_csv(tmp_path / "train.csv", index=False)
    rel = tmp_path / "rel"
    r = runner.invoke(app, ["perturb", str(tmp_path / "train.csv"), "--out", str(rel),
                            "--class", "class", "--seed", "1"])  # fmt: skip
    assert r.exit_code == 0, r.output
    plain = tmp_path / "test.csv"
    test.to_csv(plain, index=False)
    test.loc[test.index[:4], "class"] = None
    odd = tmp_path / "test_id.csv"
    test.assign(id=range(len(test)))[["id", *test.columns[::-1]]].to_csv(odd, index=False)
    runs = {}
    for name, path in (("plain", plain), ("odd", odd)):
        r = runner.invoke(app, ["mine", str(rel), "--test", str(path), "--json"])
        assert r.exit_code == 0, r.output
        runs[name] = json.loads(r.output[r.output.index("{") :])
    assert runs["plain"]["n_test"] == len(test) and runs["odd"]["n_test"] == len(test) - 4
    assert runs["odd"]["estimate"] == runs["plain"]["estimate"]


def test_a_column_without_values_is_never_split_on(table, tmp_path):
    # an all-missing column (also what a CSV header's trailing comma makes) stopped
    # every tree with "index -1 is out of bounds for axis 1 with size 0"
    frame = pd.read_csv(table)
    path = tmp_path / "trailing.csv"
    path.write_text(frame.to_csv(index=False).replace("\n", ",\n"))
    model = tmp_path / "m.json"
    r = _train(path, model)
    assert r.exit_code == 0, r.output
    assert "11 leaves, size 21" in r.output  # the tree of the table without it


def test_predictions_never_replace_a_column_of_the_table(table, tmp_path):
    frame = pd.read_csv(table)
    model = tmp_path / "m.json"
    assert _train(table, model).exit_code == 0
    for column in ("predicted", "p_2"):
        path = tmp_path / f"{column}.csv"
        frame.assign(**{column: 1.0}).to_csv(path, index=False)
        out = tmp_path / f"out-{column}.csv"
        r = runner.invoke(app, ["tree", "predict", str(model), str(path), "--out", str(out),
                                "--proba"])  # fmt: skip
        assert r.exit_code == 1 and f"already has the column(s) ['{column}']" in r.output
        assert not out.exists()


def test_arff_outputs_declare_the_class_nominal(table, tmp_path):
    # an integer class was written "numeric", which Weka's J48 refuses as a class
    model = tmp_path / "m.json"
    assert _train(table, model).exit_code == 0
    outputs = {
        "export": ["datasets", "export", "wisconsin", "--out", str(tmp_path / "w.arff")],
        "predict": ["tree", "predict", str(model), str(table), "--out", str(tmp_path / "p.arff")],
        "noise": ["noise", "class", str(table), "--class", "class", "--out",
                  str(tmp_path / "n.arff"), "--seed", "1"],
    }  # fmt: skip
    for name, args in outputs.items():
        r = runner.invoke(app, args)
        assert r.exit_code == 0, (name, r.output)
    for name in ("w", "p", "n"):
        text = (tmp_path / f"{name}.arff").read_text()
        assert "@attribute class {2,4}" in text, name
    assert "@attribute predicted {2,4}" in (tmp_path / "p.arff").read_text()


@pytest.mark.parametrize("where", ["/dev/null", "."])
def test_a_model_that_is_no_regular_file_is_named_so(where):
    r = runner.invoke(app, ["tree", "show", where])
    assert r.exit_code == 1 and f"model file {where!r} is not a regular file" in r.output


def test_mine_names_an_infinite_value_of_the_test_table(table, tmp_path):
    frame = pd.read_csv(table)
    frame.iloc[:500].to_csv(tmp_path / "train.csv", index=False)
    rel = tmp_path / "rel"
    r = runner.invoke(app, ["perturb", str(tmp_path / "train.csv"), "--out", str(rel),
                            "--class", "class", "--seed", "1"])  # fmt: skip
    assert r.exit_code == 0, r.output
    test = frame.iloc[500:].astype({"cell_size": float})
    test.iloc[2, test.columns.get_loc("cell_size")] = float("inf")
    path = tmp_path / "test.csv"
    test.to_csv(path, index=False)
    r = runner.invoke(app, ["mine", str(rel), "--test", str(path)])
    assert r.exit_code == 1
    assert f"--test {str(path)!r}: column 'cell_size' data row 3 has value inf" in r.output
