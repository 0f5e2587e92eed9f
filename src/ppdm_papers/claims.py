"""Numbers quoted in REPRODUCTION.md, computed from the committed result CSVs.

``ppdm reproduce claims --out results`` reads what the other experiments wrote into
``--out`` (nothing is rerun) and writes ``claims.csv``: one row per number, with the
section it belongs to, a short name, the value and a note. Inputs that are missing are
skipped, so it also runs after ``reproduce all --quick``. The sections ``beyond*`` hold
the numbers of "Beyond the papers" (the learners of the release itself), from the
``beyond*.csv`` files of ``reproduce beyond`` and ``reproduce beyond-summary``
(:func:`beyond_claims`).

References
----------
Dowd, Xu & Zhang, Sec. 6.1 (Fig. 2), Sec. 6.2 (Figs. 4-6, Table 1), Sec. 7 (recommended
gammas), Sec. 1, 3.3 and 5.2 (attacks); Kang, Sec. 4 (the bound and multiple substitutions);
Ma & Sivakumar, Sec. 6 (Table 2, Figs. 4-5); Islam & Brankovic, Sec. 4 (All Leaves); Agrawal
& Srikant (2000), Sec. 5 (ByClass, Local).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from ppdm.exceptions import DataError
from ppdm.io import write_csv_atomic

from .beyond_summary import GOAL, RELEASE
from .registry import RunContext

__all__ = [
    "fig2_claims",
    "kang_claims",
    "readings_claims",
    "attacks_claims",
    "fig4_claims",
    "table2_claims",
    "all_leaves_claims",
    "bn_claims",
    "beyond_grid_claims",
    "beyond_recommended_claims",
    "beyond_curve_claims",
    "beyond_leaf_claims",
    "beyond_forest_claims",
    "beyond_heldout_claims",
    "beyond_boxes_claims",
    "beyond_claims",
    "BeyondFiles",
    "claims",
    "run",
]

_COLUMNS = ["section", "claim", "value", "note"]


def _row(section: str, claim: str, value: float, note: str = "") -> dict:
    return {"section": section, "claim": claim, "value": float(value), "note": note}


def _group(name: str) -> str:
    return "synthetic" if str(name).startswith("synth") else "uci"


#: Differences below this are rounding (set-scale's zeroing step never raises the error).
_TIE = 1e-12


def fig2_claims(summary: pd.DataFrame) -> pd.DataFrame:
    """Fig. 2 and Kang's bound on its grid, from ``fig2_summary.csv`` (5-run means per cell).

    - per distribution, the grid mean of E for each method and the reduction of the mean
      (raw inverse to set-scale, in percent);
    - the median relative difference of the two distributions' surfaces,
      ``|E_plateau - E_triangles| / max(E_plateau, E_triangles)`` over the cells;
    - cells where set-scale's mean E is at most the raw inverse's (to rounding);
    - the per-cell reduction ``1 - E_set-scale / E_inverse``: median per distribution,
      share of cells with at least 50 % and with none, median per N over both sets;
    - which of set-scale, Norm-Sub and IBU has the lowest mean E in each cell (a tie goes
      to the first of the three);
    - Kang's bound: cells where the exact expected error is below it, the median ratio
      exact / bound, and the share of cells where the 5-run RMS error exceeds it.
    """
    rows = []
    s = summary
    methods = {"inverse": "E_inverse", "set-scale": "E_set-scale"}
    methods.update({"Norm-Sub": "E_norm-sub", "IBU": "E_ibu"})
    for dist, g in s.groupby("distribution"):
        for name, col in methods.items():
            rows.append(_row("fig2", f"{dist} mean E {name}", g[col].mean()))
        cut = 100 * (1 - g["E_set-scale"].mean() / g["E_inverse"].mean())
        rows.append(_row("fig2", f"{dist} reduction of the mean E (%)", cut))
    wide = s.pivot_table(
        index=["gamma", "N"], columns="distribution", values=list(methods.values())
    )
    dists = sorted(s["distribution"].unique())
    if len(dists) == 2:
        for name in ("inverse", "set-scale"):
            a, b = wide[(methods[name], dists[0])], wide[(methods[name], dists[1])]
            rel = (a - b).abs() / np.maximum(a, b)
            note = f"|{dists[0]} - {dists[1]}| / max over cells"
            rows.append(
                _row(
                    "fig2",
                    f"{name} surfaces: median relative difference (%)",
                    100 * rel.median(),
                    note,
                )
            )
    never = (s["E_set-scale"] <= s["E_inverse"] + _TIE).sum()
    rows.append(_row("fig2", "cells with set-scale E <= inverse E", never))
    rows.append(_row("fig2", "cells", len(s)))
    rows.append(_row("fig2", "largest 5-run mean E, inverse", s["E_inverse"].max()))
    red = 1 - s["E_set-scale"] / s["E_inverse"]
    for dist, r in red.groupby(s["distribution"]):
        rows.append(_row("fig2", f"{dist} median per-cell reduction (%)", 100 * r.median()))
        rows.append(
            _row("fig2", f"{dist} share of cells reduced >= 50 % (%)", 100 * (r >= 0.5).mean())
        )
        rows.append(
            _row("fig2", f"{dist} share of cells not reduced (%)", 100 * (r.abs() <= _TIE).mean())
        )
    for n, r in red.groupby(s["N"]):
        rows.append(_row("fig2", f"median per-cell reduction at N = {n} (%)", 100 * r.median()))
    three = ["E_set-scale", "E_norm-sub", "E_ibu"]
    values = s[three].to_numpy()
    best = values.argmin(axis=1)
    ties = int(
        (
            np.isclose(values, values.min(axis=1, keepdims=True), rtol=0, atol=_TIE).sum(axis=1) > 1
        ).sum()
    )
    for i, name in enumerate(("set-scale", "Norm-Sub", "IBU")):
        rows.append(
            _row("fig2", f"cells where {name} is best", (best == i).sum(), f"{ties} tied cells")
        )
    rows.append(
        _row(
            "fig2",
            "cells with exact rel. L2 below Kang's bound",
            (s["exact_rel_l2"] <= s["kang_bound"]).sum(),
        )
    )
    for dist, g in s.groupby("distribution"):
        ratio = (g["exact_rel_l2"] / g["kang_bound"]).median()
        rows.append(_row("fig2", f"{dist} median exact / Kang bound", ratio))
        over = 100 * (g["rms_rel_l2"] > g["kang_bound"]).mean()
        rows.append(_row("fig2", f"{dist} share of cells with 5-run RMS above the bound (%)", over))
    return pd.DataFrame(rows, columns=_COLUMNS)


#: The cell whose errors the Kang section quotes: (distribution, gamma, N).
KANG_CELL = ("plateau", 9, 100)


def kang_claims(summary: pd.DataFrame, cell: tuple[str, int, int] = KANG_CELL) -> pd.DataFrame:
    """Kang's multiple substitutions, from ``kang_summary.csv`` (raw inverse).

    - cells (distribution, gamma, N, m) whose RMS relative L2 error of the m pooled copies is
      at most Kang's bound at m n records;
    - for ``cell``: the m copies' RMS error and bound at m = 1, 4 and 10, and the error of
      one copy at gamma^4 (the same amplification as four copies).
    """
    rows = []
    k = summary[summary["method"] == "inverse"]
    copies = k[k["scheme"] == "copies"]
    rows.append(
        _row(
            "kang",
            "copies cells under the bound",
            (copies["rms_rel_l2"] <= copies["kang_bound"]).sum(),
        )
    )
    rows.append(_row("kang", "copies cells", len(copies)))
    dist, gamma, n_bins = cell
    at = k[(k["distribution"] == dist) & (k["gamma"] == gamma) & (k["N"] == n_bins)]
    where = f"{dist}, gamma {gamma}, N {n_bins}"
    for m in (1, 4, 10):
        c = at[(at["scheme"] == "copies") & (at["m"] == m)]
        if len(c):
            rows.append(_row("kang", f"{where}: {m} copies, RMS rel. L2", c["rms_rel_l2"].iloc[0]))
            rows.append(_row("kang", f"{where}: {m} copies, Kang bound", c["kang_bound"].iloc[0]))
    one = at[(at["scheme"] == "single") & (at["m"] == 4)]
    if len(one):
        note = f"gamma {gamma}^4 = {int(one['amplification'].iloc[0])}"
        rows.append(
            _row(
                "kang",
                f"{where}: one copy at gamma^4, RMS rel. L2",
                one["rms_rel_l2"].iloc[0],
                note,
            )
        )
    return pd.DataFrame(rows, columns=_COLUMNS)


#: Readings that change only the data representation (Explaining the gap).
REPRESENTATION = ("test-discretized", "discrete-n-d", "bounds-whole", "left", "random")


def readings_claims(readings: pd.DataFrame, fig4: pd.DataFrame | None = None) -> pd.DataFrame:
    """The fig4-readings table, from the tidy ``readings.csv`` (accuracies as fractions).

    Per reading, the mean over data sets of the mean over its runs, in percent: synthetic
    (``synth*``), UCI (the others), pendigits and spambase, and the change against
    ``paper``; the largest change made by a representation reading (:data:`REPRESENTATION`);
    Weka's J48 against ppdm's C4.5 on the runs J48 has; and, given ``fig4.csv``, the Fig. 4
    synthetic / UCI means per mode over the readings' (gamma, N) cells (every Fig. 4 run of
    them) and how many ``paper`` / ``by-class`` runs equal the Fig. 4 cell they share
    (global / by-class mode).
    """
    rows = []
    r = readings.dropna(subset=["accuracy"]).assign(accuracy=lambda d: 100 * d["accuracy"])
    per = r.groupby(["reading", "dataset"]).accuracy.mean().reset_index()
    per["group"] = per["dataset"].map(_group)
    level = per.groupby(["reading", "group"]).accuracy.mean().unstack()
    sets = per.set_index(["reading", "dataset"]).accuracy
    for reading, v in level.iterrows():
        for group, label in (("synthetic", "synthetic"), ("uci", "UCI")):
            if group in v and not np.isnan(v[group]):
                rows.append(_row("readings", f"{reading} {label}", v[group]))
        for name in ("pendigits", "spambase"):
            if (reading, name) in sets.index:
                rows.append(_row("readings", f"{reading} {name}", sets[(reading, name)]))
        if "paper" in level.index and reading != "paper":
            for group, label in (("synthetic", "synthetic"), ("uci", "UCI")):
                if group in v:
                    change = v[group] - level.loc["paper", group]
                    rows.append(_row("readings", f"{reading} {label} change vs paper", change))
    if "paper" in level.index:
        rep = [x for x in REPRESENTATION if x in level.index]
        if rep:
            d = (level.loc[rep] - level.loc["paper"]).abs().stack()
            (reading, group), top = d.idxmax(), d.max()
            rows.append(
                _row(
                    "readings",
                    "representation readings: largest change vs paper",
                    top,
                    f"{reading}, {group}",
                )
            )
    if "weka-j48" in level.index:
        weka = r[r["reading"] == "weka-j48"]
        key = ["dataset", "gamma", "N", "rep"]
        both = weka.merge(r[r["reading"] == "paper"], on=key, suffixes=("_weka", "_ppdm"))
        both["group"] = both["dataset"].map(_group)
        for group, label in (("synthetic", "synthetic"), ("uci", "UCI")):
            g = both[both["group"] == group]
            rows.append(_row("readings", f"weka-j48 cell {label}: J48", g["accuracy_weka"].mean()))
            rows.append(
                _row("readings", f"weka-j48 cell {label}: ppdm C4.5", g["accuracy_ppdm"].mean())
            )
        gap = (both["accuracy_weka"] - both["accuracy_ppdm"]).abs()
        note = ", ".join(
            sorted(
                {
                    f"gamma {a}, N {b}, rep {c}"
                    for a, b, c in both[["gamma", "N", "rep"]].itertuples(index=False)
                }
            )
        )
        rows.append(
            _row("readings", "weka-j48: largest |J48 - ppdm C4.5| per data set", gap.max(), note)
        )
    if fig4 is not None:
        cells = readings[["gamma", "N"]].drop_duplicates()
        on = fig4.merge(cells, on=["gamma", "N"])
        per = on.groupby(["mode", "dataset"]).accuracy.mean().reset_index()
        per["group"] = per["dataset"].map(_group)
        note = "; ".join(f"gamma {a}, N {b}" for a, b in cells.itertuples(index=False))
        for (mode, group), g in per.groupby(["mode", "group"]):
            label = "synthetic" if group == "synthetic" else "UCI"
            rows.append(
                _row(
                    "readings",
                    f"fig4.csv {mode} {label} mean over the readings' cells",
                    100 * g["accuracy"].mean(),
                    f"{note}; every fig4.csv run",
                )
            )
        key = ["dataset", "gamma", "N", "rep"]
        for reading, mode in (("paper", "global"), ("by-class", "by-class")):
            mine = readings[readings["reading"] == reading]
            theirs = fig4[fig4["mode"] == mode]
            both = mine.merge(theirs, on=key, suffixes=("", "_fig4"))
            same = np.isclose(both["accuracy"], both["accuracy_fig4"], rtol=0, atol=_TIE).sum()
            note = f"of {len(mine)} runs; {len(both)} have a fig4.csv cell"
            rows.append(_row("readings", f"{reading} runs equal to fig4.csv ({mode})", same, note))
    return pd.DataFrame(rows, columns=_COLUMNS)


#: Display names of the attacks (docs/attacks.md).
ATTACKS = {
    "spectral_filtering": "spectral",
    "pca_reconstruct": "PCA-DR",
    "bayes_reconstruct": "BE-DR",
}


def attacks_claims(attacks: pd.DataFrame) -> pd.DataFrame:
    """The attack table and the statements built on it, from ``attacks.csv``.

    Per data set and privacy level pi: the released data's error (RMSE / sd) under additive
    noise and substitution, the best data-recovery attack on each (lowest error; its name in
    the note), the Bayes MAP guess's recovered share and the prior-only share; the repeated
    perturbation's MAP recovered share for t = 0..3. Across levels: the largest cut of the
    additive error by an attack, in how many levels BE-DR lowers the substitution error, in
    how many the MAP success falls with every extra perturbation, in how many every
    data-recovery attack recovers fewer values than MAP (and than the prior-only guess).
    """
    rows = []
    a = attacks[attacks["experiment"] == "recovery"]
    cut_best, cut_where = -np.inf, ""
    lowered = falling = below_map = below_prior = levels = 0
    for (data, pi), g in a.groupby(["dataset", "privacy_level"], sort=True):
        levels += 1
        where = f"{data}, pi {pi:.2f}"
        for method in ("additive", "substitution"):
            m = g[g["method"] == method].set_index("attack")
            if "released" not in m.index:
                continue
            released = m.loc["released", "rmse_rel"]
            rows.append(_row("attacks", f"{where}: {method} released", released))
            tried = m.loc[[x for x in ATTACKS if x in m.index]]
            if len(tried):
                best = tried["rmse_rel"].idxmin()
                value = tried.loc[best, "rmse_rel"]
                rows.append(
                    _row("attacks", f"{where}: best attack on {method}", value, ATTACKS[best])
                )
                if method == "additive" and 1 - value / released > cut_best:
                    cut_best, cut_where = 1 - value / released, where
            if method == "substitution":
                if "bayes_reconstruct" in m.index:
                    lowered += int(m.loc["bayes_reconstruct", "rmse_rel"] < released)
                if "bayes_map" in m.index:
                    rec = m.loc["bayes_map", "recovered"]
                    prior = m.loc["bayes_map", "prior_only"]
                    rows.append(_row("attacks", f"{where}: Bayes MAP recovered", rec))
                    rows.append(_row("attacks", f"{where}: prior-only recovered", prior))
                    most = tried["recovered"].max()
                    below_map += int(most < rec)
                    below_prior += int(most < prior)
                rep = g[g["attack"] == "repeated_map"].sort_values("t")
                for t, v in zip(rep["t"], rep["recovered"]):
                    rows.append(
                        _row("attacks", f"{where}: repeated MAP recovered, t = {int(t)}", v)
                    )
                falling += int(
                    len(rep) > 1 and bool(np.all(np.diff(rep["recovered"].to_numpy()) < 0))
                )
    if levels:
        rows.append(
            _row(
                "attacks",
                "largest cut of the additive error by an attack (%)",
                100 * cut_best,
                cut_where,
            )
        )
        rows.append(_row("attacks", "levels", levels))
        rows.append(_row("attacks", "levels where BE-DR lowers the substitution error", lowered))
        rows.append(_row("attacks", "levels where repeated MAP falls at every t", falling))
        rows.append(
            _row(
                "attacks",
                "levels where every data-recovery attack recovers less than MAP",
                below_map,
            )
        )
        rows.append(
            _row(
                "attacks",
                "levels where every data-recovery attack recovers less than prior-only",
                below_prior,
            )
        )
    return pd.DataFrame(rows, columns=_COLUMNS)


#: Parts of the (gamma, N) grid over which the Fig. 4 levels are averaged.
REGIONS = {
    "whole grid": lambda m: m["gamma"] > 0,
    "gamma >= 5 and N <= 20": lambda m: (m["gamma"] >= 5) & (m["N"] <= 20),
    "gamma >= 9 and N <= 30": lambda m: (m["gamma"] >= 9) & (m["N"] <= 30),
    "gamma 5-12 (Sec. 7)": lambda m: (m["gamma"] >= 5) & (m["gamma"] <= 12),
}


#: Bin counts at which the best 5-run mean of a data set is quoted (Synth2 against the
#: unperturbed bin centres of ``table1_mdl.csv``).
BEST_AT_N = {"synth2": (15, 20)}

#: The (gamma, N) entries of the Fig. 6 band tables.
BAND_GAMMAS = (2, 3, 5, 9, 15, 21)
BAND_NS = (5, 10, 30, 60, 100)


def fig4_claims(fig4: pd.DataFrame, table1: pd.DataFrame | None = None) -> pd.DataFrame:
    """Figs. 4-6 numbers from the tidy ``fig4.csv`` (accuracies in percent).

    - per data set, the best **5-run mean** cell (what the paper plots) and the best single
      run, against the Table 1 accuracy; the best 5-run mean at the bin counts of
      :data:`BEST_AT_N`; per mode, the cells where every run reaches 100 %;
    - synthetic / UCI means and per-data-set means per mode, over all repetitions and over
      repetition 0, and over parts of the grid (:data:`REGIONS`, 5-run means), with the
      lowest and highest seven-set average of each part;
    - Fig. 6: the share of (gamma, N) cells whose seven-set average is >= 50 % and >= 70 %,
      the lowest cell, the band entries at :data:`BAND_GAMMAS` x :data:`BAND_NS` and the
      range of the bands with N >= 60;
    - N = 5 against N = 10, 15 and 20 at each gamma (5-run means): the gammas where N = 5
      is lower and the gaps, and N = 10 minus N = 5 at every gamma;
    - Pearson and Spearman correlation of the seven-set average with the entropy of M.
    """
    rows = []
    f = fig4.assign(accuracy=100.0 * fig4["accuracy"])
    mean = f.groupby(["dataset", "mode", "gamma", "N"], as_index=False).agg(
        accuracy=("accuracy", "mean"), runs=("accuracy", "size"), entropy=("entropy", "first")
    )
    original = {} if table1 is None else dict(zip(table1["dataset"], table1["accuracy"]))
    for name, g in mean.groupby("dataset", sort=False):
        best = g.loc[g["accuracy"].idxmax()]
        single = f[f["dataset"] == name].loc[lambda d: d["accuracy"].idxmax()]
        where = f"{best['mode']}, gamma {best['gamma']}, N {best['N']}, {best['runs']} runs"
        rows.append(_row("fig4-best", f"{name} best 5-run mean", best["accuracy"], where))
        rows.append(
            _row(
                "fig4-best",
                f"{name} best single run",
                single["accuracy"],
                f"{single['mode']}, gamma {single['gamma']}, N {single['N']}, rep {single['rep']}",
            )
        )
        if name in original:
            rows.append(_row("fig4-best", f"{name} Table 1 (original data)", original[name]))
            rows.append(
                _row(
                    "fig4-best",
                    f"{name} best 5-run mean minus Table 1",
                    best["accuracy"] - original[name],
                )
            )
        for n_bins in BEST_AT_N.get(name, ()):
            at = g[g["N"] == n_bins]
            if len(at):
                top = at.loc[at["accuracy"].idxmax()]
                rows.append(
                    _row(
                        "fig4-best",
                        f"{name} best 5-run mean at N = {n_bins}",
                        top["accuracy"],
                        f"{top['mode']}, gamma {top['gamma']}, {top['runs']} runs",
                    )
                )
        lowest = f[f["dataset"] == name].groupby(["mode", "gamma", "N"]).accuracy.min()
        for mode, v in lowest.groupby(level="mode"):
            rows.append(
                _row("fig4-best", f"{name} {mode} cells at 100 % in every run", (v >= 100).sum())
            )
    for subset, frame in (("all reps", f), ("rep 0", f[f["rep"] == 0])):
        per = frame.groupby(["mode", "dataset"]).accuracy.mean().reset_index()
        per["group"] = per["dataset"].map(_group)
        for (mode, group), g in per.groupby(["mode", "group"]):
            rows.append(_row("fig4-level", f"{mode} {group} mean ({subset})", g["accuracy"].mean()))
        for mode, dataset, v in per[["mode", "dataset", "accuracy"]].itertuples(index=False):
            rows.append(_row("fig4-level", f"{mode} {dataset} mean ({subset})", v))
    # "overall accuracy" read off the surfaces: the whole grid or only its mild part
    mean["group"] = mean["dataset"].map(_group)
    for region, sel in REGIONS.items():
        part = mean[sel(mean)]
        per = part.groupby(["mode", "group", "dataset"]).accuracy.mean()
        for (mode, group), v in per.groupby(["mode", "group"]):
            rows.append(_row("fig4-region", f"{mode} {group} mean, {region}", v.mean()))
        seven = part.groupby(["mode", "gamma", "N"]).accuracy.mean()
        for mode, v in seven.groupby(level="mode"):
            for end, x in (("lowest", v.min()), ("highest", v.max())):
                rows.append(_row("fig4-region", f"{mode} seven-set average, {region}: {end}", x))
    bands = mean.groupby(["mode", "gamma", "N"], as_index=False).agg(
        accuracy=("accuracy", "mean"), entropy=("entropy", "first")
    )
    for mode, g in bands.groupby("mode"):
        rows.append(_row("fig6", f"{mode} share of cells >= 50 %", 100 * (g.accuracy >= 50).mean()))
        rows.append(_row("fig6", f"{mode} share of cells >= 70 %", 100 * (g.accuracy >= 70).mean()))
        low = g.loc[g.accuracy.idxmin()]
        rows.append(
            _row("fig6", f"{mode} lowest cell", low.accuracy, f"gamma {low.gamma}, N {low.N}")
        )
        rows.append(
            _row("fig6", f"{mode} Pearson r(entropy, accuracy)", g.accuracy.corr(g.entropy))
        )
        rows.append(
            _row(
                "fig6",
                f"{mode} Spearman rho(entropy, accuracy)",
                g.accuracy.corr(g.entropy, method="spearman"),
            )
        )
        p = g.pivot(index="gamma", columns="N", values="accuracy")
        for n_bins in BAND_NS:
            for gamma in BAND_GAMMAS:
                if n_bins in p.columns and gamma in p.index:
                    v = p.loc[gamma, n_bins]
                    rows.append(_row("fig6", f"{mode} band N {n_bins}, gamma {gamma}", v))
        wide = p[[n for n in p.columns if n >= 60]].stack()
        if len(wide):
            rows.append(_row("fig6", f"{mode} bands N >= 60: lowest", wide.min()))
            rows.append(_row("fig6", f"{mode} bands N >= 60: highest", wide.max()))
        for n_bins in (10, 15, 20):
            if 5 not in p.columns or n_bins not in p.columns:
                continue
            d = p[n_bins] - p[5]
            below = d[d > 0]
            note = f"gammas {','.join(str(x) for x in below.index)}"
            where = f"{mode} N=5 below N={n_bins}"
            rows.append(_row("fig6", f"{where}: gammas", len(below), note))
            if len(below):
                rows.append(_row("fig6", f"{where}: smallest gap", below.min()))
                rows.append(_row("fig6", f"{where}: largest gap", below.max()))
            if n_bins == 10:
                above = -d[d < 0]
                if len(above):
                    note = f"gammas {','.join(str(x) for x in above.index)}"
                    rows.append(
                        _row("fig6", f"{mode} N=5 above N=10: largest gap", above.max(), note)
                    )
                for gamma, v in d.items():
                    rows.append(_row("fig6", f"{mode} N=10 minus N=5 at gamma {gamma}", v))
    return pd.DataFrame(rows, columns=_COLUMNS)


def table2_claims(table2: pd.DataFrame) -> pd.DataFrame:
    """Ma & Sivakumar Table 2: the largest gaps of Model II's means to the paper and the truth."""
    t = table2.assign(
        to_paper=(table2["model2_mean"] - table2["paper_mean"]).abs(),
        to_true=(table2["model2_mean"] - table2["true"]).abs(),
    ).sort_values("to_paper", ascending=False)
    rows = [
        _row(
            "bn-table2",
            f"|Model II - paper| {r.parameter}",
            r.to_paper,
            f"paper {r.paper_mean}, ours {r.model2_mean:.3f}, true {r.true}",
        )
        for r in t.head(3).itertuples()
    ]
    rows.append(_row("bn-table2", "params within 0.03 of paper", int((t.to_paper <= 0.03).sum())))
    rows.append(_row("bn-table2", "params", len(t)))
    rows.append(_row("bn-table2", "max |Model II - true|", t.to_true.max()))
    return pd.DataFrame(rows, columns=_COLUMNS)


