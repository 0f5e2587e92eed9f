"""Beyond the papers: learning from the release itself vs reconstruction-based learners.

For every data set of Table 1 and every (gamma, N) with gamma in 5..12 and the paper's
N values, each non-class attribute is binned into N equi-width bins and perturbed with
the gamma-diagonal matrix (the class is not perturbed), and six learners are compared on
the untouched test set:

- ``original``: C4.5 on the original training data (Table 1's number, per data set);
- ``alg2-global`` / ``alg2-by-class``: Algorithm 2 (set-scale estimates) + C4.5;
- ``byclass``: Agrawal & Srikant's ByClass, their Bayesian (IBU) estimate per class,
  values handed out by rank, + C4.5;
- ``local``: Agrawal & Srikant's Local, reconstruction at every node
  (:class:`ppdm_papers.local_tree.LocalReconstructionClassifier`);
- ``release-tree``: :class:`ppdm.tree.ReleaseTreeClassifier`, unbiased box counts, no
  reconstruction;
- ``release-forest`` (run on request, ``EXTRA_METHODS``):
  :class:`ppdm.tree.ReleaseForestClassifier` with ``FOREST_PARAMS``.

A learning curve against n on Synth1-5 (fixed gamma and N) shows where variance at depth
limits the release tree.

References
----------
Dowd, Xu & Zhang, Sec. 6 (setup, data sets, grid); Agrawal & Srikant (2000), Sec. 5
(ByClass, Local); Ma & Sivakumar, Sec. 7 (learning from estimated statistics).
"""

from __future__ import annotations

import functools
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from ppdm.cells import cell_rng, run_cells
from ppdm.domain import BinnedDomain
from ppdm.io import write_csv_atomic, write_json_atomic
from ppdm.matrix import GammaDiagonal

from .accuracy import fit_score, perturbed_cell
from .cellrun import CsvCheckpoint
from .core import perturb_table, reconstruct_table
from .data import TABLE1_DATASETS, load_experiment_data
from .grid import ADVISOR_GAMMAS, PAPER_NS
from .registry import RunContext

__all__ = ["METHODS", "beyond_cell", "beyond_grid", "curve_cell", "summarise", "run"]

METHODS = ("alg2-global", "alg2-by-class", "byclass", "local", "release-tree")
#: Learners run only when asked for (``beyond_grid(methods=...)``).
EXTRA_METHODS = ("release-forest",)
#: The forest of the grid: 20 bagged release trees, 70 % of the attributes per split.
FOREST_PARAMS = {"n_estimators": 20, "max_features": 0.7, "random_state": 0}
KEY = ["dataset", "gamma", "N", "rep"]
#: Quick grid: two gammas of Sec. 7's range and two N.
QUICK_GAMMAS, QUICK_NS = (5, 12), (10,)
#: Learning curve: sizes and the fixed (gamma, N).
CURVE_SIZES = (1_000, 3_000, 10_000, 30_000, 100_000)
QUICK_CURVE_SIZES = (300, 1_000)
CURVE_CELL = (9, 20)


def _test_codes(table, X_test: pd.DataFrame) -> np.ndarray:
    cols = []
    for name, dom in zip(table.columns, table.domains):
        d = replace(dom, out_of_bounds="clip") if isinstance(dom, BinnedDomain) else dom
        cols.append(d.encode(X_test[name], column=name))
    return np.column_stack(cols)


def _learn(method, table, perturbed, gamma, rng, y_train, data, test_codes) -> float:
    from ppdm.tree import ReleaseForestClassifier, ReleaseTreeClassifier

    from .local_tree import LocalReconstructionClassifier

    y_test = data.test[data.target].to_numpy()
    if method in ("alg2-global", "alg2-by-class", "byclass"):
        mode = "global" if method == "alg2-global" else "by-class"
        est = "ibu" if method == "byclass" else "set-scale"
        rec = reconstruct_table(table, perturbed, gamma, rng, mode=mode, method=est)
        return fit_score("c45", table.decode(rec), y_train, data.X_test, y_test)
    mats = [GammaDiagonal(int(n), gamma) for n in table.n_values]
    if method == "local":
        model = LocalReconstructionClassifier(random_state=rng)
    elif method == "release-forest":
        model = ReleaseForestClassifier(**FOREST_PARAMS)
    else:
        model = ReleaseTreeClassifier()
    model.fit_codes(perturbed, y_train, table.domains, mats, table.columns)
    return float(np.mean(model.predict_codes(test_codes) == y_test))


