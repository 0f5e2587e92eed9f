"""The perturbation matrix: M[h, o] = P(released value h | original value o), its
privacy figures (gamma, entropy) and its sampler (alias tables).

References
----------
Dowd, Xu & Zhang, Sec. 3 (random substitution) and Sec. 5 (gamma, entropy).
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from ..exceptions import MatrixError
from ..limits import check_n_values
from ..random import WordStream
from ..validation import check_int


def check_n(n: int, name: str = "N") -> int:
    return check_int(n, name, low=2, error=MatrixError)


def along(fn, x: np.ndarray, axis: int) -> np.ndarray:
    """Apply a function acting on axis 0 of an array along ``axis`` instead."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim and axis in (0, -x.ndim):  # nothing to move (every call of a hot loop)
        return fn(x.reshape(x.shape[0], -1)).reshape(x.shape)
    moved = np.moveaxis(x, axis, 0)
    out = fn(moved.reshape(moved.shape[0], -1)).reshape(moved.shape)
    return np.moveaxis(out, 0, axis)


class PerturbationMatrix:
    """Base class of column-stochastic, invertible perturbation matrices.

    Subclasses provide :meth:`dense`, and may override the closed forms.
    """

    kind: str = "matrix"

    @property
    def n_values(self) -> int:
        """N, the number of codes."""
        return self.dense().shape[0]

    def dense(self) -> np.ndarray:  # pragma: no cover - abstract
        raise AttributeError(f"{type(self).__name__} does not define dense()")

    @cached_property
    def _inverse(self) -> np.ndarray:
        return np.linalg.inv(self.dense())

    @cached_property
    def affine_form(self) -> tuple[float, float] | None:
        """``(a, b)`` when ``M = a I + b J`` (J all ones), else ``None``.

        Such a matrix (gamma-diagonal, symmetric channels) is applied, inverted and given
        standard errors in closed form, O(N) per call, without any N x N array.
        """
        m = self.dense()
        n = m.shape[0]
        if m.ndim != 2 or n < 2 or m.shape[1] != n:
            return None
        d, o = float(m[0, 0]), float(m[1, 0])
        diag = np.eye(n, dtype=bool)
        if np.ptp(m[diag]) > 1e-15 or np.ptp(m[~diag]) > 1e-15:
            return None
        if d - o <= 0 or abs(d - o + n * o - 1.0) > 1e-12:
            return None
        return d - o, o

    def apply(self, x: np.ndarray, axis: int = 0) -> np.ndarray:
        """``M x`` along ``axis`` (expected perturbed counts of original counts ``x``)."""
        if self.affine_form is not None:
            a, b = self.affine_form
            return along(lambda v: a * v + b * v.sum(axis=0), x, axis)
        m = self.dense()
        return along(lambda a: m @ a, x, axis)

    def apply_transpose(self, y: np.ndarray, axis: int = 0) -> np.ndarray:
        """``M^T y`` along ``axis``."""
        if self.affine_form is not None:
            return self.apply(y, axis)  # a I + b J is symmetric
        m = self.dense()
        return along(lambda a: m.T @ a, y, axis)

    def inverse_apply(self, y: np.ndarray, axis: int = 0) -> np.ndarray:
        """``M^-1 y`` along ``axis``: the raw estimate of Eq. (1)."""
        if self.affine_form is not None:
            a, b = self.affine_form
            c = b / (a + self.n_values * b)
            return along(lambda v: (v - c * v.sum(axis=0)) / a, y, axis)
        inv = self._inverse
        return along(lambda a: inv @ a, y, axis)

    def inverse_transpose_apply(self, v: np.ndarray, axis: int = 0) -> np.ndarray:
        """``M^-T v`` along ``axis`` (per-record weights of unbiased box counts)."""
        if self.affine_form is not None:
            return self.inverse_apply(v, axis)
        inv = self._inverse
        return along(lambda a: inv.T @ a, v, axis)

    def inverse(self) -> np.ndarray:
        """Dense ``M^-1``."""
        return self._inverse.copy()

    def power(self, t: int) -> PerturbationMatrix:
        """``M^t``: the channel of t successive perturbations (Theorem 2)."""
        t = check_int(t, "t", error=MatrixError)
        return ExplicitMatrix(np.linalg.matrix_power(self.dense(), t), validate=False)

    def draw(self, codes: np.ndarray, rng, chunk: int = 1 << 16) -> np.ndarray:
        """Perturb ``codes`` with uniforms from ``rng``, one per value, in record order, in
        cache-sized chunks (the result does not depend on ``chunk``)."""
        if isinstance(rng, WordStream):
            rng = rng.generator
        codes = np.asarray(codes)
        out = np.empty(codes.shape, dtype=np.int32)
        flat_in = codes.reshape(-1)
        flat_out = out.reshape(-1)
        buf = np.empty(min(chunk, max(flat_in.size, 1)))
        for start in range(0, flat_in.size, chunk):
            stop = min(start + chunk, flat_in.size)
            u = buf[: stop - start]
            rng.random(out=u)
            flat_out[start:stop] = self._alias_sample(flat_in[start:stop], u)
        return out

    @cached_property
    def _alias(self) -> tuple[np.ndarray, np.ndarray]:
        """Vose alias tables, one per column: ``prob[slot, k]`` and ``alias[slot, k]``."""
        m = self.dense()
        n = m.shape[0]
        prob = np.zeros_like(m)
        alias = np.zeros(m.shape, dtype=np.int64)
        for k in range(n):  # O(N^2) set-up, once per matrix
            scaled = m[:, k] * n
            small = [i for i in range(n) if scaled[i] < 1.0]
            large = [i for i in range(n) if scaled[i] >= 1.0]
            while small and large:
                s, g = small.pop(), large.pop()
                prob[s, k] = scaled[s]
                alias[s, k] = g
                scaled[g] = scaled[g] + scaled[s] - 1.0
                (small if scaled[g] < 1.0 else large).append(g)
            for i in large + small:
                prob[i, k] = 1.0
                alias[i, k] = i
        return prob, alias

    def _alias_sample(self, codes: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Perturbed codes for original ``codes`` given uniforms ``u`` in [0, 1).

        One uniform per value, O(1) per value (Walker's alias method on each column).
        """
        prob, alias = self._alias
        n = prob.shape[0]
        scaled = np.asarray(u) * n
        slot = np.minimum(scaled.astype(np.int64), n - 1)
        frac = scaled - slot
        codes = np.asarray(codes, dtype=np.int64)
        keep = frac < prob[slot, codes]
        return np.where(keep, slot, alias[slot, codes]).astype(np.int32)

    def amplification(self) -> float:
        """gamma = max over rows h of max_k m[h,k] / min_k m[h,k] (inf if a row has a zero)."""
        m = self.dense()
        lo = m.min(axis=1)
        hi = m.max(axis=1)
        if np.any(lo <= 0):
            return math.inf
        return float(np.max(hi / lo))

    def epsilon(self) -> float:
        """epsilon = ln gamma (local differential privacy level)."""
        return math.log(self.amplification())

    def entropy(self, prior: np.ndarray | None = None) -> float:
        """H(M) = sum_j P_j H(column j), in bits; uniform prior by default (Sec. 5.2)."""
        m = self.dense()
        with np.errstate(divide="ignore", invalid="ignore"):
            h = np.where(m > 0, -m * np.log2(np.where(m > 0, m, 1.0)), 0.0).sum(axis=0)
        p = _check_prior(prior, len(h))
        return float(p @ h)

    def condition_number(self) -> float:
        """2-norm condition number of M."""
        return float(np.linalg.cond(self.dense()))

    def covariance_perturbed(self, x: np.ndarray) -> np.ndarray:
        """Cov(y | X = x) = sum_k x_k (diag(m_k) - m_k m_k^T) (Ma & Sivakumar, Thm 1)."""
        m = self.dense()
        x = np.clip(np.asarray(x, dtype=np.float64), 0, None)
        return np.diag(m @ x) - (m * x) @ m.T

    def covariance_estimate(self, x: np.ndarray) -> np.ndarray:
        """Cov(X_hat) = M^-1 Cov(y) M^-T with ``x`` plugged in (Ma & Sivakumar, Thm 2)."""
        inv = self._inverse
        return inv @ self.covariance_perturbed(x) @ inv.T

    def estimate_variance(self, x: np.ndarray) -> np.ndarray:
        """Diagonal of ``Cov(X_hat) = M^-1 Cov(y) M^-T`` with ``x`` plugged in.

        For ``M = a I + b J`` the ``J`` terms vanish (the perturbed total is fixed), so
        ``Var(X_hat_i) = (s_i - (a + b)^2 x_i - b^2 (n - x_i)) / a^2``, ``s = M x``: O(N).

        References
        ----------
        Ma & Sivakumar, Theorems 1-2.
        """
        x = np.clip(np.asarray(x, dtype=np.float64), 0, None)
        if self.affine_form is not None:
            a, b = self.affine_form
            n = float(x.sum())
            s = a * x + b * n
            var_y = s - (a + b) ** 2 * x - b**2 * (n - x)
            return var_y / a**2
        inv = self._inverse
        return np.einsum("ij,ij->i", inv @ self.covariance_perturbed(x), inv)

    def expected_squared_error(self, x: np.ndarray) -> float:
        """E||M^-1 y - x||^2 for original counts ``x`` (trace of the covariance)."""
        return float(np.sum(self.estimate_variance(x)))

    def least_change(self) -> float:
        """The smallest probability that a value is released as another one,
        ``1 - max_j M[j, j]``.

        References
        ----------
        Dowd, Xu & Zhang, Sec. 3 (the perturbation matrix).
        """
        return float(1.0 - np.max(np.diag(self.dense())))

    def misread_bound(self, copies: int) -> float:
        """An upper bound on the probability that ``copies`` independent perturbed copies
        of a value point to another value: that some other original is at least as
        likely, given the copies, as the true one (for the original where this is
        likeliest).

        For originals ``u != v`` the copies favour ``v`` with probability at most
        ``BC(u, v) ** copies``, where ``BC(u, v) = sum_j sqrt(M[j, u] M[j, v])`` is the
        Bhattacharyya coefficient of their columns (Chernoff's bound at 1/2); the bound is
        the largest over ``u`` of the sum over ``v``, at most 1.

        References
        ----------
        Kang, Sec. 3 (independent copies of one record); Bhattacharyya (1943), the
        coefficient and the error bound it gives.
        """
        root = np.sqrt(self.dense())
        coefficient = np.clip(root.T @ root, 0.0, 1.0)
        with np.errstate(divide="ignore"):
            powers = np.exp(copies * np.log(coefficient))
        np.fill_diagonal(powers, 0.0)
        return float(min(1.0, powers.sum(axis=1).max()))

    def min_row_support(self) -> int:
        """The fewest originals that can produce any one perturbed value (Ma–Sivakumar's K)."""
        if self.affine_form is not None:
            return self.n_values if self.affine_form[1] > 0 else 1
        return int((self.dense() > 0).sum(axis=1).min())

    def to_spec(self) -> dict:
        return {"kind": "explicit", "matrix": self.dense().tolist()}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(N={self.n_values})"


def _check_prior(prior: np.ndarray | None, n: int) -> np.ndarray:
    if prior is None:
        return np.full(n, 1.0 / n)
    p = np.asarray(prior, dtype=np.float64)
    if p.shape != (n,) or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise MatrixError(f"prior must be {n} non-negative numbers summing to 1 (got {p.tolist()})")
    return p


class ExplicitMatrix(PerturbationMatrix):
    """A validated explicit matrix: non-negative, columns summing to 1, invertible.

    ``matrix[h, k] = P(k -> h)``; ``kind`` is the label recorded in specs (e.g.
    "symmetric-binary", "block-diagonal").
    """

    def __init__(
        self, matrix, kind: str = "explicit", validate: bool = True, meta: dict | None = None
    ) -> None:
        m = np.array(matrix, dtype=np.float64)
        if m.ndim == 2:
            check_n_values(m.shape[0], "N", dense=True, error=MatrixError)
        if validate:
            _validate_matrix(m)
        self._m = m
        self.kind = kind
        self.meta = dict(meta or {})

    def dense(self) -> np.ndarray:
        return self._m

    def to_spec(self) -> dict:
        return {"kind": self.kind, "matrix": self._m.tolist(), **self.meta}


def _validate_matrix(m: np.ndarray) -> None:
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise MatrixError(f"a perturbation matrix must be square (got shape {m.shape})")
    if m.shape[0] < 2:
        raise MatrixError(f"a perturbation matrix needs N >= 2 (got N = {m.shape[0]})")
    if not np.all(np.isfinite(m)):
        raise MatrixError("a perturbation matrix must hold finite numbers")
    if np.any(m < 0):
        h, k = np.argwhere(m < 0)[0]
        raise MatrixError(
            f"matrix entries must be non-negative (got {m[h, k]} at row {h}, column {k})"
        )
    with np.errstate(over="ignore"):
        sums = m.sum(axis=0)
    bad = np.flatnonzero(np.abs(sums - 1.0) > 1e-8)
    if bad.size:
        raise MatrixError(
            f"matrix columns must sum to 1 (column {bad[0]} sums to {sums[bad[0]]:.12g}): "
            "M[h, k] is the probability that original value k becomes h"
        )
    cond = np.linalg.cond(m)
    if not np.isfinite(cond) or cond > 1e12:
        raise MatrixError(
            f"matrix is singular or nearly so (condition number {cond:.3g}): the original "
            "distribution could not be estimated from the perturbed one"
        )
