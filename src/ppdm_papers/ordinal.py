"""Two alternatives to the equal gamma-diagonal release, each at an equal privacy bound.

**Ordinal matrix.** For a binned attribute with N ordered codes, the release replaces
gamma-diagonal's "keep or draw uniformly" by a distance-aware channel,
``M[h, k] = a_h * rho^|h-k|`` with ``rho = gamma^(-1/(N-1))`` (``M[h, k]`` the
probability that code k becomes h). Within every row h the ratio of two entries is
``rho^(|h-k| - |h-k'|) <= rho^-(N-1) = gamma``, with equality on the two end rows, so the
amplification (the privacy bound ppdm states, epsilon = ln gamma) is exactly gamma,
as for gamma-diagonal. The columns sum to 1 when ``K a = 1`` with ``K[k, h] =
rho^|h-k|``; K's inverse is tridiagonal, which gives ``a_h = 1/(1+rho)`` at the two ends
and ``(1-rho)/(1+rho)`` inside, all positive. Both matrices are compared at the same
gamma on release-tree and release-forest accuracy (fitted on the release, scored on the
original test split) and on the estimation error of every attribute's distribution
(total variation of the IBU and set-scale estimates from the original histogram).

**Budget split.** With m perturbed attributes and a per-record budget
``E = sum_j ln gamma_j``, the equal split gives every attribute ``gamma_j = exp(E/m)``.
The unequal splits give a share ``s`` of E by weight and the rest equally,
``ln gamma_j = E ((1-s)/m + s w_j / sum w)``, with ``w_j`` the mutual information of
attribute j's codes with the class on the original training split (what the owner,
who holds the data, can compute before releasing): ``mi-half`` (s = 0.5) and
``mi-most`` (s = 0.9). Every split has the same E, so the same per-record bound.

**Rule, fixed before the runs.** A variant wins when, on most cells (data set, gamma
or E, N, learner), it is better by more than 2 standard errors of the difference and on
no cell worse by more than 2 standard errors. The s.e. of a mean is the standard
deviation of the releases over sqrt(reps); the s.e. of a difference of two means from
independent releases is the root of the sum of their squares.

References
----------
Dowd, Xu & Zhang, Sec. 5.1 (gamma-diagonal, amplification); Agrawal & Haritsa (2005)
(amplification); McSherry & Talwar (2007) (the exponential mechanism).
"""

from __future__ import annotations

import functools
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ppdm.cells import cell_rng, run_cells
from ppdm.estimate import point_estimate
from ppdm.io import write_csv_atomic, write_json_atomic
from ppdm.matrix import ExplicitMatrix, GammaDiagonal, PerturbationMatrix

from .beyond import _test_codes
from .cellrun import CsvCheckpoint
from .core import EncodedTable, encode_table
from .data import ExperimentData, load_experiment_data, train_test_split_fixed
from .registry import RunContext

__all__ = [
    "ordinal_matrix",
    "budget_gammas",
    "ordinal_cell",
    "split_cell",
    "compare",
    "run",
]

DATASETS = ("synth1", "synth2", "wisconsin", "pendigits")
QUICK_DATASETS = ("synth1", "wisconsin")
#: The split comparison leaves pendigits out (its forest is most of the run time).
SPLIT_DATASETS = ("synth1", "synth2", "wisconsin")
GAMMAS, NS = (5, 9, 12), (10, 20)
QUICK_GAMMAS, QUICK_NS = (9,), (10,)
#: Per-record budgets E = m ln gamma0 of the split comparison, by gamma0.
SPLIT_GAMMAS = (5, 9)
SPLIT_SHARES = {"equal": 0.0, "mi-half": 0.5, "mi-most": 0.9}
LEARNERS = ("release-tree", "release-forest")
#: Training rows of the synthetic sets (the paper's 100K is more than the grid affords).
SYNTH_TRAIN = 10_000
WISCONSIN_TEST = 200
#: The forest: 10 bagged release trees, 70 % of the attributes per split.
FOREST_PARAMS = {"n_estimators": 10, "max_features": 0.7, "random_state": 0}


