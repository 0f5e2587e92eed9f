"""Claim rows of ``ppdm reproduce claims`` for "Beyond the papers" (the release learners).

Each test builds a small frame whose statistics are known by hand, so a wrong formula fails.
"""

from __future__ import annotations

import pandas as pd
import pytest

from ppdm_papers.claims import (
    BeyondFiles,
    beyond_boxes_claims,
    beyond_claims,
    beyond_curve_claims,
    beyond_forest_claims,
    beyond_grid_claims,
    beyond_heldout_claims,
    beyond_leaf_claims,
    beyond_recommended_claims,
    claims,
)


def _values(frame: pd.DataFrame) -> pd.Series:
    assert not frame["claim"].duplicated().any()
    return frame.set_index("claim")["value"]


def _notes(frame: pd.DataFrame) -> pd.Series:
    return frame.set_index("claim")["note"]


#: (gamma, N, rep) keys of the small grid, in the order of the accuracies below.
KEYS = [(5, 10, 0), (5, 10, 1), (9, 20, 0), (9, 20, 1)]
SYNTH1 = {
    "release-tree": [0.9, 0.8, 0.7, 0.6],
    "byclass": [0.8, 0.8, 0.75, 0.7],
    "alg2-by-class": [0.7, 0.7, 0.7, 0.7],
    "alg2-global": [0.6, 0.6, 0.8, 0.6],
    "local": [0.5, 0.5, 0.5, 0.5],
}
PENDIGITS = {m: [0.6 if m == "release-tree" else 0.5] * 4 for m in SYNTH1}
ORIGINAL = pd.Series({"synth1": 1.0, "pendigits": 0.8})


def _grid(sets: dict[str, dict[str, list[float]]]) -> pd.DataFrame:
    rows = [
        {"dataset": d, "gamma": g, "N": n, "rep": r, "method": m, "accuracy": a}
        for d, acc in sets.items()
        for m, values in acc.items()
        for (g, n, r), a in zip(KEYS, values)
    ]
    return pd.DataFrame(rows)


def _summary(grid: pd.DataFrame) -> pd.DataFrame:
    s = grid.groupby(["dataset", "method"], as_index=False).agg(
        accuracy=("accuracy", "mean"), cells=("accuracy", "size"), worst=("accuracy", "min")
    )
    s["original"] = s["dataset"].map(ORIGINAL)
    s["ratio_to_original"] = s["accuracy"] / s["original"]
    return s


def test_beyond_grid_claims_from_a_hand_built_grid():
    grid = _grid({"synth1": SYNTH1, "pendigits": PENDIGITS})
    frame = beyond_grid_claims(grid, _summary(grid))
    c, notes = _values(frame), _notes(frame)
    assert set(frame["section"]) == {"beyond"}
    assert c["synth1 cells"] == 4 and c["synth1 original"] == 1.0
    assert c["synth1 release-tree mean"] == pytest.approx(0.75)
    assert c["synth1 byclass mean"] == pytest.approx(0.7625)
    assert c["synth1 best learner"] == pytest.approx(0.7625)
    assert notes["synth1 best learner"] == "byclass"
    assert c["pendigits release-tree / original"] == pytest.approx(0.75)
    assert c["mean over data sets release-tree"] == pytest.approx((0.75 + 0.6) / 2)
    assert c["data sets where release-tree is the best learner"] == 1
    assert notes["data sets where release-tree is the best learner"] == "not synth1"
    # best or tied: 0.9 > 0.8, 0.8 ties 0.8, 0.7 < 0.8, 0.6 < 0.7
    assert c["synth1 release-tree best-or-tied share"] == pytest.approx(0.5)
    assert c["pendigits release-tree best-or-tied share"] == pytest.approx(1.0)
    # against ByClass: strictly ahead only in the first cell (a tie is not ahead)
    assert c["synth1 release-tree ahead of byclass share"] == pytest.approx(0.25)
    assert c["synth1 release-tree minus byclass"] == pytest.approx((0.1 + 0 - 0.05 - 0.1) / 4)
    assert c["synth1 N 10 release-tree"] == pytest.approx(0.85)
    assert c["synth1 N 20 byclass"] == pytest.approx(0.725)
    assert c["synth1 N values where byclass is ahead"] == 1
    assert notes["synth1 N values where byclass is ahead"] == "N 20"
    # Synth parts use synth1 only (pendigits would pull every value towards 0.6 / 0.5)
    assert c["synth release-tree margin over byclass and alg2-by-class: lowest"] == pytest.approx(
        0.75 - 0.7625
    )
    assert c["synth release-tree below the original (%): highest"] == pytest.approx(25.0)
    assert c["synth mean release-tree"] == pytest.approx(0.75)
    assert c["synth mean gamma 5, N 10 release-tree"] == pytest.approx(0.85)
    assert c["synth mean gamma 9, N 20 alg2-global"] == pytest.approx(0.7)
    assert c["synth central cells release-tree: lowest"] == pytest.approx(0.65)
    assert notes["synth central cells release-tree: lowest"] == "gamma 9, N 20"
    assert c["synth central cells release-tree: highest"] == pytest.approx(0.85)
    # (5, 10): 0.85 against at most 0.8; (9, 20): 0.65 against ByClass 0.725
    assert c["synth (gamma, N) cells with release-tree ahead of all"] == 1
    assert c["synth (gamma, N) cells"] == 2


