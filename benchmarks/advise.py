"""The advisor on the bundled data sets: its advice, the paper pipeline's and the grid's
best, each measured on fresh releases, side by side.

Usage::

    python benchmarks/advise.py [--sets wisconsin synth1 ...] [--synth-rows 10000]
        [--sample ROWS] [--fresh 10] [--jobs 2] [--quick] [--out results/advise_bundled.csv]

For every set, one run of :func:`ppdm.advise.advise` with its defaults (gamma 5..12 under
the policy's gamma 9, N 5, 10, 20, 40, 2 screening repetitions, 10 fresh releases to
confirm; ``--quick``: gamma 5, 9, N 5, 10, 1 repetition, 3 to confirm) gives three designs:

- ``advice``: its recommendation (gamma, N, learner);
- ``paper``: the paper pipeline's advice (global Algorithm 2 + C4.5 under the paper's
  rule 7.1 and the same policy): the advice as it was before the advisor scored the
  learners ``ppdm mine`` can choose;
- ``best``: the most accurate (learner, gamma, N) of its screening grid.

All three are then measured afresh by :func:`ppdm.advise.evaluate_designs`: ``--fresh``
releases of fresh splits that the advisor never saw (seed 1; the advisor's is 0), each
mined as the design says and tested on original records, the three on the same splits.
``gain`` is advice - paper and ``gap`` best - advice, each with the s.e. of the paired
difference; ``within_one_se`` is ``gap <= gap_se``.

Synth1-5 are Agrawal functions 1-5 (``--synth-rows`` records, seed k); the UCI sets are
used whole unless ``--sample`` draws that many rows. The CSV holds one row per set.
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
        train, _ = datasets.load_synth(k, n_train=synth_rows, n_test=1, random_state=k)
        return train.frame, train.target
    ds = {"wisconsin": datasets.load_wisconsin, "spambase": datasets.load_spambase,
          "pendigits": datasets.load_pendigits}[name]()  # fmt: skip
    return ds.frame, ds.target


def _paired(wide: pd.DataFrame, a: str, b: str) -> tuple[float, float]:
    diff = wide[a] - wide[b]
    return float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(len(diff)))


def one_set(name: str, *, synth_rows: int, sample: int | None, fresh: int, jobs: int,
            quick: bool) -> dict:  # fmt: skip
    """Advise on one set, then measure the three designs on fresh releases."""
    from ppdm.advise import advise, best_per_cell, evaluate_designs

    frame, target = _table(name, synth_rows)
    if sample is not None and sample < len(frame):
        frame = frame.sample(sample, random_state=0).reset_index(drop=True)
    grid = dict(gammas=[5, 9], ns=[5, 10], reps=1, confirm=3) if quick else {}
    t0 = time.perf_counter()
    a = advise(frame, target, jobs=jobs, **grid)
    seconds = time.perf_counter() - t0
    row = {"set": name, "rows": len(frame), "attributes": frame.shape[1] - 1,
           "majority": a.majority, "c45_original": a.original_accuracy,
           "advise_seconds": seconds}  # fmt: skip
    if not a.recommended or a.paper.get("gamma") is None:
        return {**row, "reason": a.reason or "the paper pipeline has no advice"}
    done = a.table[(a.table["status"] == "evaluated")]
    top = best_per_cell(done).sort_values("accuracy", ascending=False, kind="stable").iloc[0]
    designs = {
        "advice": (a.gamma, a.N, a.learner),
        "paper": (a.paper["gamma"], a.paper["N"], a.paper["learner"]),
        "best": (float(top["gamma"]), int(top["N"]), str(top["learner"])),
    }
    scores = evaluate_designs(frame, target, designs, reps=fresh, seed=1, jobs=jobs)
    wide = scores.pivot_table(index="rep", columns="design", values="accuracy")
    for key, (g, n, label) in designs.items():
        row.update({f"{key}_gamma": g, f"{key}_N": str(n), f"{key}_learner": label,
                    f"{key}_accuracy": float(wide[key].mean()),
                    f"{key}_se": float(wide[key].std(ddof=1) / math.sqrt(len(wide)))})  # fmt: skip
    row["gain"], row["gain_se"] = _paired(wide, "advice", "paper")
    row["gap"], row["gap_se"] = _paired(wide, "best", "advice")
    row["within_one_se"] = bool(row["gap"] <= row["gap_se"])
    row["fresh"] = fresh
    row["seconds"] = time.perf_counter() - t0
    return row


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    p.add_argument("--synth-rows", type=int, default=10_000)
    p.add_argument("--sample", type=int, default=None)
    p.add_argument("--fresh", type=int, default=10)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", type=Path, default=Path("results/advise_bundled.csv"))
    a = p.parse_args(argv)
    from ppdm.io import write_table_atomic

    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    rows = []
    for name in a.sets:
        r = one_set(name, synth_rows=a.synth_rows, sample=a.sample, fresh=a.fresh, jobs=a.jobs,
                    quick=a.quick)  # fmt: skip
        rows.append(r)
        if "gain" in r:
            print(
                f"{name}: advice gamma {r['advice_gamma']:g} N {r['advice_N']} "
                f"{r['advice_learner']} {100 * r['advice_accuracy']:.2f}; paper gamma "
                f"{r['paper_gamma']:g} N {r['paper_N']} {100 * r['paper_accuracy']:.2f}; best "
                f"{100 * r['best_accuracy']:.2f}; gain {100 * r['gain']:+.2f} ± "
                f"{100 * r['gain_se']:.2f}; gap {100 * r['gap']:+.2f} ± {100 * r['gap_se']:.2f} "
                f"within one s.e.: {r['within_one_se']}; {r['seconds']:.0f} s",
                flush=True,
            )
        else:
            print(f"{name}: no advice: {r['reason']}", flush=True)
        a.out.parent.mkdir(parents=True, exist_ok=True)
        write_table_atomic(pd.DataFrame(rows), a.out)  # every set's row as soon as it is done
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
