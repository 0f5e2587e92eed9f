"""Writing tables (CSV, Parquet, ARFF) whole or batch by batch, atomically."""

from __future__ import annotations

import io
import os
from contextlib import AbstractContextManager
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import DataError
from .arff import write_arff
from .files import csv_compression, table_format

# a text field holding one of these is quoted by pandas' (Python's) CSV writer
_CSV_QUOTED = r'[,"\r\n]'


def _float_text(values: np.ndarray):
    """float64 values as text spelled as ``numpy.ndarray.astype(str)`` spells them; NaN is null."""
    import pyarrow as pa
    import pyarrow.compute as pc

    few = _few_values(values)
    if few is not None:  # format each distinct value once (bins decode to a few values)
        distinct, index = few
        return pc.take(_float_text(distinct), pa.array(index))
    text = pc.cast(pa.array(values, from_pandas=True), pa.string())
    size = np.abs(values)
    with np.errstate(invalid="ignore"):
        # Arrow switches between positional and exponent notation at other magnitudes ...
        odd = (size >= 1e10) | ((size < 1e-4) & (size > 0))
        # ... and drops the ".0" of an integral value
        whole = (np.floor(values) == values) & ~odd
    if whole.any():
        mask = pa.array(whole)
        tail = pc.binary_join_element_wise(pc.filter(text, mask), ".0", "")
        text = pc.replace_with_mask(text, mask, tail)
    if odd.any():
        text = pc.replace_with_mask(text, pa.array(odd), pa.array(values[odd].astype(str)))
    return text


