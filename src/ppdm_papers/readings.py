"""Readings of the Figs. 4-6 setup: which one reaches the paper's accuracy levels?

Sec. 6.2 of Dowd, Xu & Zhang reports C4.5 accuracies "about 80-85 % for synthetic
datasets and 75-80 % for UCI datasets" from reconstructed training sets, but leaves
parts of the setup open. With Algorithm 2 as written (global reconstruction) ppdm's
C4.5 stays well below those levels. This experiment changes **one** thing at a time
from that baseline, on the same cells and from the same random streams, and measures
the accuracy of each reading:

``paper``
    The baseline of ``ppdm reproduce fig4``, global mode: every non-class attribute of
    the training set in N equi-width bins over its training min..max, bin centres,
    gamma-diagonal perturbation, Algorithm 2 with the set-scale estimate; the class is
    not perturbed; the tree is tested on the original test set.
``by-class``
    Algorithm 2 run per class (one distribution per attribute and class).
``test-reconstructed``
    The test set is perturbed and reconstructed too (same domains, its own estimate),
    and the tree is tested on the reconstructed test set.
``test-discretized``
    The test set is mapped to its bin centres (discretised, not perturbed).
``discrete-n-d``
    An integer attribute with d <= N distinct values keeps its d values (N = d,
    Sec. 7) instead of being binned.
``bounds-whole``
    Bin bounds from the whole data set (training and test) rather than the training part.
``left`` / ``random``
    Representative value: the bin's left end, or a uniform draw inside the bin,
    instead of its centre.
``class-perturbed``
    The class is perturbed too (gamma-diagonal over its C values) and reconstructed
    with Algorithm 2 like the other attributes.
``weka-j48``
    The ``paper`` reconstruction, learned with Weka's J48 (``-C 0.25 -M 2``) instead of
    ppdm's C4.5, as a cross-check of the learner (only when Weka is available, and only
    on the first ``weka_reps`` repetitions of the ``weka_cells``: each call starts a JVM).
``by-class+test-reconstructed``
    The two readings that raise accuracy, together.

References
----------
Dowd, Xu & Zhang, Sec. 3.2 (discretisation, representatives), Sec. 4.1 (Algorithm 2),
Sec. 6.2 (Figs. 4-6), Sec. 7 (N = d for discrete attributes).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ppdm.cells import cell_rng
from ppdm.domain import BinnedDomain
from ppdm.exceptions import ParameterError
from ppdm.io import write_csv_atomic, write_json_atomic
from ppdm.matrix import GammaDiagonal
from ppdm.reconstruct import largest_remainder, matrix_reconstruct

from .accuracy import fit_score
from .cellrun import CellRun, CsvCheckpoint
from .core import EncodedTable, encode_table, perturb_table, point_estimate, reconstruct_table
from .data import TABLE1_DATASETS, load_experiment_data
from .registry import RunContext
from .weka import run_j48, weka_available

__all__ = [
    "READINGS",
    "READING_CELLS",
    "QUICK_READING_CELLS",
    "reading_cell",
    "readings_grid",
    "readings_summary",
    "mdl_table",
    "run",
    "run_mdl",
]

#: The readings, in the order of the table in REPRODUCTION.md.
READINGS: tuple[str, ...] = (
    "paper",
    "by-class",
    "test-reconstructed",
    "test-discretized",
    "discrete-n-d",
    "bounds-whole",
    "left",
    "random",
    "class-perturbed",
    "weka-j48",
    "by-class+test-reconstructed",
)

#: (gamma, N) cells: three cells whose global-mode mean over Figs. 4-6's five runs
#: (synthetic 75.3 %, UCI 49.6 %) is close to the whole grid's (70.2 %, 47.7 %).
READING_CELLS: tuple[tuple[int, int], ...] = ((5, 10), (9, 30), (12, 20))
QUICK_READING_CELLS: tuple[tuple[int, int], ...] = ((9, 10),)

KEY = ["dataset", "gamma", "N", "rep"]


def _decode(table: EncodedTable, codes: np.ndarray, rng: np.random.Generator) -> pd.DataFrame:
    """Representative values; categorical domains decode to their own values."""
    out = {}
    for j, (name, dom) in enumerate(zip(table.columns, table.domains)):
        out[name] = dom.decode(codes[:, j], random_state=rng)
    return pd.DataFrame(out)


def _with_domains(table: EncodedTable, X: pd.DataFrame, **changes) -> EncodedTable:
    """``table`` re-encoded from ``X`` with every binned domain changed by ``changes``."""
    domains = [
        dataclasses.replace(d, **changes) if isinstance(d, BinnedDomain) else d
        for d in table.domains
    ]
    codes = np.column_stack(
        [np.asarray(d.encode(X[c], column=c), np.int64) for c, d in zip(table.columns, domains)]
    )
    return dataclasses.replace(table, codes=codes, domains=domains)


def _encode_like(table: EncodedTable, X: pd.DataFrame) -> np.ndarray:
    """Codes of ``X`` (a test set) under ``table``'s domains, values outside clipped."""
    cols = []
    for c, d in zip(table.columns, table.domains):
        if isinstance(d, BinnedDomain):
            d = dataclasses.replace(d, out_of_bounds="clip")
        cols.append(np.asarray(d.encode(X[c], column=c), np.int64))
    return np.column_stack(cols)


