"""Table input and output: CSV, Parquet and ARFF, whole or batch by batch.

Writers never touch the destination until the data is complete: callers pass a
temporary path (see :func:`ppdm.cli._common.atomic_path`) or use :func:`write_table_atomic`.
"""

from __future__ import annotations

import os
import re
import stat
import warnings
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from .exceptions import DataError
from .publish import register_input

__all__ = [
    "KINDS",
    "parquet_rows",
    "TEXT_ATTR",
    "table_format",
    "check_regular_file",
    "infer_kind",
    "numbers_of_text",
    "partition_files",
    "is_glob",
    "read_table",
    "iter_batches",
    "parquet_kinds",
    "table_columns",
    "count_csv_records",
    "write_table",
    "write_table_atomic",
    "atomic_path",
    "write_arff",
    "arff_quote",
    "read_arff",
    "BatchWriter",
    "write_csv_batch",
]

_FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".arff": "arff"}
#: Compressed CSV that ppdm reads (Arrow's reader decompresses by the extension).
_COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2"}


def csv_compression(path: str | os.PathLike) -> str | None:
    """``"gzip"`` or ``"bz2"`` for a compressed CSV name (``x.csv.gz``), else ``None``."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in _COMPRESSIONS and Path(p.stem).suffix.lower() == ".csv":
        return _COMPRESSIONS[suffix]
    return None


def table_format(path: str | os.PathLike, *, writing: bool = False) -> str:
    """Format name (``csv``, ``parquet``, ``arff``) from a file extension.

    A CSV file compressed with gzip or bzip2 (``.csv.gz``, ``.csv.bz2``) is read as CSV;
    ppdm writes plain files only (``writing=True`` refuses those names).

    Examples
    --------
    >>> table_format("census.csv.gz")
    'csv'
    >>> table_format("release.csv.gz", writing=True)
    Traceback (most recent call last):
    ...
    ppdm.exceptions.DataError: ppdm writes plain CSV, not gzip (got 'release.csv.gz'); name it .csv and compress the file afterwards
    """
    compression = csv_compression(path)
    if compression is not None:
        if writing:
            raise DataError(
                f"ppdm writes plain CSV, not {compression} (got {str(path)!r}); name it .csv "
                "and compress the file afterwards"
            )
        return "csv"
    suffix = Path(path).suffix.lower()
    if suffix not in _FORMATS:
        raise DataError(
            f"cannot tell the format of {str(path)!r} from its extension {suffix!r}; "
            "use .csv (.csv.gz and .csv.bz2 are read too), .parquet or .arff"
        )
    return _FORMATS[suffix]


def _open_bytes(path: Path):
    """The file's bytes, decompressed for a compressed CSV name."""
    compression = csv_compression(path)
    if compression == "gzip":
        import gzip

        return gzip.open(path, "rb")
    if compression == "bz2":
        import bz2

        return bz2.open(path, "rb")
    return open(path, "rb")


def is_glob(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a glob pattern of partition files (``data/part-*.parquet``)."""
    return any(ch in os.fspath(path) for ch in "*?[")


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
        files = [
            f
            for f in files
            if f.suffix.lower() in (".csv", ".parquet", ".pq") or csv_compression(f)
        ]
    elif is_glob(text):
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


#: Kinds a column can be read as: exact integers, floats, strings or booleans.
KINDS = ("int", "float", "str", "bool")

#: Key of ``DataFrame.attrs`` set on batches whose CSV columns are raw text, their kinds
#: not yet decided (:func:`iter_batches` with ``kinds="text"``).
TEXT_ATTR = "ppdm_raw_text"

# the missing-value spellings of pandas' CSV reader
_NA_VALUES = [
    "",
    "#N/A",
    "#N/A N/A",
    "#NA",
    "-1.#IND",
    "-1.#QNAN",
    "-NaN",
    "-nan",
    "1.#IND",
    "1.#QNAN",
    "<NA>",
    "N/A",
    "NA",
    "NULL",
    "NaN",
    "None",
    "n/a",
    "nan",
    "null",
]
# bytes per CSV block: a record longer than this is refused with one line
_CSV_BLOCK = 1 << 20


def check_regular_file(path: str | os.PathLike) -> Path:
    """``path`` as a Path, after checking that it is a regular file or a directory.

    FIFOs, sockets and devices (also behind a symlink, e.g. to ``/dev/zero``) are
    refused before anything is opened, so a read can neither hang nor run forever.

    Examples
    --------
    >>> check_regular_file("/dev/null")
    Traceback (most recent call last):
    ...
    ppdm.exceptions.DataError: input file '/dev/null' is not a regular file (it is a character device)
    """
    p = Path(path)
    try:
        mode = os.stat(p).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"input file {str(p)!r} does not exist") from None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return p
    if stat.S_ISFIFO(mode):
        what = "a FIFO"
    elif stat.S_ISCHR(mode):
        what = "a character device"
    elif stat.S_ISBLK(mode):
        what = "a block device"
    elif stat.S_ISSOCK(mode):
        what = "a socket"
    else:
        what = "not a file"
    raise DataError(f"input file {str(p)!r} is not a regular file (it is {what})")


def _arrow_type(kind: str):
    import pyarrow as pa

    types = {"int": pa.int64(), "float": pa.float64(), "str": pa.string(), "bool": pa.bool_()}
    if kind not in types:
        raise DataError(f"column kind must be one of {list(KINDS)} (got {kind!r})")
    return types[kind]


def numbers_of_text(array, kind: str):
    """``array`` of texts as ``kind`` (``"int"`` or ``"float"``), or None if some text is not
    such a number. Numbers written with a leading zero (``'00501'``) are codes, not numbers.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if kind == "int" and len(array) and pc.any(pc.match_substring(array, ".")).as_py():
        return None  # no integer is written with a point (and a failed cast is slow)
    try:
        out = pc.cast(array, _arrow_type(kind))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if len(array) and _has_leading_zero(array):
        return None
    return out


#: First bytes of a text that ``^\s*[+-]?0[0-9]`` can match (a byte lookup table) ...
_LEADING = np.isin(np.arange(256), np.frombuffer(b"0+- \t\n\r\f\v", dtype=np.uint8))
#: ... and the digits, which decide a text starting with a zero without the regex.
_DIGIT = (np.arange(256) >= ord("0")) & (np.arange(256) <= ord("9"))


def _has_leading_zero(array) -> bool:
    """Whether some text of ``array`` matches ``^\\s*[+-]?0[0-9]`` (a number with a leading
    zero); only the texts starting with a zero, a sign or a space go through the regex."""
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    for chunk in chunks:
        if len(chunk) == 0:
            continue
        if pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type):
            _, offsets, data = chunk.buffers()
            wide = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
            off = np.frombuffer(
                offsets, dtype=wide, count=len(chunk) + 1, offset=chunk.offset * wide(0).itemsize
            )
            if data is None or off[-1] == off[0]:
                continue
            raw = np.frombuffer(data, dtype=np.uint8)
            starts = off[:-1]
            first = raw[np.minimum(starts, len(raw) - 1)]
            mask = (off[1:] > starts) & _LEADING[first]
            if not mask.any():
                continue
            zero = mask & (first == ord("0"))  # '0...': a leading zero iff a digit follows
            if (
                zero & (off[1:] > starts + 1) & _DIGIT[raw[np.minimum(starts + 1, len(raw) - 1)]]
            ).any():
                return True
            mask &= ~zero
            if not mask.any():
                continue
            chunk = chunk.filter(pa.array(mask))
        if pc.any(pc.match_substring_regex(chunk, r"^\s*[+-]?0[0-9]")).as_py():
            return True
    return False