def all_leaves_claims(runs: pd.DataFrame, original: tuple[str, ...]) -> pd.DataFrame:
    """Islam & Brankovic All Leaves: in how many trees each original attribute appears."""
    a = runs[runs["experiment"] == "boston-all-leaves"]
    missing = [set(m.split(";")) for m in a["original_attributes_missing"].fillna("")]
    rows = [
        _row("all-leaves", f"trees with {att}", sum(att not in m for m in missing))
        for att in original
    ]
    rows.append(_row("all-leaves", "trees", len(a)))
    rows.append(_row("all-leaves", "trees keeping the root", int(a["root_kept"].sum())))
    return pd.DataFrame(rows, columns=_COLUMNS)


def bn_claims(runs: pd.DataFrame, figure: str) -> pd.DataFrame:
    """Infinite CKLs per estimator, and whether each is explained by a zero probability."""
    rows = []
    for est, g in runs.groupby("estimator"):
        inf = np.isinf(g["ckl"])
        rows.append(_row(figure, f"{est} infinite CKL runs", int(inf.sum())))
        rows.append(
            _row(
                figure,
                f"{est} infinite without a zero estimate",
                int((inf & (g.n_zero == 0)).sum()),
            )
        )
    return pd.DataFrame(rows, columns=_COLUMNS)