def _perturb_reconstruct(
    table: EncodedTable, gamma: float, rng: np.random.Generator, mode: str = "global"
) -> np.ndarray:
    return reconstruct_table(table, perturb_table(table, gamma, rng), gamma, rng, mode=mode)


def _reconstruct_class(classes: np.ndarray, n_classes: int, gamma: float, rng) -> np.ndarray:
    """Algorithm 1 then Algorithm 2 (set-scale) on the class codes alone."""
    m = GammaDiagonal(int(n_classes), gamma)
    perturbed = m.draw(classes, rng)
    hist = np.bincount(perturbed, minlength=n_classes)
    est = point_estimate(hist[:, None], m, "set-scale")[:, 0]
    return matrix_reconstruct(perturbed, largest_remainder(est, int(hist.sum())), rng)


def weka_j48(train: pd.DataFrame, test: pd.DataFrame, target: str) -> float:
    """Test accuracy of Weka's J48 (its defaults, C 0.25, M 2) learned from ``train``.

    The class is a nominal attribute over the labels of both sets
    (:func:`ppdm_papers.weka.run_j48`).

    Raises
    ------
    FileNotFoundError
        Java or Weka's jar is missing.
    RuntimeError
        J48 failed, or its output has no test-set accuracy.
    """
    classes = sorted(pd.concat([train[target], test[target]]).unique(), key=str)
    accuracy = run_j48(train, target, test, classes=classes).test_accuracy
    if accuracy is None:
        raise RuntimeError("no test accuracy in Weka's output")
    return accuracy


