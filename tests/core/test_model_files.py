"""C4.5 model files: JSON that loads without running code, identical predictions after a round trip."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_iris

from ppdm.datasets import load_wisconsin
from ppdm.exceptions import DataError
from ppdm.tree import C45Classifier, export_text
from ppdm.tree.persist import MODEL_FORMAT, load_model, save_model


def _mixed_frame() -> tuple[pd.DataFrame, pd.Series]:
    """Numeric, string and integer-coded categorical columns, with missing values."""
    rng = np.random.default_rng(3)
    n = 600
    X = pd.DataFrame(
        {
            "age": rng.normal(40, 12, n).round(1),
            "colour": rng.choice(["red", "green", "blue"], n),
            "zip": rng.choice(["00501", "10001", "94105"], n),
            "level": rng.integers(0, 4, n),
        }
    )
    X.loc[rng.random(n) < 0.05, "age"] = np.nan
    X.loc[rng.random(n) < 0.05, "colour"] = None
    y = np.where((X["age"].fillna(40) > 45) ^ (X["colour"] == "red"), "yes", "no")
    return X, pd.Series(y, name="label")


def _cases():
    bc = load_breast_cancer(as_frame=True)
    iris = load_iris(as_frame=True)
    w = load_wisconsin().frame
    mixed = _mixed_frame()
    return {
        "breast_cancer": (bc.data, bc.target, {}),
        "iris": (iris.data, iris.target.map(dict(enumerate(iris.target_names))), {}),
        "wisconsin": (w.drop(columns=["class"]), w["class"], {}),
        "mixed": (*mixed, {"categorical_features": ["colour", "zip", "level"]}),
        "unpruned_array": (iris.data.to_numpy(), iris.target.to_numpy(), {"unpruned": True}),
    }


@pytest.mark.parametrize("name", list(_cases()))
def test_round_trip_gives_identical_predictions(name, tmp_path):
    X, y, params = _cases()[name]
    clf = C45Classifier(**params).fit(X, y)
    path = tmp_path / "model.json"
    save_model(clf, path, target="label")
    again, target = load_model(path)
    assert target == "label"
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    np.testing.assert_array_equal(again.classes_, clf.classes_)
    assert again.classes_.dtype == clf.classes_.dtype
    assert export_text(again) == export_text(clf)
    assert again.get_params() == clf.get_params()
    # the file is plain JSON, no pickle
    assert json.loads(path.read_text())["format"] == MODEL_FORMAT


def _doc(tmp_path):
    X, y, _ = _cases()["wisconsin"]
    path = tmp_path / "m.json"
    save_model(C45Classifier().fit(X, y), path, target="class")
    return json.loads(path.read_text())


@pytest.mark.parametrize(
    "tamper",
    [
        lambda d: d["tree"]["children"].__setitem__(0, 0),  # a loop back to the root
        lambda d: d["tree"]["feature"].__setitem__(0, 99),  # no such column
        lambda d: d["tree"]["value"][0].__setitem__(0, -1.0),  # negative count
        lambda d: d["tree"]["value"].pop(),  # wrong shape
        lambda d: d["tree"]["n_children"].__setitem__(0, 1000),  # past the children array
        lambda d: d["classes"].__setitem__("dtype", "V8"),  # raw bytes dtype
        lambda d: d["params"].__setitem__("__class__", "os.system"),  # unknown parameter
        lambda d: d["params"].__setitem__("confidence", 7),  # invalid parameter
        lambda d: d.__setitem__("version", 1),
        lambda d: d.pop("encoding"),
        # a class named twice: predictions of the second could not be told apart
        lambda d: d["classes"]["values"].__setitem__(1, d["classes"]["values"][0]),
    ],
)
def test_tampered_documents_are_refused(tamper, tmp_path):
    doc = _doc(tmp_path)
    tamper(doc)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(DataError, match="not a valid ppdm tree model"):
        load_model(path)


def test_pickles_load_only_when_trusted(tmp_path):
    X, y, _ = _cases()["wisconsin"]
    clf = C45Classifier().fit(X, y)
    old = tmp_path / "old.pkl"
    payload = {"format": MODEL_FORMAT, "version": 1, "target": "class", "model": clf}
    old.write_bytes(pickle.dumps(payload))
    with pytest.raises(DataError, match="--trust-pickle"):
        load_model(old)
    again, target = load_model(old, trust_pickle=True)
    assert target == "class"
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))


def test_tampered_file_through_the_cli(run_cli, tmp_path):
    doc = _doc(tmp_path)
    doc["tree"]["children"][0] = 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    code, _, err = run_cli("tree", "show", bad)
    assert code == 1 and "Traceback" not in err
    assert err.strip().splitlines() == [
        f"error: {str(bad)!r} is not a valid ppdm tree model: "
        "node 1 has children outside the preorder numbering"
    ]
