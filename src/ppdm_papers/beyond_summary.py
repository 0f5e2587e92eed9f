"""Release tree against the original on the recommended cells, from the committed CSVs.

``ppdm reproduce beyond-summary --out results`` reads ``beyond.csv`` (one row per data
set, gamma, N, repetition and learner), ``beyond_summary.csv`` (C4.5 on the original
training data, per data set) and ``beyond_curve.csv`` (learning curve) from ``--out``
and writes, without rerunning anything:

- ``beyond_recommended.csv``: per data set, the release tree's mean accuracy over the
  recommended cells (``5 <= gamma <= 12``, every N of the grid; first the mean over the
  repetitions of each cell, then the mean over the cells), its ratio to the original,
  the best other learner beside it, and whether the goal (ratio >= 0.95) is met and by
  how much it is missed;
- ``beyond_recommended_by_n.csv``: the same per data set and N;
- ``beyond_curve_summary.csv``: the learning curve, mean over repetitions per data set,
  n and learner, with the ratio to the original at the same n;
- ``beyond_leaf_check_summary.csv``, when ``beyond_leaf_check.csv`` is there: see
  :func:`leaf_check_summary`.

``python -m ppdm_papers.beyond_summary leaf-check --out DIR`` writes
``beyond_leaf_check.csv``: on a few grid cells (``CHECK_CELLS`` x ``CHECK_REPS``) of the
data sets that miss the goal, majority leaves, naive Bayes leaves and a plain naive
Bayes model learnt from the same release, and ``release_accuracy`` on a held-out third
(:func:`leaf_check_cell`).

References
----------
Dowd, Xu & Zhang, Sec. 6-7 (data sets, grid, recommended gamma range); Agrawal &
Srikant (2000), Sec. 5 (ByClass, Local).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from ppdm.exceptions import DataError
from ppdm.io import write_csv_atomic
from ppdm.matrix import GammaDiagonal

from .registry import RunContext

__all__ = [
    "GOAL",
    "GAMMA_RANGE",
    "RELEASE",
    "cell_means",
    "recommended",
    "recommended_by_n",
    "curve_summary",
    "boxes_check",
    "boxes_check_cell",
    "boxes_check_summary",
    "forest_grid",
    "heldout",
    "heldout_cell",
    "heldout_summary",
    "forest_recommended",
    "leaf_check",
    "leaf_check_cell",
    "leaf_check_summary",
    "run",
]

#: Goal: the release tree's mean accuracy at least this share of the original's.
GOAL = 0.95
#: Recommended gamma range (inclusive).
GAMMA_RANGE = (5.0, 12.0)
RELEASE = "release-tree"
_GRID_COLUMNS = ("dataset", "gamma", "N", "rep", "method", "accuracy")


def _read(path: Path, columns: tuple[str, ...]) -> pd.DataFrame:
    if not path.is_file():
        raise DataError(f"{path}: not found; run `ppdm reproduce beyond --out {path.parent}`")
    frame = pd.read_csv(path)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(f"{path}: column {missing[0]!r} missing (has {list(frame.columns)[:8]})")
    bad = pd.to_numeric(frame["accuracy"], errors="coerce").isna()
    if bad.any():
        row = int(bad.to_numpy().argmax())
        value = str(frame["accuracy"].iloc[row])[:40]
        raise DataError(f"{path}: row {row + 2}, column 'accuracy': not a number ({value!r})")
    return frame


def cell_means(grid: pd.DataFrame, gamma_range: tuple[float, float] = GAMMA_RANGE) -> pd.DataFrame:
    """Mean accuracy over the repetitions of each (dataset, gamma, N, method) cell, on the
    cells with ``gamma_range[0] <= gamma <= gamma_range[1]``; column ``reps`` counts them."""
    lo, hi = gamma_range
    part = grid[(grid["gamma"] >= lo) & (grid["gamma"] <= hi)]
    return part.groupby(["dataset", "gamma", "N", "method"], as_index=False).agg(
        accuracy=("accuracy", "mean"), reps=("accuracy", "size")
    )


def _compare(
    cells: pd.DataFrame, original: pd.Series, by: list[str], learner: str = RELEASE
) -> pd.DataFrame:
    col = learner.replace("-", "_")
    mean = cells.groupby([*by, "method"], as_index=False).agg(
        accuracy=("accuracy", "mean"), cells=("accuracy", "size")
    )
    rel = mean[mean["method"] == learner].drop(columns="method")
    rel = rel.rename(columns={"accuracy": col})
    others = mean[mean["method"] != learner].sort_values(
        [*by, "accuracy", "method"], ascending=[True] * len(by) + [False, True], kind="stable"
    )
    best = others.groupby(by, as_index=False).first()[[*by, "method", "accuracy"]]
    best = best.rename(columns={"method": "best_baseline", "accuracy": "best_baseline_accuracy"})
    out = rel.merge(best, on=by, how="left")
    missing = sorted(set(cells["dataset"]) - set(original.index))
    if missing:
        raise DataError(f"beyond_summary.csv: no original accuracy for data set {missing[0]!r}")
    out["original"] = out["dataset"].map(original)
    tree = cells[cells["method"] == learner]
    met = tree["accuracy"] / tree["dataset"].map(original) >= GOAL
    share = met.groupby([tree[c] for c in by]).mean().rename("share_cells_goal_met")
    out = out.merge(share.reset_index(), on=by, how="left")
    out["ratio"] = out[col] / out["original"]
    out["best_baseline_ratio"] = out["best_baseline_accuracy"] / out["original"]
    out["goal_met"] = out["ratio"] >= GOAL
    # accuracy still missing to reach GOAL * original (0 where the goal is met)
    out["shortfall"] = (GOAL * out["original"] - out[col]).clip(lower=0.0)
    cols = [*by, "cells", "original", col, "ratio", "best_baseline"]
    cols += ["best_baseline_accuracy", "best_baseline_ratio", "goal_met", "shortfall"]
    cols += ["share_cells_goal_met"]
    return out[cols].reset_index(drop=True)


def recommended(grid: pd.DataFrame, original: pd.Series) -> pd.DataFrame:
    """Per data set: release tree vs the original and the best other learner.

    Parameters
    ----------
    grid : DataFrame
        ``beyond.csv``: dataset, gamma, N, rep, method, accuracy.
    original : Series
        C4.5 accuracy on the original training data, indexed by data set.

    Returns
    -------
    DataFrame
        dataset, cells, original, release_tree (mean over the recommended cells of the
        per-cell means over repetitions), ratio, best_baseline (the other learner with
        the highest such mean), best_baseline_accuracy, best_baseline_ratio, goal_met
        (``ratio >= 0.95``), shortfall (``0.95 * original - release_tree``, at least 0)
        and share_cells_goal_met (share of the cells whose mean over repetitions reaches
        ``0.95 * original``).
    """
    return _compare(cell_means(grid), original, ["dataset"])


def recommended_by_n(grid: pd.DataFrame, original: pd.Series) -> pd.DataFrame:
    """As :func:`recommended`, per data set and N (mean over the recommended gammas)."""
    return _compare(cell_means(grid), original, ["dataset", "N"])


#: The forest's own grid file (rows of ``release-forest`` only) and its learner name.
FOREST_FILE = "beyond_forest.csv"
FOREST = "release-forest"


def forest_recommended(
    grid: pd.DataFrame, forest: pd.DataFrame, original: pd.Series, by: tuple[str, ...] = ()
) -> pd.DataFrame:
    """The forest against the original and every learner of the grid, on the cells and
    repetitions the forest ran (its rows joined to ``beyond.csv`` on dataset, gamma, N
    and rep), over the recommended gammas: as :func:`recommended`, column
    ``release_forest``, the release tree among the other learners."""
    keys = forest[["dataset", "gamma", "N", "rep"]].drop_duplicates()
    same = grid.merge(keys, on=["dataset", "gamma", "N", "rep"])
    both = pd.concat([same[list(_GRID_COLUMNS)], forest[list(_GRID_COLUMNS)]], ignore_index=True)
    return _compare(cell_means(both), original, ["dataset", *by], learner=FOREST)


def curve_summary(curve: pd.DataFrame) -> pd.DataFrame:
    """Learning curve: mean accuracy per (dataset, n, method) and its ratio to the
    original at the same n; rows ``dataset == "mean"`` average the data sets."""
    mean = curve.groupby(["dataset", "n", "method"], as_index=False)["accuracy"].mean()
    overall = mean.groupby(["n", "method"], as_index=False)["accuracy"].mean()
    overall.insert(0, "dataset", "mean")
    both = pd.concat([mean, overall], ignore_index=True)
    orig = both[both["method"] == "original"].set_index(["dataset", "n"])["accuracy"]
    key = pd.MultiIndex.from_frame(both[["dataset", "n"]])
    both["ratio_to_original"] = both["accuracy"].to_numpy() / orig.reindex(key).to_numpy()
    return both


def run(ctx: RunContext) -> list[Path]:
    """``ppdm reproduce beyond-summary``: derived tables from the CSVs already in ``--out``."""
    out = Path(ctx.out)
    grid = _read(out / "beyond.csv", _GRID_COLUMNS)
    summary = _read(out / "beyond_summary.csv", ("dataset", "original", "accuracy"))
    original = summary.groupby("dataset")["original"].first()
    paths = [
        write_csv_atomic(recommended(grid, original), out / "beyond_recommended.csv"),
        write_csv_atomic(recommended_by_n(grid, original), out / "beyond_recommended_by_n.csv"),
    ]
    if (out / "beyond_curve.csv").is_file():
        curve = _read(out / "beyond_curve.csv", ("dataset", "n", "rep", "method", "accuracy"))
        paths.append(write_csv_atomic(curve_summary(curve), out / "beyond_curve_summary.csv"))
    if (out / "beyond_leaf_check.csv").is_file():
        check = pd.read_csv(out / "beyond_leaf_check.csv")
        table = leaf_check_summary(check, original, grid)
        paths.append(write_csv_atomic(table, out / "beyond_leaf_check_summary.csv"))
    if (out / "beyond_boxes_check.csv").is_file():
        check = pd.read_csv(out / "beyond_boxes_check.csv")
        table = boxes_check_summary(check, original)
        paths.append(write_csv_atomic(table, out / "beyond_boxes_check_summary.csv"))
    if (out / "beyond_heldout.csv").is_file():
        frame = pd.read_csv(out / "beyond_heldout.csv")
        paths.append(write_csv_atomic(heldout_summary(frame), out / "beyond_heldout_summary.csv"))
    if (out / FOREST_FILE).is_file():
        forest = _read(out / FOREST_FILE, _GRID_COLUMNS)
        for by, name in (((), "beyond_forest_recommended.csv"), (("N",), "beyond_forest_by_n.csv")):
            paths.append(
                write_csv_atomic(forest_recommended(grid, forest, original, by), out / name)
            )
    return paths


# --- small check of leaf models and of release_accuracy on a few grid cells -------------

#: Cells of the leaf check: (gamma, N) in the recommended range, repetitions 0..2.
CHECK_CELLS = ((5, 10), (9, 20), (12, 40))
CHECK_REPS = 3
#: Candidates: name -> ReleaseTreeClassifier parameters.
CHECK_MODELS = {
    "tree-majority": {"leaf_model": "majority"},
    "tree-nb": {"leaf_model": "naive-bayes"},
    "naive-bayes": {"leaf_model": "naive-bayes", "max_depth": 0},
}


def _release_correct_codes(est, codes, y) -> np.ndarray:
    """``release_correct`` on perturbed *codes* (the estimator was fitted with fit_codes)."""
    from ppdm.tree.release_scoring import _leaf_regions

    y_idx = np.searchsorted(est.classes_, y)
    y_idx = np.where(est.classes_[np.clip(y_idx, 0, len(est.classes_) - 1)] == y, y_idx, -1)
    n_values = [c.n_values for c in est.coders_]
    inv_t = [m.inverse_transpose_apply(np.eye(m.n_values)) for m in est.matrices_]
    s = np.zeros(len(codes))
    for leaf, box in est.tree_.leaf_boxes(n_values):
        for masks, cls in _leaf_regions(est, leaf, box, n_values):
            w = (y_idx == cls).astype(float)
            for j, mask in enumerate(masks):
                if mask is not None and not mask.all():
                    w *= (inv_t[j] @ mask.astype(float))[codes[:, j]]
            s += w
    return s


def leaf_check_cell(cell: tuple, *, seed: int = 0) -> list[dict]:
    """One (dataset, gamma, N, rep) cell of the grid, perturbed exactly as in
    ``beyond.csv``; per candidate leaf model: test accuracy on the original test set
    (fitted on the whole release) and ``release_accuracy`` on the last third of the
    release (fitted on the first two thirds), NaN where it refuses the model."""
    from ppdm.tree import ReleaseTreeClassifier

    from .accuracy import perturbed_cell
    from .beyond import _test_codes

    name, gamma, n_bins, rep = cell
    data, table, perturbed, y_train, _ = perturbed_cell("beyond", cell, seed, False)
    y_test = data.test[data.target].to_numpy()
    test_codes = _test_codes(table, data.X_test)
    mats = [GammaDiagonal(int(n), float(gamma)) for n in table.n_values]
    cut = (2 * len(perturbed)) // 3
    rows = []
    for model, params in CHECK_MODELS.items():
        clf = ReleaseTreeClassifier(**params)
        clf.fit_codes(perturbed, y_train, table.domains, mats, table.columns)
        test = float(np.mean(clf.predict_codes(test_codes) == y_test))
        part = ReleaseTreeClassifier(**params)
        part.fit_codes(perturbed[:cut], y_train[:cut], table.domains, mats, table.columns)
        try:
            s = _release_correct_codes(part, perturbed[cut:], y_train[cut:])
            est, se = float(s.mean()), float(s.std(ddof=1) / np.sqrt(len(s)))
        except DataError:  # a naive Bayes leaf spanning more than MAX_CELLS cells
            est = se = float("nan")
        rows.append(
            {
                "dataset": name,
                "gamma": int(gamma),
                "N": int(n_bins),
                "rep": int(rep),
                "model": model,
                "test_accuracy": test,
                "release_accuracy": est,
                "release_accuracy_se": se,
            }
        )
    return rows


def boxes_check_cell(cell: tuple, *, seed: int = 0, quick: bool = False) -> dict:
    """How far the *right boxes* get on a release: one two-class grid cell, perturbed
    exactly as in ``beyond.csv``.

    The release tree's algorithm is fitted on the *original* training codes (identity
    channel: the boxes a noise-free tree finds; ``identity_tree`` is its test accuracy),
    then every leaf's class is re-chosen from unbiased box counts of the release
    (clipped at 0) and the tree tested again (``same_boxes_release``). A learner that
    estimates the classes of these boxes from the release cannot do better than the
    estimate's noise allows, whatever its structure search; ``release_tree`` is the
    default learner on the same release. ``median_leaf_neff`` is the median Kish
    effective size of the leaves' release estimates.
    """
    from ppdm.boxcounts import box_weights
    from ppdm.matrix import identity
    from ppdm.tree import ReleaseTreeClassifier

    from .accuracy import perturbed_cell
    from .beyond import _test_codes

    name, gamma, n_bins, rep = cell
    data, table, perturbed, y_train, _ = perturbed_cell("beyond", cell, seed, quick)
    labels = np.unique(data.train[data.target].to_numpy())
    y_test = data.test[data.target].to_numpy()
    test_codes = _test_codes(table, data.X_test)
    mats = [GammaDiagonal(int(n), float(gamma)) for n in table.n_values]
    ids = [identity(int(n)) for n in table.n_values]
    kw = {"leaf_model": "majority"}
    clean = ReleaseTreeClassifier(**kw).fit_codes(
        table.codes, y_train, table.domains, ids, table.columns
    )
    identity_acc = float(np.mean(clean.predict_codes(test_codes) == y_test))
    n_values = [int(n) for n in table.n_values]
    value = clean.tree_.value.copy()
    neffs = []
    for leaf, box in clean.tree_.leaf_boxes(n_values):
        w = box_weights(perturbed, mats, box)
        counts = np.clip(np.bincount(table.classes, weights=w, minlength=len(labels)), 0, None)
        if counts.sum() > 0:
            value[leaf] = counts / counts.sum()
        sq = float(np.dot(w, w))
        neffs.append(float(w.sum()) ** 2 / sq if sq > 0 else 0.0)
    clean.tree_.value = value
    same_boxes = float(np.mean(clean.predict_codes(test_codes) == y_test))
    tree = ReleaseTreeClassifier().fit_codes(perturbed, y_train, table.domains, mats, table.columns)
    return {
        "dataset": name,
        "gamma": int(gamma),
        "N": int(n_bins),
        "rep": int(rep),
        "leaves": int(clean.tree_.n_leaves),
        "identity_tree": identity_acc,
        "same_boxes_release": same_boxes,
        "release_tree": float(np.mean(tree.predict_codes(test_codes) == y_test)),
        "median_leaf_neff": float(np.median(neffs)),
    }


def boxes_check_summary(check: pd.DataFrame, original: pd.Series) -> pd.DataFrame:
    """Per data set: mean over the cells (each the mean over its repetitions) of the
    noise-free tree, the same boxes with classes from the release, and the release tree,
    with their ratios to the original."""
    cols = ["identity_tree", "same_boxes_release", "release_tree", "median_leaf_neff"]
    per_cell = check.groupby(["dataset", "gamma", "N"], as_index=False)[cols].mean()
    out = per_cell.groupby("dataset", as_index=False)[cols].mean()
    out.insert(1, "cells", per_cell.groupby("dataset").size().to_numpy())
    out["original"] = out["dataset"].map(original)
    for c in cols[:3]:
        out[f"{c}_ratio"] = out[c] / out["original"]
    return out


def _sweep(cell_fn, names, reps: int, *, seed: int, path: Path | None) -> pd.DataFrame:
    """``cell_fn`` on ``CHECK_CELLS`` x ``reps`` repetitions x ``names``, one process, one
    cell after another (repetition 0 of every cell and name first); with ``path``, the rows
    so far are written after every cell, so an interrupted run keeps what it did."""
    rows: list[dict] = []
    for rep in range(reps):
        for gamma, n_bins in CHECK_CELLS:
            for name in names:
                out = cell_fn((name, gamma, n_bins, rep), seed=seed)
                rows += out if isinstance(out, list) else [out]
                if path is not None:
                    write_csv_atomic(pd.DataFrame(rows), path)
    return pd.DataFrame(rows)


def boxes_check(datasets, *, seed: int = 0, path: Path | None = None) -> pd.DataFrame:
    """:func:`boxes_check_cell` on ``CHECK_CELLS`` x ``CHECK_REPS`` (see :func:`_sweep`)."""
    return _sweep(boxes_check_cell, datasets, CHECK_REPS, seed=seed, path=path)


#: Held-out tables (not among the grid's seven): name -> loader of (X, y).
HELDOUT_REPS = 10


def _heldout_table(name: str):
    if name == "wisconsin":
        from ppdm.datasets import load_wisconsin

        ds = load_wisconsin()
        return ds.frame.drop(columns=ds.target), ds.frame[ds.target].to_numpy()
    if name == "breast-cancer":
        from sklearn.datasets import load_breast_cancer

        bunch = load_breast_cancer(as_frame=True)
        return bunch.data, bunch.target.to_numpy()
    raise DataError(f"unknown held-out table {name!r} (known: 'wisconsin', 'breast-cancer')")


def _heldout_release(cell: tuple, seed: int):
    """A held-out table's cell: its split, encoded training table and one perturbation."""
    from ppdm.cells import cell_rng

    from .core import encode_table, perturb_table

    name, gamma, n_bins, rep = cell
    X, y = _heldout_table(name)
    order = np.random.default_rng([seed, int(rep)]).permutation(len(y))
    cut = (2 * len(y)) // 3
    tr, te = order[:cut], order[cut:]
    X_train, X_test = X.iloc[tr].reset_index(drop=True), X.iloc[te].reset_index(drop=True)
    y_train, y_test = y[tr], y[te]
    table = encode_table(X_train, y_train, int(n_bins))
    rng = cell_rng(seed, ("heldout", *cell))
    perturbed = perturb_table(table, float(gamma), rng)
    return X_train, y_train, X_test, y_test, table, perturbed, rng


