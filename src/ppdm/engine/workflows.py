"""Partitioned releases on disk: make, estimate and reconstruct, on either engine.

Each task reads its own partition file (on a cluster, from storage every worker can
read); outputs are partitioned Parquet published whole when every task has succeeded.
For the same seed, results equal the single-file ones of :mod:`ppdm.pipeline`
(docs/dask.md, "How it works").

References
----------
Dowd, Xu & Zhang, Algorithms 1 and 2, Sec. 4.2-4.3 (two-pass streaming
reconstruction).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..estimate import check_method
from ..exceptions import DataError, PpdmError
from ..io import (
    BatchWriter,
    footer_kinds,
    iter_batches,
    parquet_rows,
    partition_files,
    read_table,
    table_columns,
    table_format,
)
from ..mechanism import mechanism_of
from ..options import PlanOptions, plan_options
from ..perturbation import plan_from_sketches
from ..pipeline import (
    AttributeEstimate,
    Release,
    batch_rows,
    check_by_class,
    check_release_rows,
    checked_batches,
    estimates_from_counts,
    load_release,
    plan_from_footers,
    read_ahead,
    release_values,
    sorted_classes,
    spec_kinds,
    value_domains,
    values_round_trip,
    write_spec_and_report,
    written_shape,
)
from ..publish import check_output, publish_dir
from ..random import RandomState
from ..reconstruct import RankTable
from ..release import ReleaseSpec
from .executors import DaskExecutor, Engine, LocalExecutor, open_executor
from .kernels import (
    PartitionCounts,
    add_counts,
    align_counts,
    column_difference,
    count_partition,
    merge_sketch_rows,
    perturb_partition,
    perturb_partition_batches,
    reconstruct_partition,
    reconstruct_partition_batches,
    reconstruction_shares,
    resolve_root,
    row_offsets,
    sketch_rows_partition,
)

__all__ = [
    "DATA_DIR",
    "partitions_of",
    "make_release_partitioned",
    "estimate_release_partitioned",
    "reconstruct_release_partitioned",
]

#: Name of a partitioned release's data directory (its ``data_file`` in the spec).
DATA_DIR = "data"
Executor = LocalExecutor | DaskExecutor


def partitions_of(data: Any) -> list:
    """Handles of the partitions of ``data``, in order; each task loads its own.

    Parameters
    ----------
    data : path, glob, DataFrame, list of DataFrame or dask DataFrame
        A directory or glob of CSV/Parquet files (one partition per file), a single
        file or pandas DataFrame (one partition), a list of pandas DataFrames, or a
        Dask DataFrame (its partitions, as delayed objects).

    Returns
    -------
    list

    Examples
    --------
    >>> len(partitions_of([pd.DataFrame({"x": [1]}), pd.DataFrame({"x": [2]})]))
    2
    """
    if isinstance(data, pd.DataFrame):
        return [data]
    if isinstance(data, (str, os.PathLike)):
        return [str(f) for f in partition_files(data)]
    if isinstance(data, (list, tuple)):
        if not data or not all(isinstance(p, pd.DataFrame) for p in data):
            raise DataError("a list of partitions must hold one or more pandas DataFrames")
        return list(data)
    if hasattr(data, "to_delayed") and hasattr(data, "npartitions"):
        return list(data.to_delayed())
    raise DataError(
        "data must be a path or glob of CSV/Parquet files, a pandas DataFrame, a list of "
        f"them, or a dask DataFrame (got {type(data).__name__})"
    )


def _load(handle: Any, kinds: dict[str, str] | None = None) -> pd.DataFrame:
    """The partition behind ``handle``; ``kinds`` says how to read a CSV partition's columns."""
    if isinstance(handle, pd.DataFrame):
        return handle
    if isinstance(handle, (str, os.PathLike)):
        return read_table(handle, kinds=kinds, allow_empty=True)  # as an empty Parquet part
    return handle.compute(scheduler="sync")  # a dask partition run by the local engine


def _as_kinds(frame: pd.DataFrame, kinds: dict[str, str]) -> pd.DataFrame:
    """``frame`` with a number in a column the plan reads as text written as text."""
    numeric = [
        name
        for name, kind in kinds.items()
        if kind == "str" and name in frame and pd.api.types.is_numeric_dtype(frame[name])
    ]
    if not numeric:
        return frame
    return frame.assign(
        **{n: frame[n].map(str, na_action="ignore").astype(object) for n in numeric}
    )


