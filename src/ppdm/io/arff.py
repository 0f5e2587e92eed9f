"""ARFF (Weka's format): reading, writing, quoting and escaping."""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd

from ..exceptions import DataError
from .files import check_regular_file

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


def label_text(value) -> str:
    """A value as a label: ``1``, ``1.0`` and ``np.int64(1)`` are ``'1'``."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # an integer code read back as float (missing values)
    return str(value)


def _declared(series: pd.Series, given) -> list[str]:
    numeric = pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)
    vals = [label_text(v) for v in sorted(pd.unique(series.dropna()), key=None if numeric else str)]
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
    """Write a DataFrame as Weka ARFF, every name and value quoted and escaped by Weka's rules
    (:func:`arff_quote`); missing values are ``?``.

    Parameters
    ----------
    nominal : list of str, optional
        Columns written as nominal whatever their type (declared values sorted); non-numeric
        columns always are.
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
        is_nom = (
            name in nominal_set
            or pd.api.types.is_bool_dtype(s)
            or isinstance(s.dtype, pd.CategoricalDtype)
            or not pd.api.types.is_numeric_dtype(s)
        )
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
            fh.write(",".join(row) + (f",{{{w[i]}}}\n" if w is not None else "\n"))


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
    r"""``text`` (inside ARFF quotes) with Weka's escapes undone, and ``\xNN``, ``\uNNNN``
    and ``\UNNNNNNNN`` read as the characters they code.

    Examples
    --------
    >>> arff_unescape(r"it\'s \% x\ny Z\xfcrich")
    "it's % x\ny Zürich"
    """
    return _ARFF_UNESCAPE_RE.sub(_arff_unescape_one, text)


def read_arff(path: str | os.PathLike) -> pd.DataFrame:
    """Read a dense UTF-8 ARFF file: nominal attributes as strings, numeric ones as floats,
    Weka's escapes undone (what :func:`write_arff` writes reads back the same).
    """
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