# --- Beyond the papers: learning from the release itself -------------------------------


#: (gamma, N) cells at which the Synth1-5 average is quoted ("central cells").
CENTRAL_CELLS = ((5, 10), (9, 10), (9, 20), (12, 10), (12, 20))

#: Per data set, the N ranges (inclusive) over which the ratio to the original per N is
#: quoted as lowest-highest (``beyond_recommended_by_n.csv``).
BY_N_RANGES = {
    "pendigits": ((5, 100),),
    "spambase": ((5, 100), (10, 100)),
    "synth1": ((15, 100),),
    "synth2": ((5, 15), (40, 100)),
    "synth3": ((5, 20),),
    "synth4": ((30, 100),),
    "synth5": ((30, 100),),
}

#: Per data set, a gamma and the N values at which the per-cell ratios are quoted.
GAMMA_ROWS = {"synth3": (12, (10, 20, 30))}

#: Data sets with more than two classes: the release tree's default (``leaf_model="auto"``)
#: gives them naive Bayes leaves, the others majority leaves (Table 1: pendigits, 10 classes).
MULTICLASS = ("pendigits",)

#: The three candidates fitted by the leaf check itself.
LEAF_CANDIDATES = ("tree-majority", "tree-nb", "naive-bayes")
#: Leaf-check models: the candidates and the grid learners quoted beside them.
LEAF_MODELS = LEAF_CANDIDATES + ("grid release-tree", "grid byclass", "grid alg2-by-class")

