"""Reproduction of Islam & Brankovic's experiments (Sec. 4).

Two data sets, as in the paper: Boston housing, 300 cases, class ``medv`` in the
top 20 % vs the bottom 80 % (:func:`ppdm.datasets.load_boston`), and Wisconsin
Breast Cancer (WBC), 350 cases.  The cases are a seeded simple random sample
without replacement (:func:`ppdm_papers.data.train_test_split_fixed` with
``random_state=seed``); the cases left out are the test set for accuracy.  The
paper does not say which 300 / 350 cases it used.

Runs, as in the paper:

=====================  =======  ====================================================
experiment             runs     what is perturbed
=====================  =======  ====================================================
boston-random          5        class, Random technique
wbc-random             5        class, Random technique
boston-probabilistic   10       class, Probabilistic technique
boston-all-leaves      10       class, All Leaves Probabilistic technique
wbc-tia-heterogeneous  10       TIA of the records in heterogeneous leaves
wbc-tia-all            10       TIA of all records
wbc-lia                10       LIA of all records
=====================  =======  ====================================================

The original and the perturbed trees are ppdm's C4.5 with J48's defaults
(``-C 0.25 -M 2``); the paper used Quinlan's C5.  Attribute noise is
:func:`ppdm.noise.paper_noise` (relative, sd 27.6 % of the value).

References
----------
Islam, M. Z. & Brankovic, L. Noise addition for protecting privacy in data mining, Sec. 4.
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ppdm.exceptions import ParameterError, SeededReleaseWarning
from ppdm.noise.attribute_noise import add_attribute_noise, paper_noise
from ppdm.noise.class_noise import add_class_noise
from ppdm.noise.security import reidentification
from ppdm.validation import check_int

from .cellrun import CellRun
from .noise_quality import tree_quality

__all__ = ["EXPERIMENTS", "PAPER_STATEMENTS", "run", "summarize"]

#: name -> (data set, kind, technique or target, scope, runs)
EXPERIMENTS: dict[str, tuple[str, str, str, str, int]] = {
    "boston-random": ("boston", "class", "random", "heterogeneous", 5),
    "wbc-random": ("wbc", "class", "random", "heterogeneous", 5),
    "boston-probabilistic": ("boston", "class", "probabilistic", "heterogeneous", 10),
    "boston-all-leaves": ("boston", "class", "all-leaves", "all", 10),
    "wbc-tia-heterogeneous": ("wbc", "attributes", "tia", "heterogeneous", 10),
    "wbc-tia-all": ("wbc", "attributes", "tia", "all", 10),
    "wbc-lia": ("wbc", "attributes", "lia", "all", 10),
}

#: What the paper says about each experiment (Sec. 4).
PAPER_STATEMENTS: dict[str, str] = {
    "boston-random": "3 of the 4 original attributes appear in all 5 trees, with very similar "
    "thresholds; ignoring rules with the 4th attribute (11 of 300 cases), the 4 other rules "
    "appear in the same or very similar form in all trees",
    "wbc-random": "trees very similar to the original (reported together with Boston)",
    "boston-probabilistic": "2 of 4 attributes in all 10 trees, the 3rd in 8 of 10; the original "
    "rules (except the nitric-oxides one) in the same or similar form in most trees; 4 trees "
    "have new rules with a significant number of cases",
    "boston-all-leaves": "trees significantly different from the original; all contain the two "
    "most significant attributes, 7 of 10 the 3rd; some much deeper with many new rules, some "
    "test only two attributes",
    "wbc-tia-heterogeneous": "(20 runs with wbc-tia-all) trees similar to the original; all but "
    "one keep the root; most logic rules the same; some new attributes, only in deep nodes",
    "wbc-tia-all": "(20 runs with wbc-tia-heterogeneous) trees similar to the original; all but "
    "one keep the root; most logic rules the same; some new attributes, only in deep nodes",
    "wbc-lia": "8 of 10 trees very similar to the original; the other 2 slightly different but "
    "keep the root and some logic rules",
}

_SIZES = {"boston": 300, "wbc": 350}
_TOLERANCE = 0.05
_SIGNIFICANT = 0.03
_THRESHOLD = 0.01
_QUICK_RUNS = 2


def _data(name: str, seed: int):
    from ppdm.datasets import load_boston, load_wisconsin

    from .data import train_test_split_fixed

    d = load_boston() if name == "boston" else load_wisconsin()
    train, test = train_test_split_fixed(d, len(d.frame) - _SIZES[name], random_state=seed)
    return train, test, d.target


def _one_run(task) -> dict:
    name, run_index, seed, train, test, target = task
    dataset, kind, what, scope, _ = EXPERIMENTS[name]
    from ppdm.tree import C45Classifier

    X, y = train.drop(columns=[target]), train[target]
    Xt, yt = test.drop(columns=[target]), test[target]
    original = C45Classifier().fit(X, y)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_index(name), run_index)))
    row = {"experiment": name, "dataset": dataset, "kind": kind, "technique": what}
    row.update({"scope": scope, "run": run_index, "n_train": len(X), "n_test": len(Xt)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeededReleaseWarning)
        if kind == "class":
            res = add_class_noise(X, y, what, tree=original, random_state=rng)
            X_rel, y_rel = X, res.y
            row.update(
                expected_changes=res.expected_changes,
                n_changed=res.n_changed,
                mean_p_same=float(res.p_same.mean()),
            )
        else:
            res = add_attribute_noise(
                X, y, what, noise=paper_noise(), scope=scope, tree=original, random_state=rng
            )
            X_rel, y_rel = res.X, y
            rep = reidentification(res, threshold=_THRESHOLD).summary()
            row.update(
                n_values_perturbed=int(res.eligible.sum()),
                n_values_changed=int(res.changed.sum()),
                reid_mean_posterior_true=rep["mean_posterior_true"],
                reid_median_candidates=rep["median_candidates"],
                reid_share_unique=rep["share_unique"],
                reid_mean_class_posterior=rep["mean_class_posterior"],
            )
    perturbed = C45Classifier().fit(X_rel, y_rel)
    q = tree_quality(
        original,
        perturbed,
        X,
        X_test=Xt,
        y_test=yt,
        tolerance=_TOLERANCE,
        significant_support=_SIGNIFICANT,
    )
    cmp = q.comparison
    row.update(
        original_root=cmp.root_a,
        perturbed_root=cmp.root_b,
        root_kept=q.same_root,
        n_original_attributes=len(q.original_attributes),
        n_original_attributes_kept=len(q.kept_attributes),
        original_attributes_missing=";".join(
            sorted(set(q.original_attributes) - set(q.kept_attributes))
        ),
        new_attributes=";".join(sorted(set(cmp.attributes_b) - set(cmp.attributes_a))),
        new_attribute_min_depth=_first_depth(
            perturbed, set(cmp.attributes_b) - set(cmp.attributes_a)
        ),
        n_original_rules=q.n_original_rules,
        rules_kept=q.rules_kept,
        n_perturbed_rules=q.n_perturbed_rules,
        new_rules=q.new_rules,
        new_significant_rules=q.new_significant_rules,
        perturbed_depth=perturbed.get_depth(),
        prediction_agreement=q.agreement,
        accuracy_original=q.accuracy_original,
        accuracy_perturbed=q.accuracy_perturbed,
    )
    return row


def _cell(cell: tuple, *, seed: int, data: dict) -> list[dict]:
    """One run ``(experiment, run index)``; its stream comes from ``(seed, cell)`` only."""
    name, run_index = cell
    train, test, target = data[EXPERIMENTS[name][0]]
    return [_one_run((name, run_index, seed, train, test, target))]


def _first_depth(clf, names: set) -> float:
    """Smallest depth (root = 0) of a node testing one of ``names``; NaN if none does."""
    t = clf.tree_
    depth = np.zeros(t.n_nodes, dtype=np.int64)
    best = np.inf
    for i in range(t.n_nodes):
        if t.feature[i] >= 0:
            depth[t.child_ids(i)] = depth[i] + 1
            if clf.feature_names_[t.feature[i]] in names:
                best = min(best, depth[i])
    return float(best) if np.isfinite(best) else float("nan")


def _index(name: str) -> int:
    return list(EXPERIMENTS).index(name)


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per experiment: the figures the paper reports, beside its statement.

    Parameters
    ----------
    runs : DataFrame
        The output of :func:`run`.

    Returns
    -------
    DataFrame
        ``runs``, ``original_attributes`` (of the original tree), ``attributes_kept``
        ("k/n: r runs" counts), ``root_kept`` (runs), ``rules_kept`` (mean and range over
        the original rules), ``runs_with_new_significant_rules``, mean prediction
        agreement and test accuracy, and the paper's statement.

    References
    ----------
    Islam & Brankovic, Sec. 4.
    """
    rows = []
    for name, g in runs.groupby("experiment", sort=False):
        n_attr = int(g["n_original_attributes"].iloc[0])
        kept = g["n_original_attributes_kept"].value_counts().sort_index(ascending=False)
        rows.append(
            {
                "experiment": name,
                "runs": len(g),
                "original_attributes": n_attr,
                "attributes_kept": ", ".join(f"{k}/{n_attr}: {v}" for k, v in kept.items()),
                "root_kept": f"{int(g['root_kept'].sum())}/{len(g)}",
                "original_rules": int(g["n_original_rules"].iloc[0]),
                "rules_kept_mean": float(g["rules_kept"].mean()),
                "rules_kept_range": f"{int(g['rules_kept'].min())}-{int(g['rules_kept'].max())}",
                "runs_with_new_significant_rules": int((g["new_significant_rules"] > 0).sum()),
                "prediction_agreement": float(g["prediction_agreement"].mean()),
                "accuracy_original": float(g["accuracy_original"].mean()),
                "accuracy_perturbed": float(g["accuracy_perturbed"].mean()),
                "paper": PAPER_STATEMENTS[name],
            }
        )
    return pd.DataFrame(rows)