def _parquet(handle: Any) -> bool:
    """Whether a partition is a Parquet file (read batch by batch: its column types are stored)."""
    return isinstance(handle, (str, os.PathLike)) and table_format(handle) == "parquet"


# -- tasks (module level, so Dask can ship them) ------------------------------------


def _part_batch(spec_or_path) -> int:
    """Rows per batch of a Parquet partition: :func:`batch_rows` of its column count."""
    if isinstance(spec_or_path, ReleaseSpec):
        return batch_rows(len(spec_or_path.attributes))
    return batch_rows(len(table_columns(spec_or_path)))


def _sketch_rows_task(cap: int, item: tuple[int, Any]):
    i, handle = item
    if _parquet(handle):  # merged over the batches as over partitions
        out = None
        for batch in iter_batches(handle, _part_batch(handle)):
            part = sketch_rows_partition(batch, i, cap)
            out = part if out is None else merge_sketch_rows(out, part)
        if out is not None:
            return out[0], [sum(out[1])]
    return sketch_rows_partition(_load(handle), i, cap)


def _count_task(
    spec: ReleaseSpec, by_class: bool, item: tuple, root: np.random.SeedSequence | None = None
) -> PartitionCounts:
    """Count one partition: ``item`` is ``(i, handle)``, with ``root`` ``(i, handle, row)``."""
    i, handle, first = item if len(item) == 3 else (*item, 0)
    if _parquet(handle):  # summed over the batches as over partitions
        out = None
        for batch in read_ahead(iter_batches(handle, _part_batch(spec))):  # read while counting
            rows = 0 if out is None else out.rows
            part = count_partition(
                batch, spec, i, by_class, row_offset=rows, root=root, first_row=first + rows
            )
            out = part if out is None else add_counts(out, part)
        if out is not None:
            return out
    return count_partition(_load(handle), spec, i, by_class, root=root, first_row=first)


def _rows_task(item: tuple[int, Any]) -> int:
    """Rows of one partition."""
    _, handle = item
    return parquet_rows(handle) if _parquet(handle) else len(_load(handle))


def _part_name(i: int, n: int) -> str:
    return f"part-{i:0{max(5, len(str(n - 1)))}d}.parquet"


def _streamable(handle: Any, spec: ReleaseSpec) -> bool:
    """Whether a partition can be perturbed batch by batch: a Parquet file, one copy."""
    return _parquet(handle) and spec.copies == 1


def _write_part(batches: Iterable[pd.DataFrame], directory: str, name: str) -> int:
    """Write batches as one part under a hidden name, then rename it; its rows, or -1 if none."""
    tmp = Path(directory) / f".{name}.{uuid.uuid4().hex}.tmp"
    rows = -1
    try:
        with BatchWriter(tmp, "parquet") as writer:
            for batch in batches:
                writer.write(batch)
                rows = max(rows, 0) + len(batch)
        if rows >= 0:
            os.replace(tmp, Path(directory) / name)
    finally:
        if tmp.exists():
            tmp.unlink()
    return rows


def _perturb_write_task(spec, root, directory, n_parts, read_back, item) -> int:
    """Perturb partition ``item`` into its part, every value checked; its row count."""
    i, handle, offset = item
    name = _part_name(i, n_parts)
    doms = {} if read_back else value_domains(spec)
    kinds = spec_kinds(spec)  # every partition read as the plan reads its columns
    rows = -1
    if _streamable(handle, spec):
        batches = (_as_kinds(b, kinds) for b in iter_batches(handle, _part_batch(spec)))
        perturbed = perturb_partition_batches(read_ahead(batches), spec, root, i, offset)
        checked = checked_batches(perturbed, doms, f"release part {name}")
        rows = _write_part(read_ahead(checked), directory, name)  # on two cores
    if rows < 0:
        frame = perturb_partition(_as_kinds(_load(handle, kinds), kinds), spec, root, i, offset)
        _write_part(checked_batches([frame], doms, f"release part {name}"), directory, name)
    path = Path(directory) / name
    columns, rows = written_shape(path)
    spec.check_columns(columns)
    return _verified_rows(spec, path) if read_back else rows


def _verified_rows(spec: ReleaseSpec, path: Path) -> int:
    """Read a written part back and check every perturbed value against its domain; its rows."""
    doms = value_domains(spec)
    batches = read_ahead(iter_batches(path, _part_batch(spec), columns=list(doms) or None))
    return sum(len(b) for b in checked_batches(batches, doms, f"release part {path.name}"))


