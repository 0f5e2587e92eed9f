"""Original codes of the attributes a release learner uses, and the release data it learns from.

Codes ``0..N_j-1`` come from the spec's domains (:class:`DomainCoder`) or, for an
unperturbed table, from cuts of a numeric column (:class:`ThresholdCoder`) or its
distinct values (:class:`LabelCoder`), as docs/release_learners.md describes.

References
----------
Dowd, Xu & Zhang, Sec. 3 (domains and perturbation matrices).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ..domain import BinnedDomain
from ..exceptions import DataError, SpecError
from ..matrix import PerturbationMatrix, identity
from ..validation import show

__all__ = ["DomainCoder", "LabelCoder", "ReleaseData", "ThresholdCoder", "fit_coder"]


def _numeric_values(domain) -> bool:
    return all(isinstance(v, (int, float, np.number)) for v in domain.values)


@dataclass(frozen=True)
class DomainCoder:
    """Codes of a spec attribute: its domain's (binned values out of bounds are clipped
    when predicting)."""

    domain: object

    @property
    def n_values(self) -> int:
        return int(self.domain.n_values)

    @property
    def ordered(self) -> bool:
        return isinstance(self.domain, BinnedDomain) or _numeric_values(self.domain)

    def encode(self, values, column: str, *, fitting: bool = False) -> np.ndarray:
        dom = self.domain
        if not fitting and isinstance(dom, BinnedDomain):
            dom = replace(dom, out_of_bounds="clip")
        return np.asarray(dom.encode(values, column=column), dtype=np.int64)

    def test_text(self, name: str, side: np.ndarray) -> str:
        dom = self.domain
        codes = np.flatnonzero(side)
        contiguous = len(codes) > 0 and bool(np.all(np.diff(codes) == 1))
        if isinstance(dom, BinnedDomain) and contiguous and codes[-1] < dom.n_bins:
            edges = dom.edges
            lo, hi = edges[codes[0]], edges[codes[-1] + 1]
            if codes[0] == 0:
                return f"{name} < {hi:.6g}"
            if codes[-1] == dom.n_bins - 1:
                return f"{name} >= {lo:.6g}"
            return f"{lo:.6g} <= {name} < {hi:.6g}"
        labels = dom.labels()
        if contiguous and _numeric_values(dom) and len(codes) > 1:
            return f"{labels[codes[0]]} <= {name} <= {labels[codes[-1]]}"
        return f"{name} in {{{', '.join(labels[i] for i in codes)}}}"


@dataclass(frozen=True)
class ThresholdCoder:
    """Codes of a numeric column: code ``k`` holds the values in ``(cuts[k-1], cuts[k]]``.

    Attributes
    ----------
    cuts : ndarray
        Increasing cut points; ``len(cuts) + 1`` codes (at least 2).
    """

    cuts: np.ndarray = field(repr=False)

    @property
    def n_values(self) -> int:
        return max(2, len(self.cuts) + 1)

    ordered = True

    def encode(self, values, column: str, *, fitting: bool = False) -> np.ndarray:
        x = np.asarray(values, dtype=np.float64)
        return np.searchsorted(self.cuts, x, side="left").astype(np.int64)

    def test_text(self, name: str, side: np.ndarray) -> str:
        codes = np.flatnonzero(side)
        last = len(self.cuts)
        lo = None if codes[0] == 0 else f"{self.cuts[codes[0] - 1]:.6g}"
        hi = None if codes[-1] >= last else f"{self.cuts[codes[-1]]:.6g}"
        if lo is None and hi is None:
            return f"{name} any"
        if lo is None:
            return f"{name} <= {hi}"
        if hi is None:
            return f"{name} > {lo}"
        return f"{lo} < {name} <= {hi}"


@dataclass(frozen=True)
class LabelCoder:
    """Codes of a categorical column: one per distinct value seen at fit."""

    values: tuple

    @property
    def n_values(self) -> int:
        return max(2, len(self.values))

    ordered = False

    def encode(self, values, column: str, *, fitting: bool = False) -> np.ndarray:
        series = pd.Series(np.asarray(values, dtype=object))
        codes = pd.Index(self.values).get_indexer(series)
        bad = np.flatnonzero(codes < 0)
        if bad.size:
            row = int(bad[0])
            raise DataError(
                f"column {column!r} row {row + 1} has value {show(series.iloc[row])}, "
                "not seen when the model was fitted"
            )
        return codes.astype(np.int64)

    def test_text(self, name: str, side: np.ndarray) -> str:
        shown = [str(self.values[i]) for i in np.flatnonzero(side) if i < len(self.values)]
        return f"{name} in {{{', '.join(shown)}}}"


def fit_coder(values: np.ndarray, max_bins: int):
    """The coder of one column of an unperturbed table."""
    values = np.asarray(values)
    if values.dtype.kind in "biuf" or all(
        isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in values
    ):
        x = np.asarray(values, dtype=np.float64)
        distinct = np.unique(x)
        if len(distinct) > max_bins:
            q = np.quantile(x, np.linspace(0, 1, max_bins + 1)[1:-1], method="lower")
            keep = np.unique(q)
            keep = keep[keep < distinct[-1]]
            upper = distinct[np.searchsorted(distinct, keep, side="right")]
            cuts = (keep + upper) / 2
        else:
            cuts = (distinct[:-1] + distinct[1:]) / 2
        return ThresholdCoder(np.asarray(cuts, dtype=np.float64))
    for row, v in enumerate(values):
        if not (v is None or isinstance(v, (str, bytes, bool, numbers.Real, np.generic))):
            raise TypeError(  # scikit-learn's check_dtype_object wants a TypeError here
                f"row {row + 1} has value {show(v)}: an argument must be a string or a number, "
                f"not {type(v).__name__}"
            )
    distinct = pd.unique(pd.Series(values, dtype=object))
    try:
        distinct = sorted(distinct)
    except TypeError:
        distinct = list(distinct)
    return LabelCoder(tuple(v.item() if isinstance(v, np.generic) else v for v in distinct))


class ReleaseData:
    """Perturbed ``codes`` (n, d) and class codes ``y`` of a release, with each attribute's
    coder (``n_values``, ``ordered``) and perturbation matrix, ready for split search."""

    def __init__(self, names, coders, matrices, codes: np.ndarray, y: np.ndarray):
        if not names:
            raise SpecError("the release has no perturbed attribute to learn from")
        self.names = list(names)
        self.coders = list(coders)
        self.matrices: list[PerturbationMatrix] = list(matrices)
        self.codes = np.asarray(codes, dtype=np.int64)
        self.n_values = [c.n_values for c in self.coders]
        self.inv_t = [m.inverse_transpose_apply(np.eye(m.n_values)) for m in self.matrices]
        self.ordered = [bool(c.ordered) for c in self.coders]
        self.y = np.asarray(y, dtype=np.int64)

    @classmethod
    def unperturbed(cls, names, coders, codes: np.ndarray, y: np.ndarray) -> ReleaseData:
        """An original table: every channel is the identity."""
        return cls(names, coders, [identity(c.n_values) for c in coders], codes, y)

    def others(self, factors: dict[int, np.ndarray], j: int) -> np.ndarray:
        """Per record, the product of the ``factors`` of the attributes other than ``j``."""
        w = np.ones(len(self.y))
        for k, f in factors.items():
            if k != j:
                w = w * f
        return w
