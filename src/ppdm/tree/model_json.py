"""The JSON of ppdm's model files: scalars and labels written, fields read back with every
type and length checked. Shared by the C4.5 model files (:mod:`.persist`) and the release
learners' (:mod:`.release_persist`)."""

from __future__ import annotations

import numpy as np

from ..exceptions import DataError

SCALARS = (str, int, float, bool)


class Invalid(Exception):
    """A model document breaks a rule; the message says which."""


def plain(value, what: str):
    """``value`` as a JSON scalar (numpy scalars unwrapped); refuse anything else."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, SCALARS):
        return value
    raise DataError(
        f"cannot save the model: {what} holds {value!r} of type {type(value).__name__}; "
        "model files keep only strings, numbers and booleans"
    )


def labels_to_json(values, what: str) -> dict:
    arr = np.asarray(values)
    return {"dtype": arr.dtype.str, "values": [plain(v, what) for v in arr.tolist()]}


def get(doc: dict, key: str, kind, where: str = ""):
    if not isinstance(doc, dict) or key not in doc:
        raise Invalid(f"missing field {where}{key!r}")
    value = doc[key]
    if kind is not None and not isinstance(value, kind):
        raise Invalid(f"field {where}{key!r} has the wrong type ({type(value).__name__})")
    return value


def int_array(values, name: str, n: int | None = None) -> np.ndarray:
    if not isinstance(values, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in values
    ):
        raise Invalid(f"tree.{name} must be a list of integers")
    if n is not None and len(values) != n:
        raise Invalid(f"tree.{name} has {len(values)} entries; expected {n}")
    return np.asarray(values, dtype=np.int64).reshape(len(values))


def number_array(
    values, name: str, n: int, width: int | None = None, what: str = "numbers"
) -> np.ndarray:
    """``n`` numbers (or ``n`` rows of ``width``), finite and >= 0, as a float array."""
    rows = values if width is not None else [values]
    ok = isinstance(values, list) and len(values) == n
    ok = ok and all(
        isinstance(r, list)
        and (width is None or len(r) == width)
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in r)
        for r in rows
    )
    if not ok:
        shape = f"{n} rows of {width} numbers" if width is not None else f"{n} numbers"
        raise Invalid(f"{name} must be {shape}")
    out = np.array(values, dtype=float)
    if not np.isfinite(out).all() or (out < 0).any():
        raise Invalid(f"{name} must hold finite {what} >= 0")
    return out


def bool_array(values, name: str, n: int) -> np.ndarray:
    if not isinstance(values, list) or not all(isinstance(v, bool) for v in values):
        raise Invalid(f"{name} must be a list of true/false")
    if len(values) != n:
        raise Invalid(f"{name} has {len(values)} entries; expected {n}")
    return np.asarray(values, dtype=bool).reshape(n)


def labels_from_json(doc, what: str) -> np.ndarray:
    dtype = get(doc, "dtype", str, f"{what}.")
    values = get(doc, "values", list, f"{what}.")
    if not all(isinstance(v, SCALARS) for v in values):
        raise Invalid(f"{what} must hold strings, numbers or booleans only")
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise Invalid(f"{what} has an unknown dtype {dtype[:40]!r}") from None
    if dt.kind not in "biufUO" or dt.itemsize > 4096:
        raise Invalid(f"{what} has an unsupported dtype {dtype[:40]!r}")
    try:
        arr = np.empty(len(values), dtype=dt)
        arr[:] = values
    except (TypeError, ValueError, OverflowError):
        raise Invalid(f"{what} values do not fit dtype {dtype[:40]!r}") from None
    return arr