def _reconstruct_write_task(spec, classes, root, directory, n_parts, item) -> int:
    i, handle, shares, first = item
    name = _part_name(i, n_parts)
    rows = -1
    if _parquet(handle):
        batches = read_ahead(iter_batches(handle, _part_batch(spec)))
        rec = reconstruct_partition_batches(batches, spec, shares, classes, root, i, first)
        rows = _write_part(read_ahead(rec), directory, name)  # on two cores
    if rows < 0:
        frame = reconstruct_partition(_load(handle), spec, shares, classes, root, i, first)
        rows = _write_part([frame], directory, name)
    return rows


def plan_partitions(
    executor: Executor, handles: Sequence, options: PlanOptions
) -> tuple[ReleaseSpec, list[int]]:
    """The release plan and every partition's row count, in one pass (or from the footers)."""
    if handles and all(_parquet(h) for h in handles):
        found = plan_from_footers(handles, options)
        if found is not None:
            return found[0], found[1]
    try:
        sketches, rows = executor.reduce(
            functools.partial(_sketch_rows_task, options.bins_cap),
            list(enumerate(handles)),
            merge_sketch_rows,
            stage="summarising the columns",
        )
    except DataError as exc:
        if str(exc).startswith("partitions have different columns"):
            _name_the_odd_file(handles)
        raise
    return plan_from_sketches(sketches, options), rows


_PARTITION_PREFIX = re.compile(r"^partition (\d+): ")


@contextmanager
def _files_named(handles: Sequence) -> Iterator[None]:
    """Name the file behind "partition i" in ppdm's errors raised inside (same type)."""
    try:
        yield
    except PpdmError as exc:
        text = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else ""
        m = _PARTITION_PREFIX.match(text)
        i = int(m.group(1)) if m else -1
        if 0 <= i < len(handles) and isinstance(handles[i], (str, os.PathLike)):
            raise type(exc)(f"partition file {str(handles[i])!r}: {text[m.end() :]}") from None
        raise


def _name_the_odd_file(handles: Sequence) -> None:
    """Raise :class:`DataError` naming the first file whose columns differ from the first's."""
    if not all(isinstance(h, (str, os.PathLike)) for h in handles):
        return

    try:
        first = table_columns(handles[0])
        odd = next(((h, c) for h in handles[1:] if (c := table_columns(h)) != first), None)
    except (OSError, ValueError):  # unreadable here: the tasks' message stands
        return
    if odd is not None:
        raise DataError(
            f"partition file {str(odd[0])!r} {column_difference(first, odd[1])} "
            f"(against the first file, {str(handles[0])!r}); every partition must "
            "have the same columns in the same order"
        )


def count_partitions(
    executor: Executor,
    handles: Sequence,
    spec: ReleaseSpec,
    by_class: bool,
    *,
    data: str | os.PathLike | None = None,
) -> tuple[dict[str, np.ndarray], list | None]:
    """Pass 1 as a tree reduction: perturbed counts (C, N) per attribute and class values.

    With ``data`` (the release's data path), the rows counted must be those its spec says.
    """
    if by_class:
        check_by_class(spec)
    total = executor.reduce(
        functools.partial(_count_task, spec, by_class),
        list(enumerate(handles)),
        add_counts,
        stage="counting the perturbed values",
    )
    if data is not None:
        check_release_rows(spec, total.rows, data)
    if total.rows == 0:
        raise DataError("the release data is empty")
    classes = sorted_classes(total.classes) if by_class else None
    tables = {name: align_counts(total, classes, name) for name in total.tables}
    return tables, classes


def reconstruction_plan(
    executor: Executor,
    handles: Sequence,
    spec: ReleaseSpec,
    method: str,
    by_class: bool,
    root: np.random.SeedSequence,
    *,
    data: str | os.PathLike | None = None,
) -> tuple[list[dict[str, RankTable]], list | None, list[int]]:
    """Pass 1 of the reconstruction: every partition's rank tables, the classes, its first row."""
    check_method(method)
    if by_class:
        check_by_class(spec)
    rows = executor.map(_rows_task, list(enumerate(handles)), stage="counting the rows")
    if data is not None:
        check_release_rows(spec, sum(int(r) for r in rows), data)
    first_rows = row_offsets(rows)
    part_counts = executor.map(
        functools.partial(_count_task, spec, by_class, root=root),
        [(i, h, o) for i, (h, o) in enumerate(zip(handles, first_rows))],
        stage="counting the perturbed values",
    )
    if [pc.rows for pc in part_counts] != [int(r) for r in rows]:
        raise DataError(
            "the partitions' row counts changed between two passes; the release must "
            "not change while it is reconstructed"
        )
    if sum(pc.rows for pc in part_counts) == 0:
        raise DataError("the release data is empty")
    classes = None
    if by_class:
        seen = dict.fromkeys(c for pc in part_counts for c in pc.classes or ())
        classes = sorted_classes(tuple(seen))
    shares = reconstruction_shares(spec, part_counts, classes, method, root)
    return shares, classes, first_rows