#: Held-out tables of the beyond checks (not in ``beyond.csv``).
HELDOUT_TABLES = ("wisconsin", "breast-cancer")

_KEY = ["dataset", "gamma", "N", "rep"]


class BeyondFiles(NamedTuple):
    """The beyond result files that several parts compare with, read once: the grid's
    rows (``beyond.csv``), the original accuracy per data set (``beyond_summary.csv``)
    and the rows of the leaf check, the forest grid and the held-out tables. Any may be
    missing; the claims that need it are then skipped."""

    grid: pd.DataFrame | None = None
    original: pd.Series | None = None
    leaf: pd.DataFrame | None = None
    forest: pd.DataFrame | None = None
    heldout: pd.DataFrame | None = None


def _range(section: str, name: str, values: pd.Series, note: str = "") -> list[dict]:
    """Two rows, ``<name>: lowest`` and ``<name>: highest``, naming where each is."""
    v = values.dropna()
    if v.empty:
        return []
    lo, hi = v.idxmin(), v.idxmax()
    return [
        _row(section, f"{name}: lowest", v[lo], f"{lo}{note}"),
        _row(section, f"{name}: highest", v[hi], f"{hi}{note}"),
    ]


def _cells(cells) -> str:
    return "; ".join(f"gamma {g}, N {n}" for g, n in cells)


