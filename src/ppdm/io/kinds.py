"""Column kinds (int, float, str, bool): inferred from text and cast, as every reader
decides them.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import DataError

#: Kinds a column can be read as: exact integers, floats, strings or booleans.
KINDS = ("int", "float", "str", "bool")


#: Key of ``DataFrame.attrs`` set on batches whose CSV columns are raw text, their kinds
#: not yet decided (:func:`iter_batches` with ``kinds="text"``).
TEXT_ATTR = "ppdm_raw_text"


# the missing-value spellings of pandas' CSV reader
NA_VALUES = [
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
CSV_BLOCK = 1 << 20


def arrow_type(kind: str):
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
        out = pc.cast(array, arrow_type(kind))
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
    """
    for kind in ("int", "float"):
        if numbers_of_text(array, kind) is not None:
            return kind
    return "str"
