"""Table input and output: CSV, Parquet and ARFF, whole or batch by batch.

Writers never touch the destination until the data is complete: callers pass a
temporary path (see :func:`ppdm.cli._common.atomic_path`) or use :func:`write_table_atomic`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pandas as pd

from .exceptions import DataError
from .publish import register_input

__all__ = [
    "table_format",
    "partition_files",
    "read_table",
    "iter_batches",
    "write_table",
    "write_table_atomic",
    "atomic_path",
    "write_arff",
    "read_arff",
    "BatchWriter",
]

_FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".arff": "arff"}


def table_format(path: str | os.PathLike) -> str:
    """Format name (``csv``, ``parquet``, ``arff``) from a file extension."""
    suffix = Path(path).suffix.lower()
    if suffix not in _FORMATS:
        raise DataError(
            f"cannot tell the format of {str(path)!r} from its extension {suffix!r}; "
            "use .csv, .parquet or .arff"
        )
    return _FORMATS[suffix]


def partition_files(path: str | os.PathLike) -> list[Path]:
    """The data files of a partitioned table, in partition order.

    Parameters
    ----------
    path : path-like
        A directory of CSV or Parquet files (hidden files are skipped), a glob pattern
        such as ``"data/part-*.parquet"``, or a single file.

    Returns
    -------
    list of Path
        Sorted by name; one partition per file. All files share one format.

    Examples
    --------
    >>> partition_files("does-not-exist/*.parquet")
    Traceback (most recent call last):
    ...
    FileNotFoundError: 'does-not-exist/*.parquet' matches no CSV or Parquet file
    """
    text = os.fspath(path)
    p = Path(text)
    if p.is_dir():
        files = [f for f in p.iterdir() if f.is_file() and not f.name.startswith((".", "_"))]
        files = [f for f in files if f.suffix.lower() in (".csv", ".parquet", ".pq")]
    elif any(ch in text for ch in "*?["):
        import glob

        files = [Path(f) for f in glob.glob(text) if Path(f).is_file()]
    elif p.is_file():
        files = [p]
    else:
        files = []
    if not files:
        raise FileNotFoundError(f"{text!r} matches no CSV or Parquet file")
    files.sort(key=lambda f: f.name if p.is_dir() else str(f))
    kinds = {table_format(f) for f in files}
    if len(kinds) > 1 or kinds & {"arff"}:
        raise DataError(
            f"the partitions of {text!r} must all be CSV or all Parquet (got {sorted(kinds)})"
        )
    return files


def read_table(path: str | os.PathLike, columns: list[str] | None = None) -> pd.DataFrame:
    """Read a whole CSV, Parquet or ARFF file into a DataFrame.

    Parameters
    ----------
    path : path-like
        A file, or a directory of partitions (see :func:`partition_files`).
    columns : list of str, optional
        Columns to read (all by default).
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"input file {str(path)!r} does not exist")
    register_input(path)
    if path.is_dir():
        parts = [read_table(f, columns) for f in partition_files(path)]
        return pd.concat(parts, ignore_index=True)
    fmt = table_format(path)
    if fmt == "csv":
        try:
            frame = pd.read_csv(path, usecols=columns)
        except pd.errors.EmptyDataError:
            raise DataError(f"input file {str(path)!r} is empty") from None
    elif fmt == "parquet":
        frame = pd.read_parquet(path, columns=columns)
    else:
        frame = read_arff(path)
        if columns is not None:
            frame = frame[columns]
    return frame


