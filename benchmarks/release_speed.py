"""``ppdm estimate --plot`` and ``ppdm reconstruct`` on a large release, this code beside another.

Usage::

    git worktree add /tmp/ppdm-base <old commit>
    python benchmarks/release_speed.py --base /tmp/ppdm-base/src              # 10 M rows
    python benchmarks/release_speed.py --base /tmp/ppdm-base/src --rows 1000000 --runs 2

Generates the table of ``benchmarks/perturb.py`` (six numeric columns, a binary class
``label``) as Parquet, and as CSV unless ``--formats parquet``; perturbs it once with
this code (owner bounds, seed 1, N = 20, gamma = 9); then times whole processes with
``farm-bench``, A = this code and B = the code under ``--base``, in turn A B A B:

- ``ppdm estimate RELEASE --by-class --plot DIR``;
- ``ppdm reconstruct RELEASE --out FILE --seed 2`` (global) and ``--by-class``.

Each command is ``env PYTHONPATH=<src> python -m ppdm ...``, so both sides start the
same interpreter with the same packages, from bytecode compiled first (``compileall``).
After the timings, one reconstruction of each side is compared byte for byte (``cmp``)
and by the counts of every attribute's codes: the same seed gives the same file when
both sides break ties alike, and the same counts (Algorithm 2's rounded estimate) in
any case.

farm-bench prints min / median / max of the wall, user and system seconds and peak
memory of each side and the per-pair ratios A/B; quote the medians beside the load
average (printed before and after), since the machine may be shared.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _table import BOUNDS, chunks, loadavg  # noqa: E402

SRC = HERE.parent / "src"


def make_table(path: Path, rows: int) -> None:
    """The table of ``benchmarks/perturb.py`` in row groups of 500,000 rows."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    writer = None
    for frame in chunks(rows):
        table = pa.Table.from_pandas(frame, preserve_index=False)
        if writer is None:
            writer = (
                pq.ParquetWriter(path, table.schema)
                if path.suffix == ".parquet"
                else pcsv.CSVWriter(path, table.schema)
            )
        writer.write_table(table)
    writer.close()


def ppdm(src: Path, *args: str) -> list[str]:
    return ["env", f"PYTHONPATH={src}", sys.executable, "-m", "ppdm", *args]


def shell(words: list[str]) -> str:
    return " ".join(shlex.quote(w) for w in words)


def bench(label: str, a: list[str], b: list[str], args, remove: tuple[Path, ...] = ()) -> None:
    """farm-bench A (this code) against B (the base); ``remove`` = (A's output, B's
    output, a file or a directory), deleted ahead of each run of that side."""
    if remove:
        a = ["sh", "-c", f"rm -rf {shlex.quote(str(remove[0]))}; exec {shell(a)}"]
        b = ["sh", "-c", f"rm -rf {shlex.quote(str(remove[1]))}; exec {shell(b)}"]
    cmd = ["farm-bench", "-n", str(args.runs), "--timeout", str(args.timeout)]
    cmd += ["--vs", shell(b), "--", *a]
    print(f"\n### {label}   (load average {loadavg()})", flush=True)
    subprocess.run(cmd, check=False)
    print(f"(load average after: {loadavg()})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="src/ of the code to compare")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=3, help="A B pairs per command")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per command")
    parser.add_argument("--formats", default="parquet,csv")
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="ppdm-release-speed-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"rows {args.rows:,}; A = {SRC}; B = {args.base.resolve()}; cores {os.cpu_count()}")
    # both sides start from compiled bytecode, as an installed package does (a checkout
    # run under PYTHONDONTWRITEBYTECODE would otherwise compile its sources every run)
    for src in (SRC, args.base):
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True)
    for fmt in [f for f in args.formats.split(",") if f]:
        table, rel = work / f"table.{fmt}", work / f"release-{fmt}"
        if not table.exists():
            make_table(table, args.rows)
        if not rel.exists():
            subprocess.run(
                ppdm(SRC, "perturb", str(table), "--out", str(rel), "--class", "label",
                     *BOUNDS, "--out-of-bounds", "clip", "--seed", "1"),
                check=True, capture_output=True,
            )  # fmt: skip
        size = (rel / f"data.{fmt}").stat().st_size / 2**20
        print(f"\n## {fmt}: release {rel} ({size:.0f} MB)")
        plots = {side: work / f"plots-{fmt}-{side}" for side in "AB"}
        bench(
            f"{fmt}: estimate --by-class --plot",
            ppdm(SRC, "estimate", str(rel), "--by-class", "--plot", str(plots["A"])),
            ppdm(args.base, "estimate", str(rel), "--by-class", "--plot", str(plots["B"])),
            args,
            remove=(plots["A"], plots["B"]),  # older code has no --overwrite
        )  # fmt: skip
        for how in ([], ["--by-class"]):
            outs = {
                side: work / f"rec-{fmt}{'-class' if how else ''}-{side}.{fmt}" for side in "AB"
            }
            bench(
                f"{fmt}: reconstruct --seed 2 {' '.join(how)}",
                ppdm(SRC, "reconstruct", str(rel), "--out", str(outs["A"]), "--seed", "2", *how),
                ppdm(args.base, "reconstruct", str(rel), "--out", str(outs["B"]), "--seed", "2",
                     *how),
                args,
                remove=(outs["A"], outs["B"]),
            )  # fmt: skip
            same = filecmp.cmp(outs["A"], outs["B"], shallow=False)
            print(f"reconstructions byte-identical (A vs B): {'yes' if same else 'no'}")
            print(f"reconstructed counts identical (A vs B): {_same_counts(rel, *outs.values())}")
    print(f"\nworkdir {work}; load average at the end {loadavg()}")


def _same_counts(release: Path, a: Path, b: Path) -> str:
    """Whether two reconstructions hold every code of every perturbed attribute the same
    number of times (Algorithm 2's counts) and the same other columns: what must agree
    when only the tie breaking changed (row-addressed keys since 1fd269e), as the bytes
    then do not (nor the spelling of a representative: older code wrote
    ``23.474999999999998`` where this code writes ``23.475``)."""
    import numpy as np

    from ppdm.io import read_table
    from ppdm.pipeline import load_release

    spec = load_release(release).spec
    x, y = read_table(a), read_table(b)
    if list(x.columns) != list(y.columns) or len(x) != len(y):
        return "no (columns or rows differ)"
    perturbed = {at.name: at.get_domain() for at in spec.perturbed_attributes()}
    for column in x.columns:
        if column in perturbed:
            d = perturbed[column]
            same = np.array_equal(
                np.bincount(d.encode(x[column]), minlength=d.n_values),
                np.bincount(d.encode(y[column]), minlength=d.n_values),
            )
        else:
            same = x[column].equals(y[column])
        if not same:
            return f"no (column {column!r})"
    return "yes"


if __name__ == "__main__":
    main()