def infer_kind(array) -> str:
    """Kind of a column of text: ``"int"`` if every value is an integer, else ``"float"``
    if every value is a number, else ``"str"`` (missing values fit every kind; numbers
    with a leading zero, such as ``'00501'``, are strings).

    Examples
    --------
    >>> import pyarrow as pa
    >>> [infer_kind(pa.array(v)) for v in (["1", None], ["1", "2.5"], ["00501", "2"])]
    ['int', 'float', 'str']
    """
    for kind in ("int", "float"):
        if numbers_of_text(array, kind) is not None:
            return kind
    return "str"


def _cast_kind(array, kind: str):
    import pyarrow.compute as pc

    return array if kind == "str" else pc.cast(array, _arrow_type(kind))


def _csv_line(path: Path, expected: int) -> tuple[int, int] | None:
    """(1-based line, number of fields) of the first CSV record without ``expected`` fields."""
    import csv
    import io as _io

    with _io.TextIOWrapper(_open_bytes(path), newline="", encoding="utf-8", errors="replace") as fh:
        reader = csv.reader(fh)
        try:
            for record in reader:
                if record and len(record) != expected:
                    return reader.line_num, len(record)
        except csv.Error:
            return None
    return None


def _csv_value_at(path: Path, column: int, shown: str) -> tuple[str, int] | None:
    """(column name, 1-based data row) of the first value of column ``column`` (0-based)
    that Arrow showed as ``shown`` (its repr, quotes included), found by reading the file
    again as text: Arrow's conversion error names neither."""
    import csv
    import io as _io

    try:
        with _io.TextIOWrapper(
            _open_bytes(path), newline="", encoding="utf-8", errors="replace"
        ) as fh:
            reader = csv.reader(fh)
            header = next(reader, None)
            if header is None or column >= len(header):
                return None
            for row, record in enumerate(reader, start=1):
                if column < len(record) and repr(record[column]) == shown:
                    return header[column], row
    except (OSError, csv.Error, DataError):
        return None
    return None


def _separator_hint(path: Path) -> str:
    """For a CSV read as one column: what its header says about its separator (a
    European CSV: semicolons between fields, commas in its decimals)."""
    import io as _io

    try:
        with _io.TextIOWrapper(_open_bytes(path), encoding="utf-8", errors="replace") as fh:
            header = fh.readline(1 << 16)
    except (OSError, DataError):
        return ""
    for sep, word in ((";", "semicolons"), ("\t", "tabs")):
        if sep in header:
            return (
                f" (its header's fields look separated by {word}; ppdm reads comma-separated "
                "CSV: save it with commas and '.' decimals, or as Parquet)"
            )
    return ""


