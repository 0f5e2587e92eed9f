"""The variance of ppdm's frequency estimates beside the LDP frequency oracles' formulas.

A gamma-diagonal matrix on N values is k-ary randomized response (GRR, k = N) at
epsilon = ln gamma. Wang et al. (2017) give the variance of a frequency estimate under
GRR and under optimized unary encoding (OUE); GRR has the lower one exactly when
k < 3 e^epsilon + 2. ppdm keeps a release a table (one value per attribute), so it keeps
GRR; this script measures the variance of ppdm's own estimates (the inverse estimator,
Eq. 1, on releases drawn by ppdm's sampler) and sets it beside multi-freq-ldpy's
formulas (``VAR_Pure``) for GRR and OUE at the same epsilon and k.

Usage::

    python benchmarks/oracle_variance.py                  # the table in BENCHMARKS.md
    python benchmarks/oracle_variance.py --quick

References
----------
Wang, Blocki, Li & Jha (2017), Sec. 4 (GRR and OUE variances); Dowd, Xu & Zhang, Eq. (1).
"""

from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd

from ppdm.estimate import point_estimate
from ppdm.matrix import GammaDiagonal
from ppdm.perturbation import perturb_codes


def _formulas(gamma: float, k: int, n: int, f: np.ndarray) -> tuple[float, float]:
    """multi-freq-ldpy's VAR_Pure for GRR and OUE, averaged over the k values."""
    from multi_freq_ldpy.pure_frequency_oracles.Variance_PURE import VAR_Pure

    e = gamma  # e^epsilon
    grr = np.mean([VAR_Pure(e / (e + k - 1), 1 / (e + k - 1), n, fi) for fi in f])
    oue = np.mean([VAR_Pure(0.5, 1 / (e + 1), n, fi) for fi in f])
    return float(grr), float(oue)


def run(gammas, ks, n: int, reps: int, seed: int) -> pd.DataFrame:
    rows = []
    rng = np.random.default_rng(seed)
    for gamma in gammas:
        for k in ks:
            f = rng.dirichlet(np.ones(k))  # one skewed distribution per cell
            codes = rng.choice(k, size=n, p=f)
            truth = np.bincount(codes, minlength=k) / n
            m = GammaDiagonal(k, gamma)
            est = np.empty((reps, k))
            for r in range(reps):
                y = np.bincount(perturb_codes(codes, m, rng), minlength=k).astype(float)
                est[r] = point_estimate(y, m, "inverse") / n
            var = est.var(axis=0, ddof=1)  # per value, over fresh releases
            # its sampling error: var of a sample variance is 2 var^2 / (reps - 1)
            se = np.sqrt(np.sum(2 * var**2 / (reps - 1))) / k
            grr, oue = _formulas(gamma, k, n, truth)
            rows.append(
                {
                    "gamma": gamma,
                    "epsilon": math.log(gamma),
                    "k": k,
                    "n": n,
                    "reps": reps,
                    "ppdm_measured": float(var.mean()),
                    "ppdm_measured_se": float(se),
                    "grr_formula": grr,
                    "oue_formula": oue,
                    "measured_over_grr": float(var.mean() / grr),
                    "grr_over_oue": grr / oue,
                    "k_star": 3 * gamma + 2,
                    "lower": "GRR" if grr < oue else "OUE",
                }
            )
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--csv", default=None, help="Also write the table here.")
    args = parser.parse_args()
    gammas = (3.0, 9.0) if args.quick else (3.0, 9.0, 19.0)
    ks = (2, 10, 40) if args.quick else (2, 5, 10, 20, 29, 40, 64, 128)
    reps = args.reps or (50 if args.quick else 400)
    table = run(gammas, ks, args.n, reps, args.seed)
    if args.csv:
        table.to_csv(args.csv, index=False)
    cols = ["gamma", "k", "ppdm_measured", "ppdm_measured_se", "grr_formula", "oue_formula",
            "measured_over_grr", "grr_over_oue", "k_star", "lower"]  # fmt: skip
    with pd.option_context("display.width", 200, "display.float_format", "{:.3g}".format):
        print(table[cols].to_string(index=False))


if __name__ == "__main__":
    main()
