"""Reproductions of Ma & Sivakumar's Table 2, Fig. 4 and Fig. 5, as tidy tables and figures.

Each ``*_table`` function returns a tidy DataFrame and is deterministic given ``seed``;
:func:`run` writes its CSV and a matplotlib PNG. ``quick=True`` is a reduced run for CI.

Run: ``ppdm reproduce bn-table2 --out results/bn`` (``ppdm bn reproduce`` is the same
command) or ``python -m ppdm_papers.bayesnet bn-table2 --out results/bn``.

References
----------
Ma & Sivakumar, Sec. 6.1 (Table 2), 6.2 (Fig. 4), 6.3 (Fig. 5).
"""

from __future__ import annotations

import argparse
import functools
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ppdm.bayesnet.ckl import conditional_kl, parent_weights
from ppdm.bayesnet.estimation import cpd_from_counts, estimate_parameters, family_counts
from ppdm.bayesnet.network import BayesNet
from ppdm.bayesnet.pram import PramScheme
from ppdm.bayesnet.sampling import forward_sample
from ppdm.exceptions import ParameterError
from ppdm.validation import check_choice

from .bn_networks import (
    FIG2_SITES,
    fig2_network,
    fig3_network,
    symmetric_scheme,
    table1_scheme,
)
from .bn_parties import Party, learn_model1, learn_model2
from .cellrun import CellRun

__all__ = [
    "PAPER_TABLE2",
    "EXPERIMENTS",
    "ESTIMATORS",
    "MAP_ALPHA",
    "clean_ml",
    "table2_table",
    "privacy_accuracy_table",
    "sample_size_table",
    "run",
]

#: Table 2 of the paper: (mean, s.d. x 1e-2) of the first (K-1) J numbers of each CPD row.
PAPER_TABLE2 = {
    "A": [(0.70, 0.70)],
    "T": [(0.10, 0.50), (0.90, 0.77)],
    "S": [(0.50, 0.00)],
    "X": [(0.20, 0.80), (0.60, 1.1)],
    "L": [(0.30, 0.49), (0.71, 0.57), (0.39, 0.64), (0.14, 0.55)],
    "B": [(0.80, 0.77), (0.16, 0.41), (0.094, 0.71), (0.49, 0.73)],
    "E": [(0.25, 0.20), (0.81, 0.90), (0.14, 2.7), (0.51, 1.2), (0.31, 2.6), (0.41, 2.34)],
    "D": [(0.69, 2.2), (0.65, 1.3), (0.11, 3.3), (0.38, 0.77), (0.79, 1.7), (0.39, 5.65)],
    "C": [(0.90, 2.0), (0.38, 1.6), (0.61, 2.6), (0.25, 2.1)],
    "F": [(0.24, 0.73), (0.91, 1.1)],
    "G": [(0.20, 0.30), (0.40, 0.29)],
}

_FIG4_NODES = ("C", "D", "F")


def clean_ml(structure: BayesNet, data: pd.DataFrame) -> BayesNet:
    """ML parameters from unrandomized data (the reference P0 of Sec. 6.2)."""
    cpds = {}
    for v in structure.names:
        fam = structure.family(v)
        counts = family_counts(data, fam, [structure.cardinality(u) for u in fam])
        cpds[v] = cpd_from_counts(counts.reshape(structure.cardinality(v), -1))
    return structure.with_cpds(cpds)


def _by_run(cell_run: CellRun, fn, runs: int, description: str) -> pd.DataFrame:
    """Rows of ``fn((run,))`` for every run ``0..runs-1``, in run order."""
    return cell_run.run(fn, [(r,) for r in range(runs)], description, order="cells")


def _parties(data: pd.DataFrame, sites: dict, scheme: PramScheme) -> list[Party]:
    return [Party(s, data[list(vs)], scheme.subset(vs)) for s, vs in sites.items()]