def beyond_grid_claims(grid: pd.DataFrame, summary: pd.DataFrame) -> pd.DataFrame:
    """The beyond grid's table and the prose built on it, from ``beyond.csv`` and
    ``beyond_summary.csv`` (accuracies as fractions).

    - per data set: cells, the original and every learner's mean accuracy (the 480-row
      means), the best learner (its name in the note), the release tree's ratio to the
      original; the mean over data sets per learner;
    - per data set, from the (gamma, N, rep) cells: the share where the release tree is
      best or tied (to rounding) and where it is strictly ahead of ByClass, the mean
      difference to ByClass, the release tree and ByClass at the smallest and largest N
      (means over gammas and repetitions), and the N where ByClass is ahead on average;
    - Synth1-5: the release tree's margin over the better of ByClass and Algorithm 2 by
      class and its shortfall to the original (%), lowest and highest; the (gamma, N)
      cells of the Synth average where it is ahead of every other learner; at
      :data:`CENTRAL_CELLS` the Synth average of the release tree and of Algorithm 2
      (global and by class) and their ranges; the Synth means over the whole grid.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 6.2 (data sets and grid); Agrawal & Srikant (2000), Sec. 5
    (ByClass, Local).
    """
    sec = "beyond"
    rows = []
    s = summary
    methods = sorted(s["method"].unique())
    for name, g in s.groupby("dataset"):
        g = g.set_index("method")
        rows.append(_row(sec, f"{name} cells", g["cells"].max()))
        rows.append(_row(sec, f"{name} original", g["original"].iloc[0]))
        for m, v in g["accuracy"].items():
            rows.append(_row(sec, f"{name} {m} mean", v))
        best = g["accuracy"].idxmax()
        rows.append(_row(sec, f"{name} best learner", g.loc[best, "accuracy"], best))
        if RELEASE in g.index:
            rows.append(
                _row(sec, f"{name} release-tree / original", g.loc[RELEASE, "ratio_to_original"])
            )
    for m in methods:
        v = s.loc[s["method"] == m, "accuracy"]
        rows.append(_row(sec, f"mean over data sets {m}", v.mean(), f"{len(v)} data sets"))
    acc = s.pivot(index="dataset", columns="method", values="accuracy")
    if RELEASE in acc.columns:
        top = acc.idxmax(axis=1) == RELEASE
        note = "not " + ",".join(acc.index[~top]) if (~top).any() else ""
        rows.append(_row(sec, "data sets where release-tree is the best learner", top.sum(), note))
    wide = grid.pivot_table(index=_KEY, columns="method", values="accuracy")
    if RELEASE in wide.columns:
        tree = wide[RELEASE]
        others = wide.drop(columns=[RELEASE, "original"], errors="ignore")
        best_or_tied = tree >= others.max(axis=1) - _TIE
        for name, v in best_or_tied.groupby(level="dataset"):
            rows.append(_row(sec, f"{name} release-tree best-or-tied share", v.mean()))
        if "byclass" in wide.columns:
            diff = tree - wide["byclass"]
            for name, d in diff.groupby(level="dataset"):
                rows.append(_row(sec, f"{name} release-tree minus byclass", d.mean()))
                rows.append(
                    _row(sec, f"{name} release-tree ahead of byclass share", (d > 0).mean())
                )
            per_n = (
                grid[grid["method"].isin([RELEASE, "byclass"])]
                .groupby(["dataset", "N", "method"])["accuracy"]
                .mean()
                .unstack()
            )
            for name, p in per_n.groupby(level="dataset"):
                p = p.droplevel("dataset")
                for n_bins in (p.index.min(), p.index.max()):
                    for m in (RELEASE, "byclass"):
                        rows.append(_row(sec, f"{name} N {n_bins} {m}", p.loc[n_bins, m]))
                behind = p.index[p["byclass"] > p[RELEASE]]
                note = "N " + ",".join(str(n) for n in behind) if len(behind) else ""
                rows.append(_row(sec, f"{name} N values where byclass is ahead", len(behind), note))
    synth = s[s["dataset"].map(_group) == "synthetic"]
    if len(synth):
        acc = synth.pivot(index="dataset", columns="method", values="accuracy")
        if {RELEASE, "byclass", "alg2-by-class"} <= set(acc.columns):
            margin = acc[RELEASE] - acc[["byclass", "alg2-by-class"]].max(axis=1)
            rows += _range(sec, "synth release-tree margin over byclass and alg2-by-class", margin)
        ratio = synth[synth["method"] == RELEASE].set_index("dataset")["ratio_to_original"]
        rows += _range(sec, "synth release-tree below the original (%)", 100 * (1 - ratio))
        for m in (RELEASE, "alg2-by-class", "alg2-global"):
            if m in acc.columns:
                rows.append(_row(sec, f"synth mean {m}", acc[m].mean(), f"{len(acc)} data sets"))
        g = grid[grid["dataset"].map(_group) == "synthetic"]
        cell = g.groupby(["gamma", "N", "method"])["accuracy"].mean().unstack()
        if RELEASE in cell.columns:
            others = cell.drop(columns=[RELEASE, "original"], errors="ignore")
            ahead = (cell[RELEASE] > others.max(axis=1)).sum()
            rows.append(_row(sec, "synth (gamma, N) cells with release-tree ahead of all", ahead))
            rows.append(_row(sec, "synth (gamma, N) cells", len(cell)))
            central = [c for c in CENTRAL_CELLS if c in cell.index]
            for m in (RELEASE, "alg2-by-class", "alg2-global"):
                if m not in cell.columns or not central:
                    continue
                v = cell.loc[central, m]
                for (gamma, n_bins), x in v.items():
                    rows.append(_row(sec, f"synth mean gamma {gamma}, N {n_bins} {m}", x))
                v.index = [f"gamma {a}, N {b}" for a, b in v.index]
                rows += _range(sec, f"synth central cells {m}", v)
    return pd.DataFrame(rows, columns=_COLUMNS)


def _cell_ratio(grid: pd.DataFrame, original: pd.Series, learner: str = RELEASE) -> pd.Series:
    """Per (dataset, gamma, N): ``learner``'s mean over repetitions / the original."""
    t = grid[grid["method"] == learner].groupby(["dataset", "gamma", "N"])["accuracy"].mean()
    return t / t.index.get_level_values("dataset").map(original).to_numpy()


