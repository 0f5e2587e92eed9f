"""What one partition does, and how the client combines the partitions' results.

Every engine runs these functions under one root drawn on the client, its streams
addressed by row, so results depend neither on the partitioning nor on the workers
(docs/dask.md, "How it works").

References
----------
Dowd, Xu & Zhang, Algorithm 1, Algorithm 2 and Sec. 4.2-4.3 (Algorithm 2 as a
two-pass streaming reconstruction, without a full sort).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..domain import DomainSketch
from ..exceptions import DataError, PpdmError
from ..perturbation import perturb_batches
from ..pipeline import assign_batches, rank_keys, rank_tables
from ..random import RandomState, resolve_seed, warn_seeded_release
from ..reconstruct import RankTable, rank_bits, rank_cells
from ..release import ReleaseSpec

__all__ = [
    "resolve_root",
    "PartitionCounts",
    "column_difference",
    "perturb_partition",
    "perturb_partition_batches",
    "sketch_rows_partition",
    "merge_sketch_rows",
    "row_offsets",
    "count_partition",
    "add_counts",
    "align_counts",
    "reconstruction_shares",
    "reconstruct_partition",
    "reconstruct_partition_batches",
]


def resolve_root(random_state: RandomState = None, *, warn: bool = False) -> np.random.SeedSequence:
    """The root of a partitioned run, drawn once on the client; with ``warn=True`` a
    :class:`~ppdm.exceptions.SeededReleaseWarning` when a release is drawn from a seed.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     root = resolve_root(7, warn=True)
    >>> (root.entropy, caught[0].category.__name__)
    (7, 'SeededReleaseWarning')
    """
    root = resolve_seed(random_state)
    if warn and random_state is not None:
        warn_seeded_release(stacklevel=3)
    return root


@contextmanager
def _in_partition(partition: int) -> Iterator[None]:
    """Prefix ppdm's errors with the partition they come from (same exception type)."""
    try:
        yield
    except PpdmError as exc:
        if len(exc.args) == 1 and isinstance(exc.args[0], str):
            raise type(exc)(f"partition {partition}: {exc.args[0]}") from None
        raise


def sketch_rows_partition(
    frame: pd.DataFrame, partition: int, cap: int
) -> tuple[dict[str, DomainSketch], list[int]]:
    """One :class:`~ppdm.domain.DomainSketch` per column of one partition, and its rows."""
    columns = [str(c) for c in frame.columns]
    with _in_partition(partition):
        if len(set(columns)) != len(columns):
            raise DataError(f"the input has repeated column names: {columns}")
        return {c: DomainSketch(c, cap=cap).update(frame[c]) for c in columns}, [len(frame)]


def merge_sketch_rows(
    first: tuple[dict[str, DomainSketch], list[int]],
    then: tuple[dict[str, DomainSketch], list[int]],
) -> tuple[dict[str, DomainSketch], list[int]]:
    """Sketches of consecutive runs of partitions merged column by column, and their rows."""
    if list(first[0]) != list(then[0]):
        raise DataError(
            f"partitions have different columns: a later one "
            f"{column_difference(first[0], then[0])}; every partition must have the same "
            "columns in the same order"
        )
    return {c: first[0][c].merge(then[0][c]) for c in first[0]}, first[1] + then[1]


def column_difference(first: Sequence[str], then: Sequence[str]) -> str:
    """How the columns ``then`` differ from ``first``, in a few words.

    Examples
    --------
    >>> column_difference(["a", "b", "c"], ["a", "c"])
    "lacks 'b'"
    >>> column_difference(["a", "b"], ["b", "a"])
    'has the same columns in another order'
    """
    first, then = [str(c) for c in first], [str(c) for c in then]
    lacks = [c for c in first if c not in then]
    extra = [c for c in then if c not in first]

    def names(cols: list[str]) -> str:
        shown = ", ".join(repr(c) for c in cols[:3])
        return shown + (f" and {len(cols) - 3} more" if len(cols) > 3 else "")

    parts = ([f"lacks {names(lacks)}"] if lacks else []) + (
        [f"has {names(extra)} in addition"] if extra else []
    )
    return " and ".join(parts) or "has the same columns in another order"