def _csv_error(path: Path, exc: Exception) -> Exception:
    """One line naming the file (and the line or column) for an Arrow CSV error.

    An operating-system error is returned as it is (the command line names its file),
    except the decompression errors of a ``.csv.gz`` or ``.csv.bz2`` file.
    """
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else type(exc).__name__
    name = str(path)
    if isinstance(exc, OSError):
        compression = csv_compression(path)
        if compression is None or isinstance(exc, FileNotFoundError):
            return exc
        return DataError(f"input file {name!r} is not a readable {compression} file: {text[:160]}")
    if "Empty CSV file" in text:
        return DataError(f"input file {name!r} is empty")
    m = re.search(r"Expected (\d+) columns, got (\d+)", text)
    if m:
        hint = _separator_hint(path) if m[1] == "1" else ""
        found = _csv_line(path, int(m[1]))
        if found is not None:
            return DataError(
                f"input file {name!r} line {found[0]} has {found[1]} fields; the header has "
                f"{m[1]}{hint}"
            )
        return DataError(
            f"input file {name!r} has a row of {m[2]} fields; the header has {m[1]}{hint}"
        )
    if "straddle" in text:
        return DataError(
            f"input file {name!r} has a row longer than {_CSV_BLOCK >> 20} MiB "
            "(or an unclosed quote); ppdm cannot read it"
        )
    m = re.search(r"conversion error to (\w+): invalid value (.*)$", text)
    if m:
        col = re.search(r"column #(\d+)", text)
        where = f" column #{int(col[1]) + 1}" if col else ""
        if col:
            found = _csv_value_at(path, int(col[1]), m[2])
            if found is not None:
                where = f" column {found[0]!r} data row {found[1]}"
        return DataError(
            f"input file {name!r}{where} has value {m[2][:40]}, which is not of type {m[1]}"
        )
    if "invalid UTF8" in text:
        col = re.search(r"column #(\d+)", text)
        where = f" (column #{int(col[1]) + 1})" if col else ""
        return DataError(
            f"input file {name!r} is not UTF-8 text{where}; save it as UTF-8 and try again"
        )
    return DataError(f"input file {name!r} cannot be read as CSV: {text[:200]}")


def _check_csv_bytes(path: Path) -> None:
    """Refuse a CSV file that is UTF-16 text, or that ends inside a quoted field.

    UTF-16 (Excel's 'Unicode text') starts with its byte-order mark; Arrow read it as
    one column of garbled text. Arrow's reader takes an unclosed quote as a field
    running to the end of the file: every row after it became part of one value,
    without a word. The file's last quote tells: a run of quotes that starts a field (after a comma, a line break or at the
    start) and is odd in length opens a field that nothing closes (an even run is an
    empty field, or one of escaped quotes, closed). A run inside a field ends one, or is
    a literal quote of an unquoted field. One search from the end, at memory speed.
    """
    import mmap

    info = path.stat()
    key = (os.path.realpath(path), info.st_ino, info.st_size, info.st_mtime_ns)
    if csv_compression(path) or info.st_size == 0 or key in _CSV_CHECKED:
        return  # a file read twice (a sketch pass, then the release) is searched once
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            raise DataError(
                f"input file {str(path)!r} is UTF-16 text; save it as UTF-8 CSV and try again"
            )
        what = _not_csv(data)
        if what is not None:
            raise DataError(f"input file {str(path)!r} is not CSV text but {what}")
        # a quote left open further back makes a field longer than Arrow's block, which
        # Arrow refuses itself: only the end of the file is searched (a huge or sparse
        # file is not read through, and the search never holds off a signal for long)
        last = data.rfind(b'"', max(0, len(data) - _QUOTE_WINDOW))
        if last < 0:
            return
        start = last
        while start > 0 and data[start - 1] == 0x22:  # the run of quotes ending there
            start -= 1
        if (last - start + 1) % 2 == 1 and (start == 0 or data[start - 1] in b",\r\n"):
            step = 1 << 26  # counted in slices: the file may be large
            line = 1 + sum(
                data[i : min(i + step, start)].count(b"\n") for i in range(0, start, step)
            )
            raise DataError(
                f"input file {str(path)!r} has a quote that is never closed (line {line}, "
                f"byte {start + 1}): the rest of the file would be read as one value; "
                "close the quote, or double a quote that is part of a value"
            )
    _CSV_CHECKED.add(key)


_CSV_CHECKED: set = set()
#: The end of a CSV file searched for a quote left open (see :func:`_check_csv_bytes`).
_QUOTE_WINDOW = 4 * _CSV_BLOCK


def _not_csv(data) -> str | None:
    """What a file is, by its magic numbers, when it is no CSV text (else None)."""
    if data[:2] == b"\x1f\x8b":
        return "gzip-compressed data: name it .csv.gz"
    if data[:3] == b"BZh" and data[3:4].isdigit() and data[4:10] == b"1AY&SY":
        return "bzip2-compressed data: name it .csv.bz2"
    if data[:4] == b"PK\x03\x04":
        return "a zip archive: extract it first"
    if data[:4] == b"PAR1" and data[-4:] == b"PAR1":
        return "a Parquet file: name it .parquet"
    return None


_SPACED_NOTED: set[str] = set()


def _spaced(names: list[str]) -> bool:
    """A header written with ``', '`` between names (as KEEL's files are): its values
    are too, and the spaces are dropped as pandas' ``skipinitialspace`` does."""
    return len(names) > 1 and all(n.startswith(" ") and n.strip(" ") for n in names[1:])


def _unspaced(table, given: dict):
    """``table`` (read as text) without the space after each separator; a value that is
    then missing (``' NA'``) is missing, a column with a given kind takes that kind."""
    import pyarrow as pa
    import pyarrow.compute as pc

    missing = pa.array(_NA_VALUES)
    arrays = []
    for name, col in zip(table.column_names, table.columns):
        col = pc.utf8_ltrim(col, characters=" ")
        col = pc.if_else(pc.is_in(col, value_set=missing), pa.scalar(None, pa.string()), col)
        kind = given.get(name)
        arrays.append(col if kind in (None, "int", "str") else pc.cast(col, _arrow_type(kind)))
    return type(table).from_arrays(arrays, names=table.column_names)


