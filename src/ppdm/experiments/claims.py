"""Numbers quoted in REPRODUCTION.md, computed from the committed result CSVs.

``ppdm reproduce claims --out results`` reads what the other experiments wrote into
``--out`` (nothing is rerun) and writes ``claims.csv``: one row per number, with the
section it belongs to, a short name, the value and a note. Inputs that are missing are
skipped, so it also runs after ``reproduce all --quick``.

References
----------
Dowd, Xu & Zhang, Sec. 6.1 (Fig. 2), Sec. 6.2 (Figs. 4-6, Table 1), Sec. 1, 3.3 and 5.2
(attacks); Kang, Sec. 4 (the bound and multiple substitutions); Ma & Sivakumar, Sec. 6 (Table 2,
Figs. 4-5); Islam & Brankovic, Sec. 4 (All Leaves).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .registry import RunContext
from .runner import write_csv_atomic

__all__ = [
    "fig2_claims",
    "kang_claims",
    "readings_claims",
    "attacks_claims",
    "fig4_claims",
    "table2_claims",
    "all_leaves_claims",
    "bn_claims",
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
    if not parts:
        return pd.DataFrame(columns=_COLUMNS)
    return pd.concat(parts, ignore_index=True)


def run(ctx: RunContext) -> list[Path]:
    """``ppdm reproduce claims``: claims.csv from the result CSVs already in ``--out``."""
    return [write_csv_atomic(claims(ctx.out), ctx.out / "claims.csv")]
