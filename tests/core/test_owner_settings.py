"""The owner's settings are never dropped without a word, and the refusals say what to do."""

from __future__ import annotations

import json

import pandas as pd
import pytest

pytest.importorskip("sklearn")
from sklearn.datasets import load_wine  # noqa: E402


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    """Wine with a text column ``Status`` and a text class ``target``."""
    frame = load_wine(as_frame=True).frame
    frame.columns = [c.replace("/", "_") for c in frame.columns]
    frame["Status"] = ["a" if t == 0 else "b" for t in frame.target]
    frame["target"] = frame.target.map({0: "x", 1: "y", 2: "z"})
    path = tmp_path_factory.mktemp("wine") / "wine.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _last_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err
    return lines[-1]


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--bounds", "Status=0:5"], ["--bounds", "'Status'", "categorical"]),
        (["--bounds", "target=0:5"], ["--bounds", "'target'", "not perturbed"]),
        (
            ["--attributes", "proline", "--bounds", "ash=1:4"],
            ["--bounds", "'ash'", "not perturbed"],
        ),
    ],
)
def test_bounds_a_column_cannot_take_are_refused(run_cli, wine, tmp_path, flags, words):
    path, _ = wine
    out = tmp_path / "r"
    code, _, err = run_cli("perturb", path, "--out", out, "--class", "target", *flags)
    line = _last_line(err)
    assert code == 2, err
    assert line.startswith("error: --bounds"), line
    assert all(w in line for w in words), line
    assert not out.exists()


@pytest.fixture(scope="module")
def release(wine, tmp_path_factory):
    from ppdm.pipeline import make_release

    path, _ = wine
    rel = tmp_path_factory.mktemp("rel") / "r"
    with pytest.warns(UserWarning):
        make_release(path, rel, class_attribute="target", random_state=1)
    return rel


def _edited(release, tmp_path, fn):
    import shutil

    rel = tmp_path / "r"
    shutil.copytree(release, rel)
    spec = json.loads((rel / "spec.json").read_text())
    fn(next(a for a in spec["attributes"] if a["name"] == "alcohol"))
    (rel / "spec.json").write_text(json.dumps(spec))
    return rel


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda a: a.__setitem__("perturbed", False), "perturbed: false but gives a matrix"),
        (lambda a: a.pop("matrix"), "perturbed: true but no matrix"),
    ],
    ids=["kept-with-matrix", "perturbed-without-matrix"],
)
def test_spec_saying_both_is_refused(run_cli, wine, release, tmp_path, edit, said):
    path, _ = wine
    rel = _edited(release, tmp_path, edit)
    code, _, err = run_cli("mine", rel, "--test", path)
    line = _last_line(err)
    assert code == 1, err
    assert "spec.json" in line and "'alcohol'" in line and said in line, line


def test_owner_spec_saying_both_is_refused(run_cli, wine, release, tmp_path):
    path, _ = wine
    spec = {
        "class_attribute": "target",
        "attributes": [
            {
                "name": "alcohol",
                "perturbed": False,
                "matrix": {"kind": "gamma-diagonal", "gamma": 9},
            }
        ],
    }
    file = tmp_path / "owner.json"
    file.write_text(json.dumps(spec))
    code, _, err = run_cli("perturb", path, "--out", tmp_path / "r", "--spec", file)
    line = _last_line(err)
    assert code == 1, err  # the file's content is bad, as every spec error
    assert "owner.json" in line and "'alcohol'" in line and "perturbed: false" in line, line


def test_identity_matrix_says_infinite_amplification(run_cli, wine, release, tmp_path):
    path, _ = wine
    rel = _edited(
        release, tmp_path, lambda a: a.__setitem__("matrix", {"kind": "identity", "n_values": 20})
    )
    code, _, err = run_cli("mine", rel, "--test", path)
    line = _last_line(err)
    assert code == 1, err
    assert "infinite amplification" in line and "None" not in line, line


def _spaced_csv(frame: pd.DataFrame, path) -> None:
    """``frame`` written as KEEL writes: ``', '`` between names and between values."""
    rows = [", ".join(frame.columns)]
    rows += [", ".join(str(v) for v in r) for r in frame.itertuples(index=False)]
    path.write_text("\n".join(rows) + "\n")


def test_space_after_comma_is_dropped_once_said(run_cli, wine, tmp_path):
    """A file written ``a, b`` releases as the same file written ``a,b`` would: the
    numbers stay numbers (binned with the owner's bounds), the names lose the space,
    and a name typed as in the file (' target') is found; stderr says it once."""
    from ppdm.io import read_table

    _, frame = wine
    frame = frame.drop(columns=["Status"])
    spaced = tmp_path / "spaced.csv"
    _spaced_csv(frame, spaced)
    out = tmp_path / "r"
    code, _, err = run_cli(
        "perturb", spaced, "--out", out, "--class", " target", "--bounds", " proline=200:1700"
    )
    assert code == 0, err
    assert err.count("space after each comma") == 1, err
    spec = json.loads((out / "spec.json").read_text())
    assert [a["name"] for a in spec["attributes"]] == list(frame.columns)
    kinds = {a["name"]: a.get("domain", {}).get("kind") for a in spec["attributes"]}
    assert kinds["proline"] == "binned" and spec["attributes"][-2]["domain"]["low"] == 200
    back = read_table(spaced)
    assert list(back.columns) == list(frame.columns)
    assert back["target"].tolist() == frame["target"].tolist()
    assert back["alcohol"].dtype.kind == "f"
