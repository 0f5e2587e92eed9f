"""The experiment runner: :mod:`ppdm.cells` (cells, mappers, checkpoint, progress) and
atomic writers of the outputs.

Every family of ``ppdm reproduce`` runs its grid through :func:`run_cells` (see
:mod:`ppdm.cells` for the contract), with the options of a :class:`CellRun`, and writes its tidy tables with
:func:`write_csv_atomic` and :func:`write_json_atomic`.

References
----------
Dowd, Xu & Zhang, Sec. 6 (the grids these runners evaluate).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from ..cellrun import CellRun
from ..cells import Checkpoint, cell_rng, cell_seed_sequence, local_mapper, run_cells

__all__ = [
    "cell_seed_sequence",
    "cell_rng",
    "local_mapper",
    "Checkpoint",
    "CellRun",
    "run_cells",
    "write_csv_atomic",
    "write_json_atomic",
]


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