def beyond_cell(
    cell: tuple, *, seed: int, quick: bool, methods: tuple[str, ...] = METHODS
) -> list[dict]:
    """One (dataset, gamma, N, rep) cell: perturb once, run every learner on it."""
    name, gamma, n_bins, rep = cell
    data, table, perturbed, y_train, rng = perturbed_cell("beyond", cell, seed, quick)
    test_codes = _test_codes(table, data.X_test)
    rows = []
    for method in methods:
        t0 = time.perf_counter()
        acc = _learn(method, table, perturbed, float(gamma), rng, y_train, data, test_codes)
        rows.append(
            {
                "dataset": name,
                "gamma": int(gamma),
                "N": int(n_bins),
                "rep": int(rep),
                "method": method,
                "accuracy": acc,
                "seconds": time.perf_counter() - t0,
            }
        )
    return rows


def curve_cell(cell: tuple, *, seed: int, quick: bool) -> list[dict]:
    """One (dataset, n, rep) point of the learning curve at (gamma, N) = CURVE_CELL."""
    name, n, rep = cell
    gamma, n_bins = CURVE_CELL
    data = load_experiment_data(name, seed, quick)
    sub = data.train.iloc[: int(n)].reset_index(drop=True)
    from .core import encode_table

    table = encode_table(sub.drop(columns=[data.target]), sub[data.target].to_numpy(), n_bins)
    rng = cell_rng(seed, ("curve", *cell))
    perturbed = perturb_table(table, float(gamma), rng)
    labels = np.unique(sub[data.target].to_numpy())
    y_train = labels[table.classes]
    test_codes = _test_codes(table, data.X_test)
    rows = [
        {
            "dataset": name,
            "n": int(n),
            "rep": int(rep),
            "method": "original",
            "accuracy": fit_score(
                "c45",
                sub.drop(columns=[data.target]),
                sub[data.target],
                data.X_test,
                data.test[data.target],
            ),
        }
    ]
    for method in ("alg2-by-class", "release-tree"):
        acc = _learn(method, table, perturbed, float(gamma), rng, y_train, data, test_codes)
        rows.append(
            {"dataset": name, "n": int(n), "rep": int(rep), "method": method, "accuracy": acc}
        )
    return rows


def beyond_grid(
    *,
    quick=False,
    seed=0,
    reps=5,
    jobs=1,
    mapper=None,
    checkpoint=None,
    progress=False,
    deadline=None,
    datasets=TABLE1_DATASETS,
    methods: tuple[str, ...] = METHODS,
) -> pd.DataFrame:
    """The tidy comparison table: one row per (dataset, gamma, N, rep, method).

    ``methods`` may name any of ``METHODS + EXTRA_METHODS``; every cell is perturbed the
    same way whichever learners run on it."""
    gammas, ns = (QUICK_GAMMAS, QUICK_NS) if quick else (ADVISOR_GAMMAS, PAPER_NS)
    coarse = lambda g, n: 0 if g in (5, 8, 12) and n in (10, 20, 40, 70, 100) else 1  # noqa: E731
    cells = [
        (d, g, n, r)
        for r in range(reps)
        for g, n in sorted(((g, n) for g in gammas for n in ns), key=lambda c: (coarse(*c), c))
        for d in datasets
    ]
    fn = functools.partial(beyond_cell, seed=seed, quick=quick, methods=tuple(methods))
    return run_cells(
        fn,
        cells,
        checkpoint=checkpoint,
        mapper=mapper,
        jobs=jobs,
        progress=progress,
        description="beyond",
        deadline=deadline,
    )


def original_accuracy(datasets, seed: int, quick: bool) -> pd.DataFrame:
    """C4.5 on the original training data of every data set (Table 1)."""
    rows = []
    for name in datasets:
        data = load_experiment_data(name, seed, quick)
        acc = fit_score(
            "c45", data.X_train, data.train[data.target], data.X_test, data.test[data.target]
        )
        rows.append({"dataset": name, "original": acc})
    return pd.DataFrame(rows)