def reading_cell(
    cell: tuple,
    *,
    seed: int,
    quick: bool,
    learner: str = "c45",
    readings: tuple[str, ...] = READINGS,
    weka_reps: int = 1,
    weka_cells: tuple[tuple[int, int], ...] = READING_CELLS[:1],
) -> list[dict]:
    """One (dataset, gamma, N, rep) cell: every reading's test accuracy.

    Every reading draws its perturbation from the same cell stream as ``ppdm reproduce
    fig4`` (key ``("fig4", dataset, gamma, N, rep)``), so ``paper`` and ``by-class``
    repeat Fig. 4's numbers exactly; readings that perturb more than the training
    attributes draw the extra randomness from streams of their own.

    Returns
    -------
    list of dict
        One row per reading: ``accuracy`` (NaN for ``weka-j48`` when Weka is missing,
        ``rep >= weka_reps`` or (gamma, N) is not in ``weka_cells``), ``seconds``.
    """
    name, gamma, n_bins, rep = cell
    gamma, n_bins = float(gamma), int(n_bins)
    data = load_experiment_data(name, seed, quick)
    y_train = data.train[data.target].to_numpy()
    y_test = data.test[data.target].to_numpy()
    X_test = data.X_test
    base = encode_table(data.X_train, y_train, n_bins)
    labels = np.unique(y_train)

    def stream(tag: str) -> np.random.Generator:
        prefix = f"readings-{tag}" if tag else "fig4"
        return cell_rng(seed, (prefix, name, int(gamma), n_bins, int(rep)))

    def score(X_rec: pd.DataFrame, X_tst: pd.DataFrame = X_test, y=y_train) -> float:
        return fit_score(learner, X_rec, y, X_tst, y_test)

    cache: dict[str, np.ndarray] = {}

    def paper_codes() -> np.ndarray:
        if "paper" not in cache:
            cache["paper"] = _perturb_reconstruct(base, gamma, stream(""))
        return cache["paper"]

    def by_class_codes() -> np.ndarray:
        if "by-class" not in cache:  # the same perturbed table as Fig. 4's by-class mode
            rng = stream("")
            perturbed = perturb_table(base, gamma, rng)
            reconstruct_table(base, perturbed, gamma, rng, mode="global")
            cache["by-class"] = reconstruct_table(base, perturbed, gamma, rng, mode="by-class")
        return cache["by-class"]

    def reconstructed_test() -> pd.DataFrame:
        test_table = dataclasses.replace(base, codes=_encode_like(base, X_test))
        codes = _perturb_reconstruct(test_table, gamma, stream("test"))
        return base.decode(codes)

    rows = []
    for reading in readings:
        t0 = time.perf_counter()
        acc = float("nan")
        if reading == "paper":
            acc = score(base.decode(paper_codes()))
        elif reading == "by-class":
            acc = score(base.decode(by_class_codes()))
        elif reading == "test-reconstructed":
            acc = score(base.decode(paper_codes()), reconstructed_test())
        elif reading == "by-class+test-reconstructed":
            acc = score(base.decode(by_class_codes()), reconstructed_test())
        elif reading == "test-discretized":
            acc = score(base.decode(paper_codes()), base.decode(_encode_like(base, X_test)))
        elif reading == "discrete-n-d":
            table = encode_table(data.X_train, y_train, n_bins, rule="infer")
            rng = stream("")
            acc = score(_decode(table, _perturb_reconstruct(table, gamma, rng), rng))
        elif reading == "bounds-whole":
            whole = pd.concat([data.X_train, X_test], ignore_index=True)
            bounds = encode_table(whole, np.r_[y_train, y_test], n_bins)
            table = dataclasses.replace(
                bounds, codes=bounds.codes[: len(y_train)], classes=base.classes
            )
            acc = score(table.decode(_perturb_reconstruct(table, gamma, stream(""))))
        elif reading in ("left", "random"):
            table = _with_domains(base, data.X_train, representative=reading)
            rng = stream("")
            codes = _perturb_reconstruct(table, gamma, rng)
            acc = score(_decode(table, codes, stream("representative")))
        elif reading == "class-perturbed":
            y_rec = _reconstruct_class(base.classes, base.n_classes, gamma, stream("class"))
            acc = score(base.decode(paper_codes()), y=labels[y_rec])
        elif reading == "weka-j48":
            run_weka = int(rep) < weka_reps and (int(gamma), n_bins) in set(weka_cells)
            if run_weka and weka_available():
                train = base.decode(paper_codes())
                train[data.target] = y_train
                acc = weka_j48(train, data.test, data.target)
        else:
            raise ParameterError(
                f"unknown reading {reading!r}; choose one of {', '.join(READINGS)}"
            )
        rows.append(
            {
                "dataset": name,
                "gamma": int(gamma),
                "N": n_bins,
                "rep": int(rep),
                "reading": reading,
                "accuracy": acc,
                "seconds": time.perf_counter() - t0,
            }
        )
    return rows


