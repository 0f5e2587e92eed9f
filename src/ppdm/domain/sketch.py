"""A column summarised in one pass (its kind, distinct values, bounds), and the domain
ppdm infers from it under the owner's rule.

References
----------
Dowd, Xu & Zhang, Sec. 7 (choice of N).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from ..exceptions import BoundsLeakWarning, DomainError, OptionError
from ..io import numbers_of_text
from ..limits import MAX_VALUES
from .domains import (
    BinnedDomain,
    CategoricalDomain,
    Domain,
    Representative,
    first_bad_row,
    missing_error,
    missing_mask,
)

#: Distinct texts kept for a CSV column that has held only numbers so far: enough to make
#: it categorical over its texts if a later value is not a number.
RAW_CAP = 10_000


def _merge_kind(a: str | None, b: str | None) -> str | None:
    if a is None or b is None or a == b:
        return b or a
    return "float" if {a, b} <= {"int", "float"} else "str"


def _kind_of(series: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(series):
        return "bool"
    if pd.api.types.is_integer_dtype(series):
        return "int"
    if pd.api.types.is_numeric_dtype(series):
        return "float"
    return "str"


def _check_releasable(series: pd.Series, column: str) -> None:
    """Refuse, by name, column types a release cannot hold or read back."""
    dtype = series.dtype
    hint = None
    if pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype):
        hint = "a number (e.g. seconds since 1970) or a string"
    elif isinstance(dtype, (pd.PeriodDtype, pd.IntervalDtype)):
        hint = "a number or a string"
    elif pd.api.types.is_complex_dtype(dtype):
        hint = "two float columns"
    elif pd.api.types.is_object_dtype(dtype):
        inferred = pd.api.types.infer_dtype(series, skipna=True)
        if inferred in ("decimal",):
            hint = "a float, or a string to keep it exact"
        elif inferred in ("datetime", "datetime64", "date", "time", "timedelta", "period"):
            hint = "a number (e.g. seconds since 1970) or a string"
        elif inferred in ("bytes", "complex", "interval"):
            hint = "a string"
        elif inferred == "mixed":
            first = series.dropna().map(type).drop_duplicates().tolist()
            odd = [t for t in first if t not in (str, int, float, bool)]
            if odd:
                dtype = odd[0].__name__
                hint = "a number or a string"
    if hint is not None:
        raise DomainError(
            f"column {column!r} has type {dtype}, which ppdm cannot release; convert it to {hint}"
        )


def canonical_values(values: list) -> list:
    """Categorical values in the order a release lists them: sorted (by text if mixed)."""
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=str)


@dataclass(frozen=True)
class DomainRule:
    """How a column's domain is chosen from its data: the parameters of
    :func:`infer_domain` of the same names.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3.2 and Sec. 7.
    """

    n_bins: int | None = None
    max_bins: int = 20
    bounds: tuple[float, float] | None = None
    representative: Representative = "center"
    missing: Literal["error", "category"] = "error"
    out_of_bounds: Literal["error", "clip"] = "error"

    @property
    def n(self) -> int:
        """N: ``n_bins`` if given, else ``max_bins``."""
        return int(self.n_bins) if self.n_bins is not None else int(self.max_bins)


class ConstantColumnError(DomainError):
    """A column to perturb holds one value (or none): its domain cannot come from the data."""


# what to do with a column of one value: its domain cannot be taken from the data
_CONSTANT_HINT = (
    "nothing to perturb; name the other columns in --attributes (attributes=[...]) to "
    "release it as it is, or give its domain (--bounds, or a spec)"
)


#: A categorical column whose domain would be taken from the data is refused as an
#: identifier when it has at least this many distinct values, more than half its rows.
IDENTIFIER_VALUES = 100


def looks_like_identifier(distinct: int, rows: int) -> bool:
    """Whether a categorical column of ``distinct`` values in ``rows`` rows looks like an
    identifier (at least :data:`IDENTIFIER_VALUES` values, more than half its rows), whose
    domain taken from the data would list its values in the public spec."""
    return distinct >= IDENTIFIER_VALUES and distinct > rows / 2


class DomainSketch:
    """One-pass summary of a column, enough to choose its domain without holding the data.

    Feed batches with :meth:`update`; :meth:`to_domain` applies the rules of
    :func:`infer_domain`. Memory is bounded for numeric columns (at most ``cap`` distinct
    values are kept); categorical columns keep their distinct values.
    """

    def __init__(self, column: str = "?", cap: int = 20) -> None:
        self.column = column
        self.cap = int(cap)
        self.rows = 0
        self.numeric: bool | None = None
        self.low = math.inf
        self.high = -math.inf
        self.integer = True
        self.values: set = set()
        self.overflow = False
        self.first_missing: int | None = None
        #: how the column is read back: "int", "float", "str" or "bool" (None: no data yet)
        self.kind: str | None = None
        self.raw: set | None = set()
        self.flip: tuple[int, object] | None = None

    def _from_text(self, series: pd.Series) -> pd.Series:
        """Numbers if this and every earlier batch of raw CSV text were numbers, else text."""
        import pyarrow as pa
        import pyarrow.compute as pc

        arr = pa.array(series, from_pandas=True)
        if not pa.types.is_string(arr.type) and not pa.types.is_large_string(arr.type):
            arr = pc.cast(arr, pa.string())
        if self.kind != "str":
            for kind in ("float",) if self.kind == "float" else ("int", "float"):
                num = numbers_of_text(arr, kind)
                if num is None:
                    continue
                self.kind = kind
                if self.raw is not None:
                    self.raw.update(pc.unique(arr.drop_null()).to_pylist())
                    if len(self.raw) > RAW_CAP:
                        self.raw = None
                return num.to_pandas()
            # the column is not numeric after all: it is categorical over its texts
            if self.numeric:
                if self.raw is None:
                    bad = pd.to_numeric(series, errors="coerce").isna() & series.notna()
                    row = first_bad_row(bad.to_numpy(), 0)
                    self.flip = (row + self.rows, series.iloc[row])
                    self.values = set()
                else:
                    self.values = set(self.raw)
                self.overflow = False
            self.kind = "str"
            self.raw = None
        return series

    def update(self, values: pd.Series | np.ndarray, *, text: bool = False) -> DomainSketch:
        """Fold in the next batch of the column.

        ``text=True`` says the values are raw CSV text whose kind is decided over all
        batches: the column is numeric only if every batch is, else categorical over
        its texts (so ``'00501'`` stays a string).
        """
        series = values if isinstance(values, pd.Series) else pd.Series(values)
        if text:
            series = self._from_text(series)
        else:
            _check_releasable(series, self.column)
            self.kind = _merge_kind(self.kind, _kind_of(series)) if len(series) else self.kind
        miss = missing_mask(series)
        if miss.any() and self.first_missing is None:
            self.first_missing = first_bad_row(miss, self.rows)
        start = self.rows
        self.rows += len(series)
        present = series[~miss]
        is_num = pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)
        if not len(present):
            return self
        if self.numeric is None or (self.numeric and not is_num):
            self.numeric = is_num
        if is_num and self.numeric:
            if pd.api.types.is_integer_dtype(present):
                x = present.to_numpy()  # integers stay exact (no float64 rounding above 2**53)
            else:
                x = present.to_numpy(dtype=np.float64)
                infinite = np.isinf(x)
                if infinite.any():  # no bin holds it, and it is no category either
                    row = first_bad_row(np.isinf(series.to_numpy(dtype=np.float64)), start)
                    raise DomainError(
                        f"column {self.column!r} data row {row + 1} has value "
                        f"{x[infinite][0]:g}: an infinite number has no place in a domain; "
                        "remove it, or leave the cell empty (missing)"
                    )
                # a whole number beyond 64 bits is read as a float, not as an integer code
                self.integer = self.integer and bool(
                    np.all((x == np.round(x)) & (np.abs(x) < 2.0**63))
                )
            self.low = min(self.low, float(x.min()))
            self.high = max(self.high, float(x.max()))
            if not self.overflow:  # integers by hashing (sorting is slower), floats sorted
                uniq = pd.unique(x) if x.dtype.kind in "iu" else np.unique(x)
                if len(uniq) <= self.cap:  # never build a set of a continuous column
                    self.values.update(uniq.tolist())
                if len(uniq) > self.cap or len(self.values) > self.cap:
                    self.overflow = True
                    self.values = set()
        else:
            try:
                self.values.update(pd.unique(present.to_numpy()).tolist())
            except TypeError:
                raise DomainError(
                    f"column {self.column!r} holds values such as "
                    f"{str(present.iloc[0])[:40]!r} that are not numbers or strings"
                ) from None
        return self

    def merge(self, other: DomainSketch) -> DomainSketch:
        """Fold in the sketch of the rows that follow (partition by partition, in order):
        the sketch of their concatenation, so partitions can be summarised in parallel."""
        out = DomainSketch(self.column, cap=self.cap)
        out.rows = self.rows + other.rows
        if self.first_missing is not None:
            out.first_missing = self.first_missing
        elif other.first_missing is not None:
            out.first_missing = other.first_missing + self.rows
        kinds = [k for k in (self.numeric, other.numeric) if k is not None]
        out.numeric = None if not kinds else all(kinds)
        out.low = min(self.low, other.low)
        out.high = max(self.high, other.high)
        out.integer = self.integer and other.integer
        out.kind = _merge_kind(self.kind, other.kind)
        out.raw = None if self.raw is None or other.raw is None else self.raw | other.raw
        out.flip = self.flip or (
            (other.flip[0] + self.rows, other.flip[1]) if other.flip is not None else None
        )
        out.overflow = self.overflow or other.overflow
        out.values = set() if out.overflow and out.numeric else self.values | other.values
        if out.numeric is False and (self.numeric or other.numeric):
            # numbers in one part, text in another: categorical over texts, as one file
            # of both would be read (a part's numbers as the texts they were written)
            texts: set = set()
            for side in (self, other):
                if not side.numeric:
                    texts |= side.values
                elif side.raw:  # the CSV texts it read
                    texts |= side.raw
                elif side.values and not side.overflow:  # numbers of a typed file
                    texts |= {str(v) for v in side.values}
                elif out.flip is None:  # too many numbers to list: said at to_domain
                    text_side, at = (other, self.rows) if side is self else (self, 0)
                    out.flip = (at, next(iter(text_side.values), "?"))
            out.values, out.overflow = texts, False
        if out.numeric and len(out.values) > out.cap:
            out.overflow = True
            out.values = set()
        return out

    def to_domain(self, rule: DomainRule = DomainRule(), *, warn: bool = True) -> Domain:
        """The domain ``rule`` chooses for the data seen so far (see :func:`infer_domain`)."""
        column = self.column
        if self.rows == 0:
            raise DomainError(f"column {column!r} is empty: cannot infer its domain")
        n = rule.n
        bounds, missing = rule.bounds, rule.missing
        if n < 2:
            raise DomainError(f"the number of bins N must be >= 2 (got {n}) for column {column!r}")
        if self.numeric is None:
            raise ConstantColumnError(
                f"column {column!r} has only missing values: {_CONSTANT_HINT}"
            )
        if self.first_missing is not None and missing != "category":
            raise missing_error(column, self.first_missing + 1)
        cat = missing == "category"
        if not self.numeric and self.flip is not None:
            row, value = self.flip
            raise DomainError(
                f"column {column!r} data row {row + 1} has value {str(value)[:40]!r}, but the rows before "
                f"it hold more than {RAW_CAP} distinct numbers; fix the value, or give the "
                "column's domain in a spec"
            )
        if not self.numeric and bounds is not None:
            raise OptionError(
                "bounds",
                f"bounds are given for column {column!r}, which is categorical (text values "
                f"such as {min(map(str, self.values), default='?')[:40]!r}); bounds apply to numeric "
                "columns only: drop them for this column",
            )
        if not self.numeric:
            if looks_like_identifier(len(self.values), self.rows):
                raise DomainError(
                    f"column {column!r} has {len(self.values):,} distinct values in "
                    f"{self.rows:,} rows: it looks like an identifier, and a domain taken from "
                    "the data would list its values in the public spec; drop it from the "
                    "table, or give its domain (the value list) in a spec"
                )
            if len(self.values) + cat > MAX_VALUES:
                raise DomainError(
                    f"column {column!r} has {len(self.values):,} distinct values, above the cap "
                    f"of {MAX_VALUES:,} values per attribute (ppdm.limits.MAX_VALUES); "
                    "generalise it (fewer categories), or drop it from the table"
                )
            if len(self.values) + cat < 2:
                raise ConstantColumnError(
                    f"column {column!r} has a single value {str(min(self.values))[:40]!r}: "
                    f"{_CONSTANT_HINT}"
                )
            vals = canonical_values(list(self.values))
            if warn:
                warnings.warn(
                    f"column {column!r}: categorical values taken from the data; the release "
                    "spec lists them (give the value list in a spec to avoid this)",
                    BoundsLeakWarning,
                    stacklevel=3,
                )
            return CategoricalDomain(tuple(vals), missing_category=cat, from_data=True)
        if bounds is None:
            if self.integer and not self.overflow and len(self.values) <= n:
                uniq = sorted(self.values)
                if len(uniq) < 2:
                    raise ConstantColumnError(
                        f"column {column!r} has a single value {uniq[0]!r}: {_CONSTANT_HINT}"
                    )
                if warn:
                    warnings.warn(
                        f"column {column!r}: its {len(uniq)} distinct values were taken from the "
                        "data and are listed in the release spec (they reveal its min and max)",
                        BoundsLeakWarning,
                        stacklevel=3,
                    )
                return CategoricalDomain(
                    tuple(int(v) for v in uniq), missing_category=cat, from_data=True
                )
            if self.low == self.high:
                raise ConstantColumnError(
                    f"column {column!r} is constant ({self.low}): {_CONSTANT_HINT}"
                )
        low, high = (
            (self.low, self.high) if bounds is None else (float(bounds[0]), float(bounds[1]))
        )
        try:
            domain = BinnedDomain(
                low,
                high,
                n,
                representative=rule.representative,
                out_of_bounds=rule.out_of_bounds,
                missing_category=cat,
                bounds_from_data=bounds is None,
            )
        except DomainError as exc:
            raise DomainError(f"column {column!r}: {exc}") from None
        if warn and bounds is None:
            warnings.warn(
                f"column {column!r}: bounds [{self.low}, {self.high}] taken from the data; the "
                "release spec reveals its min and max (give --bounds to avoid this)",
                BoundsLeakWarning,
                stacklevel=3,
            )
        return domain


def infer_domain(
    values: pd.Series | np.ndarray,
    *,
    column: str = "?",
    n_bins: int | None = None,
    max_bins: int = 20,
    bounds: tuple[float, float] | None = None,
    representative: Representative = "center",
    missing: Literal["error", "category"] = "error",
    out_of_bounds: Literal["error", "clip"] = "error",
    warn: bool = True,
) -> Domain:
    """Choose a domain for one column.

    Non-numeric columns are categorical over their sorted distinct values. A numeric
    column with owner ``bounds`` is binned into ``n_bins`` (default ``max_bins``) bins.
    Without bounds, an integer-valued column with ``d <= N`` distinct values is
    categorical with N = d (Sec. 7); any other numeric column is binned over its min
    and max, with a :class:`~ppdm.exceptions.BoundsLeakWarning`.

    Parameters
    ----------
    values : Series or ndarray
    column : str
        Name used in messages.
    n_bins : int, optional
        N for a binned domain; also the largest d kept as categorical.
    max_bins : int, default=20
        N when ``n_bins`` is not given.
    bounds : (float, float), optional
        Owner-chosen ``(low, high)``.
    representative, missing, out_of_bounds
        See :class:`BinnedDomain`.
    warn : bool, default=True
        Warn when bounds or values are read off the data.

    Returns
    -------
    CategoricalDomain or BinnedDomain

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     infer_domain(pd.Series([1, 2, 3, 2]), column="x").values
    (1, 2, 3)

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3.2 and Sec. 7.
    """
    rule = DomainRule(n_bins, max_bins, bounds, representative, missing, out_of_bounds)
    sketch = DomainSketch(column, cap=max(rule.n, 2)).update(values)
    return sketch.to_domain(rule, warn=warn)
