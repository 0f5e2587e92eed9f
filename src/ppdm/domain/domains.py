"""An attribute's domain: the N values a perturbed attribute takes, categorical or binned,
and the codes of its values.

References
----------
Dowd, Xu & Zhang, Sec. 3.2 (continuous attributes binned into N intervals).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from ..exceptions import DomainError
from ..random import RandomState, check_random_state
from ..validation import show

#: Label of the "missing" category when the owner makes missing values a category.
MISSING = "__missing__"


Representative = Literal["center", "left", "right", "random"]


def first_bad_row(mask: np.ndarray, offset: int) -> int:
    return int(np.flatnonzero(mask)[0]) + offset


#: Significant digits of a released bin representative or edge.
SIGNIFICANT_DIGITS = 12


def _places(x: float) -> int:
    """Decimals of ``x`` written with at most 12 significant digits (0.1 + 0.2 -> 1)."""
    exponent = Decimal(format(float(x), f".{SIGNIFICANT_DIGITS}g")).normalize().as_tuple().exponent
    return max(0, -int(exponent))


def _at_precision(x: float, places: int) -> float:
    """``x`` rounded to ``places`` decimals and to at most 12 significant digits."""
    return float(format(round(float(x), places), f".{SIGNIFICANT_DIGITS}g"))


def missing_error(column: str, row: int) -> DomainError:
    """The refusal of a missing value at 1-based data ``row`` of a column without a
    missing category."""
    return DomainError(
        f"column {column!r} has a missing value at data row {row}; fill it, or use --missing "
        "category (missing='category') to make 'missing' its own category"
    )


def _py(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def missing_mask(values: pd.Series | np.ndarray) -> np.ndarray:
    return np.asarray(pd.isna(values), dtype=bool)


@dataclass(frozen=True)
class CategoricalDomain:
    """A finite list of ``values`` in code order; N = ``len(values)``.

    ``missing_category`` adds a last category for a missing value; ``from_data`` says
    the list was read off the data (a release then reveals which values occur).
    """

    values: tuple
    missing_category: bool = False
    from_data: bool = False
    kind: str = field(default="categorical", init=False)

    def __post_init__(self) -> None:
        vals = tuple(self.values)
        if len(set(vals)) != len(vals):
            raise DomainError(f"categorical domain has repeated values: {list(vals)}")
        object.__setattr__(self, "values", vals)
        if self.n_values < 2:
            raise DomainError(
                f"a domain needs N >= 2 values to be perturbed (got N = {self.n_values}: {list(vals)})"
            )

    @property
    def n_values(self) -> int:
        """N, the number of codes (including the missing category if any)."""
        return len(self.values) + int(self.missing_category)

    def encode(
        self, values: pd.Series | np.ndarray, *, column: str = "?", row_offset: int = 0, **_: Any
    ) -> np.ndarray:
        """Codes of ``values``; unknown or missing values raise :class:`DomainError`."""
        series = values if isinstance(values, pd.Series) else pd.Series(np.asarray(values, object))
        missing = missing_mask(series)
        index = pd.Index(self.values)
        codes = index.get_indexer(series.where(~missing, None))
        if self.missing_category:
            codes = np.where(missing, len(self.values), codes)
        elif missing.any():
            raise missing_error(column, first_bad_row(missing, row_offset) + 1)
        bad = codes < 0
        if bad.any():
            row = first_bad_row(bad, row_offset)
            raise DomainError(
                f"column {column!r} data row {row + 1} has value "
                f"{show(series.iloc[row - row_offset], 60)}, which is not in its domain {show([_py(v) for v in self.values], 200)}"
            )
        return codes.astype(np.int32)

    def decode(self, codes: np.ndarray, random_state: RandomState = None) -> np.ndarray:
        """Values of ``codes`` (the missing category decodes to ``None``)."""
        table = np.empty(self.n_values, dtype=object)  # the missing category's code: None
        table[: len(self.values)] = self.values
        out = table[np.asarray(codes)]
        if self.missing_category:
            return out
        if all(isinstance(v, (bool, np.bool_)) for v in self.values):
            return out.astype(bool)
        if all(
            isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
            for v in self.values
        ):
            return out.astype(np.int64)
        if all(isinstance(v, (float, int, np.number)) for v in self.values):
            return out.astype(np.float64)
        return out

    def labels(self) -> list[str]:
        """Printable label of every code."""
        out = [str(v) for v in self.values]
        return out + ["<missing>"] if self.missing_category else out

    def to_spec(self) -> dict:
        return {
            "kind": "categorical",
            "values": [_py(v) for v in self.values],
            "missing_category": self.missing_category,
            "from_data": self.from_data,
        }


@dataclass(frozen=True)
class BinnedDomain:
    """Equi-width bins ``[l_i, u_i)`` over ``[low, high]``.

    Parameters
    ----------
    low, high : float
        Domain bounds, ``low < high``. The last bin is closed so ``high`` is encodable.
    representative : {"center", "left", "right", "random"}, default="center"
        Value a code decodes to.
    out_of_bounds : {"error", "clip"}, default="error"
        What to do with a value outside ``[low, high]``.
    missing_category : bool, default=False
        Add a last code for missing values (decodes to NaN).
    bounds_from_data : bool, default=False
        The bounds are the data's min and max, which a release then reveals.
    """

    low: float
    high: float
    n_bins: int
    representative: Representative = "center"
    out_of_bounds: Literal["error", "clip"] = "error"
    missing_category: bool = False
    bounds_from_data: bool = False
    kind: str = field(default="binned", init=False)

    def __post_init__(self) -> None:
        if not (isinstance(self.n_bins, (int, np.integer)) and self.n_bins >= 2):
            raise DomainError(f"n_bins (N) must be an integer >= 2 (got {show(self.n_bins, 60)})")
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low < self.high):
            raise DomainError(
                f"bounds must be finite with low < high (got low={self.low}, high={self.high})"
            )
        if not math.isfinite(self.high - self.low):
            raise DomainError(
                f"bounds [{self.low}, {self.high}] are too far apart: the bin width "
                f"({self.high} - {self.low}) / {self.n_bins} overflows; narrow the bounds"
            )
        if self.representative not in get_args(Representative):
            raise DomainError(
                f"representative must be one of {get_args(Representative)} "
                f"(got {self.representative!r})"
            )
        if self.out_of_bounds not in ("error", "clip"):
            raise DomainError(
                f"out_of_bounds must be 'error' or 'clip' (got {self.out_of_bounds!r})"
            )

    @property
    def n_values(self) -> int:
        return int(self.n_bins) + int(self.missing_category)

    @property
    def width(self) -> float:
        return (self.high - self.low) / self.n_bins

    @property
    def edges(self) -> np.ndarray:
        """The N + 1 bin edges."""
        return np.linspace(self.low, self.high, self.n_bins + 1)

    def encode(
        self, values: pd.Series | np.ndarray, *, column: str = "?", row_offset: int = 0, **_: Any
    ) -> np.ndarray:
        """Bin index of every value, after the missing and out-of-bounds rules."""
        try:
            x = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            series = pd.Series(values)
            num = pd.to_numeric(series, errors="coerce")
            bad = num.isna() & series.notna()
            row = first_bad_row(bad.to_numpy(), row_offset)
            raise DomainError(
                f"column {column!r} data row {row + 1} has non-numeric value "
                f"{show(series.iloc[row - row_offset], 60)}; a binned domain needs numbers"
            ) from None
        # two reductions decide the common case (no missing value, all in bounds)
        # without a mask per condition; the masks are built only when needed
        lo = np.minimum.reduce(x) if len(x) else 0.0  # NaN when a value is missing
        hi = np.maximum.reduce(x) if len(x) else 0.0
        missing = np.isnan(x) if np.isnan(lo) else None
        if missing is not None and not self.missing_category:
            raise missing_error(column, first_bad_row(missing, row_offset) + 1)
        if missing is not None:
            lo, hi = np.fmin.reduce(x), np.fmax.reduce(x)  # NaN if every value is missing
        if len(x) and (lo < self.low or hi > self.high):  # False when all are missing
            outside = (x < self.low) | (x > self.high)  # NaN compares False
            if self.out_of_bounds == "error":
                row = first_bad_row(outside, row_offset)
                raise DomainError(
                    f"column {column!r} data row {row + 1} has value {float(x[row - row_offset])!r} "
                    f"outside its bounds [{self.low}, {self.high}]; widen the bounds or use "
                    "--out-of-bounds clip (out_of_bounds='clip')"
                )
            x = np.clip(x, self.low, self.high)
        # floor((x - low) / width): low <= x, so (x - low) / width >= 0 and truncation to
        # an integer is the floor; only the top needs a clip (high lands on N)
        t = np.subtract(x, self.low)
        np.divide(t, self.width, out=t)
        with np.errstate(invalid="ignore"):  # missing values, set below
            codes = t.astype(np.int32)
        np.minimum(codes, self.n_bins - 1, out=codes)
        if missing is not None:
            codes[missing] = self.n_bins
        return codes

    def representatives(self) -> np.ndarray:
        """The value every bin decodes to, at the precision of the domain.

        A bin's left edge, centre or right edge is rounded to the decimals that the
        bounds and the bin width need (one more for a centre), and to at most 12
        significant digits: ``[30.6, 30.75)`` decodes to ``30.675``, not
        ``30.674999999999997``. The ``"random"`` representative has none.
        """
        shift = {"left": 0.0, "center": 0.5, "right": 1.0}[self.representative]
        values = self.low + (np.arange(self.n_bins) + shift) * self.width
        places = max(_places(self.low), _places(self.width)) + (shift == 0.5)
        short = np.array([_at_precision(v, places) for v in values], dtype=np.float64)
        # rounding must never move a value into another bin, or out of the bounds:
        # keep those values whole
        moved = (self._bins_of(short) != self._bins_of(values)) | (short < self.low)
        moved |= short > self.high
        short[moved] = values[moved]
        return short

    def _bins_of(self, x: np.ndarray) -> np.ndarray:
        """Bin of in-bound values, as :meth:`encode` computes it."""
        return np.clip(np.floor((x - self.low) / self.width), 0, self.n_bins - 1)

    def decode(self, codes: np.ndarray, random_state: RandomState = None) -> np.ndarray:
        """Representative value of every code (NaN for the missing category)."""
        codes = np.asarray(codes)
        if self.representative == "random":
            rng = check_random_state(random_state)
            out = self.low + codes * self.width + rng.random(codes.shape) * self.width
        else:
            table = np.append(self.representatives(), np.nan)
            out = table.take(codes, mode="clip")  # codes outside 0..N read the ends
        out = np.asarray(out, dtype=np.float64)
        if self.missing_category:
            out[codes == self.n_bins] = np.nan
        return out

    def labels(self) -> list[str]:
        """``[l, u)`` of every bin, its edges at the precision of the domain."""
        places = max(_places(self.low), _places(self.width))
        e = [_at_precision(v, places) for v in self.edges]
        out = [f"[{e[i]:.12g}, {e[i + 1]:.12g})" for i in range(self.n_bins)]
        out[-1] = out[-1][:-1] + "]"
        return out + ["<missing>"] if self.missing_category else out

    def to_spec(self) -> dict:
        spec = {"kind": self.kind, **asdict(self)}  # kind first, then the fields in order
        return {
            **spec,
            "low": float(self.low),
            "high": float(self.high),
            "n_bins": int(self.n_bins),
        }


Domain = CategoricalDomain | BinnedDomain


def domain_from_spec(spec: dict) -> Domain:
    """Rebuild a domain from its ``to_spec()`` dictionary."""
    spec = dict(spec)
    kind = spec.pop("kind", None)
    if kind == "categorical":
        return CategoricalDomain(
            tuple(spec["values"]), **{k: v for k, v in spec.items() if k != "values"}
        )
    if kind == "binned":
        return BinnedDomain(**spec)
    raise DomainError(f"domain kind must be 'categorical' or 'binned' (got {kind!r})")
