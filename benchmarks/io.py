"""End to end at the speed of the file formats: ppdm vs a pure pyarrow round trip.

Usage::

    python benchmarks/io.py                  # 4 M rows (about 104 MB of CSV)
    python benchmarks/io.py --rows 200000    # a smoke run
    python benchmarks/io.py --rows 4000000 --repeat 3
    python benchmarks/io.py --formats parquet --partitions 8   # + the partitioned engine

Generates one table (six numeric columns: the table of ``benchmarks/perturb.py``) as CSV
and as Parquet (row groups of 500,000 rows), then times, each as a whole process
(interpreter start and imports included), in turn A B A B ...:

- the yardstick: a pyarrow round trip of the same file (CSV: the streaming reader into
  ``CSVWriter``; Parquet: row group by row group into a ``ParquetWriter``);
- ``ppdm perturb`` (owner bounds, seed fixed), ``ppdm estimate``, ``ppdm estimate
  --by-class --plot`` and ``ppdm reconstruct`` of the release, in the input's format.

With ``--partitions P`` the Parquet table is also split in P files and perturbed by the
local partitioned engine, beside ``make_release`` on the single file (in-process calls,
interpreter start included in both).

Prints the median wall seconds, the ratio to the round trip (median of the per-pair
ratios), rows/s and the peak RSS of each, the median CPU seconds (user + system, threads
included) and their ratio to the round trip's, and the load average before and after:
the machine may be shared, so read the figures beside it (CPU seconds move less with
the load than wall seconds).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import BOUNDS, chunks, loadavg  # noqa: E402

ROUND_TRIP = r"""
import sys
import pyarrow.csv as pcsv
import pyarrow.parquet as pq

src, dst = sys.argv[1], sys.argv[2]
if src.endswith(".csv"):
    reader = pcsv.open_csv(src)
    with pcsv.CSVWriter(dst, reader.schema) as writer:
        for batch in reader:
            writer.write_batch(batch)
else:
    pf = pq.ParquetFile(src)
    with pq.ParquetWriter(dst, pf.schema_arrow) as writer:
        for group in range(pf.metadata.num_row_groups):
            writer.write_table(pf.read_row_group(group))
"""

PARTITIONED = r"""
import sys, warnings
warnings.simplefilter("ignore")
from ppdm.engine import make_release_partitioned
from ppdm.pipeline import make_release

how, src, out = sys.argv[1:4]
opts = dict(class_attribute="label", out_of_bounds="clip", random_state=1, overwrite=True,
            bounds={"age": (18, 91), "income": (0, 2e6), "score": (0, 1200),
                    "region": (0, 12), "visits": (0, 40)})
if how == "partitioned":
    make_release_partitioned(src, out, engine="local", **opts)
else:
    make_release(src, out, **opts)