def table2_table(
    seed: int = 0,
    quick: bool = False,
    n: int = 20_000,
    *,
    cell_run: CellRun = CellRun(),
) -> pd.DataFrame:
    """Table 2: Fig. 2 network, n records, Table 1 randomization, 5 runs; Models II and I.

    One data set D is drawn; each run re-randomizes it (the paper's S, never randomized
    and a root, has s.d. 0, so its runs share D). Rows are the parameters Table 2 lists.
    Each run is one cell of :func:`ppdm.cells.run_cells`, run as ``cell_run`` says; its
    stream is child ``1 + run`` of ``seed``.

    Returns
    -------
    pandas.DataFrame
        node, parameter, true, paper_mean, paper_sd, clean_ml, model2_mean, model2_sd,
        model1_mean, model1_sd (s.d. columns in units of 1e-2, as in the paper).

    References
    ----------
    Ma & Sivakumar, Sec. 6.1, Tables 1-2.
    """
    runs = 2 if quick else 5
    net = fig2_network()
    data_seed = np.random.SeedSequence(seed, spawn_key=(0,))
    data = forward_sample(net, n, random_state=np.random.default_rng(data_seed))
    clean = clean_ml(net.structure(), data)
    fn = functools.partial(_table2_cell, seed=seed, data=data)
    fits = _by_run(cell_run, fn, runs, "bn-table2")
    rows = []
    for v in net.names:
        j = net.n_configurations(v)
        labels = _labels(net, v)
        for i, (pm, psd) in enumerate(PAPER_TABLE2[v]):
            kk, jj = divmod(i, j)
            part = fits[(fits["node"] == v) & (fits["index"] == i)]
            a2 = np.array(part["model2"].tolist())
            a1 = np.array(part["model1"].tolist())
            rows.append(
                {
                    "node": v,
                    "parameter": labels[kk][jj],
                    "true": net.cpd(v)[kk, jj],
                    "paper_mean": pm,
                    "paper_sd": psd,
                    "clean_ml": clean.cpd(v)[kk, jj],
                    "model2_mean": a2.mean(),
                    "model2_sd": 100 * a2.std(ddof=1),
                    "model1_mean": a1.mean(),
                    "model1_sd": 100 * a1.std(ddof=1),
                }
            )
    return pd.DataFrame(rows)


def _table2_cell(cell: tuple, *, seed: int, data: pd.DataFrame) -> list[dict]:
    """One run of Table 2: Models II and I learned from a fresh randomization of ``data``."""
    (r,) = cell
    net = fig2_network()
    g2, g1 = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1 + r,))).spawn(2)
    parties = _parties(data, FIG2_SITES, table1_scheme())
    releases = [p.release(random_state=g) for p, g in zip(parties, g2.spawn(len(parties)))]
    m2 = learn_model2(net.structure(), releases).network
    m1 = learn_model1(net.structure(), parties, random_state=g1).network
    rows = []
    for v in net.names:
        j = net.n_configurations(v)
        for i in range(len(PAPER_TABLE2[v])):
            kk, jj = divmod(i, j)
            rows.append(
                {
                    "run": r,
                    "node": v,
                    "index": i,
                    "model2": float(m2.cpd(v)[kk, jj]),
                    "model1": float(m1.cpd(v)[kk, jj]),
                }
            )
    return rows


def _labels(net: BayesNet, v: str) -> list[list[str]]:
    parents = net.parents(v)
    cards = [net.cardinality(p) for p in parents]
    configs = list(np.ndindex(*cards)) if parents else [()]
    out = []
    for k in range(net.cardinality(v)):
        row = []
        for cfg in configs:
            cond = ",".join(f"{p}={c}" for p, c in zip(parents, cfg))
            row.append(f"P({v}={k}|{cond})" if cond else f"P({v}={k})")
        out.append(row)
    return out


#: Dirichlet alpha_ijk of the MAP estimate (Sec. 5): the paper gives the formula but not
#: alpha; 1 (a uniform prior over each CPD column, Laplace's rule) is ppdm's choice.
MAP_ALPHA = 1.0
#: Estimators of Figs. 4-5: MAP (the headline) and ML after the Norm-Sub fix.
ESTIMATORS: tuple[str, ...] = ("map", "ml-norm-sub")


