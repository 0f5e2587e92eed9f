"""Figs. 4-6: C4.5 accuracy learned from reconstructed data over the (gamma, N) grid.

For every data set and (gamma, N): every non-class attribute of the training set is
cut into N equi-width bins over its range and perturbed with the gamma-diagonal matrix;
the class is not perturbed. The training set is then reconstructed with Algorithm 2
(set-scale estimate, bin centres as values), globally and by class from the *same*
perturbed table, a tree is learned from each, and its accuracy measured on the
untouched test set. Five repetitions per cell.

Fig. 5 plots accuracy against the entropy of M per data set; Fig. 6 averages the seven
accuracies of each (gamma, N) and plots them with gamma and N against entropy, where
each N forms a band whose tail drops as gamma falls.

References
----------
Dowd, Xu & Zhang, Sec. 6.2 (Figs. 4-6), Sec. 4.1 (Algorithm 2), Sec. 5.2 (entropy).
"""

from __future__ import annotations

import functools
import time
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from ppdm.cells import cell_rng
from ppdm.exceptions import ParameterError
from ppdm.io import write_csv_atomic, write_json_atomic
from ppdm.matrix import GammaDiagonal

from .cellrun import CellRun, CsvCheckpoint
from .core import MODES, EncodedTable, encode_table, perturb_table, reconstruct_table
from .data import TABLE1_DATASETS, ExperimentData, load_experiment_data
from .grid import tree_grid
from .learners import make_learner
from .registry import RunContext

__all__ = [
    "accuracy_cell",
    "accuracy_grid",
    "average_accuracy",
    "band_summary",
    "fit_score",
    "PerturbedCell",
    "perturbed_cell",
    "run",
]

KEY = ["dataset", "gamma", "N", "rep"]


def fit_score(learner: str, X_train: pd.DataFrame, y_train, X_test: pd.DataFrame, y_test) -> float:
    """Accuracy on the test set of a tree learned from the training set."""
    model = make_learner(learner).fit(X_train, np.asarray(y_train))
    return float(np.mean(model.predict(X_test) == np.asarray(y_test)))


@lru_cache(maxsize=32)
def _encoded(name: str, seed: int, quick: bool, n_bins: int) -> EncodedTable:
    data = load_experiment_data(name, seed, quick)
    return encode_table(data.X_train, data.train[data.target].to_numpy(), n_bins)


class PerturbedCell(NamedTuple):
    """One (dataset, gamma, N, rep) cell's training data, encoded and perturbed once."""

    data: ExperimentData
    table: EncodedTable
    perturbed: np.ndarray
    y_train: np.ndarray
    rng: np.random.Generator


def perturbed_cell(family: str, cell: tuple, seed: int, quick: bool) -> PerturbedCell:
    """Encode a cell's training data at its N and perturb it once at its gamma.

    Parameters
    ----------
    family : str
        Names the cell's random stream, ``(seed, (family, *cell))``, so that grids
        perturbing the same cell (``"fig4"``, ``"beyond"``) have their own draws.
    cell : tuple
        ``(dataset, gamma, N, rep)``.
    seed : int
    quick : bool
        Data sets cut to 1K train / 500 test rows.

    Returns
    -------
    PerturbedCell
        The data set, its encoded training table, the perturbed codes, the training
        labels (in the order of the records) and the cell's generator after the
        perturbation, for what the cell draws next.

    References
    ----------
    Dowd, Xu & Zhang, Algorithm 1 and Sec. 6.2.
    """
    name, gamma, n_bins, _ = cell
    data = load_experiment_data(name, seed, quick)
    table = _encoded(name, seed, quick, int(n_bins))
    rng = cell_rng(seed, (family, *cell))
    perturbed = perturb_table(table, float(gamma), rng)
    labels = np.unique(data.train[data.target].to_numpy())
    return PerturbedCell(data, table, perturbed, labels[table.classes], rng)


def accuracy_cell(
    cell: tuple, *, seed: int, quick: bool, learner: str, modes: tuple[str, ...] = MODES
) -> list[dict]:
    """One (dataset, gamma, N, rep) cell: perturb once, reconstruct per mode, learn, test.

    Returns
    -------
    list of dict
        One row per mode: ``accuracy``, ``entropy``, ``seconds`` (wall time of the
        mode's reconstruction and tree).
    """
    name, gamma, n_bins, rep = cell
    data, table, perturbed, y_train, rng = perturbed_cell("fig4", cell, seed, quick)
    rows = []
    for mode in modes:
        t0 = time.perf_counter()
        rec = reconstruct_table(table, perturbed, float(gamma), rng, mode=mode)
        acc = fit_score(learner, table.decode(rec), y_train, data.X_test, data.test[data.target])
        rows.append(
            {
                "dataset": name,
                "gamma": int(gamma),
                "N": int(n_bins),
                "rep": int(rep),
                "mode": mode,
                "accuracy": acc,
                "entropy": GammaDiagonal(int(n_bins), float(gamma)).entropy(),
                "seconds": time.perf_counter() - t0,
            }
        )
    return rows