def _few_values(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(distinct, index)`` with ``distinct[index]`` bit for bit ``values`` (``-0.0`` apart),
    when a long array holds at most one distinct value in 16; else None.
    """
    n = len(values)
    if n < 4096 or len(np.unique(values[:1024].view(np.int64))) > 64:
        return None
    index, distinct = pd.factorize(values.view(np.int64))
    if len(distinct) > n // 16:
        return None
    return np.asarray(distinct).view(np.float64), index


def _csv_text(series: pd.Series):
    """One column as text spelled as ``DataFrame.to_csv`` spells it, or None for pandas' writer."""
    import pyarrow as pa
    import pyarrow.compute as pc

    dtype = series.dtype
    if isinstance(dtype, np.dtype) and dtype == np.float64:
        return _float_text(series.to_numpy())
    if pd.api.types.is_bool_dtype(dtype):
        return pc.if_else(pa.Array.from_pandas(series), "True", "False")
    if pd.api.types.is_integer_dtype(dtype):
        return pc.cast(pa.Array.from_pandas(series), pa.string())
    if pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
        try:
            arr = pa.Array.from_pandas(series)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return None
        if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
            return None
        if len(arr) and pc.any(pc.match_substring_regex(arr, _CSV_QUOTED)).as_py():
            return None
        return arr
    return None


def write_csv_batch(frame: pd.DataFrame, fh, header: bool) -> None:
    """Append ``frame`` as CSV to the binary file ``fh``, byte for byte as
    ``frame.to_csv(fh, header=header, index=False)`` would: by Arrow where it can, else by
    pandas, so the bytes never depend on the path taken.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    arrays = None
    if not isinstance(frame.columns, pd.MultiIndex) and frame.columns.is_unique:
        arrays = [_csv_text(frame[name]) for name in frame.columns]
        if any(text is None for text in arrays):
            arrays = None
    if arrays is not None and len(arrays) == 1 and len(frame):
        # Python's writer quotes a record that is one empty field
        lone = arrays[0]
        if lone.null_count or pc.any(pc.equal(lone, "")).as_py():
            arrays = None
    if arrays is None or not arrays:
        fh.write(frame.to_csv(header=header, index=False, lineterminator="\n").encode("utf-8"))
        return
    if header:
        fh.write(frame.iloc[:0].to_csv(index=False, lineterminator="\n").encode("utf-8"))
    if len(frame):
        table = pa.Table.from_arrays(arrays, names=[f"c{i}" for i in range(len(arrays))])
        options = pcsv.WriteOptions(include_header=False, quoting_style="none")
        pcsv.write_csv(table, fh, write_options=options)


def write_table(
    frame: pd.DataFrame,
    path: str | os.PathLike,
    fmt: str | None = None,
    relation: str = "ppdm",
    nominal: list[str] | None = None,
    categories: dict | None = None,
) -> None:
    """Write ``frame`` as CSV, Parquet or ARFF (``fmt``, or the extension)."""
    if csv_compression(path):
        table_format(path, writing=True)  # refused: ppdm writes plain files
    fmt = fmt or table_format(path)
    if fmt == "pq":
        fmt = "parquet"
    if fmt == "csv":
        with open(path, "wb") as fh:
            write_csv_batch(frame, fh, header=True)
    elif fmt == "parquet":
        frame.to_parquet(path, index=False)
    elif fmt == "arff":
        write_arff(frame, path, relation=relation, nominal=nominal, categories=categories)
    else:
        raise DataError(f"unknown output format {fmt!r}; use csv, parquet or arff")


def atomic_path(path: str | os.PathLike, suffix: str = ".tmp") -> AbstractContextManager[Path]:
    """Yield a hidden path beside ``path``; rename it into place only on success.

    See :func:`ppdm.publish.publish_file`: a failure leaves ``path`` as it was, and
    ``path`` may not be or lie inside an input the process has read.

    Examples
    --------
    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "out.txt"
    >>> try:
    ...     with atomic_path(target) as tmp:
    ...         _ = tmp.write_text("half written")
    ...         raise RuntimeError("stopped")
    ... except RuntimeError:
    ...     pass
    >>> (target.exists(), list(target.parent.iterdir()))
    (False, [])
    """
    from ..publish import publish_file

    return publish_file(path, suffix=suffix)


def write_table_atomic(frame: pd.DataFrame, path: str | os.PathLike, **kwargs) -> None:
    """:func:`write_table` through a temporary file renamed into place on success."""
    if csv_compression(path):
        table_format(path, writing=True)  # refused: ppdm writes plain files
    fmt = kwargs.pop("fmt", None) or table_format(path)
    with atomic_path(path) as tmp:
        write_table(frame, tmp, fmt=fmt, **kwargs)


def _arrow_batch(frame: pd.DataFrame, schema):
    """``frame`` as an Arrow table of ``schema`` (the first batch's): plain NumPy number
    columns straight to Arrow, anything else through :meth:`pyarrow.Table.from_pandas`.
    """
    import pyarrow as pa

    columns = [str(c) for c in frame.columns]
    arrays = []
    if frame.columns.is_unique and columns == schema.names:
        for column, field in zip(frame.columns, schema):
            series = frame[column]
            if not isinstance(series.dtype, np.dtype) or series.dtype.kind not in "biuf":
                break
            values = series.to_numpy()
            if pa.from_numpy_dtype(values.dtype) != field.type:
                break
            arrays.append(pa.array(values, type=field.type, from_pandas=True))
    if len(arrays) != len(schema):
        return pa.Table.from_pandas(frame, preserve_index=False).cast(schema)
    return pa.Table.from_arrays(arrays, schema=schema)


#: Rows per Parquet row group written by :class:`BatchWriter`, whatever the batches.
ROW_GROUP_ROWS = 250_000


class BatchWriter(AbstractContextManager):
    """Append DataFrame batches to one CSV or Parquet file (``fmt``).

    Parquet row groups hold :data:`ROW_GROUP_ROWS` rows however the rows come in batches:
    the same rows give the same bytes.
    """

    def __init__(self, path: str | os.PathLike, fmt: str) -> None:
        if fmt not in ("csv", "parquet"):
            raise DataError(f"batch output supports csv and parquet, not {fmt!r}")
        self.path = Path(path)
        self.fmt = fmt
        self._writer = None
        self._first = True
        self._schema = None
        self._fh = None
        self._held: list = []  # Arrow tables not yet written, fewer than a row group
        self._held_rows = 0

    def write(self, frame: pd.DataFrame) -> None:
        """Append ``frame`` (the first batch also writes the CSV header)."""
        self.write_encoded(self.encode(frame))

    def encode(self, frame: pd.DataFrame):
        """``frame`` as this file will hold it (CSV bytes, or an Arrow table), in batch order,
        possibly on another thread than :meth:`write_encoded`.
        """
        first, self._first = self._first, False
        if self.fmt == "csv":
            buffer = io.BytesIO()
            write_csv_batch(frame, buffer, header=first)
            return buffer.getbuffer()
        import pyarrow as pa

        if first:
            table = pa.Table.from_pandas(frame, preserve_index=False)
            self._schema = table.schema
            return table
        return _arrow_batch(frame, self._schema)

    def write_encoded(self, encoded) -> None:
        """Append a batch :meth:`encode` returned (in the order it returned them)."""
        if self.fmt == "csv":
            if self._fh is None:
                self._fh = open(self.path, "wb")
            self._fh.write(encoded)
            return
        import pyarrow.parquet as pq

        if self._writer is None:
            self._writer = pq.ParquetWriter(self.path, encoded.schema)
        self._held.append(encoded)
        self._held_rows += encoded.num_rows
        if self._held_rows >= ROW_GROUP_ROWS:
            self._flush(final=False)

    def _flush(self, final: bool) -> None:
        """Write the whole row groups held (and, at the end, the rest)."""
        import pyarrow as pa

        held = pa.concat_tables(self._held) if len(self._held) > 1 else self._held[0]
        whole = held.num_rows if final else held.num_rows // ROW_GROUP_ROWS * ROW_GROUP_ROWS
        if whole:
            self._writer.write_table(held.slice(0, whole), row_group_size=ROW_GROUP_ROWS)
        rest = held.slice(whole)
        self._held, self._held_rows = ([rest] if rest.num_rows else []), rest.num_rows

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
        if self._writer is not None:
            if self._held:
                self._flush(final=True)
            self._writer.close()

    def __exit__(self, *exc) -> None:
        self.close()


def write_csv_atomic(frame: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write ``frame`` as CSV whole or not at all, making its directory first; return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_table_atomic(frame, path)
    return path


def write_json_atomic(obj, path: str | os.PathLike) -> Path:
    """Write ``obj`` as indented JSON through a temporary file renamed into place."""
    import json

    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, default=str) + "\n", encoding="utf-8")
    return path
