"""Per-session workspace, table loading and one-line messages shared by both pages."""

from __future__ import annotations

import re
import shutil
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import DataError, ParameterError, PpdmError
from ..validation import check_interval

__all__ = [
    "Workspace",
    "message",
    "page_text",
    "read_upload",
    "read_path",
    "extract_release",
    "percent",
    "plain",
    "parse_list",
    "parse_bounds",
    "whole_number",
]

#: What a user's action may raise: the library's errors and the file system's. Anything
#: else is a fault of the app and is not turned into a message.
USER_ERRORS = (PpdmError, OSError)
#: Reading a table also meets the readers' own errors (pandas, pyarrow: ValueErrors).
READ_ERRORS = (*USER_ERRORS, ValueError)


TABLE_SUFFIXES = (".csv", ".gz", ".bz2", ".parquet", ".pq", ".arff")  # the file pickers' filter


class Workspace:
    """A private temporary directory of one browser session, removed when it ends."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="ppdm-app-"))  # mode 0700

    def fresh(self, name: str) -> Path:
        """An empty new directory in the workspace."""
        return Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.path))

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


#: The page's control for a command-line flag a message names; any other flag is the
#: command line's own (the page has no such control), and the message says so.
PAGE_CONTROLS = {
    "--gamma": "'gamma'",
    "--bins": "'N'",
    "--class": "'Class attribute'",
    "--seed": "'seed'",
    "--bounds": "'your bounds low:high'",
    "--epsilon-record": "'epsilon per record'",
}
#: The command line's advice the page follows another way: what to do in the page.
PAGE_ADVICE = {
    r"widen the bounds or use --out-of-bounds clip": (
        "widen 'your bounds low:high' of that column, or leave them empty to take them "
        "from the data"
    ),
    r"fill it, or use --missing category to make 'missing' its own category": (
        "fill it in your table and open the table again"
    ),
    r"give --bounds to avoid this": "type 'your bounds low:high' to avoid this",
    # the library's names of the owner's per-attribute gammas and per-record budget
    "the spec's matrices": "the gammas typed per attribute",
    "epsilon_record": "'epsilon per record'",
}
#: A library keyword or name in parentheses after a flag: "(out_of_bounds='clip')".
_LIBRARY_NAME = re.compile(r" \((?:\w+=[^)]*|ppdm\.[\w.]+)\)")
#: A whole number printed as a float: 67.0 (not 1.05, 2.0e5 or a version 1.0.2).
_WHOLE = re.compile(r"(?<![\w.])(-?\d+)\.0+(?![\w.])")
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
_QUOTED = re.compile(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")


def page_text(text: str) -> str:
    """``text`` in the page's words: :data:`PAGE_ADVICE`, flags as the page's controls (or
    "the command line's --flag"), no library keyword, whole numbers without ``.0``.
    """

    def name(match: re.Match) -> str:
        flag = match.group(0)
        return PAGE_CONTROLS.get(flag, f"the command line's {flag}")

    text = _LIBRARY_NAME.sub("", text)
    for advice, instead in PAGE_ADVICE.items():
        text = text.replace(advice, instead)
    # quoted parts are the data's (a column named '--x'): left as they are
    parts = _QUOTED.split(text)
    return "".join(
        p if i % 2 else _WHOLE.sub(r"\1", _FLAG.sub(name, p)) for i, p in enumerate(parts)
    )


def message(exc: BaseException, context: str | None = None) -> str:
    """One line for the page: the exception's first line, truncated, in :func:`page_text`."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, KeyError) and exc.args:
        text = str(exc.args[0])
    if isinstance(exc, UnicodeDecodeError):
        text = "not a text table (cannot decode it as UTF-8)"
    text = page_text(text)
    if len(text) > 400:
        text = text[:397] + "..."
    return f"{context}: {text}" if context else text


def percent(x: float) -> str:
    """A fraction as the page prints it: 0.8123 -> "81.2%"."""
    return f"{100 * x:.1f}%"