"""


def make_tables(directory: Path, rows: int) -> tuple[Path, Path]:
    """The benchmark table as CSV and Parquet (row groups of 500,000 rows)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    csv, parquet = directory / "table.csv", directory / "table.parquet"
    pw = None
    with open(csv, "wb") as fh:
        for i, frame in enumerate(chunks(rows)):
            table = pa.Table.from_pandas(frame, preserve_index=False)
            frame.to_csv(fh, header=i == 0, index=False)
            if pw is None:
                pw = pq.ParquetWriter(parquet, table.schema)
            pw.write_table(table)
    pw.close()
    return csv, parquet


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(cmd: list[str], cpu: list[float] | None = None) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB, sampled every 20 ms) of one process; its CPU
    seconds (user + system, its threads included) are appended to ``cpu``."""
    import psutil

    before = _children_cpu()
    t = time.perf_counter()
    proc = psutil.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while proc.poll() is None:
        try:
            rss = proc.memory_info().rss
            for child in proc.children(recursive=True):
                rss = max(rss, child.memory_info().rss)
            peak = max(peak, rss)
        except psutil.NoSuchProcess:
            pass
        time.sleep(0.02)
    elapsed = time.perf_counter() - t
    if cpu is not None:
        cpu.append(_children_cpu() - before)
    if proc.returncode != 0:
        err = proc.stderr.read().decode(errors="replace").strip().splitlines()
        raise RuntimeError(f"{cmd[:4]} failed: {err[-1] if err else proc.returncode}")
    return elapsed, peak / 2**20


def ppdm(*args: str) -> list[str]:
    return [sys.executable, "-m", "ppdm", *args]


def partitioned(tmp: Path, parquet: Path, args) -> None:
    """``make_release_partitioned(engine="local")`` on the table split in files, in turn
    with ``make_release`` on the single Parquet file."""
    import pyarrow.parquet as pq

    parts = tmp / "parts"
    parts.mkdir()
    table = pq.read_table(parquet)
    step = -(-table.num_rows // args.partitions)
    for i in range(args.partitions):
        pq.write_table(table.slice(i * step, step), parts / f"part-{i:05d}.parquet")
    del table
    a_cmd = [sys.executable, "-c", PARTITIONED, "partitioned", str(parts), str(tmp / "rel-p")]
    b_cmd = [sys.executable, "-c", PARTITIONED, "single", str(parquet), str(tmp / "rel-s")]
    times, singles, ratios, peaks = [], [], [], []
    for _ in range(args.repeat):
        a, peak = run(a_cmd)
        b, _ = run(b_cmd)
        times.append(a)
        singles.append(b)
        ratios.append(a / b)
        peaks.append(peak)
    t = statistics.median(times)
    print(
        f"parquet  perturb, {args.partitions} partitions, local engine: {t:.2f} s, "
        f"{statistics.median(ratios):.2f} x single-stream make_release "
        f"({statistics.median(singles):.2f} s), {args.rows / t:,.0f} rows/s, "
        f"peak {max(peaks):.0f} MB; load {loadavg()}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=4_000_000)
    parser.add_argument("--repeat", type=int, default=1, help="A B pairs per command")
    parser.add_argument("--formats", default="csv,parquet")
    parser.add_argument(
        "--partitions",
        type=int,
        default=0,
        help="also perturb the Parquet table split in this many files with the local "
        "partitioned engine, beside make_release on the single file",
    )
    args = parser.parse_args()
    from importlib.util import find_spec

    # ppdm starts from compiled bytecode, as an installed package does (a checkout run
    # under PYTHONDONTWRITEBYTECODE would otherwise compile its sources every run)
    package = Path(find_spec("ppdm").origin).parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)
    tmp = Path(tempfile.mkdtemp(prefix="ppdm-io-bench-"))
    try:
        csv, parquet = make_tables(tmp, args.rows)
        print(f"rows: {args.rows:,}; CSV {csv.stat().st_size / 2**20:.0f} MB, "
              f"Parquet {parquet.stat().st_size / 2**20:.0f} MB; load average {loadavg()}")  # fmt: skip
        print(f"{'format':8s} {'command':34s} {'median s':>9s} {'x trip':>7s} "
              f"{'rows/s':>12s} {'peak MB':>8s} {'trip s':>7s} {'cpu s':>6s} "
              f"{'x cpu':>6s} {'load':>16s}")  # fmt: skip
        for fmt in [f for f in args.formats.split(",") if f]:
            src = csv if fmt == "csv" else parquet
            rel = tmp / f"release-{fmt}"
            trip = [sys.executable, "-c", ROUND_TRIP, str(src), str(tmp / f"trip.{fmt}")]
            commands = [
                (
                    "perturb",
                    ppdm("perturb", str(src), "--out", str(rel), "--class", "label",
                         *BOUNDS, "--out-of-bounds", "clip", "--seed", "1", "--overwrite"),
                ),
                ("estimate", ppdm("estimate", str(rel))),
                (
                    "estimate --by-class --plot",
                    ppdm("estimate", str(rel), "--by-class", "--plot", str(tmp / "plots"),
                         "--overwrite"),
                ),
                (
                    "reconstruct",
                    ppdm("reconstruct", str(rel), "--out", str(tmp / f"rec.{fmt}"),
                         "--seed", "2"),
                ),
            ]  # fmt: skip
            for label, cmd in commands:
                times, trips, ratios, peaks, cpu, trip_cpu = [], [], [], [], [], []
                for _ in range(args.repeat):
                    if label == "reconstruct":
                        (tmp / f"rec.{fmt}").unlink(missing_ok=True)
                    a, peak = run(cmd, cpu)
                    b, _ = run(trip, trip_cpu)
                    times.append(a)
                    trips.append(b)
                    ratios.append(a / b)
                    peaks.append(peak)
                t = statistics.median(times)
                cpu_ratio = statistics.median(x / y for x, y in zip(cpu, trip_cpu))
                print(
                    f"{fmt:8s} {label:34s} {t:9.2f} {statistics.median(ratios):7.2f} "
                    f"{args.rows / t:12,.0f} {max(peaks):8.0f} {statistics.median(trips):7.2f} "
                    f"{statistics.median(cpu):6.2f} {cpu_ratio:6.2f} {loadavg():>16s}",
                    flush=True,
                )
        if args.partitions:
            partitioned(tmp, parquet, args)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"cores: {os.cpu_count()}; load average at the end {loadavg()}")


if __name__ == "__main__":
    main()
