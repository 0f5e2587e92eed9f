"""The advisor's rules: the paper's 7.1 and 7.2 as written, and the advisor's 7.1 (the
strongest privacy within one pooled standard error of the grid's most accurate cell).

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

    Examples
    --------
    >>> t = pd.DataFrame({"gamma": [5, 5, 9, 9], "N": [10, 20, 10, 20],
    ...                   "accuracy": [0.8, 0.8, 0.7, 0.9]})
    >>> rule_best_n_per_gamma(t)[["gamma", "N"]].values.tolist()
    [[5, 10], [9, 20]]

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
    """Sec. 7.2: the smallest gamma whose best cell meets the target, at its best N.

    Returns the chosen row and whether it meets the target; when no cell does, the most
    accurate cell (smallest gamma, then N, among ties) with ``met=False``.

    Examples
    --------
    >>> t = pd.DataFrame({"gamma": [5, 9, 5, 9], "N": [10, 10, 20, 20],
    ...                   "accuracy": [0.70, 0.85, 0.90, 0.95]})
    >>> row, met = rule_min_accuracy(t, 0.8)
    >>> (int(row["gamma"]), int(row["N"]), met)
    (5, 20, True)
    """
    target = check_accuracy(min_accuracy)
    ok = cells[cells["accuracy"] >= target]
    pool, met = (ok, True) if len(ok) else (cells, False)
    if met:
        pool = pool[pool["gamma"] == pool["gamma"].min()]
    top = pool[pool["accuracy"] >= pool["accuracy"].max()]
    return top.sort_values(["gamma", "N"], kind="stable").iloc[0], met


def pooled_se(cells: pd.DataFrame) -> float:
    """The standard error of one cell's mean accuracy, pooled over the grid: the root
    mean square of the cells' s.e. (a cell's own s.e. from two repetitions is too noisy
    to set a width with)."""
    se = cells["se"].astype(float).dropna()
    return float(np.sqrt(np.mean(se**2))) if len(se) else 0.0


def rule_within_one_se(cells: pd.DataFrame, tolerance: float = 0.0) -> pd.Series:
    """Rule 7.1 as the advisor applies it: among the cells within one standard error of
    the most accurate (:func:`pooled_se`, or ``tolerance`` if wider), the smallest gamma
    (the strongest privacy), then the smallest N (the smallest matrix), then the most
    accurate.

    The paper's rule 7.1 takes each gamma's most accurate N and then the smallest N,
    whatever accuracy that costs; its rule 7.2 prefers the smallest gamma among designs
    that reach the accuracy wanted. Here the accuracy wanted is the best the grid shows,
    less what the screening cannot tell apart from it.

    Examples
    --------
    >>> t = pd.DataFrame({"gamma": [5, 7, 9, 9], "N": [5, 10, 5, 20],
    ...                   "accuracy": [0.80, 0.89, 0.90, 0.91], "se": [0.01] * 4})
    >>> r = rule_within_one_se(t)
    >>> (int(r["gamma"]), int(r["N"]))
    (9, 5)

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
    """The advice's cell: rule 7.2 with a target, else rule 7.1 within one s.e., or for the
    paper pipeline (``paper``) as the paper writes it: each gamma's best N, then the
    smallest N, then the smallest gamma."""
    if cells.empty:
        return None, False
    if min_accuracy is not None:
        return rule_min_accuracy(cells, min_accuracy)
    if paper:
        best = rule_best_n_per_gamma(cells, tolerance)
        return best.sort_values(["N", "gamma"], kind="stable").iloc[0], True
    return rule_within_one_se(cells, tolerance), True