def _ckl_rows(net, clean, fit, data, nodes, **keys) -> list[dict]:
    """CKL of every node in ``nodes`` for both estimators, with its zero-probability cells.

    ``n_zero`` counts the (state, parent configuration) cells that the clean reference
    gives a positive probability, under a parent configuration the data has, but the
    estimate gives exactly 0; the CKL is infinite exactly when ``n_zero > 0``. ML can do
    this (Norm-Sub sets negative raw counts to 0); MAP with alpha > 0 cannot.
    """
    rows = []
    for v in nodes:
        w = parent_weights(net, v, data)
        ref = clean.cpd(v)
        for estimator in ESTIMATORS:
            if estimator == "map":
                theta = cpd_from_counts(fit.families[v].counts, MAP_ALPHA)
            else:
                theta = fit.network.cpd(v)
            zero = (theta == 0) & (ref > 0) & (np.asarray(w)[None, :] > 0)
            rows.append(
                {
                    **keys,
                    "estimator": estimator,
                    "node": v,
                    "ckl": conditional_kl(ref, theta, w),
                    "n_zero": int(zero.sum()),
                }
            )
    return rows


def privacy_accuracy_table(
    seed: int = 0,
    quick: bool = False,
    n: int = 10_000,
    ps=None,
    *,
    cell_run: CellRun = CellRun(),
) -> pd.DataFrame:
    """Fig. 4: CKL of nodes C, D, F vs the symmetric randomization level p (Model II).

    Each of 10 runs draws a fresh data set of n records from the Fig. 3 network and
    randomizes it at every p; P0 is ML on the clean data, P(p) the estimate from the
    randomized data: MAP with a Dirichlet(:data:`MAP_ALPHA`) prior (the paper's
    estimator, Sec. 5) and ML, both from the Norm-Sub-fixed counts N^. Each run is one
    cell of :func:`ppdm.cells.run_cells`, run as ``cell_run`` says; its stream is child
    ``run`` of ``seed``.

    Returns
    -------
    pandas.DataFrame
        run, p, estimator, node, ckl, n_zero (one row per run, estimator and node).

    References
    ----------
    Ma & Sivakumar, Sec. 6.2, Fig. 4.
    """
    runs = 3 if quick else 10
    ps = (0.1, 0.3) if quick and ps is None else ps
    ps = tuple(np.round(np.arange(0.05, 0.46, 0.05), 2)) if ps is None else tuple(ps)
    fn = functools.partial(_privacy_accuracy_cell, seed=seed, n=n, ps=ps)
    return _by_run(cell_run, fn, runs, "bn-privacy-accuracy")


def _privacy_accuracy_cell(cell: tuple, *, seed: int, n: int, ps: tuple) -> list[dict]:
    """One run of Fig. 4: a fresh data set, randomized at every p."""
    (r,) = cell
    net = fig3_network()
    structure = net.structure()
    rows: list[dict] = []
    g_data, g_rand = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(r,))).spawn(2)
    data = forward_sample(net, n, random_state=g_data)
    clean = clean_ml(structure, data)
    for p, g in zip(ps, g_rand.spawn(len(ps))):
        scheme = symmetric_scheme(net, p)
        fit = estimate_parameters(structure, scheme.randomize(data, g), scheme)
        rows += _ckl_rows(net, clean, fit, data, _FIG4_NODES, run=r, p=p)
    return rows


def sample_size_table(
    seed: int = 0,
    quick: bool = False,
    ps=(0.1, 0.2, 0.3, 0.4),
    *,
    cell_run: CellRun = CellRun(),
) -> pd.DataFrame:
    """Fig. 5: CKL vs training sample size n = 2500 * 2^k, k = 1..8, for several p.

    Each of 10 runs draws 2500 * 2^8 records from the Fig. 3 network and randomizes them
    once per p; the first n records are used for each n (records are randomized
    independently, so a prefix of the release is a release of the prefix). Each run is
    one cell of :func:`ppdm.cells.run_cells`, run as ``cell_run`` says; its stream is
    child ``run`` of ``seed``.

    Returns
    -------
    pandas.DataFrame
        run, p, k, n, estimator, node, ckl, n_zero (estimators as in
        :func:`privacy_accuracy_table`).

    References
    ----------
    Ma & Sivakumar, Sec. 6.3, Fig. 5.
    """
    runs = 2 if quick else 10
    ks = tuple(range(1, 5) if quick else range(1, 9))
    fn = functools.partial(_sample_size_cell, seed=seed, ks=ks, ps=tuple(ps))
    return _by_run(cell_run, fn, runs, "bn-sample-size")


