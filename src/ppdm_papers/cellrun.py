"""How the cells of one grid run: the options every experiment family hands to ``run_cells``.

A family's grid function takes one :class:`CellRun` instead of repeating the mapper,
worker count, progress bar, checkpoint and deadline of :func:`ppdm.cells.run_cells` in
its signature; ``ppdm reproduce`` builds it from the run's context
(:meth:`ppdm_papers.registry.RunContext.cell_run`). :class:`CsvCheckpoint` keeps a
long grid's finished cells in a CSV file, so an interrupted run resumes. Both sit just
above :mod:`ppdm.cells`, so every family can use them.

References
----------
Dowd, Xu & Zhang, Sec. 6 (the grids these runners evaluate).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ppdm import cells
from ppdm.cells import Checkpoint, plain_key
from ppdm.exceptions import ParameterError
from ppdm.validation import check_int

__all__ = ["CellRun", "CsvCheckpoint"]


@dataclass(frozen=True)
class CellRun:
    """Where and how a grid's cells run; results never depend on it.

    Attributes
    ----------
    jobs : int, default=1
        Worker processes of the default local mapper.
    mapper : callable, optional
        ``mapper(fn, cells) -> iterable of results``; default
        :func:`ppdm.cells.local_mapper` with ``jobs`` workers.
    progress : bool, default=False
        Show a progress bar with ETA on stderr.
    checkpoint : Checkpoint, optional
        Finished cells are skipped and new ones appended (a resumable run).
    deadline : float, optional
        A ``time.monotonic()`` instant after which no new cell is waited for.

    Raises
    ------
    ParameterError
        ``jobs`` is not an integer >= 1.

    Examples
    --------
    >>> CellRun().run(lambda c: [{"k": c[0], "twice": 2 * c[0]}], [(2,), (1,)], "demo")
       k  twice
    0  1      2
    1  2      4
    """

    jobs: int = 1
    mapper: Callable | None = None
    progress: bool = False
    checkpoint: Checkpoint | None = None
    deadline: float | None = None

    def __post_init__(self) -> None:
        jobs = self.jobs
        check_int(jobs, "jobs", error=ParameterError)

    def run(
        self,
        fn: Callable[[tuple], list[dict]],
        keys: Sequence[tuple],
        description: str,
        *,
        order: str = "keys",
    ) -> pd.DataFrame:
        """:func:`ppdm.cells.run_cells` of ``fn`` over ``keys`` with these options.

        Parameters
        ----------
        fn : callable
            ``fn(key) -> list of row dicts``, picklable.
        keys : sequence of tuple
            Cell keys.
        description : str
            Label of the progress bar.
        order : {"keys", "cells"}, default="keys"
            Row order of the result (see :func:`ppdm.cells.run_cells`).

        Returns
        -------
        pandas.DataFrame
        """
        return cells.run_cells(
            fn,
            keys,
            checkpoint=self.checkpoint,
            mapper=self.mapper,
            jobs=self.jobs,
            progress=self.progress,
            description=description,
            deadline=self.deadline,
            order=order,
        )


class CsvCheckpoint:
    """Finished cells of one grid, appended to a CSV file as they arrive.

    Parameters
    ----------
    path : path-like
        The checkpoint file (created on first write).
    key_columns : list of str
        Columns that name a cell.

    Notes
    -----
    Each cell's rows are written with one ``write`` and flushed; a line cut short by an
    interruption is dropped on the next load, so that cell is simply run again.
    """

    def __init__(self, path: str | os.PathLike, key_columns: Sequence[str]) -> None:
        self.path = Path(path)
        self.key_columns = list(key_columns)
        self._header: list[str] | None = None

    def load(self) -> pd.DataFrame:
        """Rows of the finished cells (empty frame if none)."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return pd.DataFrame(columns=self.key_columns)
        raw = self.path.read_bytes()
        if not raw.endswith(b"\n"):  # interrupted mid-line: drop the partial line
            raw = raw[: raw.rfind(b"\n") + 1]
            self.path.write_bytes(raw)
        from io import BytesIO

        frame = pd.read_csv(BytesIO(raw))
        self._header = list(frame.columns)
        return frame.dropna(subset=self.key_columns).reset_index(drop=True)

    def done(self) -> set[tuple]:
        """Keys of the finished cells."""
        frame = self.load()
        if frame.empty:
            return set()
        return {plain_key(row) for row in frame[self.key_columns].to_numpy(object)}

    def append(self, rows: list[dict]) -> None:
        """Append one cell's rows."""
        if not rows:
            return
        frame = pd.DataFrame(rows)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        if fresh:
            self._header = list(frame.columns)
        elif self._header is None:
            self._header = list(pd.read_csv(self.path, nrows=0).columns)
        frame = frame.reindex(columns=self._header)
        text = frame.to_csv(index=False, header=fresh, float_format="%.17g")
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
