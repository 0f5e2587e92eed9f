"""Table 1: C4.5 accuracy on the original data sets, beside the paper's numbers.

References
----------
Dowd, Xu & Zhang, Sec. 6.2 and Table 1.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path

import pandas as pd

from ppdm.io import write_csv_atomic, write_json_atomic

from .accuracy import fit_score
from .cellrun import CellRun
from .data import PAPER_ACCURACY, TABLE1_DATASETS, load_experiment_data
from .registry import RunContext

__all__ = ["original_accuracy", "run"]


def original_accuracy(
    *,
    datasets: tuple[str, ...] = TABLE1_DATASETS,
    quick: bool = False,
    seed: int = 0,
    learner: str = "c45",
    cell_run: CellRun = CellRun(),
) -> pd.DataFrame:
    """One row per data set: sizes, classes, our accuracy and the paper's (percent).

    Each data set is one cell of :func:`ppdm.cells.run_cells`.

    Parameters
    ----------
    datasets : tuple of str, default=the seven of Table 1
    quick : bool, default=False
        Data sets cut to 1K train / 500 test rows.
    seed : int, default=0
    learner : str, default="c45"
    cell_run : CellRun, default=CellRun()
        Mapper, jobs and progress of the cells; results do not depend on them.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, n_train, n_test, n_attributes, n_classes, accuracy,
        paper_accuracy, difference, seconds``.

    References
    ----------
    Dowd, Xu & Zhang, Table 1.
    """
    out = cell_run.run(
        functools.partial(_table1_cell, seed=seed, quick=quick, learner=learner),
        [(name,) for name in datasets],
        "table1",
        order="cells",
    )
    out["difference"] = out["accuracy"] - out["paper_accuracy"]
    return out


def _table1_cell(cell: tuple, *, seed: int, quick: bool, learner: str) -> list[dict]:
    """One data set: a tree on its original training data, scored on its test data."""
    (name,) = cell
    data = load_experiment_data(name, seed, quick)
    t0 = time.perf_counter()
    acc = fit_score(
        learner, data.X_train, data.train[data.target], data.X_test, data.test[data.target]
    )
    return [
        {
            "dataset": name,
            "n_train": len(data.train),
            "n_test": len(data.test),
            "n_attributes": data.X_train.shape[1],
            "n_classes": int(data.train[data.target].nunique()),
            "accuracy": 100.0 * acc,
            "paper_accuracy": PAPER_ACCURACY.get(name),
            "seconds": time.perf_counter() - t0,
        }
    ]


def run(ctx: RunContext) -> list[Path]:
    """``ppdm reproduce table1``: table1.csv and a timing file."""
    learner = ctx.options.get("learner", "c45")
    frame = original_accuracy(
        quick=ctx.quick,
        seed=ctx.seed,
        learner=learner,
        cell_run=ctx.cell_run(),
    )
    timing = {
        "experiment": "table1",
        "learner": learner,
        "quick": ctx.quick,
        "seconds": dict(zip(frame["dataset"], frame["seconds"].round(2))),
    }
    name = "table1-quick.json" if ctx.quick else "table1.json"
    return [
        write_csv_atomic(frame.drop(columns=["seconds"]), ctx.out / "table1.csv"),
        write_json_atomic(timing, ctx.out / "timings" / name),
    ]