def ordinal_matrix(n_values: int, gamma: float) -> ExplicitMatrix:
    """The ordinal matrix ``M[h, k] = a_h rho^|h-k|`` of amplification exactly ``gamma``.

    Parameters
    ----------
    n_values : int
        N >= 2 ordered codes.
    gamma : float
        Amplification bound, > 1.

    Returns
    -------
    ExplicitMatrix
        Kind ``"explicit"``; columns sum to 1 and every row's largest ratio is at most
        gamma (exactly gamma on rows 0 and N-1).

    Examples
    --------
    >>> m = ordinal_matrix(5, 9.0)
    >>> round(m.amplification(), 9), bool(np.allclose(m.dense().sum(axis=0), 1.0))
    (9.0, True)

    References
    ----------
    McSherry & Talwar (2007); Agrawal & Haritsa (2005) (amplification).
    """
    n = int(n_values)
    rho = float(gamma) ** (-1.0 / (n - 1))
    a = np.full(n, (1.0 - rho) / (1.0 + rho))
    a[[0, -1]] = 1.0 / (1.0 + rho)
    dist = np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
    return ExplicitMatrix(a[:, None] * rho**dist)


def budget_gammas(weights: np.ndarray, epsilon: float, share: float) -> np.ndarray:
    """Per-attribute gammas with ``sum ln gamma_j = epsilon``, a ``share`` by weight.

    ``ln gamma_j = epsilon ((1-share)/m + share w_j / sum w)``; equal weights (or all
    zero) give the equal split.

    Examples
    --------
    >>> g = budget_gammas(np.array([3.0, 1.0]), 2 * np.log(9.0), 0.5)
    >>> round(float(np.log(g).sum() / np.log(9.0)), 9), bool(g[0] > g[1])
    (2.0, True)
    """
    w = np.asarray(weights, dtype=np.float64)
    m = w.size
    frac = np.full(m, 1.0 / m) if w.sum() <= 0 else w / w.sum()
    return np.exp(epsilon * ((1.0 - share) / m + share * frac))


def _load(name: str, seed: int, quick: bool) -> ExperimentData:
    if name == "wisconsin":
        from ppdm import datasets

        data = datasets.load_wisconsin()
        train, test = train_test_split_fixed(data, WISCONSIN_TEST, random_state=seed)
        return ExperimentData(name, train, test, data.target)
    data = load_experiment_data(name, seed, quick)
    if len(data.train) > SYNTH_TRAIN:
        data = ExperimentData(name, data.train.iloc[:SYNTH_TRAIN], data.test, data.target)
    return data


@functools.lru_cache(maxsize=16)
def _encoded(name: str, seed: int, quick: bool, n_bins: int):
    data = _load(name, seed, quick)
    table = encode_table(data.X_train, data.train[data.target].to_numpy(), n_bins)
    labels = np.unique(data.train[data.target].to_numpy())
    return data, table, labels[table.classes], _test_codes(table, data.X_test)


def _accuracies(table: EncodedTable, perturbed, mats, y_train, data, test_codes) -> dict:
    from ppdm.tree import ReleaseForestClassifier, ReleaseTreeClassifier

    y_test = data.test[data.target].to_numpy()
    out = {}
    for learner, model in (
        ("release-tree", ReleaseTreeClassifier()),
        ("release-forest", ReleaseForestClassifier(**FOREST_PARAMS)),
    ):
        model.fit_codes(perturbed, y_train, table.domains, mats, table.columns)
        out[learner] = float(np.mean(model.predict_codes(test_codes) == y_test))
    return out


def _estimation_error(table: EncodedTable, perturbed, mats, method: str) -> float:
    """Mean over attributes of the total variation of the estimate from the original."""
    errs = []
    for j, m in enumerate(mats):
        k = int(table.n_values[j])
        true = np.bincount(table.codes[:, j], minlength=k) / len(table.codes)
        est = np.clip(point_estimate(np.bincount(perturbed[:, j], minlength=k), m, method), 0, None)
        errs.append(0.5 * np.abs(est / est.sum() - true).sum())
    return float(np.mean(errs))


def _release(table: EncodedTable, mats: list[PerturbationMatrix], rng) -> np.ndarray:
    return np.column_stack([m.draw(table.codes[:, j], rng) for j, m in enumerate(mats)])