def perturb_partition(
    frame: pd.DataFrame,
    spec: ReleaseSpec,
    root: np.random.SeedSequence,
    partition: int,
    row_offset: int,
) -> pd.DataFrame:
    """Algorithm 1 on one partition, whose first record is row ``row_offset`` of the table."""
    with _in_partition(partition):
        spec.check_columns([str(c) for c in frame.columns])
        return next(iter(perturb_batches([frame], spec, root, warn=False, row_offset=row_offset)))


def perturb_partition_batches(
    batches: Iterable[pd.DataFrame],
    spec: ReleaseSpec,
    root: np.random.SeedSequence,
    partition: int,
    row_offset: int,
) -> Iterator[pd.DataFrame]:
    """:func:`perturb_partition` batch by batch (with copies, each record's in a row)."""
    with _in_partition(partition):
        yield from perturb_batches(batches, spec, root, warn=False, row_offset=row_offset)


def row_offsets(rows: list[int]) -> list[int]:
    """The first row of every partition in the whole table, from the partitions' sizes."""
    return [int(x) for x in np.concatenate([[0], np.cumsum(rows, dtype=np.int64)[:-1]])]


@dataclass(frozen=True)
class PartitionCounts:
    """Perturbed counts (C, N) per attribute of some partitions, and their class values."""

    rows: int
    classes: tuple | None
    tables: dict[str, np.ndarray]


def count_partition(
    frame: pd.DataFrame,
    spec: ReleaseSpec,
    partition: int,
    by_class: bool = False,
    row_offset: int = 0,
    *,
    root: np.random.SeedSequence | None = None,
    first_row: int = 0,
) -> PartitionCounts:
    """Pass 1 on one partition: perturbed code counts, per class value if ``by_class``.

    Parameters
    ----------
    row_offset : int
        Row of the partition's first record, for error messages.
    root : SeedSequence, optional
        With it (reconstruction), count per (class, code, bucket of rank key), keys from
        row ``first_row``: arrays (C, N * 2**bits).
    """
    attrs = spec.perturbed_attributes()
    keys = rank_keys(root, attrs, first_row) if root is not None else None
    with _in_partition(partition):
        spec.check_columns([str(c) for c in frame.columns])
        if by_class:
            name = spec.class_attribute  # checked by the caller (check_by_class)
            ccodes, uniques = pd.factorize(frame[name], use_na_sentinel=True)
            if (ccodes < 0).any():
                row = int(np.flatnonzero(ccodes < 0)[0]) + int(row_offset) + 1
                raise DataError(f"class column {name!r} has a missing value at data row {row}")
            classes: tuple | None = tuple(pd.Index(uniques).tolist())
            n_c = len(uniques)
        else:
            ccodes, classes, n_c = np.zeros(len(frame), dtype=np.int64), None, 1
        ccodes = np.asarray(ccodes, dtype=np.int64)
        tables = {}
        for a in attrs:
            n = a.get_domain().n_values
            codes = a.get_domain().encode(frame[a.name], column=a.name, row_offset=row_offset)
            cells, width = ccodes * n + codes, n
            if keys is not None:
                bits = rank_bits(n, n_c)  # the partition's classes; the client coarsens
                cells = rank_cells(cells, keys[a.name].uint32(len(cells)), bits, n_c * n)
                width = n << bits
            flat = np.bincount(cells, minlength=n_c * width)
            small = np.uint32 if len(frame) < 1 << 32 else np.int64  # one per partition
            tables[a.name] = flat.reshape(n_c, width).astype(small)
    return PartitionCounts(len(frame), classes, tables)


