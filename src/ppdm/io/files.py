"""Table files: their format from the name, partitioned directories and globs, and the
check that a path is a regular file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..exceptions import DataError

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
    """Format name (``csv``, ``parquet``, ``arff``) from a file extension; ``.csv.gz`` and
    ``.csv.bz2`` are read as CSV, and refused with ``writing=True``.

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


def open_bytes(path: Path):
    """The file's bytes, decompressed for a compressed CSV name."""
    import bz2
    import gzip

    return {"gzip": gzip.open, "bz2": bz2.open}.get(csv_compression(path), open)(path, "rb")


def is_glob(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a glob pattern of partition files (``data/part-*.parquet``)."""
    return any(ch in os.fspath(path) for ch in "*?[")


def partition_files(path: str | os.PathLike) -> list[Path]:
    """The data files of a partitioned table (a directory, hidden files skipped; a glob; or a
    single file), sorted by name, all of one format.
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


_SPECIAL = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def check_regular_file(path: str | os.PathLike) -> Path:
    """``path`` as a Path, if it is a regular file or a directory: a FIFO, socket or device
    (also behind a link) is refused before it is opened, so a read can neither hang nor
    run forever.
    """
    p = Path(path)
    try:
        mode = os.stat(p).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"input file {str(p)!r} does not exist") from None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return p
    what = next((w for test, w in _SPECIAL if test(mode)), "not a file")
    raise DataError(f"input file {str(p)!r} is not a regular file (it is {what})")
