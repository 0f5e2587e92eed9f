"""Experiment ``attacks``: data-recovery attacks on additive noise and on substitution.

Question (Dowd, Xu & Zhang, Sec. 1, 3.3, 5.2): at comparable privacy, do the attacks
that recover additive-noise data (Kargupta et al. 2003; Huang, Du & Chen 2005) also
recover substituted data, and does repeated perturbation help an adversary?

Comparable privacy. Both methods are set to the same Agrawal & Srikant privacy level
``pi``: the width of the interval that holds the original with 95 % confidence, as a
fraction of the attribute's range. For Gaussian noise that is ``3.92 sigma = pi R``.
For substitution over ``N`` equal bins with the gamma-diagonal matrix, a released
value ``h`` under a uniform prior (the prior both metrics ignore) leaves density
``d = gamma/(gamma+N-1)`` on bin ``h`` and ``o = 1/(gamma+N-1)`` on each other bin; the
smallest set of 95 % mass takes bin ``h`` and ``(0.95 - d)/o`` bins more, so
``pi N = 1 + (0.95 - d)/o``, that is ``gamma = 1 + 20 N (0.95 - pi)`` (for
``1/N <= pi < 0.95``). The rho1-to-rho2 breach of each gamma is reported beside it;
additive Gaussian noise has unbounded amplification and no such bound.

Data: ``low-rank``, records of 10 attributes with a rank-2 signal (variances 40 and 20)
plus unit-variance noise, so the attributes are strongly correlated; and the UCI
Wisconsin breast-cancer table (683 x 9 integers 1..10, first principal component about
two thirds of the variance). N = 10 bins over each attribute's range.

Measures: relative RMSE (RMSE over the attribute's standard deviation, averaged over
attributes) of every attack's estimate of every original value, and the share of
values recovered within one bin width; the prior-only guess (the most frequent
estimated bin) for reference. Also ``H(M^t)`` against ``t`` and the Bayes-optimal
success after ``t`` extra perturbations (the repeated-perturbation attack).
"""

from __future__ import annotations

import functools
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ppdm.additive import additive_perturb
from ppdm.attacks.as_noise import attack_substitution_release
from ppdm.attacks.bayes_optimal import bayes_optimal_attack
from ppdm.attacks.registry import noise_attacks
from ppdm.attacks.repeated import entropy_of_powers, repeated_perturbation_attack
from ppdm.exceptions import ParameterError
from ppdm.io import atomic_path as atomic_file
from ppdm.matrix import GammaDiagonal
from ppdm.perturbation import perturb_frame, plan_release
from ppdm.privacy import rho2_from_gamma
from ppdm.validation import check_int

from .cellrun import CellRun

__all__ = ["N_BINS", "gamma_for_interval_level", "run"]

N_BINS = 10
LEVELS = (0.25, 0.5, 0.75, 0.9)
QUICK_LEVELS = (0.5, 0.9)
REPEATS = 3


def gamma_for_interval_level(level: float, n_values: int) -> float:
    """Gamma of the gamma-diagonal matrix whose 95 % interval is ``level`` of the range.

    ``gamma = 1 + 20 N (0.95 - level)``, derived in the module docstring.

    Examples
    --------
    >>> gamma_for_interval_level(0.9, 10)
    11.0
    """
    if not 1.0 / n_values <= level < 0.95:
        raise ParameterError(
            f"level must be in [1/N, 0.95) = [{1 / n_values:.3g}, 0.95) (got {level})"
        )
    return round(1.0 + 20.0 * n_values * (0.95 - level), 9)


def _low_rank(n: int, rng: np.random.Generator) -> pd.DataFrame:
    m = 10
    basis = np.linalg.qr(rng.normal(size=(m, 2)))[0]
    x = (rng.normal(size=(n, 2)) * np.sqrt([40.0, 20.0])) @ basis.T + rng.normal(size=(n, m))
    return pd.DataFrame(x, columns=[f"x{i}" for i in range(m)])


def _wisconsin() -> pd.DataFrame:
    from ppdm.datasets import load_wisconsin

    ds = load_wisconsin()
    return ds.frame.drop(columns=[ds.target]).astype(float)


