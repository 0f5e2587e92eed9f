"""Fit time of the release tree vs C4.5 on the reconstructed table (100K x 9 Agrawal).

Usage::

    python benchmarks/release_tree.py [--n 100000] [--gamma 9] [--bins 20] [--repeat 3]

Prints, per Agrawal function, the best-of-``repeat`` wall time of: Algorithm 2 by-class
reconstruction, C4.5 on the reconstructed table, the release tree (no reconstruction)
and the Local baseline, with the test accuracy of each learner.
"""

from __future__ import annotations

import argparse
import os
import platform
import warnings

from _timing import best_time


def main() -> None:
    from ppdm.datasets import agrawal
    from ppdm.demo import agrawal_spec
    from ppdm.perturbation import perturb_frame
    from ppdm.pipeline import reconstruct_frame
    from ppdm.tree import C45Classifier, ReleaseTreeClassifier
    from ppdm_papers.local_tree import LocalReconstructionClassifier

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--gamma", type=float, default=9.0)
    p.add_argument("--bins", type=int, default=20)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--functions", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    a = p.parse_args()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(
        f"Agrawal data, n = {a.n} train / 5000 test, 9 attributes, gamma = {a.gamma:g}, N = {a.bins}\n"
    )
    head = f"{'fn':>3} {'reconstruct':>12} {'C4.5 fit':>9} {'release tree':>13} {'ratio':>6} {'Local':>7}   accuracy C4.5 / release / Local"
    print(head)
    for fn in a.functions:
        data = agrawal(a.n + 5000, function=fn, random_state=fn)
        train, test = data.iloc[: a.n], data.iloc[a.n :]
        X_test, y_test = test.drop(columns="group"), test["group"]
        spec = agrawal_spec(train, a.gamma, a.bins)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rel = perturb_frame(train, spec, random_state=1)
        t_rec, rec = best_time(
            lambda rel=rel, spec=spec: reconstruct_frame(rel, spec, by_class=True, random_state=0),
            a.repeat,
        )
        t_c45, c45 = best_time(
            lambda rec=rec: C45Classifier().fit(rec.drop(columns="group"), rec["group"]), a.repeat
        )
        t_rt, rt = best_time(
            lambda rel=rel, spec=spec: ReleaseTreeClassifier(spec=spec).fit(rel), a.repeat
        )
        t_loc, loc = best_time(
            lambda rel=rel, spec=spec: LocalReconstructionClassifier(spec=spec).fit(rel), a.repeat
        )
        models = [c45, rt, loc]
        accs = [m.score(X_test, y_test) for m in models]
        print(
            f"{fn:>3} {t_rec:>11.2f}s {t_c45:>8.2f}s {t_rt:>12.2f}s {t_rt / t_c45:>6.2f} {t_loc:>6.2f}s   "
            + " / ".join(f"{x:.3f}" for x in accs)
        )


if __name__ == "__main__":
    main()
