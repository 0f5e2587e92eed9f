"""Dask scale-out: perturb, estimate and reconstruct a partitioned table, local vs Dask.

Generates ``--rows`` x ``--attrs`` continuous attributes (plus a binary class) as
partitioned Parquet, then times, for each engine, the three file-level workflows of
:mod:`ppdm.engine` and reports throughput (rows per second), the CPU seconds of every
process of the run over its wall seconds (the cores it kept busy) and the peak resident
memory of every process (the local process, or each Dask worker). Each engine runs
in a fresh subprocess so peaks are not mixed up. Checks that the engines wrote
identical bytes, and prints Dask's speed-up over each local run.

Engines: ``local`` (one process, reading ahead on a second thread), ``local-1core``
(the same process held to one core with ``sched_setaffinity``: the one-core baseline a
scale-out is measured from) and ``dask`` (a LocalCluster of ``--workers`` workers, one
thread each).

Usage::

    python benchmarks/dask_scale.py --rows 100_000_000 --workers 2 --workdir /tmp/ppdm-scale

Needs ``pip install 'ppdm[dask,bench]'`` (psutil for the machine description).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _make_partition(args: tuple[int, int, int, str]) -> int:
    i, rows, attrs, directory = args
    rng = np.random.default_rng([2024, i])
    frame = pd.DataFrame({f"x{j}": rng.normal(50.0, 15.0, rows).clip(0, 100) for j in range(attrs)})
    frame["label"] = np.where(frame["x0"] + rng.normal(0, 10, rows) > 50, "yes", "no")
    frame.to_parquet(Path(directory) / f"in-{i:05d}.parquet", index=False)
    return rows


def generate(directory: Path, rows: int, attrs: int, part_rows: int, workers: int) -> None:
    from ppdm.engine import map_cells

    directory.mkdir(parents=True, exist_ok=True)
    sizes = [min(part_rows, rows - s) for s in range(0, rows, part_rows)]
    cells = [(i, n, attrs, str(directory)) for i, n in enumerate(sizes)]
    map_cells(_make_partition, cells, engine="local", jobs=workers)


def run_engine(engine: str, source: Path, work: Path, attrs: int, workers: int) -> dict:
    import psutil

    from ppdm.engine import (
        client,
        estimate_release_partitioned,
        make_release_partitioned,
        reconstruct_release_partitioned,
    )

    warnings.simplefilter("ignore")
    if engine == "local-1core":
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    c = client(n_workers=workers) if engine == "dask" else None
    kind = "dask" if engine == "dask" else "local"
    me = psutil.Process()

    def cpu_seconds() -> float:
        total = sum(me.cpu_times()[:2])
        for child in me.children(recursive=True):  # the cluster's nannies and workers
            try:
                total += sum(child.cpu_times()[:2])
            except psutil.Error:
                pass
        return total

    bounds = {f"x{j}": (0.0, 100.0) for j in range(attrs)}
    times, cores = {}, {}
    t, cpu = time.perf_counter(), cpu_seconds()
    spec = make_release_partitioned(
        source,
        work / f"rel-{engine}",
        engine=kind,
        scheduler=c,
        class_attribute="label",
        bounds=bounds,
        n_bins=20,
        random_state=1,
        overwrite=True,  # the run's own directory (a --keep run leaves it behind)
    )
    times["perturb"] = time.perf_counter() - t
    cores["perturb"] = (cpu_seconds() - cpu) / times["perturb"]
    t, cpu = time.perf_counter(), cpu_seconds()
    estimate_release_partitioned(work / f"rel-{engine}", by_class=True, engine=kind, scheduler=c)
    times["estimate"] = time.perf_counter() - t
    cores["estimate"] = (cpu_seconds() - cpu) / times["estimate"]
    t, cpu = time.perf_counter(), cpu_seconds()
    reconstruct_release_partitioned(
        work / f"rel-{engine}",
        work / f"rec-{engine}",
        by_class=True,
        random_state=2,
        engine=kind,
        scheduler=c,
        overwrite=True,
    )
    times["reconstruct"] = time.perf_counter() - t
    cores["reconstruct"] = (cpu_seconds() - cpu) / times["reconstruct"]
    peaks = {"client": _peak_rss_mib()}
    if c is not None:
        worker_peaks = c.run(_peak_rss_mib)
        peaks.update({f"worker {i}": v for i, v in enumerate(worker_peaks.values())})
        c.close()
    return {
        "engine": engine,
        "rows": spec.n_records,
        "seconds": times,
        "cores": cores,
        "peak_rss_mib": peaks,
    }


def _digest(directory: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(directory.rglob("*.parquet")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000_000)
    ap.add_argument("--attrs", type=int, default=5)
    ap.add_argument("--partition-rows", type=int, default=2_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/ppdm-dask-scale"))
    ap.add_argument(
        "--engines", default="local,local-1core,dask", help="comma-separated, in run order"
    )
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    ap.add_argument("--run-engine", help=argparse.SUPPRESS)
    args = ap.parse_args()

    source = args.workdir / "input"
    if args.run_engine:  # child process: one engine, JSON on stdout
        res = run_engine(args.run_engine, source, args.workdir, args.attrs, args.workers)
        print(json.dumps(res))
        return

    import psutil

    t = time.perf_counter()
    if source.exists():
        shutil.rmtree(source)
    generate(source, args.rows, args.attrs, args.partition_rows, args.workers)
    gen_s = time.perf_counter() - t
    n_parts = len(list(source.glob("*.parquet")))
    print(
        f"# {args.rows:,} rows x {args.attrs} attributes (+ class) in {n_parts} partitions, "
        f"generated in {gen_s:.1f} s",
        flush=True,
    )
    print(
        f"# machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"{psutil.virtual_memory().total / 2**30:.0f} GiB RAM, Python {platform.python_version()}",
        flush=True,
    )
    results = []
    for engine in args.engines.split(","):
        cmd = [sys.executable, __file__, "--run-engine", engine]
        cmd += ["--workdir", str(args.workdir), "--attrs", str(args.attrs)]
        cmd += ["--workers", str(args.workers)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"engine {engine} failed: {proc.stderr.strip().splitlines()[-1:]}")
        out = proc.stdout
        res = json.loads(out.strip().splitlines()[-1])
        results.append(res)
        print(f"## engine {engine}", flush=True)
        for phase, s in res["seconds"].items():
            print(
                f"{phase:12s} {s:8.1f} s  {res['rows'] / s / 1e6:7.2f} M rows/s  "
                f"{res['cores'][phase]:4.2f} cores",
                flush=True,
            )
        for who, mib in res["peak_rss_mib"].items():
            print(f"peak RSS {who:10s} {mib:8.0f} MiB", flush=True)
    engines = [r["engine"] for r in results]
    if len(engines) > 1:
        same = all(
            len({_digest(args.workdir / f"{kind}-{e}") for e in engines}) == 1
            for kind in ("rel", "rec")
        )
        print(f"# identical release and reconstruction bytes ({', '.join(engines)}): {same}")
    by_engine = {r["engine"]: r["seconds"] for r in results}
    for base in ("local", "local-1core"):
        if "dask" in by_engine and base in by_engine:
            ratios = ", ".join(
                f"{phase} {s / by_engine['dask'][phase]:.2f}x"
                for phase, s in by_engine[base].items()
            )
            print(f"# Dask ({args.workers} workers) over {base}: {ratios}", flush=True)
    print(json.dumps(results), flush=True)
    if not args.keep:
        shutil.rmtree(args.workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