def _recommended() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "dataset": ["synth2", "synth3", "spambase"],
            "cells": [2, 2, 2],
            "original": [0.9, 1.0, 0.9],
            "release_tree": [0.72, 0.99, 0.6],
            "ratio": [0.8, 0.99, 0.6 / 0.9],
            "best_baseline": ["byclass", "local", "byclass"],
            "best_baseline_accuracy": [0.7, 0.8, 0.7],
            "best_baseline_ratio": [0.7 / 0.9, 0.8, 0.7 / 0.9],
            "goal_met": [False, True, False],
            "shortfall": [0.135, 0.0, 0.255],
            "share_cells_goal_met": [0.5, 1.0, 0.0],
        }
    )


def _by_n() -> pd.DataFrame:
    ns = [5, 15, 20, 40, 50]
    return pd.DataFrame(
        {
            "dataset": "synth2",
            "N": ns,
            "ratio": [1.01, 1.02, 0.9, 0.8, 0.85],
            "best_baseline": ["local", "byclass", "byclass", "local", "local"],
            "best_baseline_ratio": [0.9, 0.95, 0.7, 0.82, 0.6],
        }
    )


def test_beyond_recommended_claims_table_ranges_and_cells():
    rows = []
    # synth3 cells: gamma 12 at N 10, 20, 30 (two repetitions each) and gamma 5, N 10
    for gamma, n_bins, accs in (
        (12, 10, (0.96, 0.98)),
        (12, 20, (1.0, 1.0)),
        (12, 30, (0.9, 0.92)),
    ):
        rows += [("synth3", gamma, n_bins, r, a) for r, a in enumerate(accs)]
    rows += [("synth3", 5, 10, r, 0.5) for r in range(2)]
    grid = pd.DataFrame(rows, columns=["dataset", "gamma", "N", "rep", "accuracy"])
    grid["method"] = "release-tree"
    original = pd.Series({"synth3": 1.0})
    frame = beyond_recommended_claims(_recommended(), _by_n(), BeyondFiles(grid, original))
    c, notes = _values(frame), _notes(frame)
    sec = frame.set_index("claim")["section"]
    assert c["synth2 ratio"] == pytest.approx(0.8)
    assert c["synth2 best other"] == pytest.approx(0.7) and notes["synth2 best other"] == "byclass"
    assert c["synth3 goal met"] == 1 and c["synth2 goal met"] == 0
    assert c["synth2 missing"] == pytest.approx(0.135)
    # spambase's tree (0.6) is behind its best other (0.7)
    assert c["data sets with release-tree ahead of the best other"] == 2
    assert notes["data sets with release-tree ahead of the best other"] == "not spambase"
    assert c["data sets at goal"] == 1 and notes["data sets at goal"] == "synth3"
    assert c["ratio of the data sets missing the goal: lowest"] == pytest.approx(0.6 / 0.9)
    assert notes["ratio of the data sets missing the goal: lowest"] == "spambase"
    assert c["missing of the data sets missing the goal: highest"] == pytest.approx(0.255)
    # per N, synth2: BY_N_RANGES are N 5-15 and N 40-100
    assert sec["synth2 N 20 ratio"] == "beyond-by-n"
    assert c["synth2 N 40 best other ratio"] == pytest.approx(0.82)
    assert c["synth2 ratio, N 5-15: lowest"] == pytest.approx(1.01)
    assert c["synth2 ratio, N 5-15: highest"] == pytest.approx(1.02)
    assert c["synth2 ratio, N 40-100: lowest"] == pytest.approx(0.8)
    assert notes["synth2 ratio, N 40-100: lowest"] == "N 40"
    assert c["synth2 best other ratio, every N: highest"] == pytest.approx(0.95)
    assert c["synth2 N values with release-tree behind the best other"] == 1
    assert notes["synth2 N values with release-tree behind the best other"] == "N 40"
    # per gamma (mean over N of the repetition means) and cells at goal (0.95 x 1.0)
    assert c["synth3 ratio at gamma 12 (mean over N)"] == pytest.approx((0.97 + 1.0 + 0.91) / 3)
    assert c["synth3 ratio at gamma 5 (mean over N)"] == pytest.approx(0.5)
    assert c["synth3 (gamma, N) cells at goal"] == 2
    assert notes["synth3 (gamma, N) cells at goal"] == "gamma 12, N 10; gamma 12, N 20"
    assert c["synth3 gamma 12, N 30 ratio"] == pytest.approx(0.91)
    assert c["synth3 gamma 12, N 10-30 ratio: lowest"] == pytest.approx(0.91)
    assert c["synth3 gamma 12, N 10-30 ratio: highest"] == pytest.approx(1.0)