def beyond_recommended_claims(
    rec: pd.DataFrame, by_n: pd.DataFrame | None = None, files: BeyondFiles = BeyondFiles()
) -> pd.DataFrame:
    """The recommended-cells table, the ratio per N and the per-data-set reasons, from
    ``beyond_recommended.csv``, ``beyond_recommended_by_n.csv`` and (per gamma and per
    cell) ``beyond.csv`` with the originals of ``beyond_summary.csv``.

    - per data set: cells, original, release tree, ratio, best other learner (name in
      the note) and its ratio, goal met (1/0), shortfall ("missing") and share of cells
      at goal; the data sets where the release tree is ahead of the best other learner
      and where the goal is met; ratio and shortfall, lowest and highest, over the data
      sets that miss the goal;
    - per data set and N (section ``beyond-by-n``): ratio and best other ratio; the N
      where the release tree is behind the best other; ratio ranges over
      :data:`BY_N_RANGES`, and the best other's over every N;
    - from ``beyond.csv``: the ratio per gamma (mean over N), the (gamma, N) cells whose
      5-repetition mean reaches the goal (listed when few), and the cells of
      :data:`GAMMA_ROWS`.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 7 (recommended gamma range).
    """
    grid, original = files.grid, files.original
    sec = "beyond-recommended"
    rows = []
    for r in rec.itertuples(index=False):
        d = r.dataset
        rows.append(_row(sec, f"{d} cells", r.cells))
        rows.append(_row(sec, f"{d} original", r.original))
        rows.append(_row(sec, f"{d} release-tree", r.release_tree))
        rows.append(_row(sec, f"{d} ratio", r.ratio))
        rows.append(_row(sec, f"{d} best other", r.best_baseline_accuracy, str(r.best_baseline)))
        rows.append(_row(sec, f"{d} best other ratio", r.best_baseline_ratio, str(r.best_baseline)))
        rows.append(_row(sec, f"{d} goal met", bool(r.goal_met)))
        rows.append(_row(sec, f"{d} missing", r.shortfall, "0.95 x original - release tree"))
        rows.append(_row(sec, f"{d} cells at goal share", r.share_cells_goal_met))
    ahead = rec["release_tree"] > rec["best_baseline_accuracy"]
    note = "not " + ",".join(rec.loc[~ahead, "dataset"]) if (~ahead).any() else ""
    rows.append(_row(sec, "data sets with release-tree ahead of the best other", ahead.sum(), note))
    met = rec["goal_met"].astype(bool)
    rows.append(_row(sec, "data sets at goal", met.sum(), ",".join(rec.loc[met, "dataset"])))
    miss = rec[~met].set_index("dataset")
    rows += _range(sec, "ratio of the data sets missing the goal", miss["ratio"])
    rows += _range(sec, "missing of the data sets missing the goal", miss["shortfall"])
    if by_n is not None:
        sn = "beyond-by-n"
        for r in by_n.itertuples(index=False):
            rows.append(_row(sn, f"{r.dataset} N {r.N} ratio", r.ratio))
            rows.append(
                _row(
                    sn,
                    f"{r.dataset} N {r.N} best other ratio",
                    r.best_baseline_ratio,
                    r.best_baseline,
                )
            )
        for d, g in by_n.groupby("dataset"):
            g = g.set_index("N")
            behind = g.index[g["ratio"] < g["best_baseline_ratio"]]
            rows.append(
                _row(
                    sn,
                    f"{d} N values with release-tree behind the best other",
                    len(behind),
                    "N " + ",".join(str(n) for n in behind) if len(behind) else "",
                )
            )
            for lo, hi in BY_N_RANGES.get(d, ()):
                part = g[(g.index >= lo) & (g.index <= hi)]
                ratio = part["ratio"].set_axis([f"N {n}" for n in part.index])
                rows += _range(sn, f"{d} ratio, N {lo}-{hi}", ratio)
            best = g["best_baseline_ratio"].set_axis([f"N {n}" for n in g.index])
            rows += _range(sn, f"{d} best other ratio, every N", best)
    if grid is not None and original is not None:
        cell = _cell_ratio(grid, original)
        for (d, gamma), v in cell.groupby(level=["dataset", "gamma"]):
            rows.append(_row(sec, f"{d} ratio at gamma {gamma} (mean over N)", v.mean()))
        for d, v in cell.groupby(level="dataset"):
            at = v[v >= GOAL - _TIE].droplevel("dataset")
            note = _cells(at.index) if 0 < len(at) <= 5 else ""
            rows.append(_row(sec, f"{d} (gamma, N) cells at goal", len(at), note))
        for d, (gamma, ns) in GAMMA_ROWS.items():
            at = [(d, gamma, n) for n in ns if (d, gamma, n) in cell.index]
            if not at:
                continue
            v = cell.loc[at]
            for (_, _, n_bins), x in v.items():
                rows.append(_row(sec, f"{d} gamma {gamma}, N {n_bins} ratio", x))
            rows += _range(
                sec,
                f"{d} gamma {gamma}, N {ns[0]}-{ns[-1]} ratio",
                v.set_axis([f"N {n}" for _, _, n in v.index]),
            )
    return pd.DataFrame(rows, columns=_COLUMNS)


def beyond_curve_claims(curve: pd.DataFrame) -> pd.DataFrame:
    """The learning curve, from ``beyond_curve_summary.csv``: the release tree's ratio to
    the original per data set (and the ``mean`` row) and n, and the mean accuracy over
    the data sets of every learner per n (gamma 9, N 20 in the run)."""
    sec = "beyond-curve"
    rows = []
    tree = curve[curve["method"] == RELEASE]
    for r in tree.itertuples(index=False):
        rows.append(_row(sec, f"{r.dataset} n {r.n} release-tree ratio", r.ratio_to_original))
    for r in curve[curve["dataset"] == "mean"].itertuples(index=False):
        rows.append(_row(sec, f"mean n {r.n} {r.method} accuracy", r.accuracy))
    return pd.DataFrame(rows, columns=_COLUMNS)


def beyond_leaf_claims(summary: pd.DataFrame, files: BeyondFiles = BeyondFiles()) -> pd.DataFrame:
    """The leaf check, from ``beyond_leaf_check_summary.csv`` (and ``beyond_leaf_check.csv``,
    ``beyond.csv`` and the originals).

    - per data set and model of :data:`LEAF_MODELS`: mean test accuracy and its ratio to
      the original;
    - from the check's rows: cells per data set; the cells where ``release_accuracy``
      scored each candidate; the cells where the default leaf model (naive Bayes leaves
      for :data:`MULTICLASS`, majority leaves otherwise) equals the grid's release tree;
      the default's mean per (gamma, N) cell; per data set the best of the three
      candidates, the goal ``0.95 x original`` and the best candidate's shortfall.
    """
    grid, original, check = files.grid, files.original, files.leaf
    sec = "beyond-leaf"
    rows = []
    s = summary.set_index(["dataset", "model"])
    for (d, m), r in s.iterrows():
        if m in LEAF_MODELS:
            rows.append(_row(sec, f"{d} {m}", r["test_accuracy"]))
            rows.append(_row(sec, f"{d} {m} ratio", r["ratio_to_original"]))
    if check is None:
        return pd.DataFrame(rows, columns=_COLUMNS)
    for d, g in check.groupby("dataset"):
        rows.append(_row(sec, f"{d} cells", len(g[_KEY].drop_duplicates())))
    rows.append(_row(sec, "cells", len(check[_KEY].drop_duplicates())))
    for m, g in check.groupby("model"):
        rows.append(
            _row(
                sec, f"cells where release_accuracy scored {m}", g["release_accuracy"].notna().sum()
            )
        )
    default = np.where(check["dataset"].isin(MULTICLASS), "tree-nb", "tree-majority")
    mine = check[check["model"] == default]
    if grid is not None:
        tree = grid[grid["method"] == RELEASE]
        both = mine.merge(tree, on=_KEY)
        same = np.isclose(both["test_accuracy"], both["accuracy"], rtol=0, atol=_TIE).sum()
        note = f"of {len(mine)} cells; {len(both)} in beyond.csv"
        rows.append(_row(sec, "cells where the default equals the grid's release tree", same, note))
    per_cell = mine.groupby(["dataset", "gamma", "N"])["test_accuracy"].mean()
    for (d, gamma, n_bins), v in per_cell.items():
        rows.append(_row(sec, f"{d} default at gamma {gamma}, N {n_bins}", v))
    if original is not None:
        cand = summary[summary["model"].isin(LEAF_CANDIDATES)]
        for d, g in cand.groupby("dataset"):
            if d not in original.index:
                continue
            best = g.loc[g["test_accuracy"].idxmax()]
            goal = GOAL * original[d]
            rows.append(_row(sec, f"{d} best candidate", best["test_accuracy"], best["model"]))
            rows.append(_row(sec, f"{d} goal (0.95 x original)", goal))
            rows.append(
                _row(
                    sec,
                    f"{d} best candidate short of the goal",
                    max(goal - best["test_accuracy"], 0.0),
                    best["model"],
                )
            )
    return pd.DataFrame(rows, columns=_COLUMNS)