def ordinal_cell(cell: tuple, *, seed: int, quick: bool) -> list[dict]:
    """One (dataset, gamma, N, rep): a gamma-diagonal and an ordinal release, scored."""
    name, gamma, n_bins, rep = cell
    data, table, y_train, test_codes = _encoded(name, seed, quick, int(n_bins))
    rows = []
    for variant, build in (("gamma-diagonal", GammaDiagonal), ("ordinal", ordinal_matrix)):
        mats = [build(int(k), float(gamma)) for k in table.n_values]
        perturbed = _release(table, mats, cell_rng(seed, ("ordinal", variant, *cell)))
        scores = _accuracies(table, perturbed, mats, y_train, data, test_codes)
        for method in ("ibu", "set-scale"):
            scores[f"tv-{method}"] = _estimation_error(table, perturbed, mats, method)
        amp = max(m.amplification() for m in mats)
        rows += [
            {"dataset": name, "gamma": int(gamma), "N": int(n_bins), "rep": int(rep),
             "variant": variant, "measure": k, "value": v, "amplification": amp}
            for k, v in scores.items()
        ]  # fmt: skip
    return rows


def _mutual_information(codes: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """I(attribute code; class) in bits, per column."""
    out = []
    c = np.bincount(classes) / len(classes)
    for col in codes.T:
        joint = np.zeros((int(col.max()) + 1, c.size))
        np.add.at(joint, (col, classes), 1.0)
        joint /= joint.sum()
        px = joint.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(joint > 0, joint * np.log2(joint / (px * c[None, :])), 0.0)
        out.append(max(float(t.sum()), 0.0))
    return np.array(out)


def split_cell(cell: tuple, *, seed: int, quick: bool) -> list[dict]:
    """One (dataset, gamma0, N, rep): releases at E = m ln gamma0, split each way."""
    name, gamma0, n_bins, rep = cell
    data, table, y_train, test_codes = _encoded(name, seed, quick, int(n_bins))
    m = len(table.columns)
    epsilon = m * np.log(float(gamma0))
    weights = _mutual_information(table.codes, table.classes)
    rows = []
    for variant, share in SPLIT_SHARES.items():
        gammas = budget_gammas(weights, epsilon, share)
        mats = [GammaDiagonal(int(k), float(g)) for k, g in zip(table.n_values, gammas)]
        perturbed = _release(table, mats, cell_rng(seed, ("split", variant, *cell)))
        scores = _accuracies(table, perturbed, mats, y_train, data, test_codes)
        spent = float(np.sum(np.log([mt.amplification() for mt in mats])))
        rows += [
            {"dataset": name, "gamma": int(gamma0), "N": int(n_bins), "rep": int(rep),
             "variant": variant, "measure": k, "value": v, "epsilon": epsilon,
             "epsilon_spent": spent, "gamma_min": float(gammas.min()),
             "gamma_max": float(gammas.max())}
            for k, v in scores.items()
        ]  # fmt: skip
    return rows


def compare(frame: pd.DataFrame, baseline: str, higher_better: bool = True) -> pd.DataFrame:
    """Mean ± s.e. per variant and the difference from ``baseline`` ± its s.e., per cell.

    ``wins`` / ``loses``: the difference (signed so that positive is better) is beyond
    2 s.e.
    """
    key = ["dataset", "gamma", "N", "measure"]
    g = frame.groupby([*key, "variant"])["value"]
    stats = pd.DataFrame({"mean": g.mean(), "se": g.std(ddof=1) / np.sqrt(g.count()),
                          "reps": g.count()}).reset_index()  # fmt: skip
    base = stats[stats["variant"] == baseline].drop(columns="variant")
    out = stats[stats["variant"] != baseline].merge(base, on=key, suffixes=("", "_base"))
    sign = 1.0 if higher_better else -1.0
    out["diff"] = out["mean"] - out["mean_base"]
    out["diff_se"] = np.hypot(out["se"], out["se_base"])
    better = sign * out["diff"]
    out["wins"] = better > 2 * out["diff_se"]
    out["loses"] = better < -2 * out["diff_se"]
    return out.sort_values(["variant", *key], kind="stable").reset_index(drop=True)


def _verdicts(table: pd.DataFrame) -> pd.DataFrame:
    g = table.groupby(["variant", "measure"])
    v = pd.DataFrame({"cells": g.size(), "wins": g["wins"].sum(), "losses": g["loses"].sum()})
    v["verdict"] = np.where((v["wins"] > v["cells"] / 2) & (v["losses"] == 0), "wins", "no win")
    return v.reset_index()


def _plot(ordinal: pd.DataFrame, split: pd.DataFrame, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    panels = (
        (axes[0], ordinal[ordinal["measure"].isin(LEARNERS)], "ordinal - gamma-diagonal accuracy"),
        (axes[1], ordinal[ordinal["measure"].str.startswith("tv-")], "ordinal - gamma-diagonal TV"),
        (axes[2], split, "unequal - equal split accuracy"),
    )
    for ax, t, title in panels:
        labels = [
            f"{r.dataset} {r.gamma} N{r.N} {r.measure.replace('release-', '')}"
            + ("" if r.variant == "ordinal" else f" {r.variant}")
            for r in t.itertuples()
        ]
        y = np.arange(len(t))
        colors = np.where(t["wins"], "tab:green", np.where(t["loses"], "tab:red", "tab:gray"))
        ax.errorbar(t["diff"], y, xerr=2 * t["diff_se"], fmt="none", ecolor="k", lw=0.8)
        ax.scatter(t["diff"], y, c=colors, s=14, zorder=3)
        ax.axvline(0, color="k", lw=0.6)
        ax.set_yticks(y, labels, fontsize=5)
        ax.set_title(title + " (± 2 s.e.)", fontsize=9)
        ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def run(ctx: RunContext) -> list[Path]:
    """``ppdm reproduce ordinal``: ordinal*.csv, split*.csv and ordinal.png."""
    t0 = time.perf_counter()
    quick = ctx.quick
    reps = 3
    sets = QUICK_DATASETS if quick else DATASETS
    split_sets = QUICK_DATASETS if quick else SPLIT_DATASETS
    gammas, ns = (QUICK_GAMMAS, QUICK_NS) if quick else (GAMMAS, NS)
    deadline = ctx.deadline()
    tag = "-quick" if quick else ""
    key = ["dataset", "gamma", "N", "rep"]
    ordinal = run_cells(
        functools.partial(ordinal_cell, seed=ctx.seed, quick=quick),
        [(d, g, n, r) for r in range(reps) for d in sets for g in gammas for n in ns],
        checkpoint=CsvCheckpoint(ctx.out / "checkpoints" / f"ordinal{tag}.csv", key),
        mapper=ctx.mapper, jobs=ctx.jobs, progress=ctx.progress,
        description="ordinal", deadline=deadline,
    )  # fmt: skip
    split = run_cells(
        functools.partial(split_cell, seed=ctx.seed, quick=quick),
        [(d, g, n, r) for r in range(reps) for d in split_sets for g in SPLIT_GAMMAS for n in ns[:1]],
        checkpoint=CsvCheckpoint(ctx.out / "checkpoints" / f"split{tag}.csv", key),
        mapper=ctx.mapper, jobs=ctx.jobs, progress=ctx.progress,
        description="split", deadline=deadline,
    )  # fmt: skip
    ordinal = ordinal.sort_values([*key, "variant", "measure"]).reset_index(drop=True)
    split = split.sort_values([*key, "variant", "measure"]).reset_index(drop=True)
    acc = ordinal["measure"].isin(LEARNERS)
    ord_cmp = pd.concat(
        [
            compare(ordinal[acc], "gamma-diagonal"),
            compare(ordinal[~acc], "gamma-diagonal", higher_better=False),
        ]
    )
    split_cmp = compare(split, "equal")
    verdicts = pd.concat([_verdicts(ord_cmp), _verdicts(split_cmp)])
    timing = {"experiment": "ordinal", "quick": quick, "jobs": ctx.jobs,
              "wall_seconds": round(time.perf_counter() - t0, 1)}  # fmt: skip
    return [
        write_csv_atomic(ordinal, ctx.out / "ordinal.csv"),
        write_csv_atomic(ord_cmp, ctx.out / "ordinal_summary.csv"),
        write_csv_atomic(split, ctx.out / "split.csv"),
        write_csv_atomic(split_cmp, ctx.out / "split_summary.csv"),
        write_csv_atomic(verdicts, ctx.out / "ordinal_verdicts.csv"),
        _plot(ord_cmp, split_cmp, ctx.out / "ordinal.png"),
        write_json_atomic(timing, ctx.out / "timings" / f"ordinal{tag}.json"),
    ]
