"""C4.5 fit time and accuracy: ppdm vs scikit-learn (entropy) vs Weka's J48, in one run.

Usage::

    PYTHONPATH=src python benchmarks/tree.py [--repeat 3] [--agrawal-rows 100000]

Data: pendigits, spambase, the Agrawal-style table, and the same table perturbed
(gamma 9, N 20) and reconstructed by class with Algorithm 2, as a cell of the
Figs. 4-6 grid does (every attribute then has at most 20 values; the test set
stays original).

ppdm and scikit-learn times are the best of ``--repeat`` wall-clock fits;
J48's is the best of its own "Time taken to build model" over as many runs
(JVM start-up and file parsing excluded).  J48 is skipped when Weka is missing.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from _timing import best_time
from sklearn.tree import DecisionTreeClassifier

from ppdm.datasets import load_pendigits, load_spambase
from ppdm.tree import C45Classifier
from ppdm_papers.core import encode_table, perturb_table, reconstruct_table
from ppdm_papers.data import train_test_split_fixed
from ppdm_papers.weka import run_j48, weka_available


def agrawal(n: int, seed: int) -> pd.DataFrame:
    """An Agrawal-style table (Agrawal et al. 1993) labelled by function 1.

    salary U[20k, 150k]; commission 0 if salary >= 75k else U[10k, 75k];
    age U{20..80}; elevel U{0..4}; car U{1..20}; zipcode U{0..8};
    hvalue (9 - zipcode) * 100k * U[0.5, 1.5]; hyears U{1..30}; loan U[0, 500k];
    class A when age < 40 or age >= 60, else B.
    """
    rng = np.random.default_rng(seed)
    salary = rng.uniform(20_000, 150_000, n)
    commission = np.where(salary >= 75_000, 0.0, rng.uniform(10_000, 75_000, n))
    age = rng.integers(20, 81, n).astype(float)
    zipcode = rng.integers(0, 9, n).astype(float)
    frame = pd.DataFrame(
        {
            "salary": salary.round(2),
            "commission": commission.round(2),
            "age": age,
            "elevel": rng.integers(0, 5, n).astype(float),
            "car": rng.integers(1, 21, n).astype(float),
            "zipcode": zipcode,
            "hvalue": ((9 - zipcode) * 100_000 * rng.uniform(0.5, 1.5, n)).round(2),
            "hyears": rng.integers(1, 31, n).astype(float),
            "loan": rng.uniform(0, 500_000, n).round(2),
        }
    )
    frame["group"] = np.where((age < 40) | (age >= 60), "A", "B")
    return frame


def reconstructed(frame: pd.DataFrame, target: str, gamma: float, n_bins: int, seed: int):
    """``frame`` perturbed with a gamma-diagonal matrix on N bins and reconstructed by class."""
    y = frame[target].to_numpy()
    table = encode_table(frame.drop(columns=target), y, n_bins)
    rng = np.random.default_rng(seed)
    perturbed = perturb_table(table, gamma, rng)
    out = table.decode(reconstruct_table(table, perturbed, gamma, rng, mode="by-class"))
    out[target] = y
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--agrawal-rows", type=int, default=100_000)
    args = parser.parse_args()

    sets = {}
    for name, loader, n_test in [
        ("pendigits", load_pendigits, 3498),
        ("spambase", load_spambase, 1500),
    ]:
        d = loader()
        train, test = train_test_split_fixed(d, n_test, 0)
        sets[name] = (train, test, d.target)
    train, test = agrawal(args.agrawal_rows, 1), agrawal(20_000, 2)
    sets[f"agrawal-{args.agrawal_rows // 1000}k"] = (train, test, "group")
    sets[f"agrawal-{args.agrawal_rows // 1000}k-rec"] = (
        reconstructed(train, "group", 9.0, 20, 3),
        test,
        "group",
    )

    header = (
        f"{'data':<18}{'rows x cols':>14}  {'ppdm s':>8}{'sklearn s':>10}{'J48 s':>8}"
        f"  {'ppdm/J48':>9}{'ppdm/skl':>9}  {'acc ppdm':>9}{'acc skl':>8}{'acc J48':>8}"
        f"  {'size ppdm':>9}{'size J48':>9}"
    )
    print(header)
    print("-" * len(header))
    for name, (train, test, target) in sets.items():
        X, y = train.drop(columns=target), train[target]
        Xt, yt = test.drop(columns=target), test[target]
        t_ppdm, clf = best_time(lambda X=X, y=y: C45Classifier().fit(X, y), args.repeat)
        t_skl, skl = best_time(
            lambda X=X, y=y: DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y),
            args.repeat,
        )
        acc_ppdm = float(np.mean(clf.predict(Xt) == yt))
        acc_skl = float(np.mean(skl.predict(Xt) == yt))
        t_j48 = acc_j48 = size_j48 = np.nan
        if weka_available():
            runs = [run_j48(train, target, test) for _ in range(args.repeat)]
            t_j48 = min(r.build_seconds for r in runs)
            acc_j48 = runs[0].test_accuracy
            size_j48 = runs[0].tree.n_nodes()
        print(
            f"{name:<18}{f'{X.shape[0]} x {X.shape[1]}':>14}  {t_ppdm:8.3f}{t_skl:10.3f}{t_j48:8.3f}"
            f"  {t_ppdm / t_j48:9.2f}{t_ppdm / t_skl:9.2f}  {acc_ppdm:9.4f}{acc_skl:8.4f}{acc_j48:8.4f}"
            f"  {clf.tree_.n_nodes:9d}{size_j48:9.0f}"
        )


if __name__ == "__main__":
    main()