def iter_batches(
    path: str | os.PathLike, batch_size: int = 1_000_000, columns: list[str] | None = None
) -> Iterator[pd.DataFrame]:
    """Yield a CSV or Parquet file in batches of at most ``batch_size`` rows.

    Memory stays bounded by the batch, whatever the file size. A directory is read as
    a partitioned table (see :func:`partition_files`), partition after partition.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"input file {str(path)!r} does not exist")
    register_input(path)
    if path.is_dir():
        for f in partition_files(path):
            yield from iter_batches(f, batch_size, columns)
        return
    fmt = table_format(path)
    if fmt == "csv":
        try:
            reader = pd.read_csv(path, chunksize=batch_size, usecols=columns)
            yield from reader
        except pd.errors.EmptyDataError:
            raise DataError(f"input file {str(path)!r} is empty") from None
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(path)
        # one reader per row group: a single iter_batches over the whole file keeps the
        # buffers of the row groups it has passed, so memory would grow with the file
        for group in range(pf.metadata.num_row_groups):
            for batch in pf.iter_batches(
                batch_size=batch_size, row_groups=[group], columns=columns
            ):
                yield batch.to_pandas()
    else:
        yield read_table(path, columns)


def _arff_type(series: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series):
        values = pd.unique(series.dropna())
        try:
            values = sorted(values)
        except TypeError:
            pass
        return "{" + ",".join(_arff_quote(str(v)) for v in values) + "}"
    return "numeric"


def _arff_quote(text: str) -> str:
    if text == "" or any(ch in text for ch in " ,{}'\"%\t"):
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return text


def write_arff(
    frame: pd.DataFrame,
    path: str | os.PathLike,
    relation: str = "ppdm",
    nominal: list[str] | None = None,
) -> None:
    """Write a DataFrame as Weka ARFF.

    Non-numeric columns, and those named in ``nominal``, become nominal attributes;
    missing values are written as ``?``.
    """
    nominal = set(nominal or [])
    lines = [f"@relation {_arff_quote(relation)}", ""]
    cols = []
    for name in frame.columns:
        s = frame[name]
        if name in nominal and pd.api.types.is_numeric_dtype(s):
            s = s.astype("Int64").astype(str).where(s.notna())
        t = _arff_type(s)
        cols.append(s)
        lines.append(f"@attribute {_arff_quote(str(name))} {t}")
    lines += ["", "@data"]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
        body = pd.DataFrame({i: c for i, c in enumerate(cols)})
        for j, c in enumerate(cols):
            if not pd.api.types.is_numeric_dtype(c):
                body[j] = c.map(lambda v: "?" if pd.isna(v) else _arff_quote(str(v)))
        body.to_csv(fh, header=False, index=False, na_rep="?", lineterminator="\n")


def read_arff(path: str | os.PathLike) -> pd.DataFrame:
    """Read a (dense) ARFF file; nominal attributes become strings, numeric ones floats."""
    from scipy.io import arff

    data, meta = arff.loadarff(str(path))
    frame = pd.DataFrame(data)
    for name, kind in zip(meta.names(), meta.types()):
        if kind == "nominal":
            col = frame[name].str.decode("utf-8")
            frame[name] = col.where(col != "?", None)
    return frame


def write_table(
    frame: pd.DataFrame, path: str | os.PathLike, fmt: str | None = None, relation: str = "ppdm"
) -> None:
    """Write ``frame`` to ``path`` as CSV, Parquet or ARFF (format from ``fmt`` or the extension)."""
    fmt = fmt or table_format(path)
    if fmt == "pq":
        fmt = "parquet"
    if fmt == "csv":
        frame.to_csv(path, index=False)
    elif fmt == "parquet":
        frame.to_parquet(path, index=False)
    elif fmt == "arff":
        write_arff(frame, path, relation=relation)
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
    >>> with atomic_path(target) as tmp:
    ...     _ = tmp.write_text("done")
    >>> target.read_text()
    'done'
    """
    from .publish import publish_file

    return publish_file(path, suffix=suffix)


def write_table_atomic(frame: pd.DataFrame, path: str | os.PathLike, **kwargs) -> None:
    """:func:`write_table` through a temporary file renamed into place on success."""
    fmt = kwargs.pop("fmt", None) or table_format(path)
    with atomic_path(path) as tmp:
        write_table(frame, tmp, fmt=fmt, **kwargs)


class BatchWriter:
    """Append DataFrame batches to one CSV or Parquet file.

    Parameters
    ----------
    path : path-like
        Destination (normally a temporary path renamed by the caller).
    fmt : {"csv", "parquet"}
    """

    def __init__(self, path: str | os.PathLike, fmt: str) -> None:
        if fmt not in ("csv", "parquet"):
            raise DataError(f"batch output supports csv and parquet, not {fmt!r}")
        self.path = Path(path)
        self.fmt = fmt
        self._writer = None
        self._first = True
        self._fh = None

    def write(self, frame: pd.DataFrame) -> None:
        if self.fmt == "csv":
            if self._fh is None:
                self._fh = open(self.path, "w", encoding="utf-8", newline="")
            frame.to_csv(self._fh, header=self._first, index=False)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.Table.from_pandas(frame, preserve_index=False)
            if self._writer is None:
                self._writer = pq.ParquetWriter(self.path, table.schema)
            else:
                table = table.cast(self._writer.schema)
            self._writer.write_table(table)
        self._first = False

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
        if self._writer is not None:
            self._writer.close()

    def __enter__(self) -> BatchWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