def names_as_read(path: str | os.PathLike, names: list[str]) -> list[str]:
    """``names`` as spelt in a CSV file written with ``', '`` (:func:`_spaced`): a name
    typed as in the file (``' class'``) finds its column, whose leading space is dropped.
    Other inputs keep the names as given."""
    p = Path(path)
    if not any(n.startswith(" ") for n in names) or not p.is_file():
        return names
    try:
        if table_format(p) != "csv":
            return names
    except (DataError, ValueError):
        return names
    return [n.lstrip(" ") for n in names] if _csv_header(p)[1] else names


def _csv_names(path: Path) -> list[str]:
    """The column names of a CSV file (see :func:`_csv_header`)."""
    return _csv_header(path)[0]


def _csv_header(path: Path) -> tuple[list[str], bool]:
    """The header (names, and whether they are written ``', '``) of a CSV file of a CSV file, refusing repeated column names, UTF-16 text and a quote
    never closed (:func:`_check_csv_bytes`).

    An empty name (a saved index) is named ``Unnamed: i`` as pandas does.
    """
    import pyarrow as pa
    import pyarrow.csv as pcsv

    _check_csv_bytes(path)

    try:
        reader = pcsv.open_csv(
            path,
            read_options=pcsv.ReadOptions(block_size=_CSV_BLOCK),
            parse_options=pcsv.ParseOptions(newlines_in_values=True),
            convert_options=pcsv.ConvertOptions(include_columns=[]),
        )
    except (pa.ArrowInvalid, UnicodeDecodeError, OSError) as exc:
        raise _csv_error(path, exc) from None
    names = [str(n) or f"Unnamed: {i}" for i, n in enumerate(reader.schema.names)]
    reader.close()
    spaced = _spaced(names)
    if spaced:
        names = [n.lstrip(" ") for n in names]
        if str(path) not in _SPACED_NOTED:
            _SPACED_NOTED.add(str(path))
            warnings.warn(
                f"input file {str(path)!r} has a space after each comma (', '); the spaces "
                "are dropped from its column names and values",
                stacklevel=2,
            )
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise DataError(
                f"input file {str(path)!r} has the column {n!r} more than once in its header; "
                "column names must be unique"
            )
        seen.add(n)
    if len(names) == 1:
        for sep, word in ((";", "semicolons"), ("\t", "tabs")):
            if names[0].count(sep) >= 1:
                raise DataError(
                    f"input file {str(path)!r} has one column, {names[0][:60]!r}, whose name "
                    f"holds {word}: its columns look separated by {word}; ppdm reads "
                    "comma-separated CSV (save it with commas and '.' decimals, or as Parquet)"
                )
    return names, spaced


def _csv_plan(path: Path, columns, kinds):
    """Arrow options reading every column as text, except those with a given kind."""
    import pyarrow.csv as pcsv

    names, spaced = _csv_header(path)
    wanted = names if columns is None else list(columns)
    if spaced:  # a name given as the file spells it (' class') is found too
        wanted = [c.lstrip(" ") for c in wanted]
    for c in wanted:
        if c not in names:
            raise DataError(f"input file {str(path)!r} has no column {c!r}")
    given = kinds if isinstance(kinds, dict) else {}
    # integers are read as text and converted by _csv_frame, which also takes a whole
    # number written as a float ('5.0', as pandas writes a float column)
    convert = pcsv.ConvertOptions(
        column_types={
            n: _arrow_type("str" if given.get(n) == "int" else given.get(n, "str")) for n in names
        },
        null_values=_NA_VALUES,
        strings_can_be_null=True,
        quoted_strings_can_be_null=True,
        include_columns=wanted,
    )
    if spaced:
        convert.column_types = {n: _arrow_type("str") for n in names}
    if spaced or any(n.startswith("Unnamed: ") for n in names):
        read = pcsv.ReadOptions(block_size=_CSV_BLOCK, column_names=names, skip_rows=1)
    else:
        read = pcsv.ReadOptions(block_size=_CSV_BLOCK)
    parse = pcsv.ParseOptions(newlines_in_values=True)
    return wanted, given, read, parse, convert, spaced


def _csv_frame(
    table, wanted: list[str], given: dict, kinds, path: Path, first_row: int = 0
) -> pd.DataFrame:
    """A text-read Arrow table as a DataFrame; columns without a kind are inferred here,
    columns of kind ``"int"`` converted (``first_row``: data rows before this table)."""
    if kinds != "text":
        arrays = []
        for name, col in zip(table.column_names, table.columns):
            kind = given.get(name)
            if kind == "int":
                col = _ints_of_text(col, name, path, first_row)
            elif kind is None:
                col = _cast_kind(col, infer_kind(col))
            arrays.append(col)
        table = table.from_arrays(arrays, names=table.column_names)
    frame = table.to_pandas()
    if kinds == "text":
        frame.attrs[TEXT_ATTR] = True
    return frame


def _ints_of_text(col, name: str, path: Path, first_row: int):
    """A CSV column's text as 64-bit integers: ``'5'``, or a whole number written as a
    float (``'5.0'``, exact up to 2**53); a missing value stays missing. Any other text is
    a :class:`DataError` naming the file, column, data row (1-based) and value."""
    import pyarrow as pa

    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    out = _whole_numbers(col)
    if out is not None:
        return out
    good, bad = 0, len(col)  # col[:good] converts, col[:bad] does not
    while bad - good > 1:
        mid = (good + bad) // 2
        if _whole_numbers(col.slice(0, mid)) is None:
            bad = mid
        else:
            good = mid
    raise DataError(
        f"input file {str(path)!r} column {name!r} data row {first_row + bad} has value "
        f"{col[bad - 1].as_py()!r}, which is not an integer"
    )