def heldout_cell(cell: tuple, *, seed: int = 0) -> list[dict]:
    """One (table, gamma, N, rep) cell on a table outside the grid: a random two-thirds
    training split (per repetition), every attribute in N equi-width bins perturbed with
    the gamma-diagonal matrix; C4.5 on the original split (``original``), Algorithm 2 by
    class + C4.5, ByClass + C4.5, the release tree and the release forest
    (``FOREST_PARAMS``), all tested on the original third."""
    from ppdm.tree import ReleaseForestClassifier, ReleaseTreeClassifier

    from .accuracy import fit_score
    from .beyond import FOREST_PARAMS, _test_codes
    from .core import reconstruct_table

    name, gamma, n_bins, rep = cell
    X_train, y_train, X_test, y_test, table, perturbed, rng = _heldout_release(cell, seed)
    labels = np.unique(y_train)
    test_codes = _test_codes(table, X_test)
    mats = [GammaDiagonal(int(n), float(gamma)) for n in table.n_values]
    acc = {"original": fit_score("c45", X_train, y_train, X_test, y_test)}
    for method, mode, est in (
        ("alg2-by-class", "by-class", "set-scale"),
        ("byclass", "by-class", "ibu"),
    ):
        rec = reconstruct_table(table, perturbed, float(gamma), rng, mode=mode, method=est)
        acc[method] = fit_score("c45", table.decode(rec), labels[table.classes], X_test, y_test)
    for method, model in (
        ("release-tree", ReleaseTreeClassifier()),
        ("release-forest", ReleaseForestClassifier(**FOREST_PARAMS)),
    ):
        model.fit_codes(perturbed, labels[table.classes], table.domains, mats, table.columns)
        acc[method] = float(np.mean(model.predict_codes(test_codes) == y_test))
    key = {"dataset": name, "gamma": int(gamma), "N": int(n_bins), "rep": int(rep)}
    return [{**key, "method": m, "accuracy": a} for m, a in acc.items()]


