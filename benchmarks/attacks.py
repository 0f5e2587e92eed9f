"""Time each data-recovery attack on 100K x 10 records and print a table.

Data: a rank-3 signal (variances 40, 20, 10) in 10 attributes plus Gaussian noise of
sigma = 1, released with :func:`ppdm.additive.additive_perturb`. Each attack is timed as the
best of ``--repeats`` runs (wall clock, one process). The RMSE column shows that every
attack is doing its full work.

Then the attacks on a substitution release of the same records (gamma = 9, N = 20 bins
per attribute): the three data-recovery attacks applied to the substituted numbers, the
Bayes-optimal MAP attack and the repeated-perturbation attack (t = 2) on all 10
attributes, the realised breach search (model and counted) and the whole ``ppdm audit``.

Run: ``PYTHONPATH=src python benchmarks/attacks.py [--records N] [--attributes M]``
"""

from __future__ import annotations

import argparse
import os
import platform
import warnings

import numpy as np
import pandas as pd
from _timing import best_time

from ppdm.additive import additive_perturb, reconstruct_distribution
from ppdm.attacks import (
    NUMERIC_ATTACKS,
    attack_substitution_release,
    bayes_optimal_attack,
    bayes_reconstruct,
    empirical_breach,
    pca_reconstruct,
    repeated_perturbation_attack,
    spectral_filtering,
    worst_posterior,
)
from ppdm.attacks.audit import audit_release
from ppdm.perturbation import perturb_frame, plan_release


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--attributes", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    n, m, sigma = args.records, args.attributes, 1.0

    rng = np.random.default_rng(args.seed)
    lam = np.array([40.0, 20.0, 10.0])
    basis = np.linalg.qr(rng.normal(size=(m, lam.size)))[0]
    original = (rng.normal(size=(n, lam.size)) * np.sqrt(lam)) @ basis.T
    released = additive_perturb(original, "gaussian", sigma, random_state=rng)

    def rmse(est):
        return float(np.sqrt(np.mean((np.asarray(est) - original) ** 2)))

    rows = []
    t, _ = best_time(
        lambda: additive_perturb(original, "gaussian", sigma, random_state=1), args.repeats
    )
    rows.append(("additive_perturb (release)", t, rmse(released)))
    for name, attack in (
        ("spectral_filtering", spectral_filtering),
        ("pca_reconstruct (PCA-DR)", pca_reconstruct),
        ("bayes_reconstruct (BE-DR)", bayes_reconstruct),
    ):
        t, res = best_time(lambda attack=attack: attack(released, sigma**2), args.repeats)
        rows.append((name, t, res.rmse(original)))

    def as2000_all():
        return [
            reconstruct_distribution(released[:, j], "gaussian", sigma, bins=50) for j in range(m)
        ]

    t, ests = best_time(as2000_all, args.repeats)
    iters = sum(e.n_iter for e in ests)
    rows.append((f"AS2000 distribution, {m} columns ({iters} iter.)", t, float("nan")))

    print(
        f"{n:,} records x {m} attributes, rank-3 signal, Gaussian noise sigma={sigma}; "
        f"best of {args.repeats}; Python {platform.python_version()}, "
        f"NumPy {np.__version__}, {os.cpu_count()} CPUs"
    )
    print(f"{'attack':48s} {'seconds':>8s} {'RMSE':>7s}")
    for name, t, err in rows:
        shown = "-" if np.isnan(err) else f"{err:.3f}"
        print(f"{name:48s} {t:8.3f} {shown:>7s}")
    substitution(original, args.repeats)


def substitution(original: np.ndarray, repeats: int) -> None:
    """Attacks on a substitution release of the same records (gamma 9, N = 20)."""
    n, m = original.shape
    frame = pd.DataFrame(original, columns=[f"x{j}" for j in range(m)])
    bounds = {c: (float(frame[c].min()), float(frame[c].max())) for c in frame.columns}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = plan_release(frame, gamma=9.0, n_bins=20, bounds=bounds)
        t_rel, rel = best_time(
            lambda: perturb_frame(frame, spec, random_state=1, warn=False), repeats
        )
    attrs = spec.perturbed_attributes()
    doms = [a.get_domain() for a in attrs]
    mats = [a.get_matrix() for a in attrs]
    x_codes = [d.encode(frame[a.name]) for d, a in zip(doms, attrs)]
    y_codes = [d.encode(rel[a.name]) for d, a in zip(doms, attrs)]

    def rmse(est):
        return float(np.sqrt(np.mean((np.asarray(est, dtype=float) - original) ** 2)))

    rows = [("substitution release (gamma 9, N 20)", t_rel, rmse(rel))]
    for att in NUMERIC_ATTACKS:
        t, res = best_time(lambda att=att: attack_substitution_release(rel, spec, att), repeats)
        rows.append((f"{att} on substituted numbers", t, rmse(res.estimate)))
    t, _ = best_time(lambda: [bayes_optimal_attack(y, mt) for y, mt in zip(y_codes, mats)], repeats)
    rows.append((f"Bayes-optimal MAP, {m} attributes", t, float("nan")))
    t, _ = best_time(
        lambda: [repeated_perturbation_attack(y, mt, 2, 0) for y, mt in zip(y_codes, mats)],
        max(1, repeats // 4),
    )
    rows.append((f"repeated perturbation t=2, {m} attributes", t, float("nan")))

    def breach():
        for x, y, mt in zip(x_codes, y_codes, mats):
            worst_posterior(mt, bayes_optimal_attack(y, mt).prior)
            empirical_breach(x, y, mt.n_values, 9.0)

    t, _ = best_time(breach, repeats)
    rows.append((f"breach search (model + counted), {m} attrs", t, float("nan")))

    import tempfile

    from ppdm.pipeline import make_release

    with tempfile.TemporaryDirectory() as d, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(frame, d, random_state=1, gamma=9.0, n_bins=20, bounds=bounds, fmt="parquet")
        t, rep = best_time(lambda: audit_release(d, frame), max(1, repeats // 4))
    rows.append((f"ppdm audit (whole, {'passed' if rep.passed else 'FAILED'})", t, float("nan")))
    print()
    print(f"{'attack on substitution':48s} {'seconds':>8s} {'RMSE':>7s}")
    for name, t, err in rows:
        shown = "-" if np.isnan(err) else f"{err:.3f}"
        print(f"{name:48s} {t:8.3f} {shown:>7s}")


if __name__ == "__main__":
    main()
