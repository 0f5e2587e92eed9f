"""``ppdm estimate --by-class --plot`` on releases of real and wide tables, beside its floor.

Usage::

    python benchmarks/estimate_plots.py                       # this code alone
    git worktree add /tmp/ppdm-prev <old commit>
    python benchmarks/estimate_plots.py --base /tmp/ppdm-prev/src --runs 3
    python benchmarks/estimate_plots.py --rows 0              # the bundled tables only
    python benchmarks/estimate_plots.py --rows 0 --base /tmp/ppdm-prev/src --per-figure

The drawing of ``estimate --plot`` grows with the panels (one per attribute, plus one
per attribute and class with ``--by-class``), not with the rows. The releases:

- the bundled ``pendigits`` (10,992 x 16, 10 classes: 176 panels) and ``spambase``
  (4,597 x 57, 2 classes: 171 panels), exported with ``ppdm datasets export``;
- a generated table of ``--rows`` rows x ``--attrs`` uniform attributes in [0, 100]
  with ``--classes`` classes (default 10 M x 20 x 10: 220 panels; ``--rows 0`` skips it).

Each release is made once by this code (owner bounds, seed 1). Then, in turn A B F A B
F ..., whole processes (interpreter start and imports included) are timed:

- A: this code, ``estimate REL --by-class --plot DIR``;
- B: the code under ``--base`` (if given), the same command;
- F, the floor: this code, ``estimate REL --by-class --json`` (counting and estimation,
  no tables and no drawing).

Prints, per release, the median wall seconds and CPU seconds (user + system of the
process and of every process it waited for: a drawing helper included) of each side, A
over B, the figures written, whether A's and B's PNGs are byte-identical, and the load
average before and after (the machine may be shared). With ``--per-figure``, also the
CPU milliseconds per figure of the drawing alone, in one process per side (estimates
made first, then the PNG files written as the command writes them, once to warm up and
once timed), medians of ``--runs``.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _table import loadavg  # noqa: E402

SRC = HERE.parent / "src"


def ppdm(src: Path, *args: str) -> list[str]:
    env = ["env", f"PYTHONPATH={src}"]
    return [*env, sys.executable, "-m", "ppdm", *args]


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one process (its waited-for children included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[3:7])} failed: {proc.stderr.strip()[-300:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


# drawing alone, in one process: the CPU milliseconds per figure (the whole-process
# figures above move with the machine's load more than a small change in drawing does)
DRAW_CPU = r"""
import sys, tempfile, time
from ppdm.figures.estimates import write_estimate_plots
from ppdm.pipeline import estimate_release

results = estimate_release(sys.argv[1], by_class=True)

def draw():  # what the command does after estimating: one PNG file per attribute
    with tempfile.TemporaryDirectory() as out:
        write_estimate_plots(results, out)

