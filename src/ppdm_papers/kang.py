"""Kang's multiple random substitutions: estimation error against the number of copies m.

For the two Fig. 2 distributions and a few (gamma, N), m = 1..10 independent copies are
perturbed and the counts estimated from the pooled counts (see :mod:`ppdm_papers.multiple`
for why pooling). We record E and the relative L2 error of the raw inverse against
Kang's bound at ``m n`` records, and the privacy cost ``gamma^m``. For comparison, the
error of a *single* copy perturbed with ``gamma^m`` (the same amplification) is
recorded too: it shows what the m copies buy for the privacy they spend.

References
----------
Kang, Theorem 1 and Sec. 2; Dowd, Xu & Zhang, Sec. 6.1 (the error measure E).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd

from ppdm.cells import cell_rng
from ppdm.domain import BinnedDomain
from ppdm.estimate import estimation_error
from ppdm.io import write_csv_atomic
from ppdm.matrix import GammaDiagonal

from .cellrun import CellRun, CsvCheckpoint
from .data import FIG2_DISTRIBUTIONS, fig2_values
from .multiple import estimate_multiple, multiple_amplification, multiple_kang_bound
from .registry import RunContext

__all__ = ["KANG_SETTINGS", "kang_cell", "multiple_error_grid", "run"]

#: (gamma, N) pairs of the figure: weak, middling and strong perturbation.
KANG_SETTINGS: tuple[tuple[int, int], ...] = ((2, 20), (5, 50), (9, 100))
KEY = ["distribution", "gamma", "N", "m"]


def kang_cell(cell: tuple, *, seed: int, n_records: int, reps: int) -> list[dict]:
    """One (distribution, gamma, N, m) cell: ``reps`` repetitions of m copies.

    Rows carry ``scheme`` = ``copies`` (m copies at gamma, pooled) or ``single`` (one copy
    at ``gamma^m``), the estimation ``method`` (inverse, set-scale), ``error`` (E) and
    ``rel_l2``.
    """
    name, gamma, n_bins, m = cell
    values = fig2_values(name, n_records, seed)
    codes = BinnedDomain(0.5, 200.5, int(n_bins)).encode(values)
    true = np.bincount(codes, minlength=n_bins).astype(np.float64)
    mat = GammaDiagonal(int(n_bins), float(gamma))
    amp = multiple_amplification(float(gamma), int(m))
    single = GammaDiagonal(int(n_bins), amp)
    rng = cell_rng(seed, ("kang", *cell))
    rows = []
    for rep in range(reps):
        copies = mat.draw(np.broadcast_to(codes, (m, codes.size)), rng)
        one = single.draw(codes, rng)[None, :]
        for scheme, cps, mm in (("copies", copies, mat), ("single", one, single)):
            for method in ("inverse", "set-scale"):
                est = estimate_multiple(cps, mm, method, "pool")
                rows.append(
                    {
                        "distribution": name,
                        "gamma": int(gamma),
                        "N": int(n_bins),
                        "m": int(m),
                        "rep": rep,
                        "scheme": scheme,
                        "method": method,
                        "error": estimation_error(est, true),
                        "rel_l2": float(np.linalg.norm(est - true) / np.linalg.norm(true)),
                        "kang_bound": multiple_kang_bound(gamma, n_bins, n_records, m)
                        if scheme == "copies"
                        else multiple_kang_bound(amp, n_bins, n_records, 1),
                        "amplification": amp,
                    }
                )
    return rows


def multiple_error_grid(
    *,
    quick: bool = False,
    seed: int = 0,
    n_records: int = 10_000,
    reps: int = 5,
    cell_run: CellRun = CellRun(),
) -> pd.DataFrame:
    """The tidy table: one row per (distribution, gamma, N, m, rep, scheme, method).

    ``quick`` uses m in {1, 2, 4} and the plateau distribution only; ``cell_run`` holds
    the mapper, jobs, progress and checkpoint of the cells.

    References
    ----------
    Kang, Sec. 2.
    """
    ms = (1, 2, 4) if quick else tuple(range(1, 11))
    dists = FIG2_DISTRIBUTIONS[:1] if quick else FIG2_DISTRIBUTIONS
    cells = [(d, g, n, m) for d in dists for g, n in KANG_SETTINGS for m in ms]
    fn = functools.partial(kang_cell, seed=seed, n_records=n_records, reps=reps)
    frame = cell_run.run(fn, cells, "kang")
    return frame.sort_values([*KEY, "rep", "scheme", "method"], kind="stable").reset_index(
        drop=True
    )


def run(ctx: RunContext) -> list[Path]:
    """``ppdm reproduce kang``: kang.csv, kang_summary.csv and kang.png."""
    from . import plotting

    frame = multiple_error_grid(
        quick=ctx.quick,
        seed=ctx.seed,
        reps=2 if ctx.quick else 5,
        cell_run=ctx.cell_run(CsvCheckpoint(ctx.out / "checkpoints" / "kang.csv", KEY)),
    )
    summary = frame.groupby([*KEY, "scheme", "method"], as_index=False).agg(
        error=("error", "mean"),
        rms_rel_l2=("rel_l2", lambda s: float(np.sqrt(np.mean(np.square(s))))),
        kang_bound=("kang_bound", "first"),
        amplification=("amplification", "first"),
    )
    return [
        write_csv_atomic(frame, ctx.out / "kang.csv"),
        write_csv_atomic(summary, ctx.out / "kang_summary.csv"),
        plotting.plot_kang(summary, ctx.out / "kang.png"),
    ]