def _whole_numbers(col):
    """``col`` (text) as int64 if every text is an integer or a whole float, else None."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        return pc.cast(col, pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    try:
        floats = pc.cast(col, pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    x = floats.to_numpy(zero_copy_only=False)
    if not np.all(np.isnan(x) | ((x == np.round(x)) & (np.abs(x) <= 2.0**53))):
        return None
    return pc.cast(floats, pa.int64())


def _iter_csv(
    path: Path, batch_size: int, columns, kinds, allow_empty: bool = False
) -> Iterator[pd.DataFrame]:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    wanted, given, read, parse, convert, spaced = _csv_plan(path, columns, kinds)
    try:
        reader = pcsv.open_csv(
            path, read_options=read, parse_options=parse, convert_options=convert
        )
    except (pa.ArrowInvalid, UnicodeDecodeError, OSError) as exc:
        raise _csv_error(path, exc) from None
    buf: list = []
    n = rows = 0
    try:
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                break
            except (pa.ArrowInvalid, UnicodeDecodeError, OSError) as exc:
                raise _csv_error(path, exc) from None
            if spaced:
                batch = _unspaced(batch, given)
            while batch.num_rows:
                take = min(batch_size - n, batch.num_rows)
                buf.append(batch.slice(0, take))
                n += take
                batch = batch.slice(take)
                if n == batch_size:
                    yield _csv_frame(pa.Table.from_batches(buf), wanted, given, kinds, path, rows)
                    rows += n
                    buf, n = [], 0
        if n:
            yield _csv_frame(pa.Table.from_batches(buf), wanted, given, kinds, path, rows)
            rows += n
    finally:
        reader.close()
    if rows == 0 and not allow_empty:
        raise DataError(f"input file {str(path)!r} has a header but no rows")


def _read_csv_table(path: Path, columns, kinds):
    """The whole file as an Arrow table: text, except the columns with a given kind."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    wanted, given, read, parse, convert, spaced = _csv_plan(path, columns, kinds)
    try:
        table = pcsv.read_csv(path, read_options=read, parse_options=parse, convert_options=convert)
    except (pa.ArrowInvalid, UnicodeDecodeError, OSError) as exc:
        raise _csv_error(path, exc) from None
    if spaced:
        table = _unspaced(table, given)
    return table, wanted, given


def _read_csv(path: Path, columns, kinds, allow_empty: bool = False) -> pd.DataFrame:
    table, wanted, given = _read_csv_table(path, columns, kinds)
    if table.num_rows == 0 and not allow_empty:
        raise DataError(f"input file {str(path)!r} has a header but no rows")
    return _csv_frame(table, wanted, given, kinds, path)


def _read_csv_parts(path: Path, files: list[Path], columns, kinds) -> pd.DataFrame:
    """CSV partitions as one table, each column's kind decided over all of them."""
    import pyarrow as pa

    tables = []
    for f in files:
        table, wanted, given = _read_csv_table(f, columns, kinds)
        if tables and table.column_names != tables[0].column_names:
            raise DataError(
                f"partition {str(f)!r} has columns {table.column_names}; the first partition "
                f"of {str(path)!r} has {tables[0].column_names}"
            )
        if table.num_rows:  # an empty partition adds nothing
            ints = {n: _ints_of_text(table[n], n, f, 0) for n in wanted if given.get(n) == "int"}
            for n, col in ints.items():  # named by their own file and row
                table = table.set_column(table.column_names.index(n), n, col)
            tables.append(table)
    if not tables:
        raise DataError(f"every partition of {str(path)!r} is empty")
    return _csv_frame(pa.concat_tables(tables), wanted, given, kinds, path)


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


def _check_parquet(path: Path, schema, columns) -> None:
    for field in schema:
        if columns is not None and field.name not in columns:
            continue
        hint = _unsupported(field.type)
        if hint is not None:
            raise DataError(
                f"column {field.name!r} of {str(path)!r} has type {field.type}, which ppdm "
                f"cannot release; convert it to {hint}"
            )


