"""Sending a signal to a child process while it is known to be mid-work.

A signal sent after a poll saw the child at work can still arrive after the child has
finished its work: on a busy machine the child may already have published its output
and be ending (a process inside its final ``exit`` is not yet reaped, so ``poll`` says
it runs, yet no signal can reach its code any more). So the child is stopped first, and
only once the kernel reports it stopped is its work looked at: a stopped process neither
publishes nor ends, and a signal sent to it is delivered as it continues, before it runs
any more of its code.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path


def _state(pid: int) -> str | None:
    """The kernel's one-letter state of ``pid`` (Linux), or None where it cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def _wait_stopped(proc: subprocess.Popen, timeout: float = 30.0) -> bool:
    """True once ``proc`` is stopped; False if it ends (or is ending) instead."""
    if not sys.platform.startswith("linux"):
        time.sleep(0.05)
        return proc.poll() is None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = _state(proc.pid)
        if state in ("T", "t"):
            return True
        if state in (None, "Z", "X") or proc.poll() is not None:
            return False
        time.sleep(0.002)
    return False


def signal_mid_run(
    proc: subprocess.Popen, sig: int, working: Callable[[], bool] | None = None
) -> bool:
    """Deliver ``sig`` to ``proc`` while it works; False (and no signal) if it had finished.

    ``working`` tells, while the child is stopped, whether its work is still under way
    (its hidden output still there, say); without it, a child that is alive and stopped
    counts as working.
    """
    if proc.poll() is not None:
        return False
    proc.send_signal(signal.SIGSTOP)
    if not _wait_stopped(proc):  # finished, or in its final exit, before the stop
        proc.send_signal(signal.SIGCONT)
        return False
    if working is not None and not working():
        proc.send_signal(signal.SIGCONT)
        return False
    proc.send_signal(sig)
    proc.send_signal(signal.SIGCONT)
    return True
