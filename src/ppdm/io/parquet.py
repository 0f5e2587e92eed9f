"""Reading Parquet: footers, kinds, row counts and parts of one schema."""

from __future__ import annotations

import os
from pathlib import Path

from ..exceptions import DataError
from .csv import csv_names
from .files import check_regular_file, partition_files, table_format


def _unsupported(t) -> str | None:
    """How to convert a column of Arrow type ``t`` that ppdm cannot release (None if it can)."""
    import pyarrow.types as pt

    if pt.is_dictionary(t):
        return _unsupported(t.value_type)
    if (
        pt.is_integer(t)
        or pt.is_floating(t)
        or pt.is_boolean(t)
        or pt.is_string(t)
        or pt.is_large_string(t)
        or pt.is_null(t)
        or (hasattr(pt, "is_string_view") and pt.is_string_view(t))
    ):
        return None
    if pt.is_temporal(t):
        return "a number (e.g. seconds since 1970) or a string"
    if pt.is_decimal(t):
        return "a float, or a string to keep it exact"
    if pt.is_nested(t):
        return "flat columns of numbers or strings"
    return "a number or a string"


def parquet_file(path: Path, columns):
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several types for a damaged file
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DataError(
            f"input file {str(path)!r} is not a readable Parquet file: {first}"
        ) from None
    schema = pf.schema_arrow
    if columns is not None:
        for c in columns:
            if c not in schema.names:
                raise DataError(f"input file {str(path)!r} has no column {c!r}")
    for field in schema:
        hint = _unsupported(field.type)
        if hint is not None and (columns is None or field.name in columns):
            raise DataError(
                f"column {field.name!r} of {str(path)!r} has type {field.type}, which ppdm "
                f"cannot release; convert it to {hint}"
            )
    return pf


def _footer_kind(t) -> str | None:
    """Kind of a column of Arrow type ``t`` as pandas reads it, if its type is plain."""
    import pyarrow.types as pt

    if pt.is_boolean(t):
        return "bool"
    if pt.is_integer(t):
        return "int"
    if pt.is_float32(t) or pt.is_float64(t):
        return "float"
    if pt.is_string(t) or pt.is_large_string(t):
        return "str"
    return None


def check_parts_alike(path: str | os.PathLike, names: list[str]) -> None:
    """Refuse a directory of Parquet parts whose footers disagree: a part without one of
    ``names`` or with a column more, or a column of another kind than in the first part.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 (a release is one table, however it is stored).
    """
    first: tuple[Path, dict] | None = None
    for f in partition_files(path):
        if table_format(f) != "parquet":
            continue
        cols = table_columns(f)
        missing = [n for n in names if n not in cols]
        extra = [n for n in cols if n not in names]
        if missing or extra:
            what = (
                f"lacks {missing}" if missing else f"has columns its spec does not describe {extra}"
            )
            raise DataError(f"partition file {str(f)!r} {what}")
        kinds = footer_kinds(f)
        if first is None:
            first = (f, kinds)
            continue
        for n, kind in kinds.items():
            other = first[1].get(n)
            if other is not None and other != kind:
                raise DataError(
                    f"partition file {str(f)!r} holds column {n!r} as {kind} but "
                    f"{first[0].name!r} as {other}: a table's parts hold one type per column"
                )


def footer_kinds(path: str | os.PathLike) -> dict[str, str]:
    """The kind of every typed column of a Parquet file, from its footer."""
    import pyarrow.types as pt

    schema = parquet_file(Path(path), None).schema_arrow
    index = _stored_index(schema)
    return {
        n: _footer_kind(t) or str(t)
        for n, t in zip(schema.names, schema.types)
        if n not in index and not pt.is_null(t)
    }


def table_columns(path: str | os.PathLike) -> list[str]:
    """The column names of a CSV or Parquet file as the readers name them, from its header or
    footer alone (a stored pandas index is not a column).
    """
    path = check_regular_file(path)  # never opens a FIFO or a device
    if table_format(path) != "parquet":
        return csv_names(path)
    schema = parquet_file(path, None).schema_arrow
    index = _stored_index(schema)
    return [str(n) for n in schema.names if n not in index]


def _stored_index(schema) -> set[str]:
    """The columns of a Parquet schema that hold a stored pandas index, not data."""
    return {
        c for c in (schema.pandas_metadata or {}).get("index_columns", []) if isinstance(c, str)
    }


def parquet_rows(path: str | os.PathLike) -> int:
    """Rows of a Parquet file, from its footer (a damaged file is a :class:`DataError`)."""
    return int(parquet_file(Path(path), None).metadata.num_rows)


def parquet_kinds(path: str | os.PathLike) -> tuple[int, dict[str, str]] | None:
    """Row count and every column's kind of a Parquet file, from its footer alone.

    None (the data must be read) unless every column has a plain type, none is a stored
    pandas index, the names are unique and every row group's statistics state no missing
    value. A file ppdm cannot release raises the :class:`DataError` :func:`iter_batches` would.
    """
    path = check_regular_file(path)
    if path.is_dir() or table_format(path) != "parquet":
        return None
    pf = parquet_file(path, None)
    schema, meta = pf.schema_arrow, pf.metadata
    names = [str(n) for n in schema.names]
    if len(set(names)) != len(names) or meta.num_columns != len(names) or meta.num_rows == 0:
        return None
    pandas_meta = schema.pandas_metadata or {}
    if any(not isinstance(c, dict) for c in pandas_meta.get("index_columns", [])):
        return None
    kinds = {name: _footer_kind(field.type) for name, field in zip(names, schema)}
    if None in kinds.values():
        return None
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        stats = [group.column(j).statistics for j in range(group.num_columns)]
        if any(s is None or not s.has_null_count or s.null_count != 0 for s in stats):
            return None
    return int(meta.num_rows), kinds