def heldout(
    tables=("wisconsin", "breast-cancer"), *, seed: int = 0, path: Path | None = None
) -> pd.DataFrame:
    """:func:`heldout_cell` on ``CHECK_CELLS`` x ``HELDOUT_REPS`` (see :func:`_sweep`)."""
    return _sweep(heldout_cell, tables, HELDOUT_REPS, seed=seed, path=path)


def heldout_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per table, cell and learner: mean accuracy over the repetitions and its ratio to
    the original C4.5's mean on the same splits; cell ``"all"`` averages the cells."""
    mean = frame.groupby(["dataset", "gamma", "N", "method"], as_index=False)["accuracy"].mean()
    overall = mean.groupby(["dataset", "method"], as_index=False)["accuracy"].mean()
    overall["gamma"], overall["N"] = "all", "all"
    both = pd.concat([mean.astype({"gamma": object, "N": object}), overall], ignore_index=True)
    key = ["dataset", "gamma", "N"]
    orig = both[both["method"] == "original"].set_index(key)["accuracy"]
    both["ratio_to_original"] = (
        both["accuracy"].to_numpy() / orig.reindex(pd.MultiIndex.from_frame(both[key])).to_numpy()
    )
    return both


def leaf_check(datasets, *, seed: int = 0, path: Path | None = None) -> pd.DataFrame:
    """:func:`leaf_check_cell` on ``CHECK_CELLS`` x ``CHECK_REPS`` (see :func:`_sweep`)."""
    return _sweep(leaf_check_cell, datasets, CHECK_REPS, seed=seed, path=path)