def add_counts(first: PartitionCounts, then: PartitionCounts) -> PartitionCounts:
    """Sum of two counts (exact integers, so any reduction tree gives the same sums).

    Examples
    --------
    >>> a = PartitionCounts(2, ("x",), {"v": np.array([[1, 1]])})
    >>> b = PartitionCounts(1, ("y",), {"v": np.array([[0, 1]])})
    >>> s = add_counts(a, b)
    >>> s.classes, s.tables["v"].tolist()
    (('x', 'y'), [[1, 1], [0, 1]])
    """
    classes = None if first.classes is None else tuple(dict.fromkeys(first.classes + then.classes))
    tables = {}
    for k in first.tables:
        a, b = align_counts(first, classes, k), align_counts(then, classes, k)
        width = min(a.shape[1], b.shape[1])  # rank tables of other bucket sizes: the coarser
        tables[k] = _coarser(a, width) + _coarser(b, width)
    return PartitionCounts(first.rows + then.rows, classes, tables)


def _coarser(table: np.ndarray, width: int) -> np.ndarray:
    """``table`` (C, N * 2**b) summed over consecutive buckets down to ``width`` columns."""
    f = table.shape[1] // width
    return table if f == 1 else table.reshape(len(table), width, f).sum(axis=2)


def align_counts(counts: PartitionCounts, classes: list | tuple | None, name: str) -> np.ndarray:
    """The (C, N) table of attribute ``name`` with rows in the order of ``classes``."""
    table = counts.tables[name]
    if classes is None:
        return table.astype(np.int64)
    out = np.zeros((len(classes), table.shape[1]), dtype=np.int64)
    if counts.classes:
        rows = pd.Index(list(classes)).get_indexer(list(counts.classes))
        if (rows < 0).any():
            raise DataError(f"class values {list(counts.classes)} are not all in {list(classes)}")
        out[rows] = table
    return out


def reconstruction_shares(
    spec: ReleaseSpec,
    part_counts: list[PartitionCounts],
    classes: list | None,
    method: str,
    root: np.random.SeedSequence,
) -> list[dict[str, RankTable]]:
    """Client side of the reconstruction: the rank tables of the summed bucket counts, and for
    every partition a copy started after the records of the partitions before it.
    """
    attrs = spec.perturbed_attributes()
    n_classes = 1 if classes is None else len(classes)
    width = {
        a.name: a.get_domain().n_values << rank_bits(a.get_domain().n_values, n_classes)
        for a in attrs
    }

    def aligned(pc: PartitionCounts, name: str) -> np.ndarray:
        # every partition's buckets at the bits of the whole table's classes
        return _coarser(align_counts(pc, classes, name), width[name])

    hists = {}
    for a in attrs:
        n = a.get_domain().n_values
        total = sum(aligned(pc, a.name) for pc in part_counts)
        hists[a.name] = total.reshape(n_classes, n, -1)
    ranked = rank_tables(spec, hists, method, root)
    shares: list[dict[str, RankTable]] = [{} for _ in part_counts]
    for a in attrs:
        before = np.zeros(ranked[a.name].table.size, dtype=np.int64)
        for pc, share in zip(part_counts, shares):
            own = aligned(pc, a.name).reshape(-1)
            share[a.name] = ranked[a.name].after(before, own)
            before += own
    return shares


def reconstruct_partition(frame: pd.DataFrame, *args, **kwargs) -> pd.DataFrame:
    """Pass 2 on one partition held whole (see :func:`reconstruct_partition_batches`)."""
    (rec,) = reconstruct_partition_batches([frame], *args, **kwargs)
    return rec


def reconstruct_partition_batches(
    batches: Iterable[pd.DataFrame],
    spec: ReleaseSpec,
    shares: dict[str, RankTable],
    classes: list | None,
    root: np.random.SeedSequence,
    partition: int,
    first_row: int = 0,
) -> Iterator[pd.DataFrame]:
    """Pass 2 on one partition, rank keys and representatives read from ``first_row``."""

    def checked():
        for batch in batches:
            spec.check_columns([str(c) for c in batch.columns])
            yield batch

    with _in_partition(partition):
        yield from assign_batches(spec, checked(), shares, classes, root, first_row)


def combine_all(combine, *parts):
    """Left fold of ``parts`` with ``combine`` (one node of a reduction tree)."""
    return functools.reduce(combine, parts)