def plain(value) -> object:
    """A plain Python value for messages and tables (never ``np.int64(3)``)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def _read(path: Path, name: str) -> pd.DataFrame:
    from ..io import read_table, table_format

    try:
        table_format(name)
    except DataError:
        suffix = "".join(Path(name).suffixes[-2:]).lower()
        raise DataError(
            f"{name!r} is not a table ppdm reads: use .csv (.csv.gz, .csv.bz2), .parquet or "
            f".arff (got {suffix or 'no suffix'!r})"
        ) from None
    try:
        frame = read_table(path)
    except READ_ERRORS as exc:
        # the message names the file as the owner knows it, not the server's copy
        text = message(exc, f"cannot read {name!r}").replace(repr(str(path)), repr(name))
        raise DataError(text.replace(str(path), name)) from None
    if frame.empty or frame.shape[1] == 0:
        raise DataError(f"{name!r} holds no records")
    frame.columns = [str(c) for c in frame.columns]
    return frame


def read_upload(upload: dict, workspace: Workspace) -> tuple[pd.DataFrame, str]:
    """Read one uploaded table; the upload is moved into the session's workspace."""
    name = Path(upload["name"]).name
    target = workspace.fresh("upload") / name
    shutil.move(upload["datapath"], target)
    _drop_upload_dir(upload["datapath"])
    return _read(target, name), name


def _drop_upload_dir(datapath: str) -> None:
    """Remove the web server's (now empty) folder of an upload: no copy stays behind."""
    try:
        Path(datapath).parent.rmdir()
    except OSError:
        pass


def read_path(text: str) -> tuple[pd.DataFrame, str]:
    """Read a table from a path typed by the user (never modified)."""
    path = Path(text.strip()).expanduser()
    if not text.strip():
        raise ParameterError("type the path of a .csv, .parquet or .arff file")
    if not path.is_file():
        raise DataError(f"file {str(path)!r} does not exist")
    return _read(path, str(path)), path.name


def extract_release(upload: dict, workspace: Workspace) -> Path:
    """Unpack a release zip into the workspace; return the folder holding ``spec.json``."""
    name = Path(upload["name"]).name
    target = workspace.fresh("release-in")
    try:
        with zipfile.ZipFile(upload["datapath"]) as zf:
            for member in zf.namelist():
                p = Path(member)
                if p.is_absolute() or ".." in p.parts:
                    raise DataError(f"{name!r} holds an unsafe path {member!r}")
            zf.extractall(target)
    except zipfile.BadZipFile:
        raise DataError(f"{name!r} is not a zip file (a release is a zip or a folder)") from None
    finally:
        Path(upload["datapath"]).unlink(missing_ok=True)
        _drop_upload_dir(upload["datapath"])
    specs = sorted(target.rglob("spec.json"), key=lambda p: len(p.parts))
    if not specs:
        raise DataError(f"{name!r} holds no spec.json: it is not a ppdm release")
    return specs[0].parent


def parse_list(text: str, what: str, kind: type = float) -> list:
    """Numbers (``kind``: float or int) separated by commas or semicolons."""
    noun = "integers" if kind is int else "numbers"
    try:
        out = [kind(x) for x in str(text).replace(";", ",").split(",") if x.strip()]
    except ValueError:
        raise ParameterError(f"{what} must be {noun} separated by commas (got {text!r})") from None
    if not out:
        raise ParameterError(f"{what} needs at least one value")
    return out


def whole_number(value, what: str, low: int) -> int:
    """A numeric field's value as an int ``>= low``, never silently rounded."""
    if value is None or value != int(value) or value < low:
        raise ParameterError(f"{what} must be a whole number >= {low} (got {value!r})")
    return int(value)


def parse_bounds(text: str | None, column: str) -> tuple[float, float] | None:
    """``"20:81"`` -> (20.0, 81.0); empty -> None (bounds taken from the data)."""
    if text is None or not str(text).strip():
        return None
    parts = str(text).replace(",", ":").split(":")
    try:
        low, high = (float(p) for p in parts)
    except ValueError:
        raise ParameterError(
            f"bounds of column {column!r} must look like low:high, e.g. 20:81 (got {text!r})"
        ) from None
    return check_interval(low, high, f"bounds of column {column!r}", error=ParameterError)