def beyond_forest_claims(
    forest_rec: pd.DataFrame, files: BeyondFiles = BeyondFiles()
) -> pd.DataFrame:
    """The forest on the grid, from ``beyond_forest_recommended.csv`` and, on the same
    (dataset, gamma, N, rep) rows, ``beyond_forest.csv`` and ``beyond.csv``.

    - per data set: cells, original, forest, its ratio and share of cells at goal;
    - with the grid rows: the release tree on the same cells (mean, ratio, share of cells
      at goal), the best other learner besides tree and forest (name in the note) and
      its ratio, forest minus tree; the mean over data sets of tree and forest and of
      their difference; the data sets where the forest is ahead; the cells where it is
      ahead of and behind the tree.
    """
    grid, original, forest = files.grid, files.original, files.forest
    sec = "beyond-forest"
    rows = []
    f = forest_rec.set_index("dataset")
    for d, r in f.iterrows():
        rows.append(_row(sec, f"{d} cells", r["cells"]))
        rows.append(_row(sec, f"{d} original", r["original"]))
        rows.append(_row(sec, f"{d} release-forest", r["release_forest"]))
        rows.append(_row(sec, f"{d} release-forest ratio", r["ratio"]))
        rows.append(_row(sec, f"{d} release-forest cells at goal share", r["share_cells_goal_met"]))
    rows.append(_row(sec, "cells", f["cells"].sum()))
    rows += _range(sec, "cells per data set", f["cells"])
    rows.append(_row(sec, "mean over data sets release-forest", f["release_forest"].mean()))
    met = f["goal_met"].astype(bool)
    rows.append(
        _row(sec, "data sets with release-forest at goal", met.sum(), ",".join(f.index[met]))
    )
    if forest is None or grid is None or original is None:
        return pd.DataFrame(rows, columns=_COLUMNS)
    keys = forest[_KEY].drop_duplicates()
    same = grid.merge(keys, on=_KEY)
    cell = same.groupby(["dataset", "gamma", "N", "method"])["accuracy"].mean().unstack()
    per = cell.groupby(level="dataset").mean()
    tree = per[RELEASE]
    others = per.drop(columns=[RELEASE, "original"], errors="ignore")
    share = cell[RELEASE] >= GOAL * cell.index.get_level_values("dataset").map(original).to_numpy()
    share = share.groupby(level="dataset").mean()
    for d in per.index:
        orig = original[d]
        rows.append(_row(sec, f"{d} release-tree", tree[d]))
        rows.append(_row(sec, f"{d} release-tree ratio", tree[d] / orig))
        rows.append(_row(sec, f"{d} release-tree cells at goal share", share[d]))
        best = others.loc[d].idxmax()
        rows.append(_row(sec, f"{d} best other", others.loc[d, best], best))
        rows.append(_row(sec, f"{d} best other ratio", others.loc[d, best] / orig, best))
        if d in f.index:
            rows.append(
                _row(
                    sec,
                    f"{d} release-forest minus release-tree",
                    f.loc[d, "release_forest"] - tree[d],
                )
            )
    common = [d for d in per.index if d in f.index]
    rows.append(_row(sec, "mean over data sets release-tree", tree[common].mean()))
    diff = f.loc[common, "release_forest"] - tree[common]
    rows.append(_row(sec, "mean over data sets release-forest minus release-tree", diff.mean()))
    note = "not " + ",".join(diff.index[diff <= 0]) if (diff <= 0).any() else ""
    rows.append(_row(sec, "data sets with release-forest ahead", (diff > 0).sum(), note))
    gain = [d for d in common if not met[d] and diff[d] > 0]
    name = "release-forest gain over release-tree, data sets ahead and missing the goal"
    rows += _range(sec, name, diff[gain])
    both = forest.merge(same[same["method"] == RELEASE], on=_KEY, suffixes=("_forest", "_tree"))
    d = both["accuracy_forest"] - both["accuracy_tree"]
    rows.append(_row(sec, "cells with release-forest ahead of release-tree", (d > _TIE).sum()))
    rows.append(_row(sec, "cells with release-forest behind release-tree", (d < -_TIE).sum()))
    rows.append(_row(sec, "cells with both", len(both)))
    return pd.DataFrame(rows, columns=_COLUMNS)


def beyond_heldout_claims(summary: pd.DataFrame) -> pd.DataFrame:
    """The held-out tables, from ``beyond_heldout_summary.csv``: per table, cell (and
    ``all``) and learner, the mean accuracy and its ratio to the original; forest minus
    tree averaged over the cells; the cells where forest and tree reach the goal."""
    sec = "beyond-heldout"
    rows = []
    s = summary.assign(gamma=summary["gamma"].astype(str), N=summary["N"].astype(str))
    for r in s.itertuples(index=False):
        cell = "all cells" if r.gamma == "all" else f"({r.gamma}, {r.N})"
        rows.append(_row(sec, f"{r.dataset} {cell} {r.method}", r.accuracy))
        if r.method != "original":
            rows.append(_row(sec, f"{r.dataset} {cell} {r.method} ratio", r.ratio_to_original))
    cells = s[s["gamma"] != "all"]
    wide = cells.pivot_table(index=["dataset", "gamma", "N"], columns="method", values="accuracy")
    ratio = cells.pivot_table(
        index=["dataset", "gamma", "N"], columns="method", values="ratio_to_original"
    )
    if {RELEASE, "release-forest"} <= set(wide.columns):
        gain = wide["release-forest"] - wide[RELEASE]
        rows.append(_row(sec, "release-forest minus release-tree, mean over cells", gain.mean()))
        for m in (RELEASE, "release-forest"):
            at = (ratio[m] >= GOAL - _TIE).sum()
            rows.append(_row(sec, f"cells with {m} at goal", at, f"of {len(ratio)}"))
    return pd.DataFrame(rows, columns=_COLUMNS)


def beyond_boxes_claims(summary: pd.DataFrame, check: pd.DataFrame | None = None) -> pd.DataFrame:
    """The boxes check, from ``beyond_boxes_check_summary.csv`` (and ``beyond_boxes_check.csv``):
    per data set the original, the noise-free tree, the same boxes with classes from the
    release and the release tree (with ratios), the median effective records per leaf;
    the range of leaves per data set and the release tree per (gamma, N) cell."""
    sec = "beyond-boxes"
    rows = []
    cols = ("identity_tree", "same_boxes_release", "release_tree")
    for r in summary.itertuples(index=False):
        rows.append(_row(sec, f"{r.dataset} original", r.original))
        for c in cols:
            rows.append(_row(sec, f"{r.dataset} {c}", getattr(r, c)))
            rows.append(_row(sec, f"{r.dataset} {c} ratio", getattr(r, f"{c}_ratio")))
        rows.append(_row(sec, f"{r.dataset} median effective records per leaf", r.median_leaf_neff))
    if check is not None:
        rows.append(_row(sec, "cells", len(check)))
        for d, g in check.groupby("dataset"):
            rows.append(_row(sec, f"{d} leaves: fewest", g["leaves"].min()))
            rows.append(_row(sec, f"{d} leaves: most", g["leaves"].max()))
            per = g.groupby(["gamma", "N"])["release_tree"].mean()
            for (gamma, n_bins), v in per.items():
                rows.append(_row(sec, f"{d} release_tree at gamma {gamma}, N {n_bins}", v))
    return pd.DataFrame(rows, columns=_COLUMNS)


