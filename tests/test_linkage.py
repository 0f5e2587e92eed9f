"""k-anonymity of released keys and the linkage attack, on hand-checked tables."""

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ppdm.attacks import k_anonymity, linkage_attack, linkage_report
from ppdm.attacks.audit import audit_release, format_audit
from ppdm.cli import app
from ppdm.exceptions import DataError
from ppdm.pipeline import load_release, make_release

runner = CliRunner()


#: seeded releases and owner-side warnings are expected here
pytestmark = [
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning"),
]


def test_k_anonymity_hand_checked():
    df = pd.DataFrame(
        {
            "age": [30, 30, 30, 40, 40, 50, 50, 50, 60],
            "sex": ["f", "f", "m", "m", "m", "f", "f", "f", "m"],
        }
    )
    # classes: (30,f)x2 (30,m)x1 (40,m)x2 (50,f)x3 (60,m)x1
    r = k_anonymity(df, ["age", "sex"])
    assert r["k"] == 1 and r["n_classes"] == 5 and r["sample_uniques"] == 2
    assert r["share_below"] == {"2": 2 / 9, "3": 6 / 9, "5": 1.0}
    # one key alone: age classes 3, 2, 3, 1
    assert k_anonymity(df, ["age"])["k"] == 1
    assert k_anonymity(df, ["sex"])["k"] == 4  # f x5, m x4


def test_missing_values_form_one_class():
    df = pd.DataFrame({"a": [1.0, np.nan, np.nan, 1.0]})
    r = k_anonymity(df, ["a"])
    assert (r["k"], r["n_classes"]) == (2, 2)


def test_linkage_hand_checked():
    orig = pd.DataFrame({"a": [1, 1, 2, 3, 4, 5], "b": ["x", "x", "y", "y", "z", "z"]})
    # row 0 and 1 share (1, x): never unique. row 2 (2, y): kept and unique -> re-identified.
    # row 3 (3, y) moved to (4, z), so row 4's (4, z) matches two released rows.
    # row 5 (5, z) became (2, x); nobody holds (3, y) any more: no match for row 3.
    rel = pd.DataFrame({"a": [1, 1, 2, 4, 4, 2], "b": ["x", "x", "y", "z", "z", "x"]})
    r = linkage_attack(orig, rel, ["a", "b"])
    assert r["reidentified"] == 1 and r["reidentified_share"] == pytest.approx(1 / 6)
    assert r["unique_matches"] == 1 and r["false_matches"] == 0
    assert r["no_match"] == 2  # rows 3 and 5
    # swapping rows 2 and 5 of the release: row 2's unique match is now another record
    rel2 = rel.iloc[[0, 1, 5, 3, 4, 2]].reset_index(drop=True)
    r2 = linkage_attack(orig, rel2, ["a", "b"])
    assert r2["reidentified"] == 0 and r2["false_matches"] == 1


def test_unperturbed_keys_are_their_sample_uniques():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.integers(0, 30, 200), "b": rng.integers(0, 4, 200)})
    r = linkage_attack(df, df, ["a", "b"])
    assert r["reidentified"] == k_anonymity(df, ["a", "b"])["sample_uniques"] > 0
    assert r["false_matches"] == 0 and r["no_match"] == 0


def test_spec_compares_binned_keys_by_bin(tmp_path):
    rng = np.random.default_rng(0)
    n = 400
    df = pd.DataFrame(
        {
            "age": rng.uniform(20, 80, n),
            "zone": rng.integers(0, 40, n),
            "cls": rng.integers(0, 2, n),
        }
    )
    make_release(
        df,
        tmp_path / "r",
        random_state=0,
        gamma=9.0,
        n_bins=6,
        class_attribute="cls",
        attributes=["age"],
        bounds={"age": (20.0, 80.0)},
    )
    rel = load_release(tmp_path / "r")
    released = rel.frame()
    # raw ages never equal bin centres; through the spec they are compared by bin
    assert linkage_attack(df, released, ["age"])["unique_matches"] == 0
    r = linkage_attack(df, released, ["age", "zone"], rel.spec)
    dom = rel.spec.attribute("age").get_domain()
    kept = dom.encode(df["age"]) == dom.encode(released["age"])
    # a record can only be re-identified when its own key combination survived
    assert 0 < r["reidentified"] <= int(kept.sum())
    # the unperturbed key alone: exactly the zone values held by one record
    alone = linkage_attack(df, released, ["zone"], rel.spec)
    assert alone["reidentified"] == int((df["zone"].value_counts() == 1).sum())
    rep = linkage_report(df, released, ["age", "zone"], rel.spec)
    assert rep["original"]["n_records"] == n and rep["linkage"] == r


def test_bad_keys_name_the_column():
    df = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(DataError, match="key column 'zz' is not in the data"):
        k_anonymity(df, ["zz"])
    with pytest.raises(DataError, match="at least one column"):
        k_anonymity(df, [])
    with pytest.raises(DataError, match="twice"):
        k_anonymity(df, ["a", "a"])
    with pytest.raises(DataError, match="has 2 records but the release has 1"):
        linkage_attack(df, df.iloc[:1], ["a"])


def test_audit_with_keys(tmp_path):
    rng = np.random.default_rng(1)
    n = 1000
    df = pd.DataFrame({"x": rng.integers(0, 5, n), "g": rng.integers(0, 50, n)})
    orig = tmp_path / "orig.csv"
    df.to_csv(orig, index=False)
    make_release(df, tmp_path / "r", random_state=0, gamma=9.0, attributes=["x"])
    rep = audit_release(tmp_path / "r", df, keys=["x", "g"])
    assert rep.linkage["keys"] == ["x", "g"]
    assert rep.to_dict()["linkage"]["keys"] == ["x", "g"]
    assert "linkage attack:" in format_audit(rep)
    assert "linkage" not in audit_release(tmp_path / "r", df).to_dict()
    r = runner.invoke(
        app, ["audit", str(tmp_path / "r"), "--original", str(orig), "--keys", "x,g", "--json"]
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["linkage"]["linkage"] == rep.linkage["linkage"]
    r = runner.invoke(
        app, ["audit", str(tmp_path / "r"), "--original", str(orig), "--keys", "x,nope"]
    )
    assert r.exit_code == 1 and "key column 'nope'" in r.output
