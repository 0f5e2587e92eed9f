"""Running a grid of cells: per-cell seeds, pluggable mappers, a resumable checkpoint.

A cell is one unit of work named by a key (``("synth1", 9, 20, 3)``); its random stream
comes from ``(seed, key)`` alone, so results depend neither on the number of workers nor
on resuming. :func:`run_cells` sends a grid's cells to the run's mapper (in process, the
local process pool, or Dask) with one progress bar and an optional :class:`Checkpoint`.

References
----------
Dowd, Xu & Zhang, Sec. 6 (the grids these runners evaluate).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

import numpy as np
import pandas as pd

from .exceptions import ParameterError
from .validation import check_choice, check_int

__all__ = [
    "cell_seed_sequence",
    "cell_rng",
    "local_mapper",
    "shared_pools",
    "Checkpoint",
    "plain_key",
    "run_cells",
]


class Checkpoint(Protocol):
    """Finished cells of one grid, kept across runs (``ppdm_papers.cellrun.CsvCheckpoint``
    keeps them in a CSV file): :func:`run_cells` skips the keys it has done and hands it
    each new cell's rows."""

    key_columns: list[str]

    def load(self) -> pd.DataFrame: ...

    def done(self) -> set[tuple]: ...

    def append(self, rows: list[dict]) -> None: ...


Key = tuple


def cell_seed_sequence(seed: int, key: Key) -> np.random.SeedSequence:
    """The seed sequence of one cell, a function of ``(seed, key)`` only."""
    seed = check_int(seed, "seed", low=0, error=ParameterError)
    text = "\x1f".join(f"{type(k).__name__}:{k}" for k in tuple(key)).encode()
    words = np.frombuffer(hashlib.sha256(text).digest()[:16], dtype="<u4").tolist()
    return np.random.SeedSequence([seed, *words])


def cell_rng(seed: int, key: Key) -> np.random.Generator:
    """A generator for one cell (see :func:`cell_seed_sequence`)."""
    return np.random.default_rng(cell_seed_sequence(seed, key))


def local_mapper(jobs: int = 1) -> Callable[[Callable, Sequence], Iterator]:
    """The default mapper: in-process for ``jobs == 1``, else a process pool yielding
    results as cells finish."""
    jobs = check_int(jobs, "jobs", error=ParameterError)

    def mapper(fn: Callable, cells: Sequence) -> Iterator:
        if jobs == 1 or len(cells) <= 1:
            for cell in cells:
                yield fn(cell)
            return
        shared = _SHARED is not None
        if shared and jobs not in _SHARED:
            _SHARED[jobs] = _new_pool(jobs)
        pool = _SHARED[jobs] if shared else _new_pool(jobs)
        futures = [pool.submit(fn, cell) for cell in cells]
        try:
            for fut in as_completed(futures):
                yield fut.result()
        except BaseException as exc:  # a cell failed, the consumer stopped, or Ctrl-C
            for fut in futures:  # drop the cells not started; running ones just finish
                fut.cancel()
            if shared and (
                isinstance(exc, BrokenProcessPool)
                or not isinstance(exc, (Exception, GeneratorExit))
            ):
                _SHARED.pop(jobs, None)  # a dead worker or an interrupt: a new pool
                pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            if not shared:
                pool.shutdown(wait=True, cancel_futures=True)

    return mapper


#: Worker pools by size while :func:`shared_pools` is active (else ``None``).
_SHARED: dict[int, ProcessPoolExecutor] | None = None


@contextlib.contextmanager
def shared_pools() -> Iterator[None]:
    """Inside, the grids of a run share one worker pool per size instead of one each.

    Workers are forked when first needed, so they see the process as it was then: for
    one run of grids, not for a process that changes its modules between grids.
    """
    global _SHARED
    if _SHARED is not None:  # already inside
        yield
        return
    _SHARED = {}
    try:
        yield
    finally:
        pools, _SHARED = _SHARED, None
        for pool in pools.values():
            pool.shutdown(wait=True, cancel_futures=True)


def _new_pool(jobs: int) -> ProcessPoolExecutor:
    """A pool of ``jobs`` workers, forked where the platform can."""
    import multiprocessing as mp

    ctx = mp.get_context("fork") if os.name == "posix" else None
    return ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_one_blas_thread)


