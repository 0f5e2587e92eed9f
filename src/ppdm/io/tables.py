"""Reading any table (CSV, Parquet, ARFF, a directory of parts), whole or batch by batch."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from ..exceptions import DataError
from ..publish import register_input
from .arff import read_arff
from .csv import iter_csv, read_csv, read_csv_parts
from .files import check_regular_file, partition_files, table_format
from .parquet import parquet_file


def read_table(
    path: str | os.PathLike,
    columns: list[str] | None = None,
    kinds: dict[str, str] | None = None,
    *,
    allow_empty: bool = False,
) -> pd.DataFrame:
    """Read a whole CSV, Parquet or ARFF file into a DataFrame.

    Parameters
    ----------
    path : path-like
        A regular file, or a directory of partitions (see :func:`partition_files`).
    columns : list of str, optional
        Columns to read (all by default).
    kinds : dict of column -> {"int", "float", "str", "bool"}, optional
        How to read CSV columns. The others are integers if every value is one, else
        numbers if every value is one, else strings, decided over the whole file.
    allow_empty : bool, default=False
        Accept a CSV file with a header and no rows (one partition of several may be
        empty, as a Parquet partition may); a file without even a header is refused.
    """
    path = check_regular_file(path)
    register_input(path)
    if path.is_dir():
        files = partition_files(path)
        if table_format(files[0]) == "csv":
            return read_csv_parts(path, files, columns, kinds)
        return pd.concat([read_table(f, columns, kinds) for f in files], ignore_index=True)
    fmt = table_format(path)
    if fmt == "csv":
        return read_csv(path, columns, kinds, allow_empty=allow_empty)
    if fmt == "parquet":
        with _damaged_parquet(path):
            table = parquet_file(path, columns).read(columns=columns)
        return table.to_pandas()
    frame = read_arff(path)
    return frame if columns is None else frame[columns]


def iter_batches(
    path: str | os.PathLike,
    batch_size: int = 1_000_000,
    columns: list[str] | None = None,
    kinds: dict[str, str] | str | None = None,
) -> Iterator[pd.DataFrame]:
    """Yield a CSV or Parquet file in batches of at most ``batch_size`` rows.

    Memory stays bounded by the batch, whatever the file size. A directory is read as
    a partitioned table (see :func:`partition_files`), partition after partition.

    Parameters
    ----------
    path : path-like
        A regular file or a directory (FIFOs and devices are refused).
    batch_size : int
    columns : list of str, optional
    kinds : dict of column -> {"int", "float", "str", "bool"}, or "text", optional
        How to read CSV columns: a column's kind should be fixed over the whole file
        (e.g. by the first pass of :func:`ppdm.perturbation.plan_release`), so that every
        batch reads it the same way. Columns without a kind are inferred batch by
        batch. ``"text"`` reads every CSV column as raw text and marks the batches
        with ``attrs[TEXT_ATTR]``. Parquet columns keep their stored types.
    """
    path = check_regular_file(path)
    register_input(path)
    if path.is_dir():
        rows = 0
        for f in partition_files(path):
            if table_format(f) == "csv":  # an empty partition is skipped
                batches = iter_csv(f, int(batch_size), columns, kinds, allow_empty=True)
            else:
                batches = iter_batches(f, batch_size, columns, kinds)
            for batch in batches:
                rows += len(batch)
                yield batch
        if rows == 0:
            raise DataError(f"every partition of {str(path)!r} is empty")
        return
    fmt = table_format(path)
    if fmt == "csv":
        yield from iter_csv(path, int(batch_size), columns, kinds)
    elif fmt == "parquet":
        pf = parquet_file(path, columns)
        # one reader per row group: a single iter_batches over the whole file keeps the
        # buffers of the row groups it has passed, so memory would grow with the file
        for group in range(pf.metadata.num_row_groups):
            batches = pf.iter_batches(batch_size=batch_size, row_groups=[group], columns=columns)
            while True:
                with _damaged_parquet(path):
                    batch = next(batches, None)
                if batch is None:
                    break
                yield batch.to_pandas()
    else:
        yield read_table(path, columns)


@contextmanager
def _damaged_parquet(path: Path) -> Iterator[None]:
    """A page of a Parquet file that cannot be decoded is named with its file (Arrow's
    'Corrupt snappy compressed data.' named none)."""
    import pyarrow as pa

    try:
        yield
    except (pa.ArrowException, OSError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DataError(f"input file {str(path)!r} is a damaged Parquet file: {first}") from None
