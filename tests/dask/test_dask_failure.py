"""Killing a worker process mid-run: the run completes, or fails clearly with no output."""

from __future__ import annotations

import os
import signal
import threading
import time

import pandas as pd
import pytest

from ppdm.engine import EngineError, make_release_partitioned, perturb_partitions

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

N_PARTS = 6


def _slow_source(frames: list[pd.DataFrame], seconds: float):
    """A Dask DataFrame whose partitions take ``seconds`` to load (so tasks are mid-run)."""

    def load(i):
        time.sleep(seconds)
        return frames[i]

    return dd.from_map(load, list(range(len(frames))), meta=frames[0].iloc[:0])


def _kill_a_busy_worker(client, done: threading.Event) -> list[int]:
    """SIGKILL the process of the first worker seen running a task; return its pid."""
    pids = client.run(os.getpid)
    killed = []
    deadline = time.monotonic() + 30
    while not done.is_set() and time.monotonic() < deadline:
        busy = [w for w, keys in client.processing().items() if keys]
        if busy:
            time.sleep(0.2)  # let the task start
            os.kill(pids[busy[0]], signal.SIGKILL)
            killed.append(pids[busy[0]])
            break
        time.sleep(0.05)
    return killed


def _run_with_kill(client, frames, out):
    done = threading.Event()
    result: dict = {}

    def run():
        try:
            result["spec"] = make_release_partitioned(
                _slow_source(frames, 0.6),
                out,
                engine="dask",
                scheduler=client,
                class_attribute="label",
                random_state=4,
            )
        except Exception as exc:  # the test inspects what came back
            result["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=run)
    worker.start()
    killed = _kill_a_busy_worker(client, done)
    worker.join(120)
    assert not worker.is_alive(), "the run hung after a worker was killed"
    assert killed, "no worker was busy: the test did not kill anything"
    return result


def _new_cluster():
    return distributed.Client(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )


def test_killed_worker_run_completes_with_identical_output(tmp_path, table, splitter):
    frames = splitter(table, N_PARTS)
    with _new_cluster() as client:
        result = _run_with_kill(client, frames, tmp_path / "rel")
    assert "error" not in result, result.get("error")
    # tasks re-run elsewhere draw the same streams: same bytes as the local engine
    spec = result["spec"]
    got = pd.read_parquet(tmp_path / "rel" / "data")
    local = pd.concat(perturb_partitions(frames, spec, random_state=4), ignore_index=True)
    pd.testing.assert_frame_equal(got, local, check_dtype=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rel"]


def test_killed_worker_without_retries_fails_clearly_and_writes_nothing(tmp_path, table, splitter):
    frames = splitter(table, N_PARTS)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with _new_cluster() as client:
            result = _run_with_kill(client, frames, tmp_path / "rel")
    err = result.get("error")
    assert isinstance(err, EngineError), err
    assert "the Dask cluster failed while" in str(err)
    assert "No output was written" in str(err)
    assert not (tmp_path / "rel").exists()
    assert list(tmp_path.iterdir()) == []  # no staging directory left behind