def _parquet_file(path: Path, columns):
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
    _check_parquet(path, schema, columns)
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
    ``names`` or with a column more, or with a column of another kind than the first
    part's (integers in one, text in another). Footers only: no data is read.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 (a release is one table, however it is stored).
    """
    import pyarrow.types as pt

    first: tuple[Path, dict] | None = None
    for f in partition_files(path):
        if table_format(f) != "parquet":
            continue
        schema = _parquet_file(f, None).schema_arrow
        index = _stored_index(schema)
        cols = [str(n) for n in schema.names if n not in index]
        missing = [n for n in names if n not in cols]
        extra = [n for n in cols if n not in names]
        if missing or extra:
            what = (
                f"lacks {missing}" if missing else f"has columns its spec does not describe {extra}"
            )
            raise DataError(f"partition file {str(f)!r} {what}")
        kinds = {
            n: _footer_kind(t) or str(t)
            for n, t in zip(schema.names, schema.types)
            if n not in index and not pt.is_null(t)  # an empty part's column may be typeless
        }
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


def table_columns(path: str | os.PathLike) -> list[str]:
    """The column names of a CSV or Parquet file as the readers name them, from its
    header or footer alone (a stored pandas index is not a column).

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> with tempfile.TemporaryDirectory() as d:
    ...     pd.DataFrame({"a": [1], "b": [2]}).to_parquet(f"{d}/t.parquet")
    ...     table_columns(f"{d}/t.parquet")
    ['a', 'b']
    """
    path = check_regular_file(path)  # never opens a FIFO or a device
    if table_format(path) != "parquet":
        return _csv_names(path)
    schema = _parquet_file(path, None).schema_arrow
    index = _stored_index(schema)
    return [str(n) for n in schema.names if n not in index]


def _stored_index(schema) -> set[str]:
    """The columns of a Parquet schema that hold a stored pandas index, not data."""
    return {
        c for c in (schema.pandas_metadata or {}).get("index_columns", []) if isinstance(c, str)
    }


def parquet_rows(path: str | os.PathLike) -> int:
    """Rows of a Parquet file, from its footer; a damaged file is a :class:`DataError`
    naming it, as :func:`iter_batches` would raise."""
    return int(_parquet_file(Path(path), None).metadata.num_rows)


def parquet_kinds(path: str | os.PathLike) -> tuple[int, dict[str, str]] | None:
    """Row count and every column's kind of a Parquet file, from its footer alone.

    Known only if every column has a plain type (integer, float32/64, boolean, string,
    not dictionary-encoded), no column is a stored pandas index, the names are unique
    and the statistics of every row group state that no column holds a missing value;
    else ``None`` (the data must be read to learn them). A file ppdm cannot release
    raises the :class:`DataError` :func:`iter_batches` would.

    Returns
    -------
    (rows, kinds) or None
        ``kinds`` maps each column, in order, to ``"int"``, ``"float"``, ``"bool"`` or
        ``"str"``: the kind :func:`iter_batches`' batches have.
    """
    path = check_regular_file(path)
    if path.is_dir() or table_format(path) != "parquet":
        return None
    pf = _parquet_file(path, None)
    schema, meta = pf.schema_arrow, pf.metadata
    names = [str(n) for n in schema.names]
    if len(set(names)) != len(names) or meta.num_columns != len(names) or meta.num_rows == 0:
        return None
    pandas_meta = schema.pandas_metadata or {}
    if any(not isinstance(c, dict) for c in pandas_meta.get("index_columns", [])):
        return None
    kinds = {}
    for name, field in zip(names, schema):
        kind = _footer_kind(field.type)
        if kind is None:
            return None
        kinds[name] = kind
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for j in range(group.num_columns):
            stats = group.column(j).statistics
            if stats is None or not stats.has_null_count or stats.null_count != 0:
                return None
    return int(meta.num_rows), kinds


def count_csv_records(path: str | os.PathLike) -> int:
    """Records of a CSV file with a header, as :func:`iter_batches` reads them.

    Counts line ends (fast); a file whose line ends are not one per record (a quoted
    value holding a line break, a last line without its end) is counted by the CSV
    parser instead.
    """
    path = Path(path)
    lines, plain, last = 0, True, b"\n"
    with _open_bytes(path) as fh:
        while plain and (block := fh.read(1 << 24)):
            lines += block.count(b"\n")
            # a quote may hide a line break; an empty line is not a record
            plain = (
                b'"' not in block
                and b"\r" not in block
                and b"\n\n" not in block
                and not (last == b"\n" and block[:1] == b"\n")
            )
            last = block[-1:]
    if plain and last == b"\n" and lines >= 1:
        return lines - 1
    return sum(len(b) for b in _iter_csv(path, 1 << 20, None, "text", allow_empty=True))


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
            return _read_csv_parts(path, files, columns, kinds)
        return pd.concat([read_table(f, columns, kinds) for f in files], ignore_index=True)
    fmt = table_format(path)
    if fmt == "csv":
        frame = _read_csv(path, columns, kinds, allow_empty=allow_empty)
    elif fmt == "parquet":
        with _damaged_parquet(path):
            table = _parquet_file(path, columns).read(columns=columns)
        frame = table.to_pandas()
    else:
        frame = read_arff(path)
        if columns is not None:
            frame = frame[columns]
    return frame


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
                for batch in _iter_csv(f, int(batch_size), columns, kinds, allow_empty=True):
                    rows += len(batch)
                    yield batch
            else:
                for batch in iter_batches(f, batch_size, columns, kinds):
                    rows += len(batch)
                    yield batch
        if rows == 0:
            raise DataError(f"every partition of {str(path)!r} is empty")
        return
    fmt = table_format(path)
    if fmt == "csv":
        yield from _iter_csv(path, int(batch_size), columns, kinds)
    elif fmt == "parquet":
        pf = _parquet_file(path, columns)
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


# -- ARFF -----------------------------------------------------------------------------

# Weka's Utils.quote: these characters are backslash-escaped (and force quotes) ...
_ARFF_ESCAPES = {
    "\\": "\\\\",
    "'": "\\'",
    '"': '\\"',
    "\t": "\\t",
    "\n": "\\n",
    "\r": "\\r",
    "%": "\\%",
    "\u001e": "\\u001E",
}
_ARFF_ESCAPE_RE = re.compile("[" + re.escape("".join(_ARFF_ESCAPES)) + "]")
# ... and these only force quotes
_ARFF_SPECIAL = set(" ,{}?")


def arff_quote(text: str) -> str:
    """``text`` as one ARFF token, quoted and escaped as Weka's ``Utils.quote`` does.

    Examples
    --------
    >>> [arff_quote(t) for t in ("a", "a b", "it's", "", "?", "x\\ny")]
    ['a', "'a b'", "'it\\\\'s'", "''", "'?'", "'x\\\\ny'"]

    References
    ----------
    Weka 3.6, ``weka.core.Utils.quote`` and ``backQuoteChars``.
    """
    text = str(text)
    escaped = _ARFF_ESCAPE_RE.sub(lambda m: _ARFF_ESCAPES[m.group(0)], text)
    if escaped != text or text == "" or any(ch in _ARFF_SPECIAL for ch in text):
        return "'" + escaped + "'"
    return text


# kept for callers of the old private name
_arff_quote = arff_quote


def label_text(value) -> str:
    """A value as a label: ``1``, ``1.0`` and ``np.int64(1)`` are ``'1'`` (an integer code
    read back as a float where values are missing)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # an integer code read back as float (missing values)
    return str(value)