def _plot(runs: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ppdm.io import atomic_path

    g = runs.groupby("experiment", sort=False)
    names = list(g.groups)
    figures = {
        "original attributes kept": g.apply(
            lambda d: (d["n_original_attributes_kept"] / d["n_original_attributes"]).mean(),
            include_groups=False,
        ),
        "root kept": g["root_kept"].mean(),
        "original rules kept": g.apply(
            lambda d: (d["rules_kept"] / d["n_original_rules"]).mean(), include_groups=False
        ),
        "runs with new significant rules": g.apply(
            lambda d: (d["new_significant_rules"] > 0).mean(), include_groups=False
        ),
        "prediction agreement": g["prediction_agreement"].mean(),
    }
    fig, ax = plt.subplots(figsize=(11, 4.5))
    width = 0.8 / len(figures)
    x = np.arange(len(names))
    for k, (label, values) in enumerate(figures.items()):
        ax.bar(x + (k - (len(figures) - 1) / 2) * width, values.loc[names], width, label=label)
    ax.set_xticks(x, names, rotation=20, ha="right")
    ax.set_ylim(0, 1.25)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_ylabel("share (mean over runs)")
    ax.set_title("Islam & Brankovic: trees on perturbed data vs the original tree (ppdm C4.5)")
    ax.legend(fontsize=8, ncol=5, loc="upper center")
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)


