"""Where partition tasks run: in this process, one after another, or on a Dask cluster.

Both executors offer ``map`` (results in partition order) and ``reduce`` (a tree
reduction with an exact, associative ``combine``), so the local engine is the reference
the Dask engine is tested against, bit for bit. Dask is imported only when asked for.

References
----------
Dask documentation, "dask.distributed: LocalCluster, Client" and "Tree reductions".
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal

from ..exceptions import ParameterError, PpdmError
from ..validation import check_at_least, check_choice
from .kernels import combine_all

__all__ = [
    "EngineError",
    "ENGINES",
    "LocalExecutor",
    "DaskExecutor",
    "client",
    "open_executor",
    "map_cells",
]

ENGINES = ("local", "dask")
Engine = Literal["local", "dask"]


class EngineError(PpdmError, RuntimeError):
    """The execution engine failed (a lost worker, an unreachable scheduler, ...)."""


def _require_dask():
    try:
        import dask
        import distributed
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError(
            "the Dask engine needs the optional dependencies: pip install 'ppdm[dask]'"
        ) from None
    return dask, distributed


class _Executor:
    """The contract both executors keep: ``map(fn, items, *, stage)`` and an ordered ``reduce``."""

    name = ""

    def reduce(
        self,
        fn: Callable,
        items: Sequence,
        combine: Callable,
        *,
        stage: str = "running",
        split_every: int = 8,
    ) -> Any:
        """``combine`` of ``fn(x)`` over ``items`` in order (``combine`` is associative)."""
        if not items:
            raise ParameterError("reduce needs at least one item")
        check_at_least(split_every, "split_every", 2, error=ParameterError)
        return self._reduce(fn, items, combine, stage, split_every)


class LocalExecutor(_Executor):
    """Run partition tasks in this process, in partition order (a left fold for ``reduce``)."""

    name = "local"

    def map(self, fn: Callable, items: Sequence, *, stage: str = "running") -> list:
        return [fn(x) for x in items]

    def _reduce(
        self, fn: Callable, items: Sequence, combine: Callable, stage: str, split_every: int
    ) -> Any:
        return combine_all(combine, *(fn(x) for x in items))


class DaskExecutor(_Executor):
    """Run partition tasks on a Dask cluster (``client``, default the current one), one task
    per partition; Dask delayed items are computed on the workers, and a failure Dask gives
    up on is raised as :class:`EngineError` naming the stage.
    """

    name = "dask"

    def __init__(self, client=None) -> None:
        self.client = client

    def _compute(self, tasks: list, stage: str) -> list:
        dask, distributed = _require_dask()
        kwargs = {"scheduler": self.client.get} if self.client is not None else {}
        # the cluster's failures, not the tasks' own errors (which keep their type)
        lost = (distributed.KilledWorker, distributed.comm.CommClosedError)
        try:
            return list(dask.compute(*tasks, **kwargs))
        except PpdmError:
            raise
        except lost as exc:
            raise EngineError(
                f"the Dask cluster failed while {stage}: {type(exc).__name__}: {exc}. "
                "No output was written; check the workers' memory and logs, then run again"
            ) from exc

    def map(self, fn: Callable, items: Sequence, *, stage: str = "running") -> list:
        dask, _ = _require_dask()
        task = dask.delayed(fn, pure=False)
        return self._compute([task(x) for x in items], stage)

    def _reduce(
        self, fn: Callable, items: Sequence, combine: Callable, stage: str, split_every: int
    ) -> Any:
        """Tree reduction: ``combine`` over ordered groups of ``split_every``."""
        dask, _ = _require_dask()
        level = [dask.delayed(fn, pure=False)(x) for x in items]
        node = dask.delayed(combine_all, pure=True)
        while len(level) > 1:
            level = [
                node(combine, *level[i : i + split_every])
                for i in range(0, len(level), split_every)
            ]
        return self._compute(level, stage)[0]


def client(scheduler=None, *, n_workers: int | None = None, processes: bool = True):
    """A Dask client: to ``scheduler``, or to a new LocalCluster with one worker per core.

    Parameters
    ----------
    scheduler : str or distributed.Client, optional
        Scheduler address (``"tcp://host:8786"``) or an existing client (returned
        as is). ``None`` starts a LocalCluster owned by the client: closing the
        client shuts it down.
    n_workers : int, optional
        Workers of the LocalCluster (default: the number of cores); one thread each.
    processes : bool, default=True
        Workers as separate processes (a worker that dies does not take the client).

    Returns
    -------
    distributed.Client

    Examples
    --------
    >>> c = client(n_workers=1)  # doctest: +SKIP
    >>> c.close()  # doctest: +SKIP
    """
    dask, distributed = _require_dask()
    if isinstance(scheduler, distributed.Client):
        return scheduler
    if scheduler is not None:
        try:
            return distributed.Client(scheduler, timeout="20s")
        except (OSError, TimeoutError) as exc:
            raise EngineError(
                f"cannot reach the Dask scheduler at {scheduler!r}: {exc}; check --scheduler"
            ) from None
    n = int(n_workers) if n_workers is not None else (os.cpu_count() or 1)
    check_at_least(n, "n_workers", 1, error=ParameterError)
    # glibc's own trim threshold: Dask's nannies' 65536 makes a task cost 1.5x the CPU
    # (BENCHMARKS.md, "Dask scale-out"); only critical logs: a task's error comes back
    # as ppdm's own one-line exception, not also as a worker's traceback
    environ = "distributed.nanny.pre-spawn-environ"
    with dask.config.set(
        {
            f"{environ}.MALLOC_TRIM_THRESHOLD_": None,
            f"{environ}.DASK_LOGGING__DISTRIBUTED": "critical",
        }
    ):
        return distributed.Client(
            n_workers=n, threads_per_worker=1, processes=processes, dashboard_address=":0"
        )


@contextmanager
def open_executor(
    engine: Engine = "local", scheduler=None, *, n_workers: int | None = None
) -> Iterator[LocalExecutor | DaskExecutor]:
    """An executor for ``engine``; a client this opens is closed on exit."""
    check_choice(engine, "engine", ENGINES, error=ParameterError)
    if engine == "local":
        if scheduler is not None:
            raise ParameterError(
                f"scheduler is only for engine='dask' (got scheduler={scheduler!r} with engine='local')"
            )
        yield LocalExecutor()
        return
    _, distributed = _require_dask()
    if scheduler is None:
        try:  # a client already open in this process is the user's cluster
            scheduler = distributed.default_client()
        except ValueError:
            pass
    owned = not isinstance(scheduler, distributed.Client)
    c = client(scheduler, n_workers=n_workers)
    try:
        yield DaskExecutor(c)
    finally:
        if owned:
            c.close()


def map_cells(
    fn: Callable[[Any], Any],
    cells: Sequence,
    engine: Engine = "local",
    jobs: int | None = None,
    scheduler=None,
) -> list:
    """Run ``fn`` on every cell of an experiment grid; results in cell order.

    Parameters
    ----------
    fn : callable
        A picklable (module-level) function of one cell, e.g. a
        ``(gamma, N, data set, repetition)`` tuple that carries its own seed, so the
        result does not depend on where the cell runs.
    cells : sequence
    engine : {"local", "dask"}, default="local"
    jobs : int, optional
        ``local``: worker processes (``None`` or 1 runs in this process).
        ``dask``: workers of the LocalCluster started when no ``scheduler`` is given.
    scheduler : str or distributed.Client, optional
        Dask scheduler address or client.

    Returns
    -------
    list
        ``[fn(c) for c in cells]``.

    Examples
    --------
    >>> map_cells(abs, [-1, 2, -3])
    [1, 2, 3]
    """
    check_choice(engine, "engine", ENGINES, error=ParameterError)
    cells = list(cells)
    if jobs is not None:
        check_at_least(jobs, "jobs", 1, error=ParameterError)
    if engine == "local":
        if scheduler is not None:
            raise ParameterError("scheduler is only for engine='dask'")
        if jobs is None or int(jobs) == 1 or len(cells) < 2:
            return [fn(c) for c in cells]
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=int(jobs)) as pool:
            return list(pool.map(fn, cells))
    with open_executor("dask", scheduler, n_workers=jobs) as ex:
        return ex.map(fn, cells, stage="running the grid cells")