def _is_nominal(series: pd.Series) -> bool:
    return (
        pd.api.types.is_bool_dtype(series)
        or isinstance(series.dtype, pd.CategoricalDtype)
        or not pd.api.types.is_numeric_dtype(series)
    )


def _declared(series: pd.Series, given) -> list[str]:
    uniq = pd.unique(series.dropna())
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        uniq = sorted(uniq)
    else:
        uniq = sorted(uniq, key=str)
    vals = [label_text(v) for v in uniq]
    if given is not None:  # the given values in their order, then any other that occurs
        vals = [label_text(v) for v in given] + vals
    return list(dict.fromkeys(vals))


def _arff_column(name: str, series: pd.Series, nominal: bool) -> list[str]:
    values = series.to_numpy(dtype=object)
    missing = pd.isna(series).to_numpy()
    if nominal:
        cache: dict = {}
        out = []
        for v, m in zip(values, missing):
            if m:
                out.append("?")
                continue
            key = (type(v), v)
            text = cache.get(key)
            if text is None:
                text = cache[key] = arff_quote(label_text(v))
            out.append(text)
        return out
    if pd.api.types.is_integer_dtype(series):
        return [str(int(v)) for v in values]
    x = series.to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(x).any():
        raise DataError(f"column {name!r} has an infinite value, which ARFF cannot hold")
    return ["?" if m else repr(float(v)) for v, m in zip(x.tolist(), np.isnan(x).tolist())]


def write_arff(
    frame: pd.DataFrame,
    path: str | os.PathLike,
    relation: str = "ppdm",
    nominal: list[str] | None = None,
    *,
    categories: dict | None = None,
    weights=None,
) -> None:
    """Write a DataFrame as Weka ARFF (the one ARFF writer of ppdm).

    Non-numeric (string, boolean, categorical) columns are NOMINAL attributes; so are
    the columns named in ``nominal`` or ``categories`` whatever their type, e.g. an
    integer-coded class or attribute. Every name and value is quoted and escaped by
    Weka's rules (:func:`arff_quote`), so commas, quotes, newlines, ``%`` and braces
    cannot break the file. Missing values are ``?``.

    Parameters
    ----------
    frame : DataFrame
    path : path-like
    relation : str, default="ppdm"
    nominal : list of str, optional
        Columns to write as nominal (declared values sorted).
    categories : dict of column -> sequence, optional
        Declared values of nominal columns, in this order (implies nominal).
    weights : sequence of float, optional
        Weka instance weights, written as ``{w}`` after every row.

    References
    ----------
    Weka 3.6 ARFF format (``weka.core.converters.ArffLoader``).
    """
    categories = dict(categories or {})
    nominal_set = set(nominal or []) | set(categories)
    unknown = [c for c in nominal_set if c not in frame.columns]
    if unknown:
        raise DataError(f"nominal column {unknown[0]!r} is not in the table")
    header = [f"@relation {arff_quote(relation)}", ""]
    columns = []
    for name in frame.columns:
        s = frame[name]
        is_nom = name in nominal_set or _is_nominal(s)
        if is_nom:
            vals = _declared(s, categories.get(name))
            kind = "{" + ",".join(arff_quote(v) for v in vals) + "}"
        else:
            kind = "numeric"
        header.append(f"@attribute {arff_quote(str(name))} {kind}")
        columns.append(_arff_column(str(name), s, is_nom))
    header += ["", "@data"]
    w = None if weights is None else [repr(float(x)) for x in weights]
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(header) + "\n")
        for i, row in enumerate(zip(*columns)):
            line = ",".join(row)
            fh.write(line + (f",{{{w[i]}}}\n" if w is not None else "\n"))


_ARFF_UNESCAPE_RE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)
_ARFF_UNESCAPES = {v[1:]: k for k, v in _ARFF_ESCAPES.items()}


_ARFF_QUOTE_ESCAPE_RE = re.compile(r"\\(.)", re.DOTALL)
_ARFF_QUOTE_CODES = {"'": r"\x27", '"': r"\x22"}


def _arff_unescape_one(match: re.Match) -> str:
    code = match.group(1)
    if code in _ARFF_UNESCAPES:
        return _ARFF_UNESCAPES[code]
    if len(code) > 1:  # \xNN, \uNNNN, \UNNNNNNNN: a character by its code
        return chr(int(code[1:], 16))
    return code


def arff_unescape(text: str) -> str:
    r"""``text`` (a name or value inside ARFF quotes) with Weka's escapes undone (the
    inverse of :func:`arff_quote` once the quotes are gone), and ``\xNN``, ``\uNNNN``
    and ``\UNNNNNNNN`` read as the characters they code.

    Examples
    --------
    >>> arff_unescape(r"it\'s \% x\ny Z\xfcrich")
    "it's % x\ny Zürich"
    """
    return _ARFF_UNESCAPE_RE.sub(_arff_unescape_one, text)