draw()  # fonts and caches warm
t = time.process_time()
draw()
print((time.process_time() - t) / len(results) * 1000)
"""


def draw_cpu(src: Path, rel: Path) -> float:
    """CPU milliseconds per figure of ``estimate --plot``'s drawing, code at ``src``."""
    out = subprocess.run(
        ["env", f"PYTHONPATH={src}", sys.executable, "-c", DRAW_CPU, str(rel)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return float(out.stdout.strip().splitlines()[-1])


def make_wide(path: Path, rows: int, attrs: int, classes: int) -> list[str]:
    """The generated table as Parquet; its owner bounds as ``--bounds`` flags."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(7)
    writer = None
    for start in range(0, rows, 1_000_000):
        n = min(1_000_000, rows - start)
        cols = {f"a{j}": rng.uniform(0, 100, n).round(2) for j in range(attrs)}
        cols["cls"] = rng.integers(0, classes, n)
        table = pa.table(cols)
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()
    return [w for j in range(attrs) for w in ("--bounds", f"a{j}=0:100")]


def releases(work: Path, args) -> list[tuple[str, Path]]:
    """Make (once) the release of every table; their names and directories."""
    made = []
    for name, klass in (("pendigits", "digit"), ("spambase", "spam")):
        table, rel = work / f"{name}.csv", work / f"rel-{name}"
        if not rel.exists():
            subprocess.run(ppdm(SRC, "datasets", "export", name, "--out", str(table)), check=True,
                           capture_output=True)  # fmt: skip
            import pandas as pd

            data = pd.read_csv(table)
            bounds = [
                w
                for c in data.columns
                if c != klass
                for w in ("--bounds", f"{c}={data[c].min()}:{data[c].max()}")
            ]
            subprocess.run(
                ppdm(SRC, "perturb", str(table), "--out", str(rel), "--class", klass, *bounds,
                     "--seed", "1"),
                check=True, capture_output=True,
            )  # fmt: skip
        made.append((name, rel))
    if args.rows > 0:
        name = f"generated {args.rows:,} x {args.attrs}, {args.classes} classes"
        table, rel = work / "wide.parquet", work / f"rel-wide-{args.rows}"
        if not rel.exists():
            bounds = make_wide(table, args.rows, args.attrs, args.classes)
            subprocess.run(
                ppdm(SRC, "perturb", str(table), "--out", str(rel), "--class", "cls", *bounds,
                     "--seed", "1"),
                check=True, capture_output=True,
            )  # fmt: skip
            table.unlink()
        made.append((name, rel))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="src/ of the code to compare")
    parser.add_argument("--rows", type=int, default=10_000_000, help="0: no generated table")
    parser.add_argument("--attrs", type=int, default=20)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3, help="turns of A (B) F per release")
    parser.add_argument("--workdir", type=Path, default=None, help="kept (and reused) if given")
    parser.add_argument(
        "--per-figure", action="store_true", help="also: CPU ms per figure, drawing alone"
    )
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="ppdm-estimate-plots-"))
    work.mkdir(parents=True, exist_ok=True)
    # every side starts from compiled bytecode, as an installed package does
    for src in (SRC, args.base) if args.base else (SRC,):
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True)
    print(f"A = {SRC}; B = {args.base}; cores {os.cpu_count()}; load average {loadavg()}")
    print(f"{'release':40s} {'side':6s} {'wall s':>7s} {'cpu s':>6s} {'A/B':>5s} {'figures':>7s}")
    try:
        for name, rel in releases(work, args):
            sides = {"A": SRC, "B": args.base} if args.base else {"A": SRC}
            walls: dict[str, list[float]] = {s: [] for s in [*sides, "F"]}
            cpus: dict[str, list[float]] = {s: [] for s in walls}
            for _ in range(args.runs):
                for side, src in sides.items():
                    out = work / f"plots-{side}"
                    shutil.rmtree(out, ignore_errors=True)  # older code has no --overwrite
                    w, c = timed(ppdm(src, "estimate", str(rel), "--by-class", "--plot", str(out)))
                    walls[side].append(w)
                    cpus[side].append(c)
                w, c = timed(ppdm(SRC, "estimate", str(rel), "--by-class", "--json"))
                walls["F"].append(w)
                cpus["F"].append(c)
            figures = len(list((work / "plots-A").glob("*.png")))
            for side in walls:
                ratio = ""
                if side == "A" and "B" in walls:
                    ratio = f"{statistics.median(walls['A']) / statistics.median(walls['B']):.2f}"
                print(
                    f"{name:40s} {side:6s} {statistics.median(walls[side]):7.2f} "
                    f"{statistics.median(cpus[side]):6.2f} {ratio:>5s} "
                    f"{figures if side != 'F' else '-':>7}",
                    flush=True,
                )
            if args.per_figure:
                ms: dict[str, list[float]] = {side: [] for side in sides}
                for _ in range(args.runs):
                    for side, src in sides.items():
                        ms[side].append(draw_cpu(src, rel))
                med = {side: statistics.median(v) for side, v in ms.items()}
                line = ", ".join(f"{side} {v:.0f}" for side, v in med.items())
                if "B" in med:
                    line += f" (A/B {med['A'] / med['B']:.2f})"
                print(f"{name:40s} drawing alone, CPU ms per figure: {line}", flush=True)
            if args.base:
                same = all(
                    filecmp.cmp(p, work / "plots-B" / p.name, shallow=False)
                    for p in (work / "plots-A").glob("*.png")
                )
                print(f"{name:40s} PNGs of A and B byte-identical: {'yes' if same else 'no'}")
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    print(f"load average at the end {loadavg()}")


if __name__ == "__main__":
    main()