def leaf_check_summary(
    check: pd.DataFrame, original: pd.Series, grid: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Per data set and candidate of the leaf check: cells, mean test accuracy (over the
    cells' repetition means), its ratio to the original, the share of cells where
    ``release_accuracy`` could score the candidate, and its mean estimate where it did.

    With ``grid`` (``beyond.csv``), every learner of the grid on the same (dataset,
    gamma, N, rep) keys is added as model ``"grid <method>"`` (not scored)."""
    if grid is not None:
        keys = check[["dataset", "gamma", "N", "rep"]].drop_duplicates()
        same = grid.merge(keys, on=["dataset", "gamma", "N", "rep"])
        same = same.assign(model="grid " + same["method"], release_accuracy=float("nan"))
        same = same.rename(columns={"accuracy": "test_accuracy"})
        check = pd.concat([check, same[check.columns.intersection(same.columns)]])
    per_cell = check.groupby(["dataset", "gamma", "N", "model"], as_index=False).agg(
        test_accuracy=("test_accuracy", "mean"),
        scored=("release_accuracy", lambda v: float(v.notna().mean())),
        release_accuracy=("release_accuracy", "mean"),
    )
    out = per_cell.groupby(["dataset", "model"], as_index=False).agg(
        cells=("test_accuracy", "size"),
        test_accuracy=("test_accuracy", "mean"),
        scored=("scored", "mean"),
        release_accuracy=("release_accuracy", "mean"),
    )
    out["ratio_to_original"] = out["test_accuracy"] / out["dataset"].map(original)
    cols = ["dataset", "model", "cells", "test_accuracy", "ratio_to_original", "scored"]
    return out[[*cols, "release_accuracy"]]


def forest_grid(
    out: Path,
    *,
    reps: int = 1,
    jobs: int = 1,
    max_minutes: float | None = None,
    datasets=None,
    seed: int = 0,
) -> Path:
    """The forest alone on every (gamma, N) cell of the grid, repetitions ``0..reps-1``,
    each cell perturbed exactly as in ``beyond.csv``; resumable (checkpoint
    ``checkpoints/beyond-forest.csv``). Writes ``beyond_forest.csv`` (the grid's columns)
    and ``timings/beyond-forest.json``."""
    import time

    from ppdm.io import write_json_atomic

    from .beyond import KEY, beyond_grid
    from .cellrun import CsvCheckpoint
    from .data import TABLE1_DATASETS

    t0 = time.perf_counter()
    deadline = time.monotonic() + 60.0 * max_minutes if max_minutes else None
    frame = beyond_grid(
        seed=seed,
        reps=reps,
        jobs=jobs,
        checkpoint=CsvCheckpoint(out / "checkpoints" / "beyond-forest.csv", KEY),
        deadline=deadline,
        datasets=tuple(datasets) if datasets else TABLE1_DATASETS,
        methods=(FOREST,),
    )
    timing = {
        "experiment": "beyond-forest",
        "jobs": jobs,
        "cells": int(len(frame)),
        "seconds_per_method": frame.groupby("method")["seconds"].sum().round(1).to_dict(),
        "wall_seconds_this_session": round(time.perf_counter() - t0, 1),
    }
    write_json_atomic(timing, out / "timings" / "beyond-forest.json")
    tidy = frame.drop(columns=["seconds"]).sort_values([*KEY, "method"], kind="stable")
    return write_csv_atomic(tidy.reset_index(drop=True), out / FOREST_FILE)


def main(argv: list[str] | None = None) -> None:
    """``python -m ppdm_papers.beyond_summary leaf-check --out DIR [--datasets ...]``,
    ``... forest-grid --out DIR [--reps 1] [--jobs 2] [--max-minutes M]``."""
    parser = argparse.ArgumentParser(prog="python -m ppdm_papers.beyond_summary")
    parser.add_argument("command", choices=["leaf-check", "forest-grid", "boxes-check", "heldout"])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--datasets", nargs="+", default=None)
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--max-minutes", type=float, default=None)
    args = parser.parse_args(argv)
    if args.command == "forest-grid":
        print(
            forest_grid(
                args.out,
                reps=args.reps,
                jobs=args.jobs,
                max_minutes=args.max_minutes,
                datasets=args.datasets,
            )
        )
        return
    if args.command == "heldout":
        path = args.out / "beyond_heldout.csv"
        heldout(tuple(args.datasets or ("wisconsin", "breast-cancer")), path=path)
        print(path)
        return
    if args.datasets is None:
        goal = pd.read_csv(args.out / "beyond_recommended.csv")
        args.datasets = goal.loc[~goal["goal_met"], "dataset"].tolist()
    if args.command == "boxes-check":
        two_class = [d for d in args.datasets if d != "pendigits"]
        path = args.out / "beyond_boxes_check.csv"
        boxes_check(two_class, path=path)
        print(path)
        return
    path = args.out / "beyond_leaf_check.csv"
    leaf_check(args.datasets, path=path)
    print(path)


if __name__ == "__main__":
    main()