def test_beyond_curve_claims():
    curve = pd.DataFrame(
        {
            "dataset": ["synth1", "synth1", "mean", "mean", "mean"],
            "n": [1000, 1000, 1000, 1000, 1000],
            "method": ["release-tree", "original", "release-tree", "original", "alg2-by-class"],
            "accuracy": [0.9, 1.0, 0.7, 0.98, 0.69],
            "ratio_to_original": [0.9, 1.0, 0.7 / 0.98, 1.0, 0.69 / 0.98],
        }
    )
    c = _values(beyond_curve_claims(curve))
    assert c["synth1 n 1000 release-tree ratio"] == pytest.approx(0.9)
    assert c["mean n 1000 release-tree ratio"] == pytest.approx(0.7 / 0.98)
    assert c["mean n 1000 original accuracy"] == pytest.approx(0.98)
    assert c["mean n 1000 alg2-by-class accuracy"] == pytest.approx(0.69)
    assert "synth1 n 1000 original accuracy" not in c.index


def _leaf_check() -> pd.DataFrame:
    rows = []
    acc = {
        # pendigits: naive Bayes leaves are the default; synth2: majority leaves
        "pendigits": {
            "tree-majority": (0.3, 0.3),
            "tree-nb": (0.8, 0.7),
            "naive-bayes": (0.82, 0.8),
        },
        "synth2": {"tree-majority": (0.99, 0.97), "tree-nb": (0.7, 0.7), "naive-bayes": (0.6, 0.6)},
    }
    for d, models in acc.items():
        for m, values in models.items():
            for rep, a in enumerate(values):
                scored = m == "tree-majority" and not (d == "synth2" and rep == 1)
                rows.append(
                    {
                        "dataset": d,
                        "gamma": 12,
                        "N": 40,
                        "rep": rep,
                        "model": m,
                        "test_accuracy": a,
                        "release_accuracy": 0.5 if scored else float("nan"),
                        "release_accuracy_se": 0.1 if scored else float("nan"),
                    }
                )
    return pd.DataFrame(rows)


