"""The advisor's rules: the paper's 7.1 and 7.2 as written, and the advisor's 7.1 (the
strongest privacy within one pooled standard error of the most accurate cell).

References
----------
Dowd, Xu & Zhang, Sec. 7.1-7.2; Hastie, Tibshirani & Friedman (2009), Sec. 7.10.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .grid import CLEAR_MARGIN_SE, PAPER_PIPELINE, check_accuracy


def summary_stats(values) -> dict:
    a = np.asarray(values, dtype=float)
    sd = float(np.std(a, ddof=1)) if len(a) > 1 else float("nan")
    return {"accuracy": float(a.mean()), "sd": sd, "se": sd / math.sqrt(len(a)), "reps": len(a)}


def clearly_above_majority(accuracy: pd.Series, majority: float, n_test: int) -> pd.Series:
    """Accuracies above the majority-class rate by ``CLEAR_MARGIN_SE`` binomial errors."""
    a = accuracy.astype(float)
    se = np.sqrt(a * (1 - a) / max(n_test, 1))
    return (a - majority) > CLEAR_MARGIN_SE * np.maximum(se, 1e-12)


def rule_best_n_per_gamma(cells: pd.DataFrame, tolerance: float = 0.0) -> pd.DataFrame:
    """Sec. 7.1, first step: for each gamma, the N of highest accuracy (smallest N among ties).

    References
    ----------
    Dowd, Xu & Zhang, Sec. 7.1.
    """
    rows = []
    for _, part in cells.groupby("gamma", sort=True):
        ties = part[part["accuracy"] >= part["accuracy"].max() - tolerance]
        rows.append(ties.sort_values("N", kind="stable").head(1))
    return pd.concat(rows, ignore_index=True) if rows else cells.head(0)


def rule_min_accuracy(cells: pd.DataFrame, min_accuracy: float) -> tuple[pd.Series, bool]:
    """Sec. 7.2: the smallest gamma whose best cell meets the target, at its best N, and
    whether it meets it (else the most accurate cell, ``met=False``).

    References
    ----------
    Dowd, Xu & Zhang, Sec. 7.2.
    """
    target = check_accuracy(min_accuracy)
    ok = cells[cells["accuracy"] >= target]
    pool, met = (ok, True) if len(ok) else (cells, False)
    if met:
        pool = pool[pool["gamma"] == pool["gamma"].min()]
    top = pool[pool["accuracy"] >= pool["accuracy"].max()]
    return top.sort_values(["gamma", "N"], kind="stable").iloc[0], met


def pooled_se(cells: pd.DataFrame) -> float:
    """One cell's standard error pooled over the grid: the root mean square of the cells' s.e."""
    se = cells["se"].astype(float).dropna()
    return float(np.sqrt(np.mean(se**2))) if len(se) else 0.0


def rule_within_one_se(cells: pd.DataFrame, tolerance: float = 0.0) -> pd.Series:
    """Rule 7.1 as the advisor applies it (docs/advisor.md): among the cells within one
    :func:`pooled_se` (or ``tolerance`` if wider) of the most accurate, the smallest gamma,
    then the smallest N, then the most accurate.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 7.1 and 7.2.
    """
    width = max(pooled_se(cells), float(tolerance))
    near = cells[cells["accuracy"] >= cells["accuracy"].max() - width]
    near = near.sort_values("accuracy", ascending=False, kind="stable")
    return near.sort_values(["gamma", "N"], kind="stable").iloc[0]


def best_per_cell(cells: pd.DataFrame) -> pd.DataFrame:
    """The most accurate learner of each (gamma, N), the paper pipeline left out."""
    mined = cells[cells["learner"] != PAPER_PIPELINE.label]
    return (
        mined.sort_values("accuracy", ascending=False, kind="stable")
        .groupby(["gamma", "N"], sort=False)
        .head(1)
    )


def choose(
    cells: pd.DataFrame, min_accuracy, tolerance, *, paper: bool = False
) -> tuple[pd.Series | None, bool]:
    """The advice's cell: rule 7.2 with a target, else rule 7.1 within one s.e., or with
    ``paper`` the paper's 7.1 (each gamma's best N, then the smallest N, then gamma).
    """
    if cells.empty:
        return None, False
    if min_accuracy is not None:
        return rule_min_accuracy(cells, min_accuracy)
    if paper:
        best = rule_best_n_per_gamma(cells, tolerance)
        return best.sort_values(["N", "gamma"], kind="stable").iloc[0], True
    return rule_within_one_se(cells, tolerance), True
