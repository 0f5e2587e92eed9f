"""One writer per output, in real processes: a run that finds its output claimed by
another ppdm process is refused with one line (exit 1), and the other's output is never
replaced without ``--overwrite``.

The claim is held here by the test process itself (the lock ppdm takes), or by a real
run stopped while it holds it, so no case depends on how long a run takes.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fuzzkit import FAILURE, USAGE, Snapshot, assert_refused, digest, fuzz_class, leftovers
from test_fuzz_paths import EXT, WRITERS, _args, _writer_inputs
from test_fuzz_processes import _popen, _run, big_table  # noqa: F401 (a fixture)


def _claim_file(out: Path) -> Path:
    return out.parent / f".{out.name}.ppdm-claim"


@contextmanager
def _held(out: Path):
    """Hold ``out``'s claim as a ppdm process does; give it up as one does."""
    lock = _claim_file(out)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        lock.unlink(missing_ok=True)
        os.close(fd)


def _assert_taken(result, out: Path, flag: str, pid: int | None, before) -> None:
    """Refused as an output another run holds (exit 1, one line); ``out`` as it was."""
    line = assert_refused(result, Snapshot(), FAILURE)
    assert f"{flag} {str(out)!r}" in line and "another ppdm process" in line, line
    if pid is not None:
        assert f"(pid {pid})" in line, line
    assert digest(out) == before, f"{out} was written by a refused run"


#: Writers whose output is tried under a held claim: the command table of the output-path
#: cases, and the outputs it has no row for.
CLAIMED = {
    "perturb": "--out",
    "reconstruct": "--out",
    "estimate-plot": "--plot",
    "tree-train": "--out",
    "bn-randomize": "--out",
    "advise": "--out",
    "advise-spec": "--spec-out",
    "report-html": "--html",
}
EXTRA = {
    "advise-spec": (
        "table",
        "advise {in} --class y --gamma 9 --ns 5 --reps 1 --no-progress --out {aux} --spec-out {o}",
        "file",
    ),  # fmt: skip
    "report-html": ("release", "report {in} --html {o}", "file"),
}
SUFFIX = {**EXT, "advise-spec": ".json", "report-html": ".html"}


@fuzz_class("concurrent reruns")
@pytest.mark.parametrize("cmd", list(CLAIMED))
def test_a_claimed_output_is_refused_even_with_overwrite(request, tmp_path, monkeypatch, cmd):
    """The output is claimed by another process: --overwrite or not, the run is refused
    (exit 1, naming the flag, the output and the holder's pid) and the output is as it
    was; once the claim is given up, a run without --overwrite is refused because the
    output exists."""
    for name, row in EXTRA.items():
        monkeypatch.setitem(WRITERS, name, row)
    values = _writer_inputs(request, tmp_path, cmd)
    if cmd == "advise-spec":  # a class the advisor can learn, so that it writes a spec
        x = np.random.default_rng(0).integers(0, 5, 400)
        values["in"] = tmp_path / "learnable.csv"
        pd.DataFrame({"x": x, "y": np.where(x >= 2, "yes", "no")}).to_csv(values["in"], index=False)
    out = tmp_path / f"out{SUFFIX.get(cmd, '')}"
    runs = iter(range(4))

    def args():  # advise --spec-out: each run's advice in a new --out
        return _args(cmd, {**values, "aux": tmp_path / f"advice{next(runs)}"}, out)

    code, _, err = _run(*args())
    assert code == 0 and out.exists(), err[-500:]
    before = digest(out)
    with _held(out):
        _assert_taken(_run(*args(), "--overwrite"), out, CLAIMED[cmd], os.getpid(), before)
        _assert_taken(_run(*args()), out, CLAIMED[cmd], os.getpid(), before)
    assert leftovers(out) == []
    snap = Snapshot(inputs=[v for k, v in values.items() if k not in ("in", "aux")],
                    outputs=[out])  # fmt: skip
    assert_refused(_run(*args()), snap, USAGE)


@fuzz_class("concurrent reruns")
def test_a_claimed_release_is_refused_by_the_library(tmp_path):
    """make_release in another process: the same refusal, as OutputTakenError."""
    (tmp_path / "t.csv").write_text("x,y\n1,a\n2,b\n3,a\n")
    out = tmp_path / "rel"
    code = (
        "from ppdm.pipeline import make_release\n"
        f"make_release({str(tmp_path / 't.csv')!r}, {str(out)!r}, overwrite=True)\n"
    )
    with _held(out):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ppdm.exceptions.OutputTakenError: out_dir")  # its parameter
    assert f"another ppdm process (pid {os.getpid()})" in last
    assert not out.exists() and leftovers(out) == []


def _wait(predicate, proc: subprocess.Popen, timeout: float = 120) -> bool:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if predicate():
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.01)
    return False


@fuzz_class("concurrent reruns")
@pytest.mark.parametrize("overwrite", [(), ("--overwrite",)], ids=["new", "overwrite"])
def test_two_perturb_runs_one_stopped_holding_the_claim(tmp_path, big_table, overwrite):  # noqa: F811
    """Two real perturb runs into one --out: the first is stopped (SIGSTOP) once it holds
    the claim, the second runs meanwhile. Exactly one publishes (exit 0), the other is
    refused (exit 1) naming the first's pid, and the release is the first's, whole."""
    from ppdm.pipeline import load_release, verify_release

    out = tmp_path / "rel"
    common = ("--class", "y", "--bounds", "x=0:10", "--batch-size", "2000", *overwrite)
    first = _popen("perturb", big_table, "--out", out, *common, "--gamma", "5")

    def holds() -> bool:  # its pid is written once it holds the lock (the file comes first)
        try:
            return _claim_file(out).read_text().strip() == str(first.pid)
        except OSError:
            return False

    try:
        assert _wait(holds, first), first.communicate()[1][-500:]
        first.send_signal(signal.SIGSTOP)
        assert _claim_file(out).exists(), "the first run let go before it was stopped"
        second = _run("perturb", big_table, "--out", out, *common, "--gamma", "19")
        _assert_taken(second, out, "--out", first.pid, None)  # nothing published yet
    finally:
        first.send_signal(signal.SIGCONT)
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err[-500:]
    rel = load_release(out)
    assert verify_release(out) == rel.spec.n_records
    assert {a.privacy["gamma"] for a in rel.spec.perturbed_attributes()} == {5.0}
    assert leftovers(out) == []