def _scores(
    est: np.ndarray, x: np.ndarray, sd: np.ndarray, width: np.ndarray
) -> tuple[float, float]:
    rmse = np.sqrt(np.mean((est - x) ** 2, axis=0)) / sd
    hit = np.mean(np.abs(est - x) <= width, axis=0)
    return float(rmse.mean()), float(hit.mean())


def _one_task(
    dataset: str, level: float, quick: bool, seed_seq: np.random.SeedSequence
) -> list[dict]:
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(seed_seq)
    frame = _low_rank(2000 if quick else 5000, rng) if dataset == "low-rank" else _wisconsin()
    x = frame.to_numpy(dtype=float)
    lo, hi = x.min(axis=0), x.max(axis=0)
    sd = x.std(axis=0)
    width = (hi - lo) / N_BINS
    gamma = gamma_for_interval_level(level, N_BINS)
    base = {"experiment": "recovery", "dataset": dataset, "privacy_level": level}
    rows = []

    def add(method, attack, est, g=None, prior_only=None, t=None):
        rmse, hit = _scores(np.asarray(est, dtype=float), x, sd, width)
        rows.append(
            {
                **base,
                "method": method,
                "gamma": g,
                "rho2_at_rho1_0.1": rho2_from_gamma(g, 0.1) if g else 1.0,
                "attack": attack,
                "t": t,
                "rmse_rel": rmse,
                "recovered": hit,
                "prior_only": prior_only,
            }
        )

    # additive Gaussian noise with 3.92 sigma_j = level * range_j
    sigma = level * (hi - lo) / (2 * 1.959963984540054)
    noisy = additive_perturb(x / sigma, "gaussian", 1.0, random_state=rng) * sigma
    add("additive", "released", noisy)
    for name, attack in noise_attacks().items():
        add("additive", name, attack.estimate(noisy, sigma**2).estimate)

    # substitution, gamma-diagonal over N bins of the data's range
    bounds = {c: (float(a), float(b)) for c, a, b in zip(frame.columns, lo, hi)}
    spec = plan_release(frame, n_bins=N_BINS, gamma=gamma, bounds=bounds)
    rel = perturb_frame(frame, spec, random_state=rng, warn=False)
    y = rel.to_numpy(dtype=float)
    attrs = spec.perturbed_attributes()
    doms = [a.get_domain() for a in attrs]
    mats = [a.get_matrix() for a in attrs]
    codes = np.column_stack([d.encode(rel[a.name]) for d, a in zip(doms, attrs)])
    centers = np.column_stack([d.decode(np.arange(d.n_values)) for d in doms])
    bayes = [bayes_optimal_attack(codes[:, j], mats[j]) for j in range(len(attrs))]
    prior_guess = np.array([centers[b.prior.argmax(), j] for j, b in enumerate(bayes)])
    prior_only = _scores(np.broadcast_to(prior_guess, x.shape), x, sd, width)[1]
    add("substitution", "released", y, gamma, prior_only)
    for att in noise_attacks():
        add(
            "substitution",
            att,
            attack_substitution_release(rel, spec, att).estimate,
            gamma,
            prior_only,
        )
    map_est = np.column_stack([centers[b.guess, j] for j, b in enumerate(bayes)])
    add("substitution", "bayes_map", map_est, gamma, prior_only)
    add("substitution", "prior_only", np.broadcast_to(prior_guess, x.shape), gamma, prior_only)
    rounds = [
        repeated_perturbation_attack(codes[:, j], mats[j], REPEATS, rng) for j in range(len(attrs))
    ]
    for s in range(REPEATS + 1):
        est = np.column_stack([centers[rounds[j][s].guess, j] for j in range(len(attrs))])
        add("substitution", "repeated_map", est, gamma, prior_only, t=s)
    return rows


def _cell(cell: tuple, *, quick: bool, seed: int) -> list[dict]:
    """One (data set, privacy level) cell; its stream is child ``index`` of ``seed``."""
    index, dataset, level = cell
    return _one_task(dataset, level, quick, np.random.SeedSequence(seed, spawn_key=(index,)))


