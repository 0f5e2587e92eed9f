"""Numbers quoted in REPRODUCTION.md, computed from the committed result CSVs.

``ppdm reproduce claims --out results`` reads what the other experiments wrote into
``--out`` (nothing is rerun) and writes ``claims.csv``: one row per number, with the
section it belongs to, a short name, the value and a note. Inputs that are missing are
skipped, so it also runs after ``reproduce all --quick``.

References
----------
Dowd, Xu & Zhang, Sec. 6.2 (Figs. 4-6, Table 1); Ma & Sivakumar, Sec. 6 (Table 2,
Figs. 4-5); Islam & Brankovic, Sec. 4 (All Leaves).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .registry import RunContext
from .runner import write_csv_atomic

__all__ = ["fig4_claims", "table2_claims", "all_leaves_claims", "bn_claims", "claims", "run"]

_COLUMNS = ["section", "claim", "value", "note"]


def _row(section: str, claim: str, value: float, note: str = "") -> dict:
    return {"section": section, "claim": claim, "value": float(value), "note": note}


def _group(name: str) -> str:
    return "synthetic" if str(name).startswith("synth") else "uci"


#: Parts of the (gamma, N) grid over which the Fig. 4 levels are averaged.
REGIONS = {
    "whole grid": lambda m: m["gamma"] > 0,
    "gamma >= 5 and N <= 20": lambda m: (m["gamma"] >= 5) & (m["N"] <= 20),
    "gamma >= 9 and N <= 30": lambda m: (m["gamma"] >= 9) & (m["N"] <= 30),
    "gamma 5-12 (Sec. 7)": lambda m: (m["gamma"] >= 5) & (m["gamma"] <= 12),
}


def fig4_claims(fig4: pd.DataFrame, table1: pd.DataFrame | None = None) -> pd.DataFrame:
    """Figs. 4-6 numbers from the tidy ``fig4.csv`` (accuracies in percent).

    - per data set, the best **5-run mean** cell (what the paper plots) and the best single
      run, against the Table 1 accuracy;
    - synthetic / UCI means per mode, over all repetitions and over repetition 0, and over
      parts of the grid (:data:`REGIONS`, 5-run means);
    - Fig. 6: the share of (gamma, N) cells whose seven-set average is >= 50 % and >= 70 %;
    - N = 5 against N = 10 at each gamma (5-run means);
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
    for subset, frame in (("all reps", f), ("rep 0", f[f["rep"] == 0])):
        per = frame.groupby(["mode", "dataset"]).accuracy.mean().reset_index()
        per["group"] = per["dataset"].map(_group)
        for (mode, group), g in per.groupby(["mode", "group"]):
            rows.append(_row("fig4-level", f"{mode} {group} mean ({subset})", g["accuracy"].mean()))
    # "overall accuracy" read off the surfaces: the whole grid or only its mild part
    mean["group"] = mean["dataset"].map(_group)
    for region, sel in REGIONS.items():
        part = mean[sel(mean)]
        per = part.groupby(["mode", "group", "dataset"]).accuracy.mean()
        for (mode, group), v in per.groupby(["mode", "group"]):
            rows.append(_row("fig4-region", f"{mode} {group} mean, {region}", v.mean()))
    bands = mean.groupby(["mode", "gamma", "N"], as_index=False).agg(
        accuracy=("accuracy", "mean"), entropy=("entropy", "first")
    )
    for mode, g in bands.groupby("mode"):
        rows.append(_row("fig6", f"{mode} share of cells >= 50 %", 100 * (g.accuracy >= 50).mean()))
        rows.append(_row("fig6", f"{mode} share of cells >= 70 %", 100 * (g.accuracy >= 70).mean()))
        rows.append(_row("fig6", f"{mode} lowest cell", g.accuracy.min()))
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
        if 5 in p.columns and 10 in p.columns:
            d = p[10] - p[5]
            below = d[d > 0]
            note = f"gammas {','.join(str(x) for x in below.index)}"
            rows.append(_row("fig6", f"{mode} N=5 below N=10: gammas", len(below), note))
            if len(below):
                rows.append(_row("fig6", f"{mode} N=5 below N=10: smallest gap", below.min()))
                rows.append(_row("fig6", f"{mode} N=5 below N=10: largest gap", below.max()))
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
    if not parts:
        return pd.DataFrame(columns=_COLUMNS)
    return pd.concat(parts, ignore_index=True)


def run(ctx: RunContext) -> list[Path]:
    """``ppdm reproduce claims``: claims.csv from the result CSVs already in ``--out``."""
    return [write_csv_atomic(claims(ctx.out), ctx.out / "claims.csv")]
