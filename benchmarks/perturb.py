"""Perturbation throughput: ppdm vs pure-LDP and multi-freq-ldpy, and end to end on files.

Usage::

    python benchmarks/perturb.py            # full run (n = 1e6 and 1e7, 1 GB files)
    python benchmarks/perturb.py --quick    # small sizes, for a smoke run

Prints one table per part. Peers are the `bench` extra (`pip install -e .[bench]`).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _timing import best_seconds

K = 100
EPSILON = float(np.log(9.0))  # gamma = 9: the same channel in every library


def ppdm_rates(n: int) -> list[tuple[str, float]]:
    from randomgen import AESCounter

    from ppdm.matrix import ExplicitMatrix, GammaDiagonal

    codes = np.random.default_rng(0).integers(0, K, n).astype(np.int32)
    m = GammaDiagonal(K, 9.0)
    general = ExplicitMatrix(m.dense())
    out = []
    for label, gen in (
        ("AES-counter (release default)", np.random.Generator(AESCounter(1))),
        ("PCG64 (seeded experiments)", np.random.default_rng(1)),
    ):
        t = best_seconds(lambda g=gen: m.draw(codes, g))
        out.append((f"ppdm gamma-diagonal, {label}", n / t))
    gen = np.random.default_rng(1)
    t = best_seconds(lambda: general.draw(codes, gen))
    out.append(("ppdm general matrix (alias method), PCG64", n / t))
    t = best_seconds(lambda: np.copy(codes))
    out.append(("np.copy of the same int32 array", n / t))
    return out


def peer_rates(n: int) -> list[tuple[str, float]]:
    out = []
    values = np.random.default_rng(0).integers(0, K, n)
    try:
        from pure_ldp.frequency_oracles.direct_encoding import DEClient

        client = DEClient(epsilon=EPSILON, d=K)
        t = best_seconds(lambda: [client.privatise(int(v) + 1) for v in values], repeat=1)
        out.append(("pure-LDP DEClient.privatise (per value)", n / t))
    except ImportError:
        out.append(("pure-LDP (not installed: pip install -e .[bench])", float("nan")))
    try:
        from multi_freq_ldpy.pure_frequency_oracles.GRR import GRR_Client

        t = best_seconds(lambda: [GRR_Client(int(v), K, EPSILON) for v in values], repeat=1)
        out.append(("multi-freq-ldpy GRR_Client (per value)", n / t))
    except ImportError:
        out.append(("multi-freq-ldpy (not installed: pip install -e .[bench])", float("nan")))
    return out


def make_file(path: Path, target_bytes: int) -> int:
    """Write a CSV or Parquet table of about ``target_bytes``; return its row count."""

    rng = np.random.default_rng(0)
    chunk = 500_000
    rows = 0
    if path.suffix == ".csv":
        with open(path, "w") as fh:
            first = True
            while fh.tell() < target_bytes:
                df = _chunk(rng, chunk)
                df.to_csv(fh, header=first, index=False)
                first = False
                rows += chunk
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        writer = None
        try:
            while writer is None or path.stat().st_size < target_bytes:
                table = pa.Table.from_pandas(_chunk(rng, chunk), preserve_index=False)
                if writer is None:
                    writer = pq.ParquetWriter(path, table.schema)
                writer.write_table(table)  # each call flushes one row group
                rows += chunk
        finally:
            if writer is not None:
                writer.close()
    return rows


def _chunk(rng, n):
    import pandas as pd

    return pd.DataFrame(
        {
            "age": rng.integers(18, 91, n),
            "income": np.round(rng.lognormal(10.5, 0.6, n), 2),
            "score": np.round(rng.normal(600, 80, n), 3),
            "region": rng.integers(0, 12, n),
            "visits": rng.poisson(4.0, n),
            "label": rng.integers(0, 2, n),
        }
    )


def end_to_end(path: Path, rows: int) -> tuple[float, float]:
    """Run ``ppdm perturb`` on ``path`` in a subprocess; return (rows/s, peak RSS MB)."""
    import psutil

    out = Path(tempfile.mkdtemp(prefix="ppdm-bench-")) / "release"
    cmd = [
        sys.executable,
        "-m",
        "ppdm",
        "perturb",
        str(path),
        "--out",
        str(out),
        "--class",
        "label",
        "--bins",
        "20",
        "--bounds",
        "age=18:91",
        "--bounds",
        "income=0:2000000",
        "--bounds",
        "score=0:1200",
        "--bounds",
        "region=0:12",
        "--bounds",
        "visits=0:40",
        "--out-of-bounds",
        "clip",
    ]
    t = time.perf_counter()
    proc = psutil.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        try:
            peak = max(peak, proc.memory_info().rss)
        except psutil.NoSuchProcess:
            break
        time.sleep(0.05)
    elapsed = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"ppdm perturb failed on {path}")
    return rows / elapsed, peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke run)")
    parser.add_argument("--no-files", action="store_true", help="skip the 1 GB end-to-end runs")
    args = parser.parse_args()
    sizes = [100_000] if args.quick else [1_000_000, 10_000_000]
    peer_n = 20_000 if args.quick else 200_000
    file_bytes = 20 * 2**20 if args.quick else 2**30
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}"
    )
    print(f"channel: gamma-diagonal / GRR, k = {K}, gamma = 9 (epsilon = {EPSILON:.3f})\n")
    print(f"{'method':58s} {'n':>10s} {'values/s':>14s}")
    fastest_peer = 0.0
    for label, rate in peer_rates(peer_n):
        print(f"{label:58s} {peer_n:>10d} {rate:>14,.0f}")
        if np.isfinite(rate):
            fastest_peer = max(fastest_peer, rate)
    for n in sizes:
        for label, rate in ppdm_rates(n):
            extra = ""
            if label.startswith("ppdm gamma-diagonal, PCG") and fastest_peer:
                extra = f"  ({rate / fastest_peer:,.0f}x the fastest peer)"
            print(f"{label:58s} {n:>10d} {rate:>14,.0f}{extra}")
    if args.no_files:
        return
    print("\nend to end (`ppdm perturb`, 6 columns, 5 perturbed, bounds given):")
    with tempfile.TemporaryDirectory(prefix="ppdm-bench-") as tmp:
        for ext in ("csv", "parquet"):
            path = Path(tmp) / f"table.{ext}"
            rows = make_file(path, file_bytes)
            rate, peak = end_to_end(path, rows)
            size = path.stat().st_size / 2**20
            print(
                f"  {ext:8s} {size:8.0f} MB {rows:>11,d} rows  {rate:>12,.0f} rows/s  peak RSS {peak:6.0f} MB"
            )


if __name__ == "__main__":
    main()