def read_arff(path: str | os.PathLike) -> pd.DataFrame:
    """Read a (dense) ARFF file, as UTF-8 text; nominal attributes become strings,
    numeric ones floats, and names and values lose Weka's escapes (what
    :func:`write_arff` writes reads back the same)."""
    from io import StringIO

    from scipy.io import arff

    path = check_regular_file(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(
            f"input file {str(path)!r} is not UTF-8 text (byte {exc.start + 1})"
        ) from None
    # scipy keeps nominal values as ASCII bytes: every other character goes through as
    # its escape (backslash, x, fc), read back by arff_unescape with Weka's own escapes
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    # and so does a quote escaped inside quotes (scipy's reader ends the token there)
    text = _ARFF_QUOTE_ESCAPE_RE.sub(lambda m: _ARFF_QUOTE_CODES.get(m.group(1), m.group(0)), text)
    try:
        data, meta = arff.loadarff(StringIO(text))
    except NotImplementedError as exc:  # scipy reads no string, date or relational type
        raise DataError(
            f"input file {str(path)!r}: {str(exc).split(',')[0]} (ppdm reads numeric and "
            "nominal ARFF attributes)"
        ) from None
    except (ValueError, arff.ArffError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DataError(f"input file {str(path)!r} is not a readable ARFF file: {first}") from None
    frame = pd.DataFrame(data)
    for name, kind in zip(meta.names(), meta.types()):
        if kind == "nominal":
            col = frame[name].str.decode("utf-8")
            frame[name] = col.where(col != "?", None).map(arff_unescape, na_action="ignore")
    frame.columns = [arff_unescape(name) for name in frame.columns]
    return frame


# -- CSV writing ------------------------------------------------------------------------

# a text field holding one of these is quoted by pandas' (Python's) CSV writer
_CSV_QUOTED = r'[,"\r\n]'


def _float_text(values: np.ndarray):
    """float64 values as Arrow text spelled as ``numpy.ndarray.astype(str)`` spells them
    (``1.0``, ``1e-05``, ``10000000000.0``); NaN is null."""
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
    """``(distinct, index)`` with ``distinct[index]`` bit for bit ``values``, when a long
    array holds at most one distinct value in 16; else None. Compared as bit patterns,
    so ``-0.0`` and ``0.0`` stay apart."""
    n = len(values)
    if n < 4096 or len(np.unique(values[:1024].view(np.int64))) > 64:
        return None
    index, distinct = pd.factorize(values.view(np.int64))
    if len(distinct) > n // 16:
        return None
    return np.asarray(distinct).view(np.float64), index


def _csv_text(series: pd.Series):
    """One column as Arrow text spelled as :meth:`pandas.DataFrame.to_csv` spells it, or
    None if it needs pandas' writer (a type without a fast path, a field to quote)."""
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
    ``frame.to_csv(fh, header=header, index=False)`` would (UTF-8, ``\\n`` line ends).

    Numbers, booleans and strings without a character to quote are formatted and
    written by Arrow; any other batch falls back to pandas' writer, so the bytes never
    depend on the path taken.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    arrays = None
    if not isinstance(frame.columns, pd.MultiIndex):
        arrays = []
        for name in frame.columns:
            text = _csv_text(frame[name]) if frame.columns.is_unique else None
            if text is None:
                arrays = None
                break
            arrays.append(text)
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
    """Write ``frame`` to ``path`` as CSV, Parquet or ARFF (format from ``fmt`` or the extension).

    ``relation``, ``nominal`` (columns written as nominal attributes, e.g. an
    integer-coded class) and ``categories`` (their declared values) are for ARFF; see
    :func:`write_arff`.
    """
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
    from .publish import publish_file

    return publish_file(path, suffix=suffix)


def write_table_atomic(frame: pd.DataFrame, path: str | os.PathLike, **kwargs) -> None:
    """:func:`write_table` through a temporary file renamed into place on success."""
    if csv_compression(path):
        table_format(path, writing=True)  # refused: ppdm writes plain files
    fmt = kwargs.pop("fmt", None) or table_format(path)
    with atomic_path(path) as tmp:
        write_table(frame, tmp, fmt=fmt, **kwargs)


def _arrow_batch(frame: pd.DataFrame, schema):
    """``frame`` as an Arrow table of ``schema`` (the first batch's, pandas metadata and
    all): plain NumPy number columns go straight to Arrow (NaN as null, as pandas
    converts them), anything else through :meth:`pyarrow.Table.from_pandas`."""
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


class BatchWriter:
    """Append DataFrame batches to one CSV or Parquet file.

    Parquet row groups hold :data:`ROW_GROUP_ROWS` rows (the last one the rest),
    however the rows come in batches: the same rows give the same bytes.

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
        self._held: list = []  # Arrow tables not yet written, fewer than a row group
        self._held_rows = 0

    def write(self, frame: pd.DataFrame) -> None:
        """Append ``frame`` (the first batch also writes the CSV header)."""
        if self.fmt == "csv":
            if self._fh is None:
                self._fh = open(self.path, "wb")
            write_csv_batch(frame, self._fh, header=self._first)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            if self._writer is None:
                table = pa.Table.from_pandas(frame, preserve_index=False)
                self._writer = pq.ParquetWriter(self.path, table.schema)
            else:
                table = _arrow_batch(frame, self._writer.schema)
            self._held.append(table)
            self._held_rows += table.num_rows
            if self._held_rows >= ROW_GROUP_ROWS:
                self._flush(final=False)
        self._first = False

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

    def __enter__(self) -> BatchWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
