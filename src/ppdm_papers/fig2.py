"""Fig. 2: estimation error of the data distribution over the (gamma, N) grid.

For each of two single-attribute data sets on 1..200 and each (gamma, N), the domain is
cut into N equi-width bins, the data perturbed with the gamma-diagonal matrix, and the
counts estimated; ``E = sum |X_hat - X| / sum X`` is recorded for the raw inverse, the
paper's set-scale fix, Norm-Sub and IBU, five repetitions each. Kang's bound on
``sigma / ||X||`` is reported beside the measured relative L2 error of the raw inverse,
the quantity it bounds.

References
----------
Dowd, Xu & Zhang, Sec. 4.3 and Sec. 6.1 (Fig. 2); Kang, Theorem 1.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd

from ppdm.cells import cell_rng
from ppdm.domain import BinnedDomain
from ppdm.estimate import estimation_error, point_estimate
from ppdm.io import write_csv_atomic
from ppdm.matrix import GammaDiagonal
from ppdm.privacy import kang_bound

from .cellrun import CellRun, CsvCheckpoint
from .data import FIG2_DISTRIBUTIONS, fig2_values
from .grid import paper_grid
from .registry import RunContext

__all__ = ["FIG2_METHODS", "fig2_cell", "estimation_error_grid", "summarise_fig2", "run"]

#: Estimation methods compared in Fig. 2 (the paper shows the first two).
FIG2_METHODS: tuple[str, ...] = ("inverse", "set-scale", "norm-sub", "ibu")
KEY = ["distribution", "gamma", "N"]


def fig2_cell(cell: tuple, *, seed: int, n_records: int, reps: int) -> list[dict]:
    """All repetitions of one (distribution, gamma, N) cell of Fig. 2.

    Returns
    -------
    list of dict
        One row per (repetition, method): ``error`` (E), ``rel_l2`` (``||X_hat - X||_2 /
        ||X||_2``), ``kang_bound``.
    """
    name, gamma, n_bins = cell
    values = fig2_values(name, n_records, seed)
    dom = BinnedDomain(0.5, 200.5, int(n_bins))
    codes = dom.encode(values)
    m = GammaDiagonal(int(n_bins), float(gamma))
    true = np.bincount(codes, minlength=n_bins).astype(np.float64)
    bound = kang_bound(gamma, n_bins, n_records)
    exact = float(np.sqrt(m.expected_squared_error(true)) / np.linalg.norm(true))
    rng = cell_rng(seed, ("fig2", *cell))
    rows = []
    for rep in range(reps):
        y = np.bincount(m.draw(codes, rng), minlength=n_bins)
        for method in FIG2_METHODS:
            est = point_estimate(y, m, method)
            rows.append(
                {
                    "distribution": name,
                    "gamma": int(gamma),
                    "N": int(n_bins),
                    "rep": rep,
                    "method": method,
                    "error": estimation_error(est, true),
                    "rel_l2": float(np.linalg.norm(est - true) / np.linalg.norm(true)),
                    "kang_bound": bound,
                    "exact_rel_l2": exact,
                    "entropy": m.entropy(),
                }
            )
    return rows


def estimation_error_grid(
    *,
    quick: bool = False,
    seed: int = 0,
    n_records: int = 10_000,
    reps: int = 5,
    cell_run: CellRun = CellRun(),
) -> pd.DataFrame:
    """The tidy Fig. 2 table: one row per (distribution, gamma, N, rep, method).

    Parameters
    ----------
    quick : bool, default=False
        The 16-cell quick grid instead of the paper's 240 cells.
    seed : int, default=0
    n_records : int, default=10_000
        Records per data set (the paper does not say).
    reps : int, default=5
    cell_run : CellRun, default=CellRun()
        Mapper, jobs, progress and checkpoint of the cells.

    Returns
    -------
    pandas.DataFrame
        Columns ``distribution, gamma, N, rep, method, error, rel_l2, kang_bound,
        exact_rel_l2, entropy`` (E, the relative L2 error, Kang's bound on it and its
        exact expectation, the entropy of M).

    References
    ----------
    Dowd, Xu & Zhang, Sec. 6.1.
    """
    cells = [(d, g, n) for d in FIG2_DISTRIBUTIONS for g, n in paper_grid(quick)]
    fn = functools.partial(fig2_cell, seed=seed, n_records=n_records, reps=reps)
    return cell_run.run(fn, cells, "fig2")


def summarise_fig2(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean over repetitions, one row per (distribution, gamma, N), methods side by side.

    Adds ``reduction`` = 1 - E(set-scale) / E(inverse) (the paper: "about 50 %") and
    ``rms_rel_l2`` of the raw inverse, the empirical counterpart of Kang's bound, beside
    ``exact_rel_l2``, its exact expectation ``sqrt(E||X_hat - X||^2) / ||X||``.
    """
    mean = frame.pivot_table(index=KEY, columns="method", values="error", aggfunc="mean")
    mean = mean[[m for m in FIG2_METHODS if m in mean.columns]]
    mean.columns = [f"E_{c}" for c in mean.columns]
    inv = frame[frame["method"] == "inverse"]
    extra = inv.groupby(KEY).agg(
        rms_rel_l2=("rel_l2", lambda s: float(np.sqrt(np.mean(np.square(s))))),
        exact_rel_l2=("exact_rel_l2", "first"),
        kang_bound=("kang_bound", "first"),
        entropy=("entropy", "first"),
    )
    out = mean.join(extra).reset_index()
    out["reduction"] = 1.0 - out["E_set-scale"] / out["E_inverse"]
    return out


def run(ctx: RunContext) -> list[Path]:
    """``ppdm reproduce fig2``: fig2.csv (tidy), fig2_summary.csv, fig2.png, fig2_kang.png."""
    from . import plotting

    ckpt = CsvCheckpoint(ctx.out / "checkpoints" / "fig2.csv", KEY)
    frame = estimation_error_grid(
        quick=ctx.quick,
        seed=ctx.seed,
        reps=2 if ctx.quick else 5,
        cell_run=ctx.cell_run(ckpt),
    )
    frame = frame.sort_values([*KEY, "rep", "method"], kind="stable").reset_index(drop=True)
    summary = summarise_fig2(frame)
    paths = [
        write_csv_atomic(frame, ctx.out / "fig2.csv"),
        write_csv_atomic(summary, ctx.out / "fig2_summary.csv"),
    ]
    paths.append(plotting.plot_fig2(summary, ctx.out / "fig2.png"))
    paths.append(plotting.plot_fig2_kang(summary, ctx.out / "fig2_kang.png"))
    return paths
