"""Reading CSV with Arrow: the header, the kinds, batch by batch, and errors that name the
row, column and value.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import DataError
from .files import csv_compression, open_bytes, table_format
from .kinds import CSV_BLOCK, NA_VALUES, TEXT_ATTR, arrow_type, infer_kind


def _text(path: Path):
    """The file as text (decompressed), a byte that is no UTF-8 replaced."""
    import io

    return io.TextIOWrapper(open_bytes(path), newline="", encoding="utf-8", errors="replace")


def _csv_line(path: Path, expected: int) -> tuple[int, int] | None:
    """(1-based line, number of fields) of the first CSV record without ``expected`` fields."""
    import csv

    with _text(path) as fh:
        reader = csv.reader(fh)
        try:
            for record in reader:
                if record and len(record) != expected:
                    return reader.line_num, len(record)
        except csv.Error:
            return None
    return None


def _csv_value_at(path: Path, column: int, shown: str) -> tuple[str, int] | None:
    """(column name, 1-based data row) of the first value of column ``column`` (0-based) whose
    repr is ``shown``: Arrow's conversion error names neither.
    """
    import csv

    try:
        with _text(path) as fh:
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
    """For a CSV read as one column: what its header says about its separator."""
    try:
        with _text(path) as fh:
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
    """One line naming the file (and the line or column) for an Arrow CSV error."""
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
            f"input file {name!r} has a row longer than {CSV_BLOCK >> 20} MiB "
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

    Arrow reads UTF-16 as one garbled column, and an unclosed quote as a field running to
    the end of the file. The last run of quotes tells: one that starts a field and is odd in
    length opens a field nothing closes.
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
        # Arrow refuses itself: only the end of the file is searched
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
_QUOTE_WINDOW = 4 * CSV_BLOCK


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


def _unspaced(table, given: dict):
    """``table`` (read as text) without the space after each separator; ``' NA'`` is missing."""
    import pyarrow as pa
    import pyarrow.compute as pc

    missing = pa.array(NA_VALUES)
    arrays = []
    for name, col in zip(table.column_names, table.columns):
        col = pc.utf8_ltrim(col, characters=" ")
        col = pc.if_else(pc.is_in(col, value_set=missing), pa.scalar(None, pa.string()), col)
        kind = given.get(name)
        arrays.append(col if kind in (None, "int", "str") else pc.cast(col, arrow_type(kind)))
    return type(table).from_arrays(arrays, names=table.column_names)


def names_as_read(path: str | os.PathLike, names: list[str]) -> list[str]:
    """``names`` as spelt in a CSV file written with ``', '``: ``' class'`` finds its column."""
    p = Path(path)
    if not any(n.startswith(" ") for n in names) or not p.is_file():
        return names
    try:
        if table_format(p) != "csv":
            return names
    except (DataError, ValueError):
        return names
    return [n.lstrip(" ") for n in names] if _csv_header(p)[1] else names


def csv_names(path: Path) -> list[str]:
    """The column names of a CSV file (see :func:`_csv_header`)."""
    return _csv_header(path)[0]


def _csv_header(path: Path) -> tuple[list[str], bool]:
    """The header (names, and whether written ``', '``) of a CSV file, checked
    (:func:`_check_csv_bytes`, no repeated name); an empty name is ``Unnamed: i``.
    """
    import pyarrow as pa
    import pyarrow.csv as pcsv

    _check_csv_bytes(path)

    try:
        reader = pcsv.open_csv(
            path,
            read_options=pcsv.ReadOptions(block_size=CSV_BLOCK),
            parse_options=pcsv.ParseOptions(newlines_in_values=True),
            convert_options=pcsv.ConvertOptions(include_columns=[]),
        )
    except (pa.ArrowInvalid, UnicodeDecodeError, OSError) as exc:
        raise _csv_error(path, exc) from None
    names = [str(n) or f"Unnamed: {i}" for i, n in enumerate(reader.schema.names)]
    reader.close()
    # written with ', ' between names (as KEEL's files are): its values are too, and the
    # spaces are dropped as pandas' skipinitialspace does
    spaced = len(names) > 1 and all(n.startswith(" ") and n.strip(" ") for n in names[1:])
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
            n: arrow_type("str" if spaced or given.get(n) == "int" else given.get(n, "str"))
            for n in names
        },
        null_values=NA_VALUES,
        strings_can_be_null=True,
        quoted_strings_can_be_null=True,
        include_columns=wanted,
    )
    if spaced or any(n.startswith("Unnamed: ") for n in names):
        read = pcsv.ReadOptions(block_size=CSV_BLOCK, column_names=names, skip_rows=1)
    else:
        read = pcsv.ReadOptions(block_size=CSV_BLOCK)
    parse = pcsv.ParseOptions(newlines_in_values=True)
    return wanted, given, read, parse, convert, spaced


def _csv_frame(
    table, wanted: list[str], given: dict, kinds, path: Path, first_row: int = 0
) -> pd.DataFrame:
    """A text-read Arrow table as a DataFrame, its columns of kind ``"int"`` or none converted."""
    if kinds != "text":
        import pyarrow.compute as pc

        arrays = []
        for name, col in zip(table.column_names, table.columns):
            kind = given.get(name)
            if kind == "int":
                col = _ints_of_text(col, name, path, first_row)
            elif kind is None:
                kind = infer_kind(col)
                col = col if kind == "str" else pc.cast(col, arrow_type(kind))
            arrays.append(col)
        table = table.from_arrays(arrays, names=table.column_names)
    frame = table.to_pandas()
    if kinds == "text":
        frame.attrs[TEXT_ATTR] = True
    return frame


def _ints_of_text(col, name: str, path: Path, first_row: int):
    """A CSV column's text as 64-bit integers (a whole float too, exact up to 2**53), or a
    :class:`DataError` naming the file, column, data row and value.
    """
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


def iter_csv(
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


def read_csv(path: Path, columns, kinds, allow_empty: bool = False) -> pd.DataFrame:
    table, wanted, given = _read_csv_table(path, columns, kinds)
    if table.num_rows == 0 and not allow_empty:
        raise DataError(f"input file {str(path)!r} has a header but no rows")
    return _csv_frame(table, wanted, given, kinds, path)


def read_csv_parts(path: Path, files: list[Path], columns, kinds) -> pd.DataFrame:
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


def count_csv_records(path: str | os.PathLike) -> int:
    """Records of a CSV file with a header, as :func:`iter_batches` reads them."""
    path = Path(path)
    lines, plain, last = 0, True, b"\n"
    with open_bytes(path) as fh:
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
    return sum(len(b) for b in iter_csv(path, 1 << 20, None, "text", allow_empty=True))