def test_beyond_leaf_claims_default_scoring_and_shortfall():
    check = _leaf_check()
    # the grid's release tree: equal to the default in three of the four cells
    grid = pd.DataFrame(
        {
            "dataset": ["pendigits", "pendigits", "synth2", "synth2"],
            "gamma": 12,
            "N": 40,
            "rep": [0, 1, 0, 1],
            "method": "release-tree",
            "accuracy": [0.8, 0.7, 0.99, 0.5],
        }
    )
    summary = pd.DataFrame(
        {
            "dataset": ["pendigits"] * 3 + ["synth2"] * 3,
            "model": ["tree-majority", "tree-nb", "naive-bayes"] * 2,
            "test_accuracy": [0.3, 0.75, 0.81, 0.98, 0.7, 0.6],
            "ratio_to_original": [0.3, 0.75, 0.81, 0.98, 0.7, 0.6],
        }
    )
    original = pd.Series({"pendigits": 1.0, "synth2": 1.0})
    frame = beyond_leaf_claims(summary, BeyondFiles(grid, original, leaf=check))
    c, notes = _values(frame), _notes(frame)
    assert c["pendigits tree-nb"] == pytest.approx(0.75)
    assert c["synth2 naive-bayes ratio"] == pytest.approx(0.6)
    assert c["cells"] == 4 and c["pendigits cells"] == 2
    assert c["cells where release_accuracy scored tree-majority"] == 3
    assert c["cells where release_accuracy scored naive-bayes"] == 0
    assert c["cells where the default equals the grid's release tree"] == 3
    assert c["pendigits default at gamma 12, N 40"] == pytest.approx(0.75)
    assert c["synth2 default at gamma 12, N 40"] == pytest.approx(0.98)
    assert c["pendigits best candidate"] == pytest.approx(0.81)
    assert notes["pendigits best candidate"] == "naive-bayes"
    assert c["pendigits goal (0.95 x original)"] == pytest.approx(0.95)
    assert c["pendigits best candidate short of the goal"] == pytest.approx(0.95 - 0.81)
    # above the goal: nothing missing
    assert c["synth2 best candidate short of the goal"] == 0.0


def test_beyond_forest_claims_against_the_tree_on_the_same_cells():
    grid = _grid({"synth1": SYNTH1})
    forest = grid[(grid["method"] == "release-tree") & (grid["rep"] == 0)].assign(
        method="release-forest", accuracy=[0.95, 0.7]
    )
    # repetition 1 is not in the forest's run and must not count
    forest_rec = pd.DataFrame(
        {
            "dataset": ["synth1"],
            "cells": [2],
            "original": [1.0],
            "release_forest": [0.825],
            "ratio": [0.825],
            "goal_met": [False],
            "share_cells_goal_met": [0.5],
        }
    )
    frame = beyond_forest_claims(forest_rec, BeyondFiles(grid, ORIGINAL, forest=forest))
    c, notes = _values(frame), _notes(frame)
    assert c["synth1 release-forest"] == pytest.approx(0.825)
    assert c["cells"] == 2 and c["cells per data set: highest"] == 2
    assert c["data sets with release-forest at goal"] == 0
    # tree on repetition 0: 0.9 at (5, 10), 0.7 at (9, 20)
    assert c["synth1 release-tree"] == pytest.approx(0.8)
    assert c["synth1 release-tree cells at goal share"] == pytest.approx(0.0)
    # best other on the same rows: ByClass (0.8 + 0.75) / 2, not alg2-global (0.7)
    assert c["synth1 best other"] == pytest.approx(0.775)
    assert notes["synth1 best other"] == "byclass"
    assert c["synth1 release-forest minus release-tree"] == pytest.approx(0.025)
    assert c["mean over data sets release-forest minus release-tree"] == pytest.approx(0.025)
    assert c["data sets with release-forest ahead"] == 1
    name = "release-forest gain over release-tree, data sets ahead and missing the goal"
    assert c[f"{name}: lowest"] == pytest.approx(0.025)
    assert c["cells with release-forest ahead of release-tree"] == 1
    assert c["cells with release-forest behind release-tree"] == 0
    assert c["cells with both"] == 2