@contextmanager
def _staging(target: Path) -> Iterator[Path]:
    """:func:`ppdm.publish.publish_dir`, removal retried (running tasks may add files)."""
    try:
        with publish_dir(target) as tmp:
            yield tmp
    finally:
        for leftover in target.parent.glob(f".{target.name}.ppdm-new-{os.getpid()}-*"):
            for _ in range(5):
                shutil.rmtree(leftover, ignore_errors=True)
                if not leftover.exists():
                    break
                time.sleep(0.2)


def make_release_partitioned(
    source: Any,
    out_dir: str | os.PathLike,
    *,
    engine: Engine = "local",
    scheduler=None,
    random_state: RandomState = None,
    overwrite: bool = False,
    options: PlanOptions | None = None,
    **plan_keywords,
) -> ReleaseSpec:
    """Perturb a partitioned table into a release of partitioned Parquet.

    Writes ``out_dir/data/part-*.parquet`` (one part per input partition),
    ``spec.json`` (``data_file: "data"``), ``privacy.json`` and ``privacy.txt``.
    The release reads back with :func:`ppdm.pipeline.load_release` like any other.

    Parameters
    ----------
    source : path, glob, DataFrame, list of DataFrame or dask DataFrame
        See :func:`partitions_of`. Never modified.
    out_dir : path
        Release directory, published whole on success; an existing non-empty one
        only with ``overwrite``.
    engine : {"local", "dask"}, default="local"
    scheduler : str or distributed.Client, optional
        Dask scheduler address; ``None`` uses the current client or starts a
        LocalCluster with one worker per core.
    random_state : None or int
        ``None`` for a real release: 256 bits of OS entropy drawn once on the client,
        never written anywhere. An int seed (experiments, tests) warns; the release
        then equals the single-file release of the same rows with the same seed,
        whatever the partitioning or engine.
    options : PlanOptions, optional
        The release plan's options (:class:`ppdm.options.PlanOptions`).
    **plan_keywords
        Fields of :class:`~ppdm.options.PlanOptions` one by one, as in
        :func:`ppdm.perturbation.plan_release`.

    Returns
    -------
    ReleaseSpec
        With ``data_file`` and ``n_records`` filled in, as written to ``spec.json``.

    References
    ----------
    Dowd, Xu & Zhang, Algorithm 1.
    """
    opts = plan_options(options, **plan_keywords)
    handles = partitions_of(source)
    inputs = (source,) if isinstance(source, (str, os.PathLike)) else ()
    out_dir = check_output(out_dir, inputs=inputs, directory=True, overwrite=overwrite)
    root = resolve_root(random_state, warn=random_state is not None)
    with _files_named(handles), open_executor(engine, scheduler) as ex, _staging(out_dir) as tmp:
        spec, counted = plan_partitions(ex, handles, opts)
        (tmp / DATA_DIR).mkdir()
        # the values survive Parquet (else a DomainError now); each task checks its values
        # and part, reading the part back if the values are not known from the spec alone
        read_back = bool(value_domains(spec)) and not values_round_trip(
            spec, tmp / ".values.parquet", "parquet"
        )
        task = functools.partial(
            _perturb_write_task, spec, root, str(tmp / DATA_DIR), len(handles), read_back
        )
        # an empty partition has no part: a header-only CSV file holds no types to agree on
        items = [
            (i, h, o) for i, (h, o) in enumerate(zip(handles, row_offsets(counted))) if counted[i]
        ]
        rows = ex.map(task, items, stage="perturbing the partitions")
        # every partition's output holds spec.copies copies of each of its records
        if [int(r) for r in rows] != [int(counted[i]) * spec.copies for i, _, _ in items]:
            raise DataError(
                "the partitions' row counts changed between the planning pass and the "
                "perturbation pass; the input must not change during a release"
            )
        n = int(sum(counted))  # records of the table, as in ppdm.pipeline.make_release
        if n == 0:
            raise DataError("the input table is empty: nothing to perturb")
        _check_part_types(tmp / DATA_DIR, handles)
        spec = spec.model_copy(update={"data_file": DATA_DIR, "n_records": n})
        write_spec_and_report(spec, tmp)
        load_release(tmp)  # the parts were checked by the tasks above
    return spec


