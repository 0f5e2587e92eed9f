"""The generated table the end-to-end benchmarks share: its chunks, bounds and the load."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

#: Owner bounds of the table's numeric columns (``ppdm perturb`` flags).
BOUNDS = [
    "--bounds", "age=18:91",
    "--bounds", "income=0:2000000",
    "--bounds", "score=0:1200",
    "--bounds", "region=0:12",
    "--bounds", "visits=0:40",
]  # fmt: skip


def chunks(rows: int, chunk: int = 500_000) -> Iterator[pd.DataFrame]:
    """``rows`` records of ``benchmarks/perturb.py``'s table, ``chunk`` at a time (seed 0)."""
    from perturb import _chunk

    rng = np.random.default_rng(0)
    done = 0
    while done < rows:
        frame = _chunk(rng, min(chunk, rows - done))
        yield frame
        done += len(frame)


def loadavg() -> str:
    """The 1, 5 and 15 minute load averages, or ``n/a``."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"
