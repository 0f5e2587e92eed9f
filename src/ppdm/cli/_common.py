"""Shared helpers of the command line: error reporting and atomic writes."""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer

from ..exceptions import PpdmError, PrivacyWarning
from ..io import atomic_path

__all__ = ["run_app", "fail", "atomic_path", "atomic_dir"]


def fail(message: str, code: int = 2) -> None:
    """Print ``error: message`` on stderr and exit with ``code``."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    label = "privacy warning" if issubclass(category, PrivacyWarning) else "warning"
    print(f"{label}: {message}", file=sys.stderr)


def run_app(app: typer.Typer) -> None:
    """Run ``app``, turning ppdm's errors into one clear line and a non-zero exit."""
    warnings.showwarning = _show_warning
    try:
        app(standalone_mode=True)
    except (PpdmError, ValueError, FileNotFoundError, KeyError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {msg}", file=sys.stderr)
        sys.exit(2)


@contextmanager
def atomic_dir(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary directory beside ``path``; move its files in only on success.

    Files already in ``path`` that the command does not write are left alone; a
    failure leaves ``path`` exactly as it was.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        yield tmp
        target.mkdir(parents=True, exist_ok=True)
        for item in tmp.iterdir():
            os.replace(item, target / item.name)
    finally:
        if tmp.exists():
            for item in tmp.iterdir():
                item.unlink()
            tmp.rmdir()