_GRID = ("dataset", "gamma", "N", "rep", "method", "accuracy")
_RATIOS = ("ratio", "best_baseline", "best_baseline_accuracy", "best_baseline_ratio")
_BOXES = ("identity_tree", "same_boxes_release", "release_tree")

#: Columns read from each beyond file.
BEYOND_COLUMNS = {
    "beyond.csv": _GRID,
    "beyond_summary.csv": (
        "dataset",
        "method",
        "accuracy",
        "cells",
        "original",
        "ratio_to_original",
    ),
    "beyond_recommended.csv": (
        *("dataset", "cells", "original", "release_tree", *_RATIOS),
        *("goal_met", "shortfall", "share_cells_goal_met"),
    ),
    "beyond_recommended_by_n.csv": (
        "dataset",
        "N",
        "ratio",
        "best_baseline",
        "best_baseline_ratio",
    ),
    "beyond_curve_summary.csv": ("dataset", "n", "method", "accuracy", "ratio_to_original"),
    "beyond_leaf_check.csv": (*_GRID[:4], "model", "test_accuracy", "release_accuracy"),
    "beyond_leaf_check_summary.csv": ("dataset", "model", "test_accuracy", "ratio_to_original"),
    "beyond_forest.csv": _GRID,
    "beyond_forest_recommended.csv": (
        *("dataset", "cells", "original", "release_forest", "ratio"),
        *("goal_met", "share_cells_goal_met"),
    ),
    "beyond_heldout.csv": _GRID,
    "beyond_heldout_summary.csv": (
        "dataset",
        "gamma",
        "N",
        "method",
        "accuracy",
        "ratio_to_original",
    ),
    "beyond_boxes_check_summary.csv": (
        *("dataset", "original", *_BOXES, "median_leaf_neff"),
        *(f"{c}_ratio" for c in _BOXES),
    ),
    "beyond_boxes_check.csv": ("dataset", "gamma", "N", "leaves", "release_tree"),
}


def _read_optional(out: Path, name: str, **kwargs) -> pd.DataFrame | None:
    """``out / name`` if it is there (``None`` if not), with its :data:`BEYOND_COLUMNS`."""
    path = out / name
    if not path.is_file():
        return None
    frame = pd.read_csv(path, **kwargs)
    missing = [c for c in BEYOND_COLUMNS[name] if c not in frame.columns]
    if missing:
        has = ", ".join(str(c) for c in list(frame.columns)[:8])
        raise DataError(f"{path}: column {missing[0]!r} missing (has {has})")
    return frame


def beyond_claims(out: str | Path) -> pd.DataFrame:
    """Every number of REPRODUCTION.md's "Beyond the papers" computed from the beyond
    CSVs under ``out`` (sections ``beyond``, ``beyond-recommended``, ``beyond-by-n``,
    ``beyond-curve``, ``beyond-leaf``, ``beyond-forest``, ``beyond-heldout``,
    ``beyond-boxes``); the parts whose inputs are missing are skipped.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 6-7; Agrawal & Srikant (2000), Sec. 5.
    """
    out = Path(out)
    summary = _read_optional(out, "beyond_summary.csv")
    files = BeyondFiles(
        grid=_read_optional(out, "beyond.csv"),
        original=None if summary is None else summary.groupby("dataset")["original"].first(),
        leaf=_read_optional(out, "beyond_leaf_check.csv"),
        forest=_read_optional(out, "beyond_forest.csv"),
        heldout=_read_optional(out, "beyond_heldout.csv"),
    )
    parts = []
    if files.grid is not None and summary is not None:
        parts.append(beyond_grid_claims(files.grid, summary))
    rec = _read_optional(out, "beyond_recommended.csv")
    if rec is not None:
        by_n = _read_optional(out, "beyond_recommended_by_n.csv")
        parts.append(beyond_recommended_claims(rec, by_n, files))
    curve = _read_optional(out, "beyond_curve_summary.csv")
    if curve is not None:
        parts.append(beyond_curve_claims(curve))
    leaf_summary = _read_optional(out, "beyond_leaf_check_summary.csv")
    if leaf_summary is not None:
        parts.append(beyond_leaf_claims(leaf_summary, files))
    forest_rec = _read_optional(out, "beyond_forest_recommended.csv")
    if forest_rec is not None:
        parts.append(beyond_forest_claims(forest_rec, files))
    heldout_summary = _read_optional(out, "beyond_heldout_summary.csv")
    if heldout_summary is not None:
        parts.append(beyond_heldout_claims(heldout_summary))
    boxes = _read_optional(out, "beyond_boxes_check_summary.csv")
    if boxes is not None:
        parts.append(beyond_boxes_claims(boxes, _read_optional(out, "beyond_boxes_check.csv")))
    if not parts:
        return pd.DataFrame(columns=_COLUMNS)
    return pd.concat(parts, ignore_index=True)


#: Attributes of the original Boston tree, by depth (root first): see islam_brankovic_trees.txt.
BOSTON_ATTRIBUTES = ("rm", "dis", "ptratio", "lstat", "indus")


def claims(out: str | Path) -> pd.DataFrame:
    """Every available claim table, from the CSVs under ``out`` (and ``out/bn``)."""
    out = Path(out)
    parts = []
    if (out / "fig4.csv").is_file():
        t1 = pd.read_csv(out / "table1.csv") if (out / "table1.csv").is_file() else None
        parts.append(fig4_claims(pd.read_csv(out / "fig4.csv"), t1))
    for folder in (out, out / "bn"):
        if (folder / "bn-table2.csv").is_file():
            parts.append(table2_claims(pd.read_csv(folder / "bn-table2.csv")))
        for name in ("bn-privacy-accuracy", "bn-sample-size"):
            path = folder / f"{name}-runs.csv"
            if path.is_file():
                runs = pd.read_csv(path)
                if "estimator" in runs.columns:
                    parts.append(bn_claims(runs, name))
    noise = out / "noise" / "islam_brankovic_runs.csv"
    if noise.is_file():
        parts.append(all_leaves_claims(pd.read_csv(noise), BOSTON_ATTRIBUTES))
    if (out / "fig2_summary.csv").is_file():
        parts.append(fig2_claims(pd.read_csv(out / "fig2_summary.csv")))
    if (out / "kang_summary.csv").is_file():
        parts.append(kang_claims(pd.read_csv(out / "kang_summary.csv")))
    if (out / "readings.csv").is_file():
        fig4 = pd.read_csv(out / "fig4.csv") if (out / "fig4.csv").is_file() else None
        parts.append(readings_claims(pd.read_csv(out / "readings.csv"), fig4))
    if (out / "attacks.csv").is_file():
        parts.append(attacks_claims(pd.read_csv(out / "attacks.csv")))
    beyond = beyond_claims(out)
    if len(beyond):
        parts.append(beyond)
    if not parts:
        return pd.DataFrame(columns=_COLUMNS)
    return pd.concat(parts, ignore_index=True)


def run(ctx: RunContext) -> list[Path]:
    """``ppdm reproduce claims``: claims.csv from the result CSVs already in ``--out``."""
    return [write_csv_atomic(claims(ctx.out), ctx.out / "claims.csv")]
