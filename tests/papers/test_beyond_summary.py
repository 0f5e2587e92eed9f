"""Derived beyond tables on a tiny hand-made grid whose means are worked out by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from ppdm.exceptions import DataError
from ppdm_papers import beyond_summary as bs
from ppdm_papers.registry import RunContext, get

# Data set "a" (original 0.8): cells (gamma, N) = (5, 10) with 2 reps, (12, 20) with 1 rep,
# and (4, 10), outside the recommended range. Per-cell means of the release tree:
# (5, 10): (0.70 + 0.74) / 2 = 0.72; (12, 20): 0.80. Mean over cells: 0.76 (the mean
# over rows, (0.70 + 0.74 + 0.80) / 3 = 0.7467, would be wrong). Ratio 0.76 / 0.8 = 0.95.
# ByClass: (0.60 + 0.64) / 2 = 0.62 and 0.70 -> 0.66; Local: 0.50 and 0.90 -> 0.70 (best).
# Data set "b" (original 1.0): one cell (9, 10), release tree 0.90, Local 0.95.
ROWS = [
    ("a", 5, 10, 0, "release-tree", 0.70),
    ("a", 5, 10, 1, "release-tree", 0.74),
    ("a", 12, 20, 0, "release-tree", 0.80),
    ("a", 4, 10, 0, "release-tree", 0.10),
    ("a", 5, 10, 0, "byclass", 0.60),
    ("a", 5, 10, 1, "byclass", 0.64),
    ("a", 12, 20, 0, "byclass", 0.70),
    ("a", 4, 10, 0, "byclass", 0.99),
    ("a", 5, 10, 0, "local", 0.50),
    ("a", 5, 10, 1, "local", 0.50),
    ("a", 12, 20, 0, "local", 0.90),
    ("b", 9, 10, 0, "release-tree", 0.90),
    ("b", 9, 10, 0, "local", 0.95),
]
ORIGINAL = pd.Series({"a": 0.8, "b": 1.0})


@pytest.fixture
def grid() -> pd.DataFrame:
    return pd.DataFrame(ROWS, columns=["dataset", "gamma", "N", "rep", "method", "accuracy"])


def test_recommended_by_hand(grid):
    out = bs.recommended(grid, ORIGINAL).set_index("dataset")
    a, b = out.loc["a"], out.loc["b"]
    assert a["cells"] == 2  # gamma 4 left out
    assert a["release_tree"] == pytest.approx(0.76)
    assert a["ratio"] == pytest.approx(0.95)
    assert bool(a["goal_met"]) is True
    assert a["shortfall"] == pytest.approx(0.0)
    assert a["best_baseline"] == "local"
    assert a["best_baseline_accuracy"] == pytest.approx(0.70)
    assert a["best_baseline_ratio"] == pytest.approx(0.875)
    assert a["share_cells_goal_met"] == pytest.approx(0.5)  # ratios 0.9 and 1.0
    assert b["release_tree"] == pytest.approx(0.90)
    assert bool(b["goal_met"]) is False
    assert b["shortfall"] == pytest.approx(0.05)
    assert b["best_baseline"] == "local"
    assert b["share_cells_goal_met"] == pytest.approx(0.0)


def test_recommended_by_n(grid):
    out = bs.recommended_by_n(grid, ORIGINAL).set_index(["dataset", "N"])
    assert out.loc[("a", 10), "release_tree"] == pytest.approx(0.72)
    assert out.loc[("a", 10), "best_baseline"] == "byclass"  # 0.62 > Local's 0.50
    assert out.loc[("a", 20), "ratio"] == pytest.approx(1.0)
    assert out.loc[("a", 20), "best_baseline"] == "local"


def test_curve_summary_ratio():
    curve = pd.DataFrame(
        [
            ("s1", 100, 0, "original", 1.0),
            ("s1", 100, 1, "original", 0.8),
            ("s1", 100, 0, "release-tree", 0.6),
            ("s1", 100, 1, "release-tree", 0.8),
            ("s2", 100, 0, "original", 0.5),
            ("s2", 100, 0, "release-tree", 0.5),
        ],
        columns=["dataset", "n", "rep", "method", "accuracy"],
    )
    out = bs.curve_summary(curve).set_index(["dataset", "method"])
    assert out.loc[("s1", "release-tree"), "ratio_to_original"] == pytest.approx(0.7 / 0.9)
    # the "mean" rows average the data sets' means: original 0.7, release tree 0.6
    assert out.loc[("mean", "release-tree"), "accuracy"] == pytest.approx(0.6)
    assert out.loc[("mean", "release-tree"), "ratio_to_original"] == pytest.approx(0.6 / 0.7)


def test_run_writes_tables_and_leaves_inputs(tmp_path, grid):
    grid.to_csv(tmp_path / "beyond.csv", index=False)
    summary = pd.DataFrame(
        {"dataset": ["a", "b"], "method": "release-tree", "accuracy": 0.0, "original": [0.8, 1.0]}
    )
    summary.to_csv(tmp_path / "beyond_summary.csv", index=False)
    before = (tmp_path / "beyond.csv").read_bytes()
    paths = get("beyond-summary")(RunContext(out=tmp_path))
    assert sorted(p.name for p in paths) == [
        "beyond_recommended.csv",
        "beyond_recommended_by_n.csv",
    ]
    table = pd.read_csv(tmp_path / "beyond_recommended.csv")
    assert table.loc[table["dataset"] == "a", "release_tree"].item() == pytest.approx(0.76)
    assert (tmp_path / "beyond.csv").read_bytes() == before
    summary.iloc[:1].to_csv(tmp_path / "beyond_summary.csv", index=False)
    with pytest.raises(DataError, match="no original accuracy for data set 'b'"):
        bs.run(RunContext(out=tmp_path))


def test_missing_and_bad_inputs_name_the_file(tmp_path, grid):
    with pytest.raises(DataError, match=r"beyond\.csv: not found"):
        bs.run(RunContext(out=tmp_path))
    grid["accuracy"] = grid["accuracy"].astype(object)
    grid.loc[2, "accuracy"] = "x"
    grid.to_csv(tmp_path / "beyond.csv", index=False)
    with pytest.raises(DataError, match=r"row 4, column 'accuracy': not a number \('x'\)"):
        bs.run(RunContext(out=tmp_path))


def _small_release(rng, n=3000):
    import numpy as np

    x = rng.integers(0, 6, n)
    z = rng.integers(0, 6, n)
    y = np.where(rng.random(n) < 0.9, (x >= 3).astype(int), 1 - (x >= 3).astype(int))
    return np.column_stack([x, z]), y


@pytest.mark.parametrize("leaf_model", ["majority", "naive-bayes"])
def test_release_correct_codes_exact_under_identity(leaf_model):
    import numpy as np

    from ppdm.domain import CategoricalDomain
    from ppdm.matrix import identity
    from ppdm.tree import ReleaseTreeClassifier

    codes, y = _small_release(np.random.default_rng(1))
    doms, mats = [CategoricalDomain(tuple(range(6)))] * 2, [identity(6)] * 2
    clf = ReleaseTreeClassifier(leaf_model=leaf_model, max_depth=2)
    clf.fit_codes(codes, y, doms, mats, ["x", "z"])
    s = bs._release_correct_codes(clf, codes, y)
    np.testing.assert_allclose(s, (clf.predict_codes(codes) == y).astype(float), atol=1e-9)


def test_release_correct_codes_unbiased_for_naive_bayes_leaves():
    """A fixed model; one original held-out table perturbed 200 times. The mean of the
    estimates is within 4 standard errors (their spread / sqrt(200)) of the truth."""
    import numpy as np

    from ppdm.domain import CategoricalDomain
    from ppdm.matrix import GammaDiagonal
    from ppdm.tree import ReleaseTreeClassifier

    rng = np.random.default_rng(2)
    train, y_train = _small_release(rng)
    held, y_held = _small_release(rng, 1000)
    doms, mats = [CategoricalDomain(tuple(range(6)))] * 2, [GammaDiagonal(6, 9.0)] * 2
    release = np.column_stack([mats[0].draw(train[:, j], rng) for j in (0, 1)])
    clf = ReleaseTreeClassifier(leaf_model="naive-bayes", max_depth=1)
    clf.fit_codes(release, y_train, doms, mats, ["x", "z"])
    truth = float(np.mean(clf.predict_codes(held) == y_held))
    est = []
    for _ in range(200):
        p = np.column_stack([mats[0].draw(held[:, j], rng) for j in (0, 1)])
        est.append(bs._release_correct_codes(clf, p, y_held).mean())
    est = np.asarray(est)
    assert abs(est.mean() - truth) < 4 * est.std(ddof=1) / np.sqrt(len(est))


def test_leaf_check_summary_by_hand():
    nan = float("nan")
    check = pd.DataFrame(
        [
            ("a", 5, 10, 0, "tree-majority", 0.6, 0.5),
            ("a", 5, 10, 1, "tree-majority", 0.8, 0.7),
            ("a", 9, 20, 0, "tree-majority", 0.4, 0.3),
            ("a", 5, 10, 0, "naive-bayes", 0.7, nan),
            ("a", 5, 10, 1, "naive-bayes", 0.7, nan),
            ("a", 9, 20, 0, "naive-bayes", 0.9, 0.8),
        ],
        columns=["dataset", "gamma", "N", "rep", "model", "test_accuracy", "release_accuracy"],
    )
    out = bs.leaf_check_summary(check, pd.Series({"a": 0.8})).set_index("model")
    # tree: cell means 0.7 and 0.4 -> 0.55; naive Bayes: 0.7 and 0.9 -> 0.8
    assert out.loc["tree-majority", "test_accuracy"] == pytest.approx(0.55)
    assert out.loc["naive-bayes", "ratio_to_original"] == pytest.approx(1.0)
    assert out.loc["tree-majority", "scored"] == pytest.approx(1.0)
    assert out.loc["naive-bayes", "scored"] == pytest.approx(0.5)  # one of two cells
    assert out.loc["naive-bayes", "release_accuracy"] == pytest.approx(0.8)
    assert out.loc["tree-majority", "cells"] == 2


def test_leaf_check_summary_adds_grid_learners_on_the_same_keys(grid):
    check = pd.DataFrame(
        [("a", 5, 10, 1, "naive-bayes", 0.9, float("nan"))],
        columns=["dataset", "gamma", "N", "rep", "model", "test_accuracy", "release_accuracy"],
    )
    out = bs.leaf_check_summary(check, ORIGINAL, grid).set_index("model")
    # only repetition 1 of cell (5, 10) of data set "a": release tree 0.74, ByClass 0.64
    assert out.loc["grid release-tree", "test_accuracy"] == pytest.approx(0.74)
    assert out.loc["grid byclass", "test_accuracy"] == pytest.approx(0.64)
    assert out.loc["grid local", "cells"] == 1
    assert out.loc["grid local", "scored"] == pytest.approx(0.0)


def test_forest_recommended_by_hand(grid, tmp_path):
    """The forest ran on (a, 5, 10, rep 0) and (a, 12, 20, rep 0) only: the grid's
    learners are compared on those rows alone (rep 1 of (5, 10) left out)."""
    forest = pd.DataFrame(
        [("a", 5, 10, 0, "release-forest", 0.78), ("a", 12, 20, 0, "release-forest", 0.82)],
        columns=["dataset", "gamma", "N", "rep", "method", "accuracy"],
    )
    out = bs.forest_recommended(grid, forest, ORIGINAL).set_index("dataset")
    a = out.loc["a"]
    assert list(out.index) == ["a"]
    assert a["cells"] == 2
    assert a["release_forest"] == pytest.approx(0.80)
    assert a["ratio"] == pytest.approx(1.0)
    # release tree on the same rows: (0.70 + 0.80) / 2 = 0.75 (rep 1's 0.74 left out)
    assert a["best_baseline"] == "release-tree"
    assert a["best_baseline_accuracy"] == pytest.approx(0.75)
    by_n = bs.forest_recommended(grid, forest, ORIGINAL, ("N",))
    assert by_n["release_forest"].tolist() == pytest.approx([0.78, 0.82])
    # run() writes the forest tables when beyond_forest.csv is there
    grid.to_csv(tmp_path / "beyond.csv", index=False)
    summary = pd.DataFrame(
        {"dataset": ["a", "b"], "method": "release-tree", "accuracy": 0.0, "original": [0.8, 1.0]}
    )
    summary.to_csv(tmp_path / "beyond_summary.csv", index=False)
    forest.to_csv(tmp_path / bs.FOREST_FILE, index=False)
    names = sorted(p.name for p in bs.run(RunContext(out=tmp_path)))
    assert "beyond_forest_recommended.csv" in names and "beyond_forest_by_n.csv" in names


def test_forest_cell_sees_the_grids_perturbation():
    """The forest alone on a quick cell: one row, and the release tree of the same cell
    is unchanged by running the forest beside it (same perturbation)."""
    from ppdm_papers.beyond import beyond_cell

    cell = ("synth3", 5, 10, 0)
    alone = beyond_cell(cell, seed=0, quick=True, methods=("release-tree",))
    both = beyond_cell(cell, seed=0, quick=True, methods=("release-forest", "release-tree"))
    assert [r["method"] for r in both] == ["release-forest", "release-tree"]
    assert both[1]["accuracy"] == alone[0]["accuracy"]
    assert 0.5 < both[0]["accuracy"] <= 1.0


def test_boxes_check_recovers_the_identity_tree_when_the_channel_keeps_everything():
    """gamma = 1e9: the release is (almost surely) the original, so the leaves
    re-estimated from it choose the identity tree's classes; at gamma 5 they cannot do
    better than the noise-free tree on the same boxes by more than chance allows."""
    exact = bs.boxes_check_cell(("synth3", 1e9, 10, 0), quick=True)
    assert exact["same_boxes_release"] == pytest.approx(exact["identity_tree"])
    assert exact["leaves"] >= 2 and exact["median_leaf_neff"] > 30
    noisy = bs.boxes_check_cell(("synth3", 5, 10, 0), quick=True)
    assert noisy["median_leaf_neff"] < exact["median_leaf_neff"]


def test_heldout_summary_by_hand():
    rows = [
        ("t", 5, 10, 0, "original", 0.90),
        ("t", 5, 10, 1, "original", 0.80),
        ("t", 5, 10, 0, "release-forest", 0.80),
        ("t", 5, 10, 1, "release-forest", 0.70),
        ("t", 9, 20, 0, "original", 1.00),
        ("t", 9, 20, 0, "release-forest", 0.90),
    ]
    frame = pd.DataFrame(rows, columns=["dataset", "gamma", "N", "rep", "method", "accuracy"])
    out = bs.heldout_summary(frame).set_index(["gamma", "N", "method"])
    assert out.loc[(5, 10, "release-forest"), "ratio_to_original"] == pytest.approx(0.75 / 0.85)
    # "all": mean of the cell means, 0.825 and 0.925
    assert out.loc[("all", "all", "release-forest"), "accuracy"] == pytest.approx(0.825)
    assert out.loc[("all", "all", "original"), "accuracy"] == pytest.approx(0.925)


def test_heldout_cell_rows_and_unknown_table():
    rows = bs.heldout_cell(("wisconsin", 12, 10, 0))
    assert [r["method"] for r in rows] == [
        "original",
        "alg2-by-class",
        "byclass",
        "release-tree",
        "release-forest",
    ]
    assert all(0.0 <= r["accuracy"] <= 1.0 for r in rows)
    with pytest.raises(DataError, match="unknown held-out table 'iris'"):
        bs.heldout_cell(("iris", 12, 10, 0))


def test_boxes_check_summary_by_hand():
    rows = [
        ("a", 5, 10, 0, 0.9, 0.8, 0.7, 2.0),
        ("a", 5, 10, 1, 0.9, 0.6, 0.7, 4.0),
        ("a", 9, 20, 0, 1.0, 0.9, 0.8, 6.0),
    ]
    cols = ["dataset", "gamma", "N", "rep", "identity_tree", "same_boxes_release"]
    check = pd.DataFrame(rows, columns=[*cols, "release_tree", "median_leaf_neff"])
    out = bs.boxes_check_summary(check, ORIGINAL).set_index("dataset").loc["a"]
    assert out["cells"] == 2
    # cell means 0.7 and 0.9 for same_boxes_release; over cells 0.8; original 0.8
    assert out["same_boxes_release"] == pytest.approx(0.8)
    assert out["same_boxes_release_ratio"] == pytest.approx(1.0)
    assert out["identity_tree_ratio"] == pytest.approx(0.95 / 0.8)
    assert out["median_leaf_neff"] == pytest.approx(4.5)
