"""Atomic writers of the experiments' outputs (tidy CSV, JSON).

``ppdm advise --out`` writes its tables with them, and so does every family of
``ppdm reproduce`` (:mod:`ppdm_papers`): a table is either whole on disk or absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

__all__ = ["write_csv_atomic", "write_json_atomic"]


def write_csv_atomic(frame: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write ``frame`` as CSV to a temporary file beside ``path``, then rename it."""
    from ..io import write_table_atomic

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_table_atomic(frame, path)
    return path


def write_json_atomic(obj, path: str | os.PathLike) -> Path:
    """Write ``obj`` as indented JSON through a temporary file renamed into place."""
    import json

    from ..io import atomic_path

    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, default=str) + "\n", encoding="utf-8")
    return path
