"""A release whose data no longer matches its spec: every command that reads it names
the data file and the value, and says the release is at fault (not the reader's bounds)."""

from __future__ import annotations

import pandas as pd
import pytest


@pytest.fixture
def tampered(run_cli, tmp_path):
    from sklearn.datasets import load_wine

    frame = load_wine(as_frame=True).frame
    frame["target"] = frame["target"].map({0: "a", 1: "b", 2: "c"})
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    frame.iloc[::2].to_csv(train, index=False)
    frame.iloc[1::2].to_csv(test, index=False)
    bounds = ["--bounds", "alcohol=11:15", "--bounds", "proline=250:1700"]
    code, _, err = run_cli(
        "perturb", train, "--out", tmp_path / "rel", "--class", "target", "--seed", "1",
        "--attributes", "alcohol,proline", *bounds,
    )  # fmt: skip
    assert code == 0, err
    data = tmp_path / "rel" / "data.csv"
    released = pd.read_csv(data)
    released.loc[6, "proline"] = 99999.0  # data row 7
    released.to_csv(data, index=False)
    return tmp_path, train, test


@pytest.mark.parametrize(
    "command",
    [
        ["estimate", "{rel}"],
        ["reconstruct", "{rel}", "--out", "{tmp}/rec.csv"],
        ["mine", "{rel}", "--test", "{test}"],
        ["mine", "{rel}", "--test", "{test}", "--learner", "release-tree"],
        ["audit", "{rel}", "--original", "{train}"],
        ["report", "{rel}", "--html", "{tmp}/report.html"],
        ["report", "{rel}"],
    ],
    ids=lambda c: " ".join(c[:1] + c[4:5]),
)
def test_every_reader_blames_the_release(run_cli, tampered, command):
    tmp, train, test = tampered
    where = {"rel": tmp / "rel", "tmp": tmp, "train": train, "test": test}
    code, out, err = run_cli(*[part.format(**where) for part in command])
    assert command[0] != "report" or out == ""  # nothing printed from a bad release
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1, err
    assert "data.csv" in lines[0] and "column 'proline' data row 7" in lines[0]
    assert "99999.0" in lines[0] and "does not match its spec" in lines[0]
    assert "widen the bounds" not in lines[0]
    assert not (tmp / "rec.csv").exists() and not (tmp / "report.html").exists()
