"""Two-way tables from a release: the Kronecker estimate against the product of margins.

For every pair of attributes of each bundled data set, the original two-way table (in
the release's codes) is compared with two estimates from the same release: the joint
estimate through ``M_a kron M_b`` (``ppdm estimate --pairs``) and the baseline, the
product of the two one-way estimates divided by n (the table if the attributes were
independent). The error is Dowd, Xu & Zhang's E = sum |X_hat - X| / n over the cells.
Each cell of the grid is repeated over fresh releases; the tables give the mean and
its standard error. A pair is "dependent" when the chi-square test of independence on
the original table rejects at p < 0.001.

Usage::

    python benchmarks/pairs_accuracy.py --out results/pairs            # the full grid
    python benchmarks/pairs_accuracy.py --quick --out /tmp/pairs        # seconds

References
----------
Ma & Sivakumar, Sec. 4; Dowd, Xu & Zhang, Sec. 6.2 (the error E).
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import chi2_contingency

from ppdm.datasets import load_pendigits, load_spambase, load_synth, load_wisconsin
from ppdm.pairs import estimate_pairs
from ppdm.pipeline import load_release, make_release


def _sets(quick: bool) -> dict[str, tuple[pd.DataFrame, str]]:
    synth = load_synth(2, n_train=20_000 if quick else 100_000, n_test=10)[0]
    sets = {"wisconsin": load_wisconsin(), "synth2": synth}
    if not quick:
        sets["spambase"] = load_spambase()
        sets["pendigits"] = load_pendigits()
    return {k: (d.frame, d.target) for k, d in sets.items()}


def _columns(frame: pd.DataFrame, target: str, quick: bool) -> list[str]:
    names = [c for c in frame.columns if c != target]
    return names[: 4 if quick else 6]


def run(quick: bool, reps: int, gamma: float, bins: int, seed: int) -> pd.DataFrame:
    rows = []
    for set_name, (frame, target) in _sets(quick).items():
        cols = _columns(frame, target, quick)
        frame = frame[[*cols, target]]
        pairs = list(itertools.combinations(cols, 2))
        for rep in range(reps):
            with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = Path(tmp) / "release"
                make_release(
                    frame, out, class_attribute=target, gamma=gamma, n_bins=bins,
                    random_state=seed + rep,
                )  # fmt: skip
                rel = load_release(out)
                codes = {
                    c: rel.spec.attribute(c).get_domain().encode(frame[c], column=c) for c in cols
                }
                for method in ("ibu", "norm-sub"):
                    for est in estimate_pairs(rel, pairs, method, replicates=2):
                        a, b = est.names
                        truth = np.zeros(est.perturbed.shape)
                        np.add.at(truth, (codes[a], codes[b]), 1.0)
                        n = truth.sum()
                        kept = truth[truth.sum(axis=1) > 0][:, truth.sum(axis=0) > 0]
                        p = chi2_contingency(kept)[1] if min(kept.shape) > 1 else 1.0
                        p_seen = est.independence_p
                        auto = est.counts if p_seen < 1e-3 else est.independent
                        v = (
                            np.sqrt(chi2_contingency(kept)[0] / (n * (min(kept.shape) - 1)))
                            if min(kept.shape) > 1
                            else 0.0
                        )
                        rows.append(
                            {
                                "set": set_name,
                                "pair": f"{a} x {b}",
                                "method": method,
                                "rep": rep,
                                "cells": truth.size,
                                "dependent": bool(p < 1e-3),
                                "cramers_v": v,
                                "released_dependent": bool(p_seen < 1e-3),
                                "error_pair": np.abs(est.counts - truth).sum() / n,
                                "error_product": np.abs(est.independent - truth).sum() / n,
                                "error_auto": np.abs(auto - truth).sum() / n,
                            }
                        )
    return pd.DataFrame(rows)


def summary(results: pd.DataFrame) -> pd.DataFrame:
    """Per set, method and dependence: mean errors, their s.e., and how often the joint
    estimate is the closer one (pairs averaged over releases first)."""
    per_pair = (
        results.groupby(["set", "method", "dependent", "pair"])[
            ["error_pair", "error_product", "error_auto", "cramers_v"]
        ]
        .mean()
        .reset_index()
    )
    per_pair["pair_wins"] = per_pair["error_pair"] < per_pair["error_product"]
    g = per_pair.groupby(["set", "method", "dependent"])
    out = g.agg(
        pairs=("pair", "size"),
        error_pair=("error_pair", "mean"),
        error_product=("error_product", "mean"),
        error_auto=("error_auto", "mean"),
        cramers_v=("cramers_v", "mean"),
        pair_wins=("pair_wins", "mean"),
    )
    out["se_pair"] = g["error_pair"].sem()
    out["se_product"] = g["error_product"].sem()
    return out.reset_index()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--gamma", type=float, default=9.0)
    parser.add_argument("--bins", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    reps = args.reps or (2 if args.quick else 5)
    results = run(args.quick, reps, args.gamma, args.bins, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    results.to_csv(args.out / "pairs_accuracy.csv", index=False)
    table = summary(results)
    table.to_csv(args.out / "pairs_summary.csv", index=False)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.round(4).to_string(index=False))


if __name__ == "__main__":
    main()
