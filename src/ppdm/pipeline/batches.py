"""Batches: how many rows a pass reads at a time, and reading ahead on another thread."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from typing import TypeVar

import pandas as pd

from ..exceptions import PpdmError
from ..io import check_regular_file, iter_batches, partition_files, table_columns
from ..mechanism import mechanism_of
from ..release import ReleaseSpec

T = TypeVar("T")


DEFAULT_BATCH = 250_000


#: values per batch when the batch size is left to ppdm: 250,000 rows of six columns
BATCH_VALUES = 1_500_000


Progress = Callable[[int], None] | None


def input_width(data) -> int:
    """The columns of an input table from its header or footer; six when it cannot be read so."""
    if isinstance(data, pd.DataFrame):
        return data.shape[1]
    path = check_regular_file(data)
    try:
        return len(table_columns(partition_files(path)[0] if path.is_dir() else path))
    except (PpdmError, OSError, ValueError):
        return 6


def batch_rows(n_columns: int) -> int:
    """Rows per batch of a table of ``n_columns`` columns when none is given: about
    :data:`BATCH_VALUES` values, between 10,000 and :data:`DEFAULT_BATCH` rows (released
    bytes do not depend on it).

    Examples
    --------
    >>> batch_rows(6), batch_rows(21), batch_rows(1000)
    (250000, 71428, 10000)
    """
    return max(10_000, min(DEFAULT_BATCH, BATCH_VALUES // max(int(n_columns), 1)))


def table_batches(
    data: pd.DataFrame | str | os.PathLike,
    batch_size: int,
    kinds: dict[str, str] | str | None = None,
) -> Iterator[pd.DataFrame]:
    if isinstance(data, pd.DataFrame):
        for i in range(0, len(data), batch_size):
            yield data.iloc[i : i + batch_size]
    else:
        yield from iter_batches(data, batch_size, kinds=kinds)


def spec_kinds(spec: ReleaseSpec) -> dict[str, str]:
    """How to read the perturbed columns of a release's CSV data, from their domains."""
    kinds = {}
    for a in spec.perturbed_attributes():
        d = a.get_domain()
        if not mechanism_of(spec).has("codes") or d.kind == "binned":
            kinds[a.name] = "float"
            continue
        vals = list(d.values)  # type: ignore[union-attr]
        if all(isinstance(v, bool) for v in vals):
            kinds[a.name] = "bool"
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
            kinds[a.name] = "int"
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            kinds[a.name] = "float"
        else:
            kinds[a.name] = "str"
    return kinds


def reporting(batches: Iterator[pd.DataFrame], progress: Progress) -> Iterator[pd.DataFrame]:
    """``batches``, calling ``progress`` with each batch's rows once it is used."""
    for batch in batches:
        yield batch
        if progress:
            progress(len(batch))


def spare_core() -> bool:
    """Whether a second thread of this process would get a core of its own: not when held to
    one core, nor in a Dask worker's task, whose threads already fill the cores (reading
    ahead there cost perturbation 1.5x its wall time: BENCHMARKS.md, "Dask scale-out").
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - platforms without CPU affinity
        cores = os.cpu_count() or 1
    if cores < 2:
        return False
    distributed = sys.modules.get("distributed")
    if distributed is not None:
        try:
            distributed.get_worker()
        except ValueError:  # not in a worker's task
            return True
        return False
    return True


def read_ahead(items: Iterator[T], depth: int = 2) -> Iterator[T]:
    """Yield ``items`` in order, produced by a background thread up to ``depth`` ahead.

    Reading and writing release the GIL, so a pass overlaps them with its computing on two
    cores. The producer's exception is raised at the item it replaced; without a
    :func:`spare_core` the items are yielded on this thread.
    """
    if not spare_core():
        yield from items
        return
    import queue
    import threading

    q: queue.Queue = queue.Queue(maxsize=max(int(depth), 1))
    stop = threading.Event()
    end = object()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not put((item, None)):
                    break
            else:
                put((end, None))
        except BaseException as exc:  # handed to the consumer, raised there
            put((end, exc))
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()

    worker = threading.Thread(target=produce, name="ppdm-read-ahead", daemon=True)
    worker.start()
    try:
        while True:
            item, exc = q.get()
            if item is end:
                if exc is not None:
                    raise exc
                return
            yield item
    finally:
        stop.set()
        worker.join()
