"""sdcMicro's PRAM: invariant PRAM built from the data's marginal, its pd/alpha
parametrisation, and one matrix per stratum.

References
----------
Gouweleeuw, Kooiman, Willenborg & de Wolf (1998), post randomisation; Templ, Kowarik
& Meindl (2015), sdcMicro's pram().
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..exceptions import MatrixError
from ..random import WordStream
from ..validation import check_probability
from .base import ExplicitMatrix, PerturbationMatrix


def retention_matrix(retention: Sequence[float] | np.ndarray) -> np.ndarray:
    """The column-stochastic matrix keeping value ``j`` w.p. ``retention[j]`` and moving
    it to each other value w.p. ``(1 - retention[j]) / (N - 1)`` (sdcMicro's ``P``,
    transposed)."""
    r = np.asarray(retention, dtype=np.float64)
    n = r.size
    m = np.broadcast_to((1.0 - r) / (n - 1), (n, n)).copy()
    np.fill_diagonal(m, r)
    return m


def invariant_matrix(base: np.ndarray, marginal: np.ndarray, alpha: float) -> np.ndarray:
    """Invariant PRAM: ``alpha R + (1 - alpha) I`` with ``R = diag(p) B^T diag(1/(B p)) B``,
    so ``R p = p`` for the original marginal ``p`` (docs/pram.md derives it).

    ``base`` is column-stochastic; ``marginal`` holds positive counts or proportions.

    References
    ----------
    Gouweleeuw, Kooiman, Willenborg & de Wolf (1998), invariant PRAM; Kowarik, Templ,
    Meindl et al. (2012), its construction in sdcMicro.
    """
    p = np.asarray(marginal, dtype=np.float64)
    p = p / p.sum()
    lam = base @ p
    r = (p[:, None] * base.T) @ (base / lam[:, None])
    return alpha * r + (1.0 - alpha) * np.eye(len(p))


def draw_retention(pd: float, n_values: int, rng: np.random.Generator) -> np.ndarray:
    """sdcMicro's random diagonal: ``pd_j`` uniform on ``[pd, 1]``, one per value."""
    return pd + (1.0 - pd) * rng.random(n_values)


def pram_parameters(spec: Mapping, n: int) -> tuple[np.ndarray | None, float]:
    """The checked base matrix (None: sdcMicro's random one) and alpha of a PRAM entry."""
    kind = spec.get("kind")
    alpha = check_probability(spec["alpha"], f"{kind} alpha", closed=True, error=MatrixError)
    if kind == "sdcmicro-pram":
        pd = spec["pd"]
        if isinstance(pd, bool) or not isinstance(pd, (int, float)) or not 0.0 < pd <= 1.0:
            raise MatrixError(f"sdcmicro-pram pd must be a number in (0, 1] (got {pd!r})")
        return None, alpha
    given = [k for k in ("base", "retention") if k in spec]
    if len(given) != 1:
        raise MatrixError(
            f"invariant-pram needs one of 'base' (an N x N matrix, base[h][k] = P(k -> h)) or "
            f"'retention' (the probability of keeping each value) (got {sorted(spec)})"
        )
    if given == ["retention"]:
        r = spec["retention"]
        r = [r] * n if isinstance(r, (int, float)) and not isinstance(r, bool) else r
        if not isinstance(r, (list, tuple)) or len(r) != n:
            raise MatrixError(
                f"invariant-pram retention must be a number or {n} numbers (got {r!r})"
            )
        for j, v in enumerate(r, start=1):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 < v <= 1.0:
                raise MatrixError(
                    f"invariant-pram retention value {j} must be in (0, 1] (got {v!r})"
                )
        return retention_matrix(r), alpha
    base = np.array(spec["base"], dtype=np.float64)
    if base.shape != (n, n):
        raise MatrixError(f"invariant-pram base must be {n} x {n} (got shape {base.shape})")
    bad = ~np.isfinite(base) | (base < 0)
    if bad.any():
        h, k = np.argwhere(bad)[0]
        raise MatrixError(
            f"invariant-pram base entries must be finite and non-negative (got {base[h, k]} "
            f"at row {h + 1}, column {k + 1})"
        )
    sums = base.sum(axis=0)
    bad = np.flatnonzero(np.abs(sums - 1.0) > 1e-8)
    if bad.size:
        raise MatrixError(
            f"invariant-pram base columns must sum to 1 (column {bad[0] + 1} sums to "
            f"{sums[bad[0]]:.12g}): base[h][k] is the probability that original value k "
            "becomes h (the transpose of sdcMicro's row-stochastic P)"
        )
    return base, alpha