def _check_part_types(directory: Path, handles: Sequence) -> None:
    """Refuse written parts whose columns disagree in type (read from their footers)."""

    def named(j: int) -> str:
        h = handles[j] if j < len(handles) else None
        return repr(str(h)) if isinstance(h, (str, os.PathLike)) else f"#{j + 1}"

    parts = sorted(p for p in directory.iterdir() if p.suffix == ".parquet")
    first: dict[str, tuple[str, int]] = {}
    for part in parts:
        k = int(part.stem.split("-")[1])  # its partition (empty ones have no part)
        for name, kind in footer_kinds(part).items():
            kind = {"int": "integers", "float": "decimals", "str": "text"}.get(kind, kind)
            seen = first.setdefault(name, (kind, k))
            if seen[0] != kind:
                raise DataError(
                    f"column {name!r} is {seen[0]} in input part {named(seen[1])} and "
                    f"{kind} in {named(k)}; give it one type in every part (or release the "
                    "parts as one file)"
                )


def estimate_release_partitioned(
    release: Release | str | os.PathLike,
    method: str = "set-scale",
    *,
    by_class: bool = False,
    engine: Engine = "local",
    scheduler=None,
) -> list[AttributeEstimate]:
    """Estimate every perturbed attribute of a release: tree-reduced counts, local estimate.

    Parameters
    ----------
    release : Release or path
        A release directory (partitioned or single file).
    method : {"inverse", "zero", "set-scale", "norm-sub", "ibu"}, default="set-scale"
    by_class : bool, default=False
    engine : {"local", "dask"}, default="local"
    scheduler : str or distributed.Client, optional

    Returns
    -------
    list of AttributeEstimate
        Equal to :func:`ppdm.pipeline.estimate_release` on the same data.

    References
    ----------
    Dowd, Xu & Zhang, Eq. (1) and Sec. 4.3.
    """
    check_method(method)
    rel = load_release(release)
    handles = partitions_of(rel.data_path)
    mechanism_of(rel.spec).require("codes")
    with (
        release_values(rel.data_path),
        _files_named(handles),
        open_executor(engine, scheduler) as ex,
    ):
        counts, classes = count_partitions(ex, handles, rel.spec, by_class, data=rel.data_path)
    return estimates_from_counts(rel.spec, counts, classes, method)


def reconstruct_release_partitioned(
    release: Release | str | os.PathLike,
    out: str | os.PathLike,
    *,
    method: str = "set-scale",
    by_class: bool = False,
    random_state: RandomState = None,
    engine: Engine = "local",
    scheduler=None,
    overwrite: bool = False,
) -> Path:
    """Algorithm 2 on a release, in two passes over the partitions, to partitioned Parquet.

    Pass 1 counts every partition's tie groups, the client splits the multisets, pass 2
    writes every partition's ``out/part-*.parquet``: no global sort (docs/dask.md).

    Parameters
    ----------
    release : Release or path
    out : path
        Output directory, published whole on success; an existing non-empty one
        only with ``overwrite``.
    method : str, default="set-scale"
    by_class : bool, default=False
    random_state : None or int
        Root of the tie breaking and random representatives (drawn once on the
        client); the same seed gives the single-file reconstruction.
    engine : {"local", "dask"}, default="local"
    scheduler : str or distributed.Client, optional

    Returns
    -------
    Path
        ``out``.

    References
    ----------
    Dowd, Xu & Zhang, Algorithm 2 (two-pass streaming reconstruction).
    """
    rel = load_release(release)
    handles = partitions_of(rel.data_path)
    mechanism_of(rel.spec).require("reconstruct")
    out = check_output(out, directory=True, overwrite=overwrite)
    root = resolve_root(random_state)
    with (
        release_values(rel.data_path),
        _files_named(handles),
        open_executor(engine, scheduler) as ex,
        _staging(out) as parts,
    ):
        shares, classes, firsts = reconstruction_plan(
            ex, handles, rel.spec, method, by_class, root, data=rel.data_path
        )
        ex.map(
            functools.partial(
                _reconstruct_write_task, rel.spec, classes, root, str(parts), len(handles)
            ),
            [(i, h, s, o) for i, (h, s, o) in enumerate(zip(handles, shares, firsts))],
            stage="reconstructing the partitions",
        )
    return out