def _one_blas_thread() -> None:
    """One BLAS/OpenMP thread in a pool worker, set once when it starts: the pool
    already has a process per core, and a worker's own BLAS threads would only spin
    against the others'."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)


def plain_key(key: Sequence) -> tuple:
    """``key`` with NumPy integers and whole floats as ints: the same cell compares equal
    whether it came from a list of keys or from a CSV checkpoint."""
    return tuple(_plain(v) for v in key)


def _plain(v: Any) -> Any:
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return int(v) if float(v).is_integer() else float(v)
    return v


def run_cells(
    fn: Callable[[tuple], list[dict]],
    cells: Sequence[tuple],
    *,
    checkpoint: Checkpoint | None = None,
    mapper: Callable | None = None,
    jobs: int = 1,
    progress: bool = True,
    description: str = "cells",
    deadline: float | None = None,
    order: str = "keys",
) -> pd.DataFrame:
    """Evaluate ``fn`` on every cell not yet in ``checkpoint``; return all rows, sorted by key.

    ``fn(cell)`` returns a list of row dicts holding the cell's key columns (picklable for
    the process pool); ``mapper(fn, cells)`` yields results (default :func:`local_mapper`).

    Parameters
    ----------
    deadline : float, optional
        A ``time.monotonic()`` instant after which no new cell is waited for: the run
        stops early, keeping every finished cell in the checkpoint (resume later).
    order : {"keys", "cells"}, default="keys"
        Rows sorted by the key columns, or cell by cell in the order of ``cells``
        (without a checkpoint only); never the order of completion.
    """
    check_choice(order, "order", ("keys", "cells"), error=ParameterError)
    if order == "cells" and checkpoint is not None:
        raise ParameterError("order='cells' is for runs without a checkpoint")
    cells = [plain_key(c) for c in cells]
    done = checkpoint.done() if checkpoint is not None else set()
    todo = [c for c in cells if c not in done]
    mapper = mapper if mapper is not None else local_mapper(jobs)
    by_cell: dict[tuple, list[dict]] = {}
    results = mapper(functools.partial(_tagged, fn), todo) if todo else iter(())
    with _progress_bar(progress, description, len(cells), len(cells) - len(todo)) as advance:
        for cell, result in results:
            if checkpoint is not None:
                checkpoint.append(result)
            by_cell[cell] = result
            advance()
            if deadline is not None and time.monotonic() > deadline:
                close = getattr(results, "close", None)
                if close is not None:  # a generator mapper: cancel the cells not started
                    close()
                break
    if order == "cells":
        return pd.DataFrame([r for c in cells if c in by_cell for r in by_cell[c]])
    if checkpoint is None:
        frame = pd.DataFrame([r for result in by_cell.values() for r in result])
    else:
        frame, wanted = checkpoint.load(), set(cells)
        rows = frame[checkpoint.key_columns].to_numpy(object)
        frame = frame.loc[[plain_key(r) in wanted for r in rows]]
    if frame.empty:
        return frame
    keys = (
        checkpoint.key_columns if checkpoint is not None else list(frame.columns[: len(cells[0])])
    )
    return frame.sort_values(keys, kind="stable").reset_index(drop=True)


def _tagged(fn: Callable[[tuple], list[dict]], cell: tuple) -> tuple[tuple, list[dict]]:
    """``(cell, fn(cell))``: a result that names its cell, whatever order it arrives in."""
    return cell, fn(cell)


def stderr_progress(*, eta_label: bool = False, **options):
    """A ``rich`` progress display on stderr (label, bar, done/total, elapsed and remaining
    time, ``ETA`` before it with ``eta_label``), not started; ``options`` go to
    :class:`rich.progress.Progress`."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = [
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        *([TextColumn("ETA")] if eta_label else []),
        TimeRemainingColumn(),
    ]
    options.setdefault("console", Console(stderr=True))
    return Progress(*columns, **options)


@contextlib.contextmanager
def _progress_bar(
    enabled: bool, description: str, total: int, completed: int
) -> Iterator[Callable[[], None]]:
    if not enabled:
        yield lambda: None
        return
    with stderr_progress(eta_label=True) as progress:
        task = progress.add_task(description, total=total, completed=completed)
        yield lambda: progress.advance(task)