def readings_grid(
    *,
    datasets: tuple[str, ...] = TABLE1_DATASETS,
    cells: tuple[tuple[int, int], ...] = READING_CELLS,
    reps: int = 3,
    quick: bool = False,
    seed: int = 0,
    learner: str = "c45",
    readings: tuple[str, ...] = READINGS,
    weka_reps: int = 1,
    weka_cells: tuple[tuple[int, int], ...] = READING_CELLS[:1],
    cell_run: CellRun = CellRun(),
) -> pd.DataFrame:
    """One row per (dataset, gamma, N, rep, reading).

    Parameters
    ----------
    datasets : tuple of str, default=the seven of Table 1
    cells : tuple of (gamma, N), default=:data:`READING_CELLS`
    reps : int, default=3
    quick : bool, default=False
        Data sets cut to 1K train / 500 test rows.
    seed : int, default=0
    learner : str, default="c45"
    readings : tuple of str, default=:data:`READINGS`
    weka_reps : int, default=1
        Repetitions (from 0) on which Weka's J48 runs.
    weka_cells : tuple of (gamma, N), default=the first of :data:`READING_CELLS`
        Cells on which Weka's J48 runs (each call starts a JVM and takes about half a
        minute on 100K records).
    cell_run : CellRun, default=CellRun()
        Mapper, jobs, progress, checkpoint and deadline of the cells.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, gamma, N, rep, reading, accuracy, seconds``, one row per
        reading run on the cell.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 6.2.
    """
    bad = [r for r in readings if r not in READINGS]
    if bad:
        raise ParameterError(f"readings must be among {READINGS} (got {bad})")
    keys = [(d, g, n, r) for r in range(reps) for g, n in cells for d in datasets]
    fn = functools.partial(
        reading_cell,
        seed=seed,
        quick=quick,
        learner=learner,
        readings=tuple(readings),
        weka_reps=weka_reps,
        weka_cells=tuple(weka_cells),
    )
    return cell_run.run(fn, keys, "readings")


