"""Long work of the app (advisor, audit, mining) in a child process: progress, cancel.

A job's directory holds ``args.pkl``, ``progress`` (``done total``) and at the end
``result.pkl`` or ``error.txt``; the child runs :mod:`ppdm.app._worker`.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Job", "start_job"]


@dataclass
class Job:
    """A running or finished child process."""

    kind: str
    directory: Path
    process: subprocess.Popen
    cancelled: bool = False

    def progress(self) -> tuple[int, int]:
        """Cells done and their total (``(0, 0)`` when the job reports none)."""
        try:
            done, total = (self.directory / "progress").read_text().split()
            return int(done), int(total)
        except (OSError, ValueError):
            return 0, 0

    def running(self) -> bool:
        return self.process.poll() is None

    def cancel(self) -> None:
        """Stop the child now; its partial output is dropped."""
        self.cancelled = True
        if self.running():
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def outcome(self) -> tuple[Any, str | None]:
        """``(result, None)`` on success, ``(None, message)`` otherwise (finished jobs only)."""
        if self.cancelled:
            return None, f"{self.kind} cancelled"
        err = self.directory / "error.txt"
        if err.exists():
            return None, err.read_text(encoding="utf-8").strip() or f"{self.kind} failed"
        res = self.directory / "result.pkl"
        if res.exists():
            with res.open("rb") as fh:
                return pickle.load(fh), None
        return None, f"{self.kind} stopped without a result (exit code {self.process.returncode})"


def start_job(kind: str, workspace: Path, function: str, **kwargs) -> Job:
    """Run ``ppdm.app._worker.<function>(**kwargs)`` in a child process, in a fresh folder."""
    workspace.mkdir(parents=True, exist_ok=True)
    directory = Path(tempfile.mkdtemp(prefix=f"job-{kind}-", dir=workspace))
    with (directory / "args.pkl").open("wb") as fh:
        pickle.dump((function, kwargs), fh)
    process = subprocess.Popen(
        [sys.executable, "-m", "ppdm.app._worker", str(directory)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return Job(kind, directory, process)
