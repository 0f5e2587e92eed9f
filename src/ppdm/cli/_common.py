"""Shared helpers of the command line: error reporting and atomic writes."""

from __future__ import annotations

import os
import sys
import warnings
from contextlib import AbstractContextManager
from pathlib import Path

import typer

from ..exceptions import PpdmError, PrivacyWarning
from ..io import atomic_path
from ..publish import install_signal_handlers, publish_dir

__all__ = ["run_app", "fail", "atomic_path", "atomic_dir", "output_path"]


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
    install_signal_handlers()
    try:
        app(standalone_mode=True)
    except (PpdmError, ValueError, FileNotFoundError, KeyError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {msg}", file=sys.stderr)
        sys.exit(2)


def atomic_dir(path: str | os.PathLike) -> AbstractContextManager[Path]:
    """Yield a hidden directory beside ``path``; publish it whole on success.

    See :func:`ppdm.publish.publish_dir`: a failure leaves ``path`` as it was.
    """
    return publish_dir(path)


def output_path(value: str) -> Path:
    """Parser of output flags: an empty path is refused before it can mean ``.``."""
    if value.strip() == "":
        raise typer.BadParameter("is empty; name a file or directory to write")
    return Path(value)