def run(
    out_dir,
    *,
    quick: bool = False,
    seed: int = 0,
    cell_run: CellRun = CellRun(),
) -> pd.DataFrame:
    """Run the paper's experiments; write a tidy CSV, a summary CSV, the original trees and a PNG.

    Every run of every experiment in :data:`EXPERIMENTS` is one cell: it perturbs the
    original cases once and compares the tree built on them with the original tree.

    Parameters
    ----------
    out_dir : path-like
        Output directory (created).  Writes ``islam_brankovic_runs.csv`` (one row per
        run), ``islam_brankovic_summary.csv`` (one row per experiment, with the
        paper's statement), ``islam_brankovic_trees.txt`` (the original trees) and
        ``islam_brankovic.png``, each atomically.
    quick : bool, default=False
        Two runs per experiment instead of the paper's 5 or 10 (the same first runs).
    seed : int, default=0
        Seeds the choice of the 300 / 350 cases and every run.
    cell_run : CellRun, default=CellRun()
        Where the runs go: mapper, jobs and progress (see :func:`ppdm.cells.run_cells`);
        results do not depend on it.

    Returns
    -------
    DataFrame
        One row per run (the tidy CSV).

    References
    ----------
    Islam & Brankovic, Sec. 4.

    Examples
    --------
    >>> import tempfile
    >>> runs = run(tempfile.mkdtemp(), quick=True)  # doctest: +SKIP
    """
    from ppdm.io import write_table_atomic
    from ppdm.tree import C45Classifier, export_text, extract_rules, format_rules

    check_int(seed, "seed", low=0, error=ParameterError)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = {name: _data(name, int(seed)) for name in _SIZES}
    cells = []
    for name, (_, _, _, _, runs) in EXPERIMENTS.items():
        n = min(runs, _QUICK_RUNS) if quick else runs
        cells += [(name, r) for r in range(n)]
    fn = functools.partial(_cell, seed=int(seed), data=data)
    runs = cell_run.run(fn, cells, "islam-brankovic", order="cells")
    write_table_atomic(runs, out / "islam_brankovic_runs.csv")
    write_table_atomic(summarize(runs), out / "islam_brankovic_summary.csv")
    text = []
    for name, (train, _, target) in data.items():
        clf = C45Classifier().fit(train.drop(columns=[target]), train[target])
        text += [
            f"== {name}: {len(train)} cases (seed {seed}), class {target!r} ==",
            export_text(clf),
            format_rules(extract_rules(clf)),
            "",
        ]
    from ppdm.io import atomic_path

    with atomic_path(out / "islam_brankovic_trees.txt") as tmp:
        tmp.write_text("\n".join(text))
    _plot(runs, out / "islam_brankovic.png")
    return runs