def _sample_size_cell(cell: tuple, *, seed: int, ks: tuple, ps: tuple) -> list[dict]:
    """One run of Fig. 5: 2500 * 2^max(k) records, one randomization per p, every prefix."""
    (r,) = cell
    n_max = 2500 * 2 ** max(ks)
    net = fig3_network()
    structure = net.structure()
    rows: list[dict] = []
    g_data, g_rand = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(r,))).spawn(2)
    data = forward_sample(net, n_max, random_state=g_data)
    cleans = {k: clean_ml(structure, data.iloc[: 2500 * 2**k]) for k in ks}
    for p, g in zip(ps, g_rand.spawn(len(ps))):
        scheme = symmetric_scheme(net, p)
        released = scheme.randomize(data, g)
        for k in ks:
            m = 2500 * 2**k
            fit = estimate_parameters(structure, released.iloc[:m], scheme)
            rows += _ckl_rows(net, cleans[k], fit, data.iloc[:m], _FIG4_NODES, run=r, p=p, k=k, n=m)
    return rows


def _summary(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Mean, s.d., median over runs; ``*_finite`` over the runs with a finite CKL.

    A CKL is infinite when the estimate puts probability 0 on a state the clean data
    saw (a negative N^ fixed to 0); ``n_inf`` counts those runs and ``n_zero_runs`` the
    runs with such a zero, so ``n_inf == n_zero_runs`` accounts for every infinity.
    """
    finite = frame["ckl"].where(np.isfinite(frame["ckl"]))
    g = frame.assign(ckl_finite=finite).groupby(by)
    out = g.agg(
        runs=("ckl", "size"),
        mean=("ckl", "mean"),
        sd=("ckl", "std"),
        median=("ckl", "median"),
        mean_finite=("ckl_finite", "mean"),
        sd_finite=("ckl_finite", "std"),
        n_inf=("ckl", lambda s: int(np.isinf(s).sum())),
        n_zero_runs=("n_zero", lambda s: int((s > 0).sum())),
    )
    return out.reset_index()


def _plot_table2(table: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 6))
    x = np.arange(len(table))
    ax.errorbar(
        x - 0.15,
        table["model2_mean"],
        yerr=table["model2_sd"] / 100,
        fmt="o",
        ms=4,
        label="ours, Model II",
    )
    ax.errorbar(
        x + 0.15,
        table["model1_mean"],
        yerr=table["model1_sd"] / 100,
        fmt="s",
        ms=3,
        label="ours, Model I",
    )
    ax.plot(x, table["paper_mean"], "x", color="k", label="paper (Table 2)")
    ax.plot(x, table["true"], "_", color="r", ms=12, label="true")
    ax.set_xticks(x, table["parameter"], rotation=90, fontsize=6)
    ax.set_ylabel("theta (mean over runs, +- 1 s.d.)")
    ax.set_title("Table 2: Fig. 2 network, 20,000 records, Table 1 randomization")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _plot_ckl(
    summary: pd.DataFrame, x: str, panels: str, lines: str, path: Path, title: str
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = list(dict.fromkeys(summary[panels]))
    fig, axes = plt.subplots(1, len(keys), figsize=(4 * len(keys), 3.6), squeeze=False)
    for ax, key in zip(axes[0], keys):
        sub = summary[summary[panels] == key]
        for i, (val, grp) in enumerate(sub.groupby(lines)):
            color = f"C{i}"
            mean = grp["mean_finite"]
            ax.plot(grp[x], mean, "-o", ms=3, color=color, label=f"{lines}={val}")
            ax.plot(grp[x], mean + grp["sd_finite"].fillna(0), ":", color=color)
            some_inf = grp["n_inf"] > 0
            ax.plot(grp[x][some_inf], mean[some_inf], "o", ms=8, mfc="none", color=color)
        ax.set_yscale("log")
        ax.set_title(f"{panels} = {key}")
        ax.set_xlabel(x)
        if x == "n":
            ax.set_xscale("log", base=2)
        ax.set_ylabel("CKL (nats): mean, mean + s.d. (dotted)")
        ax.legend(fontsize=7)
    fig.suptitle(title + " - circled: some runs infinite, averaged over finite runs", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _run_table2(out: Path, seed: int, quick: bool, cell_run: CellRun) -> list[Path]:
    from ppdm.io import write_table_atomic

    table = table2_table(seed, quick, cell_run=cell_run)
    csv, png = out / "bn-table2.csv", out / "bn-table2.png"
    write_table_atomic(table, csv)
    _plot_table2(table, png)
    return [csv, png]


def _run_privacy_accuracy(out: Path, seed: int, quick: bool, cell_run: CellRun) -> list[Path]:
    from ppdm.io import write_table_atomic

    raw = privacy_accuracy_table(seed, quick, cell_run=cell_run)
    summary = _summary(raw, ["estimator", "node", "p"])
    csv, png = out / "bn-privacy-accuracy.csv", out / "bn-privacy-accuracy.png"
    raw_csv = out / "bn-privacy-accuracy-runs.csv"
    write_table_atomic(summary, csv)
    write_table_atomic(raw, raw_csv)
    _plot_ckl(
        summary, "p", "estimator", "node", png, "Fig. 4: CKL vs p (Fig. 3 network, 10,000 records)"
    )
    return [csv, raw_csv, png]


def _run_sample_size(out: Path, seed: int, quick: bool, cell_run: CellRun) -> list[Path]:
    from ppdm.io import write_table_atomic

    raw = sample_size_table(seed, quick, cell_run=cell_run)
    summary = _summary(raw, ["estimator", "node", "p", "n"])
    csv, png = out / "bn-sample-size.csv", out / "bn-sample-size.png"
    png_ml = out / "bn-sample-size-ml.png"
    raw_csv = out / "bn-sample-size-runs.csv"
    write_table_atomic(summary, csv)
    write_table_atomic(raw, raw_csv)
    title = "Fig. 5: CKL vs sample size (Fig. 3 network)"
    _plot_ckl(
        summary[summary["estimator"] == "map"],
        "n",
        "node",
        "p",
        png,
        title + f", MAP alpha={MAP_ALPHA:g}",
    )
    _plot_ckl(
        summary[summary["estimator"] == "ml-norm-sub"],
        "n",
        "node",
        "p",
        png_ml,
        title + ", ML + Norm-Sub",
    )
    return [csv, raw_csv, png, png_ml]


#: Reproduction name -> runner writing its files into a directory.
EXPERIMENTS = {
    "bn-table2": _run_table2,
    "bn-privacy-accuracy": _run_privacy_accuracy,
    "bn-sample-size": _run_sample_size,
}


def run(
    name: str,
    out: str | os.PathLike,
    seed: int = 0,
    quick: bool = False,
    *,
    cell_run: CellRun = CellRun(),
) -> list[Path]:
    """Run one reproduction and write its CSV(s) and PNG into ``out``.

    Parameters
    ----------
    name : {"bn-table2", "bn-privacy-accuracy", "bn-sample-size"}
    out : path-like
    seed : int, default=0
    quick : bool, default=False
    cell_run : CellRun, default=CellRun()
        Where the runs (cells) go: mapper, jobs and progress.

    Returns
    -------
    list of Path
        The files written.
    """
    check_choice(name, "name", EXPERIMENTS, error=ParameterError)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    return EXPERIMENTS[name](out, seed, quick, cell_run)


def main(argv: list[str] | None = None) -> None:
    """``python -m ppdm_papers.bayesnet NAME [--out DIR] [--seed S] [--quick]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", choices=list(EXPERIMENTS))
    parser.add_argument("--out", default="results/bn")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    for path in run(args.name, args.out, args.seed, args.quick):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
