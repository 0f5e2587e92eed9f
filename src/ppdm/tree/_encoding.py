"""Turning DataFrames and arrays into the float matrix the tree works on.

Numeric columns keep their values; categorical columns become category codes
(stored as floats); NaN marks a missing value in both.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..exceptions import DataError

__all__ = ["FeatureEncoding", "fit_encoding"]


def _is_categorical_dtype(dtype) -> bool:
    return (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_bool_dtype(dtype)
        or not pd.api.types.is_numeric_dtype(dtype)
    )


def _plain_numeric(frame: pd.DataFrame) -> np.ndarray | None:
    """``frame`` as floats in one conversion when every column has a NumPy int or
    float dtype and no value is infinite; None otherwise (encode column by column)."""
    if not all(isinstance(dt, np.dtype) and dt.kind in "fiu" for dt in frame.dtypes):
        return None
    out = frame.to_numpy(dtype=float)
    return None if np.isinf(out).any() else out


def _as_frame(X) -> tuple[pd.DataFrame, bool]:
    if isinstance(X, pd.DataFrame):
        return X, True
    if sp.issparse(X):
        raise DataError(
            "sparse input is not supported by C45Classifier; convert it with X.toarray()"
        )
    if isinstance(X, pd.Series):
        raise DataError(
            "X must be 2-D (a DataFrame or an array of shape (n_samples, n_features)); got a Series"
        )
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise DataError(
            f"X must be 2-D, of shape (n_samples, n_features); got an array of shape {arr.shape}. "
            "Reshape your data with X.reshape(-1, 1) for a single feature "
            "or X.reshape(1, -1) for a single sample"
        )
    if np.iscomplexobj(arr):
        raise DataError("Complex data not supported: X holds complex numbers")
    return pd.DataFrame(arr, columns=[f"x{i}" for i in range(arr.shape[1])]), False


@dataclass
class FeatureEncoding:
    """The columns seen by ``fit``: ``names`` (``x0, x1, ...`` for arrays), ``categorical``,
    ``categories`` (None for numeric ones) and whether ``fit`` saw a DataFrame."""

    names: list[str]
    categorical: np.ndarray
    categories: list = field(default_factory=list)
    from_frame: bool = False

    @property
    def n_categories(self) -> np.ndarray:
        return np.array([0 if c is None else len(c) for c in self.categories], dtype=np.int64)

    def transform(self, X, *, warn_unknown: bool = True) -> np.ndarray:
        """Encode ``X`` with the columns and categories seen by ``fit``.

        A category not seen by ``fit`` becomes a missing value (C4.5 then sends the
        row down every branch) and triggers a ``UserWarning`` naming the column.
        """
        frame, is_frame = _as_frame(X)
        if is_frame and self.from_frame:
            given = [str(c) for c in frame.columns]
            missing = [c for c in self.names if c not in given]
            extra = [c for c in given if c not in self.names]
            if missing or extra:
                raise DataError(
                    f"X has different columns than at fit: missing {missing}, unexpected {extra}"
                )
            frame = frame.set_axis(given, axis=1)
            if given != self.names:
                frame = frame[self.names]
        elif frame.shape[1] != len(self.names):
            raise DataError(
                f"X has {frame.shape[1]} features, but C45Classifier is expecting "
                f"{len(self.names)} features as input"
            )
        else:
            frame = frame.set_axis(self.names, axis=1)
        if not self.categorical.any():
            plain = _plain_numeric(frame)
            if plain is not None:
                return plain
        out = np.empty(frame.shape, dtype=float)
        for j, name in enumerate(self.names):
            col = frame[name]
            if self.categorical[j]:
                out[:, j] = _codes(col, self.categories[j], name, warn_unknown)
            else:
                out[:, j] = _numeric(col, name)
        return out


def _numeric(col: pd.Series, name: str) -> np.ndarray:
    if isinstance(col.dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(col):
        converted = pd.to_numeric(col, errors="coerce")
        bad = converted.isna() & col.notna()
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise DataError(
                f"column {name!r} data row {row + 1} holds {col.iloc[row]!r}, which is not a "
                "number, but the tree was fit with the column numeric; fix the value, or fit "
                "with it categorical (--categorical, categorical_features)"
            )
        col = converted
    values = col.to_numpy(dtype=float, na_value=np.nan)
    if np.isinf(values).any():
        raise DataError(f"column {name!r} holds an infinite value; use NaN for a missing value")
    return values


def _codes(col: pd.Series, categories, name: str, warn_unknown: bool) -> np.ndarray:
    present = col.notna().to_numpy()
    codes = np.full(len(col), -1.0)
    codes[present] = pd.Index(categories, dtype=object).get_indexer(col[present].astype(object))
    unknown = (codes < 0) & present
    if unknown.any() and warn_unknown:
        examples = pd.unique(col[unknown])[:3]
        warnings.warn(
            f"column {name!r} has {int(unknown.sum())} value(s) not seen at fit "
            f"(e.g. {list(examples)!r}); they are treated as missing",
            UserWarning,
            stacklevel=4,
        )
    codes[codes < 0] = np.nan
    return codes


def _categories(col: pd.Series) -> np.ndarray:
    if isinstance(col.dtype, pd.CategoricalDtype):
        return np.asarray(col.cat.categories, dtype=object)
    values = pd.unique(col.dropna())
    try:
        values = sorted(values)
    except TypeError:
        values = list(values)
    return np.asarray(values, dtype=object)


def _resolve_categorical(frame: pd.DataFrame, spec) -> np.ndarray:
    d = frame.shape[1]
    names = [str(c) for c in frame.columns]
    if spec is None or (isinstance(spec, str) and spec == "auto"):
        return np.array([_is_categorical_dtype(dt) for dt in frame.dtypes], dtype=bool)
    spec = list(spec)
    if spec and all(isinstance(s, (bool, np.bool_)) for s in spec):
        if len(spec) != d:
            raise DataError(
                f"categorical_features as a mask must have {d} entries (one per column); got {len(spec)}"
            )
        return np.asarray(spec, dtype=bool)
    mask = np.zeros(d, dtype=bool)
    for s in spec:
        if isinstance(s, (int, np.integer)):
            if not -d <= s < d:
                raise DataError(f"categorical_features index {s} is out of range for {d} columns")
            mask[s] = True
        elif str(s) in names:
            mask[names.index(str(s))] = True
        else:
            raise DataError(f"categorical_features names {s!r}, which is not a column of X")
    return mask


def fit_encoding(X, categorical_features=None) -> tuple[FeatureEncoding, np.ndarray]:
    """Learn column kinds and categories from ``X`` (``categorical_features`` as
    :class:`~ppdm.tree.C45Classifier` takes it); return the encoding and ``X`` encoded."""
    frame, is_frame = _as_frame(X)
    for axis, what in enumerate(("sample", "feature")):
        if frame.shape[axis] == 0:
            raise DataError(
                f"Found array with 0 {what}(s) (shape={frame.shape}) while a minimum of 1 is "
                "required."
            )
    names = [str(c) for c in frame.columns]
    if len(set(names)) != len(names):
        raise DataError(
            f"X has duplicate column names: {sorted({n for n in names if names.count(n) > 1})}"
        )
    categorical = _resolve_categorical(frame, categorical_features)
    categories = [
        _categories(frame.iloc[:, j]) if categorical[j] else None for j in range(len(names))
    ]
    enc = FeatureEncoding(names, categorical, categories, is_frame)
    return enc, enc.transform(
        frame.set_axis(names, axis=1) if is_frame else frame, warn_unknown=False
    )
