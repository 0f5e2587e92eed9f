"""How the cells of one grid run: the options every experiment family hands to ``run_cells``.

A family's grid function takes one :class:`CellRun` instead of repeating the mapper,
worker count, progress bar, checkpoint and deadline of :func:`ppdm.cells.run_cells` in
its signature; ``ppdm reproduce`` builds it from the run's context
(:meth:`ppdm_papers.registry.RunContext.cell_run`). It sits just above
:mod:`ppdm.cells`, so every family (``ppdm.attacks``, ``ppdm.noise``, ``ppdm.bayesnet``,
``ppdm.experiments``) can use it.

References
----------
Dowd, Xu & Zhang, Sec. 6 (the grids these runners evaluate).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from ppdm import cells
from ppdm.cells import Checkpoint
from ppdm.exceptions import ParameterError
from ppdm.validation import check_int

__all__ = ["CellRun"]


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
