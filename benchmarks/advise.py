"""The advisor on the bundled data sets: its advice against the paper pipeline's, side by side.

Usage::

    python benchmarks/advise.py [--sets wisconsin synth1 ...] [--synth-rows 10000] [--jobs 2]
        [--out results/advise_bundled.csv]

For every set, one run of :func:`ppdm.advise.advise` with its defaults (gamma 5..12 under
the policy's gamma 9, N 5, 10, 20, 40, 2 screening repetitions, 10 fresh releases to
confirm) gives

- its recommendation (gamma, N, learner), confirmed on 10 fresh releases of fresh splits
  (mined as it says, tested on original records), with the s.e. of that mean;
- the paper pipeline's own advice under the same rule and policy (global Algorithm 2 +
  C4.5 scored on the same releases: how the advisor chose before it scored the learners
  mine can choose), confirmed the same way;
- the best (learner, gamma, N) of its screening grid, confirmed again on the same fresh
  splits and releases (a second advise() restricted to that design), and whether the
  recommendation is within one standard error of it.

Synth1-5 are Agrawal functions 1-5 (``--synth-rows`` records, seed k); the UCI sets are
used whole. The CSV holds one row per set.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
from pathlib import Path

import pandas as pd

SETS = ("wisconsin", "spambase", "pendigits", "synth1", "synth2", "synth3", "synth4", "synth5")


def _table(name: str, synth_rows: int) -> tuple[pd.DataFrame, str]:
    from ppdm import datasets

    if name.startswith("synth"):
        k = int(name[-1])
        train, test = datasets.load_synth(k, n_train=synth_rows, n_test=1, random_state=k)
        return train.frame, train.target
    ds = {"wisconsin": datasets.load_wisconsin, "spambase": datasets.load_spambase,
          "pendigits": datasets.load_pendigits}[name]()  # fmt: skip
    return ds.frame, ds.target


def _one(name: str, synth_rows: int, jobs: int) -> dict:
    from ppdm.advise import advise

    frame, target = _table(name, synth_rows)
    t0 = time.perf_counter()
    a = advise(frame, target, jobs=jobs)
    seconds = time.perf_counter() - t0
    row = {"set": name, "rows": len(frame), "attributes": frame.shape[1] - 1,
           "majority": a.majority, "c45_original": a.original_accuracy, "seconds": seconds}  # fmt: skip
    p = a.paper
    row.update(
        paper_gamma=p.get("gamma"), paper_N=p.get("N"), paper_accuracy=p.get("accuracy"),
        paper_se=p.get("se"),
    )  # fmt: skip
    if not a.recommended:
        return {**row, "reason": a.reason}
    row.update(
        gamma=a.gamma, N=str(a.N), learner=a.learner, accuracy=a.accuracy, se=a.se, sd=a.sd,
        release_se=a.release_se,
    )  # fmt: skip
    if p.get("accuracy") is not None:
        row["gain"] = a.accuracy - p["accuracy"]
        row["gain_se"] = math.hypot(a.se, p["se"])
    done = a.table[(a.table["status"] == "evaluated") & a.table["best"]]
    top = done.loc[done["accuracy"].idxmax()]
    best = advise(frame, target, gammas=[top["gamma"]], ns=[int(top["N"])],
                  learners=[top["learner"]], per_attribute=False, jobs=jobs)  # fmt: skip
    row.update(
        best_gamma=top["gamma"], best_N=int(top["N"]), best_learner=top["learner"],
        best_screened=top["accuracy"], best_accuracy=best.accuracy, best_se=best.se,
    )  # fmt: skip
    row["gap"] = best.accuracy - a.accuracy
    row["gap_se"] = math.hypot(a.se, best.se)
    row["within_one_se"] = bool(row["gap"] <= row["gap_se"])
    return row


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    p.add_argument("--synth-rows", type=int, default=10_000)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", type=Path, default=Path("results/advise_bundled.csv"))
    a = p.parse_args()
    from ppdm.io import write_table_atomic

    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    rows = []
    for name in a.sets:
        rows.append(_one(name, a.synth_rows, a.jobs))
        r = rows[-1]
        print(
            f"{name}: {r.get('learner')} gamma {r.get('gamma')} N {r.get('N')} "
            f"{100 * r.get('accuracy', float('nan')):.2f} ± {100 * r.get('se', float('nan')):.2f}; "
            f"paper pipeline gamma {r['paper_gamma']} N {r['paper_N']} "
            f"{100 * (r['paper_accuracy'] or float('nan')):.2f}; best of grid "
            f"{100 * r.get('best_accuracy', float('nan')):.2f}; {r['seconds']:.0f} s",
            flush=True,
        )
        a.out.parent.mkdir(parents=True, exist_ok=True)
        write_table_atomic(pd.DataFrame(rows), a.out)  # every set's row as soon as it is done
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