def accuracy_grid(
    *,
    datasets: tuple[str, ...] = TABLE1_DATASETS,
    quick: bool = False,
    seed: int = 0,
    reps: int = 5,
    learner: str = "c45",
    modes: tuple[str, ...] = MODES,
    cell_run: CellRun = CellRun(),
) -> pd.DataFrame:
    """The tidy Fig. 4 table: one row per (dataset, gamma, N, rep, mode).

    Parameters
    ----------
    datasets : tuple of str, default=all seven of Table 1
    quick : bool, default=False
        Quick grid (4 cells) on data sets cut to 1K train / 500 test rows.
    seed : int, default=0
    reps : int, default=5
    learner : str, default="c45"
    modes : tuple of str, default=("global", "by-class")
    cell_run : CellRun, default=CellRun()
        Mapper, jobs, progress, checkpoint and deadline of the cells.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, gamma, N, rep, mode, accuracy, entropy, seconds`` (the tree's
        test accuracy, the entropy of M and the cell's CPU seconds).

    References
    ----------
    Dowd, Xu & Zhang, Sec. 6.2 (Fig. 4).
    """
    bad = [m for m in modes if m not in MODES]
    if bad:
        raise ParameterError(f"modes must be among {MODES} (got {bad})")

    # Order for a run stopped early (--max-minutes): repetition-major, and within a
    # repetition a coarse sub-grid (gamma 3, 9, 15, 21 x N 10, 30, 60, 100) first, so
    # finished cells cover the whole surface before they fill it in.
    def coarse(c: tuple[int, int]) -> int:
        return 0 if c[0] in (3, 9, 15, 21) and c[1] in (10, 30, 60, 100) else 1

    cells = [
        (d, g, n, r)
        for r in range(reps)
        for g, n in sorted(tree_grid(quick), key=lambda c: (coarse(c), -c[1], c[0]))
        for d in datasets
    ]
    fn = functools.partial(accuracy_cell, seed=seed, quick=quick, learner=learner, modes=modes)
    return cell_run.run(fn, cells, "fig4")


def average_accuracy(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean accuracy per (dataset, mode, gamma, N) over repetitions (Fig. 4/5 surfaces)."""
    return (
        frame.groupby(["dataset", "mode", "gamma", "N"], as_index=False)
        .agg(accuracy=("accuracy", "mean"), sd=("accuracy", "std"), entropy=("entropy", "first"))
        .sort_values(["dataset", "mode", "gamma", "N"], kind="stable")
        .reset_index(drop=True)
    )


def band_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Fig. 6: the average of the data sets' accuracies at each (mode, gamma, N), by entropy.

    Returns
    -------
    pandas.DataFrame
        Columns ``mode, gamma, N, entropy, accuracy`` (mean over data sets of the mean over
        repetitions), sorted by mode and entropy.
    """
    per = average_accuracy(frame)
    out = per.groupby(["mode", "gamma", "N"], as_index=False).agg(
        accuracy=("accuracy", "mean"), entropy=("entropy", "first"), n_datasets=("dataset", "size")
    )
    return out.sort_values(["mode", "entropy"], kind="stable").reset_index(drop=True)


def run(ctx: RunContext) -> list[Path]:
    """``ppdm reproduce fig4``: fig4.csv (tidy), fig4_mean.csv, fig6_bands.csv, PNGs for Figs. 4-6."""
    from . import plotting

    learner = ctx.options.get("learner", "c45")
    reps = 1 if ctx.quick else 5
    ckpt = CsvCheckpoint(ctx.out / "checkpoints" / f"fig4-{learner}.csv", KEY)
    t0 = time.perf_counter()
    frame = accuracy_grid(
        quick=ctx.quick,
        seed=ctx.seed,
        reps=reps,
        learner=learner,
        cell_run=ctx.cell_run(ckpt, ctx.deadline()),
    )
    wall = time.perf_counter() - t0
    frame = frame.sort_values([*KEY, "mode"], kind="stable").reset_index(drop=True)
    timing = {
        "experiment": "fig4",
        "learner": learner,
        "quick": ctx.quick,
        "jobs": ctx.jobs,
        "cells": int(frame[KEY].drop_duplicates().shape[0]),
        "cells_in_grid": len(tree_grid(ctx.quick)) * len(TABLE1_DATASETS) * reps,
        "trees": int(len(frame)),
        "trees_per_mode": {m: int((frame["mode"] == m).sum()) for m in MODES},
        "wall_seconds_this_session": round(wall, 1),
        "cpu_seconds_in_cells": round(float(frame["seconds"].sum()), 1),
    }
    tidy = frame.drop(columns=["seconds"])  # timings vary run to run; kept apart
    mean = average_accuracy(tidy)
    bands = band_summary(tidy)
    paths = [
        write_csv_atomic(tidy, ctx.out / "fig4.csv"),
        write_csv_atomic(mean, ctx.out / "fig4_mean.csv"),
        write_csv_atomic(bands, ctx.out / "fig6_bands.csv"),
        plotting.plot_fig4(mean, ctx.out / "fig4.png"),
        plotting.plot_fig5(mean, ctx.out / "fig5.png"),
        plotting.plot_fig6(bands, ctx.out / "fig6.png"),
    ]
    name = "fig4-quick.json" if ctx.quick else "fig4.json"
    paths.append(write_json_atomic(timing, ctx.out / "timings" / name))
    return paths