def readings_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean accuracy (percent) per reading: synthetic sets, UCI sets, and every data set.

    Each group's number is the mean over its data sets of the mean over cells and
    repetitions (``weka-j48`` over the repetitions it ran). Only (gamma, N, rep) runs
    finished for every data set count, so a run stopped early compares like with like.

    Returns
    -------
    pandas.DataFrame
        Columns ``reading, synthetic, uci, pendigits, spambase, runs`` in
        :data:`READINGS` order, plus one column per data set.
    """
    runs = ["gamma", "N", "rep"]
    n_sets = frame["dataset"].nunique()
    complete = frame.groupby(runs)["dataset"].transform("nunique") == n_sets
    ok = frame[complete].dropna(subset=["accuracy"])
    per = ok.groupby(["reading", "dataset"]).accuracy.mean().unstack("dataset") * 100.0
    synth = [c for c in per.columns if str(c).startswith("synth")]
    uci = [c for c in per.columns if not str(c).startswith("synth")]
    out = pd.DataFrame(
        {
            "synthetic": per[synth].mean(axis=1) if synth else np.nan,
            "uci": per[uci].mean(axis=1) if uci else np.nan,
        }
    )
    out = out.join(per)
    out["runs"] = ok.groupby("reading").size()
    order = [r for r in READINGS if r in out.index]
    return out.loc[order].reset_index().round(2)


def mdl_table(
    seed: int = 0, quick: bool = False, datasets=("synth2",), binned=(15, 20, 100)
) -> pd.DataFrame:
    """Table 1 on the original data with and without C4.5's MDL correction.

    Release 8's J48 (and ppdm's C4.5 by default) subtracts ``log2(#thresholds) / n`` from
    a numeric split's information gain and refuses splits left with no gain. In an
    XOR-like region (function 2's age x salary boxes) no single threshold gains much,
    so the correction stops the tree early. Rows: ppdm's C4.5 with the correction (J48's
    default), without it (``use_mdl_correction=False``), scikit-learn's entropy CART,
    Weka 3.6's J48 when available, and ppdm's C4.5 (with the correction) learned from the
    training set cut into N equi-width bins (bin centres, no perturbation; ``binned``),
    tested on the original test set.

    Returns
    -------
    pandas.DataFrame
        dataset, learner, accuracy (percent).

    References
    ----------
    Dowd, Xu & Zhang, Table 1; Quinlan (1996), "Improved use of continuous attributes in C4.5".
    """
    from ppdm.tree import C45Classifier

    from .learners import make_learner

    rows = []
    for name in datasets:
        data = load_experiment_data(name, seed, quick)
        X, y = data.X_train, data.train[data.target].to_numpy()
        Xt, yt = data.X_test, data.test[data.target].to_numpy()
        learners = {
            "c45 (MDL correction, J48 default)": C45Classifier(confidence=0.25, min_leaf=2),
            "c45 use_mdl_correction=False": C45Classifier(
                confidence=0.25, min_leaf=2, use_mdl_correction=False
            ),
            "cart-entropy (scikit-learn)": make_learner("cart-entropy"),
        }
        for label, model in learners.items():
            acc = float(np.mean(model.fit(X, y).predict(Xt) == yt))
            rows.append({"dataset": name, "learner": label, "accuracy": 100.0 * acc})
        if weka_available():
            acc = weka_j48(data.train, data.test, data.target)
            rows.append({"dataset": name, "learner": "weka 3.6 J48", "accuracy": 100.0 * acc})
        for n_bins in binned:  # binning alone, no perturbation: fewer thresholds to pay for
            table = encode_table(X, y, n_bins)
            model = C45Classifier(confidence=0.25, min_leaf=2).fit(table.decode(table.codes), y)
            acc = float(np.mean(model.predict(Xt) == yt))
            label = f"c45 (MDL correction) on N={n_bins} bin centres, not perturbed"
            rows.append({"dataset": name, "learner": label, "accuracy": 100.0 * acc})
    return pd.DataFrame(rows)


def run_mdl(ctx: RunContext) -> list[Path]:
    """``ppdm reproduce table1-mdl``: table1_mdl.csv (Synth2 with and without MDL)."""
    suffix = "-quick" if ctx.quick else ""
    return [write_csv_atomic(mdl_table(ctx.seed, ctx.quick), ctx.out / f"table1_mdl{suffix}.csv")]


def plot_readings(summary: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Bar chart: each reading's mean accuracy on the synthetic and UCI sets, with the
    paper's ranges shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.2))
    x = np.arange(len(summary))
    ax.axhspan(80, 85, color="tab:blue", alpha=0.12, label="paper, synthetic (80-85 %)")
    ax.axhspan(75, 80, color="tab:orange", alpha=0.12, label="paper, UCI (75-80 %)")
    ax.bar(x - 0.2, summary["synthetic"], 0.4, color="tab:blue", label="ours, synthetic")
    ax.bar(x + 0.2, summary["uci"], 0.4, color="tab:orange", label="ours, UCI")
    ax.set_xticks(x, summary["reading"], rotation=30, ha="right")
    ax.set_ylabel("mean test accuracy (%)")
    ax.set_ylim(0, 100)
    ax.set_title("Figs. 4-6: one reading of the setup at a time (same cells)")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def run(ctx: RunContext) -> list[Path]:
    """``ppdm reproduce fig4-readings``: readings.csv, readings_summary.csv, readings.png."""
    learner = ctx.options.get("learner", "c45")
    cells = QUICK_READING_CELLS if ctx.quick else READING_CELLS
    reps = 1 if ctx.quick else 3
    suffix = "-quick" if ctx.quick else ""
    ckpt = CsvCheckpoint(ctx.out / "checkpoints" / f"readings-{learner}{suffix}.csv", KEY)
    t0 = time.perf_counter()
    frame = readings_grid(
        cells=cells,
        reps=reps,
        quick=ctx.quick,
        seed=ctx.seed,
        learner=learner,
        weka_reps=0 if ctx.quick else 1,
        cell_run=ctx.cell_run(ckpt, ctx.deadline()),
    )
    frame = frame.sort_values([*KEY, "reading"], kind="stable").reset_index(drop=True)
    summary = readings_summary(frame)
    timing = {
        "experiment": "fig4-readings",
        "learner": learner,
        "quick": ctx.quick,
        "cells": [list(c) for c in cells],
        "reps": reps,
        "rows": int(len(frame)),
        "wall_seconds_this_session": round(time.perf_counter() - t0, 1),
        "cpu_seconds_by_reading": frame.groupby("reading").seconds.sum().round(1).to_dict(),
    }
    tidy = frame.drop(columns=["seconds"])
    return [
        write_csv_atomic(tidy, ctx.out / f"readings{suffix}.csv"),
        write_csv_atomic(summary, ctx.out / f"readings_summary{suffix}.csv"),
        plot_readings(summary, ctx.out / f"readings{suffix}.png"),
        write_json_atomic(timing, ctx.out / "timings" / f"readings{suffix}.json"),
    ]