def summarise(frame: pd.DataFrame, original: pd.DataFrame) -> pd.DataFrame:
    """Mean accuracy per data set and method over the grid, and its ratio to the original."""
    mean = frame.groupby(["dataset", "method"], as_index=False).agg(
        accuracy=("accuracy", "mean"), cells=("accuracy", "size"), worst=("accuracy", "min")
    )
    out = mean.merge(original, on="dataset")
    out["ratio_to_original"] = out["accuracy"] / out["original"]
    return out


def _plot(summary: pd.DataFrame, curve: pd.DataFrame, path: Path) -> Path:
    from .plotting import _plt, _save

    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
    piv = summary.pivot(index="dataset", columns="method", values="ratio_to_original")
    piv = piv[[m for m in METHODS if m in piv.columns]]
    piv.plot.bar(ax=axes[0], rot=30)
    axes[0].axhline(0.95, color="k", ls="--", lw=1, label="goal: 95 % of original")
    axes[0].set_ylabel("mean accuracy / original accuracy")
    axes[0].set_ylim(0.4, 1.05)
    axes[0].legend(fontsize=7)
    axes[0].set_title("over the (gamma, N) grid")
    if len(curve):
        mean = curve.groupby(["method", "n"], as_index=False)["accuracy"].mean()
        for method, part in mean.groupby("method"):
            axes[1].plot(part["n"], part["accuracy"], marker="o", label=method)
        axes[1].set_xscale("log")
        axes[1].set_xlabel("training records n")
        axes[1].set_ylabel("accuracy (mean over Synth1-5)")
        axes[1].set_title(f"learning curve at gamma = {CURVE_CELL[0]}, N = {CURVE_CELL[1]}")
        axes[1].legend(fontsize=8)
    fig.tight_layout()
    return _save(fig, path)


def run(ctx: RunContext) -> list[Path]:
    """``ppdm reproduce beyond``: beyond.csv, beyond_summary.csv, beyond_curve.csv and a PNG."""
    reps = 1 if ctx.quick else 5
    budget = ctx.options.get("max_minutes")
    deadline = time.monotonic() + 60.0 * budget if budget else None
    t0 = time.perf_counter()
    datasets = ("synth3", "pendigits") if ctx.quick else TABLE1_DATASETS
    frame = beyond_grid(
        quick=ctx.quick,
        seed=ctx.seed,
        reps=reps,
        jobs=ctx.jobs,
        mapper=ctx.mapper,
        checkpoint=CsvCheckpoint(ctx.out / "checkpoints" / "beyond.csv", KEY),
        progress=ctx.progress,
        deadline=deadline,
        datasets=datasets,
    )
    sizes = QUICK_CURVE_SIZES if ctx.quick else CURVE_SIZES
    synths = ("synth1", "synth3") if ctx.quick else tuple(f"synth{k}" for k in range(1, 6))
    curve = run_cells(
        functools.partial(curve_cell, seed=ctx.seed, quick=ctx.quick),
        [(d, n, r) for r in range(1 if ctx.quick else 3) for n in sizes for d in synths],
        checkpoint=CsvCheckpoint(
            ctx.out / "checkpoints" / "beyond-curve.csv", ["dataset", "n", "rep"]
        ),
        mapper=ctx.mapper,
        jobs=ctx.jobs,
        progress=ctx.progress,
        description="beyond curve",
        deadline=deadline,
    )
    original = original_accuracy(datasets, ctx.seed, ctx.quick)
    tidy = frame.drop(columns=["seconds"]).sort_values([*KEY, "method"], kind="stable")
    summary = summarise(tidy, original)
    timing = {
        "experiment": "beyond",
        "quick": ctx.quick,
        "jobs": ctx.jobs,
        "cells": int(tidy[KEY].drop_duplicates().shape[0]),
        "seconds_per_method": frame.groupby("method")["seconds"].sum().round(1).to_dict(),
        "wall_seconds_this_session": round(time.perf_counter() - t0, 1),
    }
    return [
        write_csv_atomic(tidy.reset_index(drop=True), ctx.out / "beyond.csv"),
        write_csv_atomic(summary, ctx.out / "beyond_summary.csv"),
        write_csv_atomic(
            curve.sort_values(["dataset", "n", "rep", "method"]), ctx.out / "beyond_curve.csv"
        ),
        _plot(summary, curve, ctx.out / "beyond.png"),
        write_json_atomic(
            timing, ctx.out / "timings" / ("beyond-quick.json" if ctx.quick else "beyond.json")
        ),
    ]