def _entropy_rows(levels) -> list[dict]:
    rows = []
    for level in levels:
        g = gamma_for_interval_level(level, N_BINS)
        h = entropy_of_powers(GammaDiagonal(N_BINS, g), 25)
        for t, v in enumerate(h, start=1):
            rows.append(
                {
                    "experiment": "entropy",
                    "privacy_level": level,
                    "method": "substitution",
                    "gamma": g,
                    "t": t,
                    "entropy_bits": float(v),
                    "log2_N": float(np.log2(N_BINS)),
                }
            )
    return rows


def _plot(df: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rec = df[df.experiment == "recovery"]
    datasets = list(dict.fromkeys(rec.dataset))
    fig, axes = plt.subplots(1, len(datasets) + 1, figsize=(5 * (len(datasets) + 1), 4))
    styles = {"additive": "-", "substitution": "--"}
    for ax, ds in zip(axes, datasets):
        part = rec[(rec.dataset == ds) & (rec.t.isna() | (rec.t == 0))]
        for (method, attack), g in part.groupby(["method", "attack"], sort=False):
            if attack == "repeated_map":
                continue
            ax.plot(
                g.privacy_level,
                g.rmse_rel,
                styles[method],
                marker="o",
                ms=3,
                label=f"{method}: {attack}",
            )
        ax.set_title(f"{ds}: recovery error")
        ax.set_xlabel("privacy: 95 % interval width / range")
        ax.set_ylabel("RMSE / sd (lower = attack better)")
        ax.legend(fontsize=6)
    ent = df[df.experiment == "entropy"]
    ax = axes[-1]
    for g, part in ent.groupby("gamma"):
        ax.plot(part.t, part.entropy_bits, marker=".", label=f"gamma = {g:g}")
    ax.axhline(np.log2(N_BINS), color="k", ls=":", label="log2 N")
    ax.set_title(f"entropy of M^t (N = {N_BINS})")
    ax.set_xlabel("t")
    ax.set_ylabel("H(M^t), bits")
    ax.legend(fontsize=7)
    fig.tight_layout()
    with atomic_file(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)


def run(
    out_dir: str | os.PathLike,
    *,
    quick: bool = False,
    seed: int = 0,
    cell_run: CellRun = CellRun(),
) -> pd.DataFrame:
    """Run the attacks experiment; write ``attacks.csv`` and ``attacks.png`` to ``out_dir``.

    Parameters
    ----------
    out_dir : path
        Output directory (created). Files are written atomically.
    quick : bool, default=False
        Two privacy levels and 2 000 low-rank records instead of four and 5 000.
    seed : int, default=0
        Root seed; every (data set, level) cell gets its own child stream, so the
        result does not depend on ``cell_run``.
    cell_run : CellRun, default=CellRun()
        Where the cells run: mapper, jobs and progress (see :func:`ppdm.cells.run_cells`).

    Returns
    -------
    pandas.DataFrame
        The tidy table written to ``attacks.csv``: one row per (experiment, data set,
        method, privacy level, attack, t).

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3.3 and 5.2; Agrawal & Srikant (2000), Sec. 2.1 (privacy
    metric); Kargupta et al. (2003); Huang, Du & Chen (2005).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     df = run(d, quick=True)
    >>> sorted(df.experiment.unique())
    ['entropy', 'recovery']
    """
    check_int(seed, "seed", low=0, error=ParameterError)
    levels = QUICK_LEVELS if quick else LEVELS
    tasks = [(ds, lv) for ds in ("low-rank", "wisconsin") for lv in levels]
    cells = [(i, ds, lv) for i, (ds, lv) in enumerate(tasks)]
    recovery = cell_run.run(
        functools.partial(_cell, quick=quick, seed=int(seed)), cells, "attacks", order="cells"
    )
    rows = recovery.to_dict("records") + _entropy_rows(levels)
    df = pd.DataFrame(rows)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with atomic_file(out / "attacks.csv") as tmp:
        df.to_csv(tmp, index=False)
    _plot(df, out / "attacks.png")
    return df