def test_beyond_heldout_claims():
    rows = []
    cells = {("5", "10"): (0.9, 0.8, 0.88), ("9", "20"): (0.9, 0.7, 0.9)}
    for (g, n), (orig, tree, forest) in cells.items():
        for m, a in (("original", orig), ("release-tree", tree), ("release-forest", forest)):
            rows.append((g, n, m, a, a / orig))
    rows += [("all", "all", "release-forest", 0.89, 0.89 / 0.9)]
    summary = pd.DataFrame(rows, columns=["gamma", "N", "method", "accuracy", "ratio_to_original"])
    summary.insert(0, "dataset", "wisconsin")
    c = _values(beyond_heldout_claims(summary))
    assert c["wisconsin (5, 10) release-tree"] == pytest.approx(0.8)
    assert c["wisconsin (9, 20) release-forest ratio"] == pytest.approx(1.0)
    assert c["wisconsin all cells release-forest"] == pytest.approx(0.89)
    assert "wisconsin (5, 10) original ratio" not in c.index
    assert c["release-forest minus release-tree, mean over cells"] == pytest.approx(0.14)
    # forest ratios 0.978 and 1.0; tree 0.889 and 0.778
    assert c["cells with release-forest at goal"] == 2
    assert c["cells with release-tree at goal"] == 0


def test_beyond_boxes_claims():
    summary = pd.DataFrame(
        {
            "dataset": ["synth4"],
            "cells": [1],
            "identity_tree": [0.96],
            "same_boxes_release": [0.9],
            "release_tree": [0.85],
            "median_leaf_neff": [2.2],
            "original": [1.0],
            "identity_tree_ratio": [0.96],
            "same_boxes_release_ratio": [0.9],
            "release_tree_ratio": [0.85],
        }
    )
    check = pd.DataFrame(
        {
            "dataset": "synth4",
            "gamma": 12,
            "N": 40,
            "rep": [0, 1, 2],
            "leaves": [27, 30, 29],
            "release_tree": [0.8, 0.85, 0.9],
        }
    )
    c = _values(beyond_boxes_claims(summary, check))
    assert c["cells"] == 3
    assert c["synth4 same_boxes_release ratio"] == pytest.approx(0.9)
    assert c["synth4 median effective records per leaf"] == pytest.approx(2.2)
    assert c["synth4 leaves: fewest"] == 27 and c["synth4 leaves: most"] == 30
    assert c["synth4 release_tree at gamma 12, N 40"] == pytest.approx(0.85)


def test_claims_on_a_directory_of_beyond_files_only(tmp_path):
    grid = _grid({"synth1": SYNTH1, "pendigits": PENDIGITS})
    grid.to_csv(tmp_path / "beyond.csv", index=False)
    _summary(grid).to_csv(tmp_path / "beyond_summary.csv", index=False)
    _recommended().to_csv(tmp_path / "beyond_recommended.csv", index=False)
    _by_n().to_csv(tmp_path / "beyond_recommended_by_n.csv", index=False)
    out = claims(tmp_path)
    assert set(out["section"]) == {"beyond", "beyond-recommended", "beyond-by-n"}
    assert out.equals(beyond_claims(tmp_path))
    c = out.set_index(["section", "claim"])["value"]
    assert c[("beyond", "synth1 release-tree best-or-tied share")] == pytest.approx(0.5)
    # a missing input only drops what needs it
    (tmp_path / "beyond_summary.csv").unlink()
    assert "beyond" not in set(claims(tmp_path)["section"])
    assert list(beyond_claims(tmp_path / "nothing-here").columns) == list(out.columns)


def test_a_beyond_file_without_a_column_is_one_error_line(tmp_path):
    from typer.testing import CliRunner

    from ppdm.cli import app
    from ppdm.exceptions import DataError

    _recommended().drop(columns="goal_met").to_csv(tmp_path / "beyond_recommended.csv", index=False)
    with pytest.raises(DataError, match=r"beyond_recommended\.csv: column 'goal_met' missing"):
        beyond_claims(tmp_path)
    from ppdm.publish import mark_output

    mark_output(tmp_path)  # a results directory of reproduce's (claims reads its CSVs)
    res = CliRunner().invoke(app, ["reproduce", "claims", "--out", str(tmp_path)])
    assert res.exit_code != 0
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "column 'goal_met' missing" in lines[0]
    assert "Traceback" not in res.output
    assert not (tmp_path / "claims.csv").exists()
