"""Sending a signal to a child process while it is known to be running.

A signal sent after a poll saw the child at work can still arrive after the child has
finished, on a machine fast or busy enough. Stopping the child first closes that gap:
a stopped process stays alive (``waitpid`` without ``WUNTRACED`` does not report it), and
a signal sent to it is delivered as it continues, before it runs any more of its code.
"""

from __future__ import annotations

import signal
import subprocess


def signal_mid_run(proc: subprocess.Popen, sig: int) -> bool:
    """Deliver ``sig`` to ``proc`` while it runs; False if it had already finished."""
    if proc.poll() is not None:
        return False
    proc.send_signal(signal.SIGSTOP)
    if proc.poll() is not None:  # finished between the poll and the stop
        return False
    proc.send_signal(sig)
    proc.send_signal(signal.SIGCONT)
    return True