class StratifiedMatrix:
    """One matrix per value of a stratum column, released as is beside the attribute.

    A record is perturbed by its stratum's matrix (kept dense, one uniform per record);
    ``gamma`` is the largest amplification over the strata (:meth:`worst`).
    ``matrices`` maps each stratum value (as text) to a matrix, all of the same N.

    References
    ----------
    Ma & Sivakumar, Sec. 3 (non-uniform randomization); Dowd, Xu & Zhang, Sec. 5 (gamma).
    """

    kind = "stratified"
    affine_form = None

    def __init__(self, strata: str, matrices: Mapping[str, PerturbationMatrix]) -> None:
        if not isinstance(strata, str) or not strata:
            raise MatrixError(f"stratified strata must name a column (got {strata!r})")
        if not matrices:
            raise MatrixError("a stratified matrix needs at least one stratum's matrix")
        self.strata = strata
        self.matrices: dict[str, ExplicitMatrix] = {}
        for value, m in matrices.items():
            if isinstance(m, StratifiedMatrix):
                raise MatrixError(f"stratum {value!r}: a stratified matrix cannot be nested")
            spec = m.to_spec()
            meta = {k: v for k, v in spec.items() if k not in ("kind", "matrix", "n_values")}
            self.matrices[str(value)] = ExplicitMatrix(
                m.dense(), kind=spec.get("kind", "explicit"), validate=False, meta=meta
            )
        sizes = {m.n_values for m in self.matrices.values()}
        if len(sizes) != 1:
            raise MatrixError(
                f"the strata's matrices must all have the same N (got {sorted(sizes)})"
            )
        self.values = list(self.matrices)

    @property
    def n_values(self) -> int:
        return next(iter(self.matrices.values())).n_values

    @property
    def worst_stratum(self) -> str:
        """The stratum whose matrix has the largest amplification."""
        return max(self.values, key=lambda v: self.matrices[v].amplification())

    def worst(self) -> ExplicitMatrix:
        """The least private stratum's matrix: its figures are the attribute's."""
        return self.matrices[self.worst_stratum]

    def amplification(self) -> float:
        return self.worst().amplification()

    def epsilon(self) -> float:
        return math.log(self.amplification())

    def least_change(self) -> float:
        return min(m.least_change() for m in self.matrices.values())

    def misread_bound(self, copies: int) -> float:
        return max(m.misread_bound(copies) for m in self.matrices.values())

    def dense(self, *args, **kwargs) -> np.ndarray:
        """Refused: there is no one matrix (also every other single-matrix operation)."""
        raise MatrixError(
            f"the attribute has one matrix per value of {self.strata!r}, not one matrix: "
            "ppdm estimate, report and audit --empirical-epsilon handle it stratum by stratum"
        )

    # what needs one matrix is refused in the same words, never half done
    apply = apply_transpose = inverse_apply = inverse_transpose_apply = dense
    inverse = power = draw = entropy = condition_number = dense
    covariance_perturbed = covariance_estimate = estimate_variance = dense
    expected_squared_error = min_row_support = dense

    def draw_rows(self, codes: np.ndarray, strata: np.ndarray, rng) -> np.ndarray:
        """Perturb ``codes``, record ``i`` by the matrix of stratum ``values[strata[i]]``,
        with one uniform from ``rng`` per record in record order."""
        if isinstance(rng, WordStream):
            rng = rng.generator
        codes = np.asarray(codes)
        u = rng.random(codes.size)
        out = np.empty(codes.shape, dtype=np.int32)
        for i, value in enumerate(self.values):
            rows = np.flatnonzero(strata == i)
            if rows.size:
                out[rows] = self.matrices[value]._alias_sample(codes[rows], u[rows])
        return out

    def to_spec(self) -> dict:
        return {
            "kind": "stratified",
            "strata": self.strata,
            "matrices": {v: m.to_spec() for v, m in self.matrices.items()},
        }

    def __repr__(self) -> str:
        return f"StratifiedMatrix({self.strata!r}, strata={self.values})"
