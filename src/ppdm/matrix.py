"""Perturbation matrices: gamma-diagonal, explicit, symmetric channels, block-diagonal, Kronecker.

Convention (Dowd, Xu & Zhang, Sec. 3.1): ``M[h, k] = P(original code k -> perturbed code h)``,
so every *column* is a probability distribution and ``E[y] = M x`` for count vectors.

References
----------
Dowd, Xu & Zhang, Sec. 3.1 (Algorithm 1), Sec. 5.1 (gamma-diagonal matrix), Sec. 5.2
(entropy, Theorem 2 on M^t); Kang, Theorem 1 (error bound); Ma & Sivakumar, Sec. 3
(symmetric channels, grouped and simultaneous randomization).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from .exceptions import MatrixError
from .limits import check_n_values
from .random import WordStream
from .validation import check_gamma, check_int, check_probability

__all__ = [
    "PerturbationMatrix",
    "GammaDiagonal",
    "ExplicitMatrix",
    "FlatKronecker",
    "KroneckerMatrix",
    "explicit",
    "symmetric_binary",
    "symmetric_ternary",
    "symmetric_channel",
    "binary_randomization",
    "grouped_symmetric",
    "block_diagonal",
    "identity",
    "check_gamma",
    "matrix_from_spec",
    "check_matrix_entry",
    "needs_data",
    "invariant_matrix",
    "retention_matrix",
    "draw_retention",
    "FROM_DATA",
    "StratifiedMatrix",
    "MATRIX_KINDS",
]


def _check_n(n: int, name: str = "N") -> int:
    return check_int(n, name, low=2, error=MatrixError)


def _along(fn, x: np.ndarray, axis: int) -> np.ndarray:
    """Apply a function acting on axis 0 of an array along ``axis`` instead."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim and axis in (0, -x.ndim):  # nothing to move (every call of a hot loop)
        return fn(x.reshape(x.shape[0], -1)).reshape(x.shape)
    moved = np.moveaxis(x, axis, 0)
    out = fn(moved.reshape(moved.shape[0], -1)).reshape(moved.shape)
    return np.moveaxis(out, 0, axis)


def _column_entropy(m: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(m > 0, -m * np.log2(np.where(m > 0, m, 1.0)), 0.0)
    return terms.sum(axis=0)


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

    # -- linear algebra ------------------------------------------------------------
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
            return _along(lambda v: a * v + b * v.sum(axis=0), x, axis)
        m = self.dense()
        return _along(lambda a: m @ a, x, axis)

    def apply_transpose(self, y: np.ndarray, axis: int = 0) -> np.ndarray:
        """``M^T y`` along ``axis``."""
        if self.affine_form is not None:
            return self.apply(y, axis)  # a I + b J is symmetric
        m = self.dense()
        return _along(lambda a: m.T @ a, y, axis)

    def inverse_apply(self, y: np.ndarray, axis: int = 0) -> np.ndarray:
        """``M^-1 y`` along ``axis``: the raw estimate of Eq. (1)."""
        if self.affine_form is not None:
            a, b = self.affine_form
            c = b / (a + self.n_values * b)
            return _along(lambda v: (v - c * v.sum(axis=0)) / a, y, axis)
        inv = self._inverse
        return _along(lambda a: inv @ a, y, axis)

    def inverse_transpose_apply(self, v: np.ndarray, axis: int = 0) -> np.ndarray:
        """``M^-T v`` along ``axis`` (per-record weights of unbiased box counts)."""
        if self.affine_form is not None:
            return self.inverse_apply(v, axis)
        inv = self._inverse
        return _along(lambda a: inv.T @ a, v, axis)

    def inverse(self) -> np.ndarray:
        """Dense ``M^-1``."""
        return self._inverse.copy()

    def power(self, t: int) -> PerturbationMatrix:
        """``M^t``: the channel of t successive perturbations (Theorem 2)."""
        t = _check_power(t)
        return ExplicitMatrix(np.linalg.matrix_power(self.dense(), t), validate=False)

    # -- sampling ------------------------------------------------------------------
    def draw(self, codes: np.ndarray, rng, chunk: int = 1 << 16) -> np.ndarray:
        """Perturb ``codes`` with uniforms from ``rng``, one per value, in record order.

        Works through cache-sized chunks (the temporaries stay in cache); the stream is
        consumed in order, so the result does not depend on ``chunk``.
        """
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
        return _alias_tables(self.dense())

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

    # -- privacy and accuracy figures -----------------------------------------------
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
        h = _column_entropy(self.dense())
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

        For ``M = a I + b J`` (column-stochastic, so ``a + N b = 1``) the inverse is
        ``(I - b J) / a``; ``Cov(y) 1 = 0`` because the perturbed total is fixed, so the
        ``J`` terms vanish and ``Var(X_hat_i) = Cov(y)_ii / a^2`` with
        ``Cov(y)_ii = s_i - (a + b)^2 x_i - b^2 (n - x_i)``, ``s = M x``: O(N), no
        N x N array. Other matrices use the dense product.

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


def _check_power(t: int) -> int:
    return check_int(t, "t", error=MatrixError)


def _check_prior(prior: np.ndarray | None, n: int) -> np.ndarray:
    if prior is None:
        return np.full(n, 1.0 / n)
    p = np.asarray(prior, dtype=np.float64)
    if p.shape != (n,) or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise MatrixError(f"prior must be {n} non-negative numbers summing to 1 (got {p.tolist()})")
    return p


def _alias_tables(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vose alias tables, one per column: ``prob[slot, k]`` and ``alias[slot, k]``."""
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


class GammaDiagonal(PerturbationMatrix):
    """The gamma-diagonal matrix: ``d = gamma/(gamma+N-1)`` on the diagonal, ``o = 1/(gamma+N-1)`` off it.

    With ``lam = (gamma-1)/(gamma+N-1)``, ``M = lam I + (1-lam) J/N``: keep the value with
    probability ``lam``, otherwise draw uniformly from all N values. All figures have
    closed forms.

    Parameters
    ----------
    n_values : int
        N >= 2.
    gamma : float
        Amplification, > 1.

    Examples
    --------
    >>> m = GammaDiagonal(4, 9.0)
    >>> round(m.diagonal, 4), round(m.off_diagonal, 4)
    (0.75, 0.0833)
    >>> m.amplification()
    9.0

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5.1 and 5.2; Agrawal & Haritsa (2005).
    """

    kind = "gamma-diagonal"

    def __init__(self, n_values: int, gamma: float) -> None:
        self._n = check_n_values(_check_n(n_values), "N", error=MatrixError)
        self.gamma = check_gamma(gamma)

    @property
    def n_values(self) -> int:
        return self._n

    @property
    def diagonal(self) -> float:
        return self.gamma / (self.gamma + self._n - 1)

    @property
    def off_diagonal(self) -> float:
        return 1.0 / (self.gamma + self._n - 1)

    def least_change(self) -> float:
        """``(N - 1) / (gamma + N - 1)``: every value is released as another one with
        this probability (without forming the N x N matrix)."""
        return (self._n - 1) / (self.gamma + self._n - 1)

    def misread_bound(self, copies: int) -> float:
        """``(N - 1) BC ** copies`` with ``BC = 2 sqrt(d o) + (N - 2) o`` for every pair
        of values (see :meth:`PerturbationMatrix.misread_bound`), at most 1."""
        d, o = self.diagonal, self.off_diagonal
        coefficient = min(1.0, 2.0 * math.sqrt(d * o) + (self._n - 2) * o)
        if coefficient <= 0.0:
            return 0.0
        log_bound = math.log(self._n - 1) + copies * math.log(coefficient)
        return math.exp(min(0.0, log_bound))

    @property
    def keep_probability(self) -> float:
        """lam = (gamma - 1)/(gamma + N - 1)."""
        return (self.gamma - 1) / (self.gamma + self._n - 1)

    @property
    def affine_form(self) -> tuple[float, float]:  # type: ignore[override]
        """``(lam, (1 - lam)/N)``: ``M = lam I + (1 - lam) J/N``."""
        lam = self.keep_probability
        return lam, (1.0 - lam) / self._n

    def __getstate__(self) -> dict:
        return {"_n": self._n, "gamma": self.gamma}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def dense(self) -> np.ndarray:
        m = np.full((self._n, self._n), self.off_diagonal)
        np.fill_diagonal(m, self.diagonal)
        return m

    def apply(self, x: np.ndarray, axis: int = 0) -> np.ndarray:
        lam, n = self.keep_probability, self._n
        return _along(lambda a: lam * a + (1 - lam) * a.sum(axis=0) / n, x, axis)

    apply_transpose = apply  # symmetric

    def inverse_apply(self, y: np.ndarray, axis: int = 0) -> np.ndarray:
        """X_hat_i = ((gamma + N - 1) y_i - n) / (gamma - 1), in O(N)."""
        g, n = self.gamma, self._n
        return _along(lambda a: ((g + n - 1) * a - a.sum(axis=0)) / (g - 1), y, axis)

    inverse_transpose_apply = inverse_apply  # symmetric

    def power(self, t: int) -> PerturbationMatrix:
        """``M^t = lam^t I + (1 - lam^t) J/N`` (Theorem 2): again gamma-diagonal."""
        t = _check_power(t)
        # through logarithms: 1 - lam = N / (gamma + N - 1) is below float resolution for a
        # huge gamma, where lam ** t rounds to 1 (and 1 - lam ** t to 0)
        log_lam = math.log1p(-self._n / (self.gamma + self._n - 1))
        lam_t, change_t = math.exp(t * log_lam), -math.expm1(t * log_lam)
        out = GammaDiagonal.__new__(GammaDiagonal)
        # gamma_t may round to 1 (M^t nearly uniform); it is a channel, not a release choice,
        # so it skips the gamma > 1 check
        out._n = self._n
        out.gamma = 1.0 + lam_t * self._n / change_t if change_t > 0 else math.inf
        return out

    @cached_property
    def _integer_sampler(self) -> tuple[int, int]:
        """``(bits, q)`` of the integer sampler (see :meth:`draw`)."""
        gamma = Fraction(self.gamma)
        q32 = math.ceil(Fraction(1 << 32) / (gamma + self._n - 1))
        shortfall = (gamma - (Fraction(1 << 32, q32) - (self._n - 1))) / (gamma - 1)
        if shortfall < Fraction(1, 10**6):
            return 32, q32
        return 64, math.ceil(Fraction(1 << 64) / (gamma + self._n - 1))

    @property
    def realised_gamma(self) -> float:
        """The amplification :meth:`draw` realises exactly: ``2^b / q - N + 1 <= gamma``.

        For gamma-diagonal matrices :meth:`draw` samples with integer arithmetic on raw
        ``b``-bit words (``b = 32``, or 64 when 32 bits cannot bring ``gamma - 1`` within
        one part in a million). The channel it realises is exactly gamma-diagonal with
        this amplification, never above the requested one: the privacy guarantee of
        ``gamma`` holds as stated, and estimates computed with ``gamma`` are off by about
        one part in a million of the keep probability at most, far below their
        sampling error.
        """
        bits, q = self._integer_sampler
        return float(Fraction(1 << bits, q) - (self._n - 1))

    def draw(self, codes: np.ndarray, rng, chunk: int = 1 << 17) -> np.ndarray:
        """Keep-or-uniform sampling of ``codes`` with one raw word per value.

        A word ``r`` uniform on ``[0, 2^b)`` gives ``h = r // q`` with
        ``q = ceil(2^b / (gamma + N - 1))``: each code ``h < N`` has probability exactly
        ``q / 2^b`` and the value is kept when ``h >= N``. That is the gamma-diagonal
        channel with amplification :attr:`realised_gamma` (``<= gamma``), sampled by one
        integer division and one masked copy per value, in cache-sized chunks.

        Parameters
        ----------
        codes : int array
            Original codes.
        rng : numpy.random.Generator or ppdm.random.WordStream
            A stream keeps a leftover half word between calls, so batch-by-batch
            perturbation equals one call on the whole column.
        chunk : int
            Values per chunk (the result does not depend on it).
        """
        stream = rng if isinstance(rng, WordStream) else WordStream(rng)
        bits, q = self._integer_sampler
        take = stream.uint32 if bits == 32 else stream.uint64
        word = np.uint32 if bits == 32 else np.uint64
        divisor = word(q)
        codes = np.asarray(codes)
        out = np.empty(codes.shape, dtype=np.int32)
        src, dst = codes.reshape(-1), out.reshape(-1)
        size = min(chunk, max(src.size, 1))
        h, keep = np.empty(size, dtype=word), np.empty(size, dtype=bool)
        for start in range(0, src.size, chunk):
            m = min(chunk, src.size - start)
            hh, kk = h[:m], keep[:m]
            np.floor_divide(take(m), divisor, out=hh)
            part = dst[start : start + m]
            np.copyto(part, hh, casting="unsafe")
            np.greater_equal(hh, self._n, out=kk)
            np.copyto(part, src[start : start + m], where=kk, casting="unsafe")
        return out

    def amplification(self) -> float:
        return self.gamma

    def entropy(self, prior: np.ndarray | None = None) -> float:
        """H = -d log2 d - (N-1) o log2 o (every column has the same entropy)."""
        d, o = self.diagonal, self.off_diagonal
        return float(-d * math.log2(d) - (self._n - 1) * o * math.log2(o))

    def condition_number(self) -> float:
        """Eigenvalues are 1 (once) and lam (N-1 times): cond = 1/lam."""
        return 1.0 / self.keep_probability

    def to_spec(self) -> dict:
        return {"kind": "gamma-diagonal", "n_values": self._n, "gamma": self.gamma}

    def __repr__(self) -> str:
        return f"GammaDiagonal(N={self._n}, gamma={self.gamma:g})"


class ExplicitMatrix(PerturbationMatrix):
    """A validated explicit matrix: non-negative, columns summing to 1, invertible.

    Parameters
    ----------
    matrix : array-like of shape (N, N)
        ``matrix[h, k] = P(k -> h)``.
    kind : str, default="explicit"
        Label recorded in specs (e.g. "symmetric-binary", "block-diagonal").
    validate : bool, default=True

    Examples
    --------
    >>> round(ExplicitMatrix([[0.8, 0.3], [0.2, 0.7]]).amplification(), 6)
    3.5
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

    @property
    def n_values(self) -> int:
        return self._m.shape[0]

    def dense(self) -> np.ndarray:
        return self._m

    def to_spec(self) -> dict:
        spec = {"kind": self.kind, "matrix": self._m.tolist()}
        spec.update(self.meta)
        return spec


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


def explicit(matrix) -> ExplicitMatrix:
    """A validated explicit matrix (see :class:`ExplicitMatrix`)."""
    return ExplicitMatrix(matrix)


def identity(n_values: int) -> ExplicitMatrix:
    """The identity channel (no perturbation), useful as a control."""
    n = check_n_values(_check_n(n_values), "N", dense=True, error=MatrixError)
    return ExplicitMatrix(np.eye(n), kind="identity", meta={"n_values": n})


def symmetric_channel(n_values: int, p: float) -> ExplicitMatrix:
    """Keep the value with probability ``1 - p``, else move to one of the other N-1 uniformly.

    Parameters
    ----------
    n_values : int
    p : float
        Total probability of changing the value, ``0 <= p < (N-1)/N``.

    References
    ----------
    Ma & Sivakumar, Sec. 3 (binary and ternary symmetric channels).
    """
    n = check_n_values(_check_n(n_values), "N", dense=True, error=MatrixError)
    if not 0.0 <= p < (n - 1) / n:
        raise MatrixError(
            f"p must be in [0, {(n - 1) / n:.4g}) for a symmetric channel of {n} values "
            f"(got {p}); at p = (N-1)/N the matrix is singular"
        )
    m = np.full((n, n), p / (n - 1))
    np.fill_diagonal(m, 1.0 - p)
    kind = {2: "symmetric-binary", 3: "symmetric-ternary"}.get(n, "symmetric")
    return ExplicitMatrix(m, kind=kind, meta={"p": float(p)})


def symmetric_binary(p: float) -> ExplicitMatrix:
    """Binary symmetric channel: flip with probability ``p`` (``p != 0.5``).

    Examples
    --------
    >>> symmetric_binary(0.2).dense().tolist()
    [[0.8, 0.2], [0.2, 0.8]]
    """
    if not 0.0 <= p <= 1.0 or p == 0.5:
        raise MatrixError(f"p must be in [0, 1] and not 0.5 (got {p}); p = 0.5 is singular")
    m = np.array([[1 - p, p], [p, 1 - p]])
    return ExplicitMatrix(m, kind="symmetric-binary", meta={"p": float(p)})


def symmetric_ternary(p: float) -> ExplicitMatrix:
    """Ternary symmetric channel: change with probability ``p``, to each other value ``p/2``."""
    return symmetric_channel(3, p)


def block_diagonal(blocks: list, order: list[int] | None = None) -> ExplicitMatrix:
    """Grouped categories: values only move within their group.

    Parameters
    ----------
    blocks : list of array-like
        One column-stochastic matrix per group, in code order.
    order : list of int, optional
        Permutation mapping block positions to codes, when groups are not contiguous.

    References
    ----------
    Ma & Sivakumar, Sec. 3 (grouped randomization).
    """
    mats = [np.asarray(b, dtype=np.float64) for b in blocks]
    for i, b in enumerate(mats):
        if b.ndim != 2 or b.shape[0] != b.shape[1]:
            raise MatrixError(f"block {i} must be square (got shape {b.shape})")
    n = sum(b.shape[0] for b in mats)
    m = np.zeros((n, n))
    start = 0
    sizes = []
    for b in mats:
        k = b.shape[0]
        m[start : start + k, start : start + k] = b
        start += k
        sizes.append(k)
    if order is not None:
        perm = np.asarray(order)
        if sorted(perm.tolist()) != list(range(n)):
            raise MatrixError(f"order must be a permutation of 0..{n - 1} (got {list(order)})")
        full = np.zeros_like(m)
        full[np.ix_(perm, perm)] = m
        m = full
    return ExplicitMatrix(m, kind="block-diagonal", meta={"block_sizes": sizes})


class KroneckerMatrix:
    """``M_1 kron M_2 kron ...`` kept factored: each factor acts on its own axis.

    For a count tensor of shape ``(N_1, N_2, ...)`` the estimate applies each factor's
    inverse along its own axis, never forming the product matrix.

    Parameters
    ----------
    factors : list of PerturbationMatrix

    Examples
    --------
    >>> k = KroneckerMatrix([GammaDiagonal(3, 5.0), GammaDiagonal(2, 3.0)])
    >>> k.shape
    (3, 2)
    >>> np.allclose(k.dense(), np.kron(k.factors[0].dense(), k.factors[1].dense()))
    True

    References
    ----------
    Ma & Sivakumar, Sec. 4 (Kronecker structure of joint randomization).
    """

    def __init__(self, factors: list[PerturbationMatrix]) -> None:
        if not factors:
            raise MatrixError("a Kronecker product needs at least one factor")
        self.factors = list(factors)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(f.n_values for f in self.factors)

    def dense(self) -> np.ndarray:
        out = np.ones((1, 1))
        for f in self.factors:
            out = np.kron(out, f.dense())
        return out

    def _each(self, method: str, t: np.ndarray) -> np.ndarray:
        t = np.asarray(t, dtype=np.float64)
        if t.shape[: len(self.factors)] != self.shape:
            raise MatrixError(f"count tensor shape {t.shape} does not start with {self.shape}")
        for axis, f in enumerate(self.factors):
            t = getattr(f, method)(t, axis=axis)
        return t

    def apply(self, t: np.ndarray) -> np.ndarray:
        """Expected perturbed count tensor of original counts ``t``."""
        return self._each("apply", t)

    def inverse_apply(self, t: np.ndarray) -> np.ndarray:
        """Raw estimate of the original count tensor from perturbed counts ``t``."""
        return self._each("inverse_apply", t)

    def apply_transpose(self, t: np.ndarray) -> np.ndarray:
        """Each factor's transpose along its own axis."""
        return self._each("apply_transpose", t)

    def flat(self) -> FlatKronecker:
        """The product acting on flattened tensors (what the 1-D estimators take)."""
        return FlatKronecker(self)

    def amplification(self) -> float:
        """The product's amplification is the product of the factors' amplifications."""
        return float(np.prod([f.amplification() for f in self.factors]))


class FlatKronecker:
    """A :class:`KroneckerMatrix` seen as one matrix over the flattened cells.

    It offers what the estimators use (``n_values``, ``apply``, ``apply_transpose``,
    ``inverse_apply`` on arrays of shape (cells,) or (cells, K)), each computed factor
    by factor: the product matrix is never formed.

    Examples
    --------
    >>> k = KroneckerMatrix([GammaDiagonal(3, 5.0), GammaDiagonal(2, 3.0)])
    >>> x = np.arange(6.0)
    >>> np.allclose(k.flat().apply(x), k.dense() @ x)
    True
    """

    affine_form = None

    def __init__(self, kron: KroneckerMatrix) -> None:
        self.kron = kron
        self.n_values = int(np.prod(kron.shape))

    def _do(self, method: str, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        tensor = x.reshape(*self.kron.shape, *x.shape[1:])
        return getattr(self.kron, method)(tensor).reshape(x.shape)

    def apply(self, x: np.ndarray) -> np.ndarray:
        """Expected perturbed counts of original counts ``x``."""
        return self._do("apply", x)

    def apply_transpose(self, y: np.ndarray) -> np.ndarray:
        """The transpose of :meth:`apply`."""
        return self._do("apply_transpose", y)

    def inverse_apply(self, y: np.ndarray) -> np.ndarray:
        """The raw estimate of the original counts."""
        return self._do("inverse_apply", y)


def _spec_n(kind: str, spec: dict, n_values: int | None) -> int:
    """N of a matrix entry: its ``n_values`` key, else the domain's, which must agree."""
    n = spec.get("n_values", n_values)
    if n is None:
        raise MatrixError(f"a {kind} matrix needs n_values (or a domain to take N from)")
    if n_values is not None and n != n_values:
        raise MatrixError(f"{kind} matrix has N = {n} but the domain has N = {n_values}")
    return n


def _need_values(kind: str, n: int, n_values: int | None) -> None:
    if n_values is not None and n_values != n:
        raise MatrixError(f"a {kind} matrix needs {n} values but the domain has N = {n_values}")


def binary_randomization(p1: float, p2: float) -> ExplicitMatrix:
    """The general binary channel of Fig. 1(a): ``0 -> 1`` w.p. ``p1``, ``1 -> 0`` w.p. ``p2``.

    Parameters
    ----------
    p1, p2 : float
        In [0, 1], with ``p1 + p2 != 1`` (else the matrix is singular).

    Examples
    --------
    >>> binary_randomization(0.1, 0.25).dense().tolist()
    [[0.9, 0.25], [0.1, 0.75]]

    References
    ----------
    Ma & Sivakumar, Sec. 3, Fig. 1(a); Table 1 (C and F).
    """
    for name, v in (("p1", p1), ("p2", p2)):
        check_probability(v, name, closed=True, error=MatrixError)
    if abs(p1 + p2 - 1.0) < 1e-12:
        raise MatrixError(f"p1 + p2 must not be 1 (got {p1} + {p2}): the matrix would be singular")
    m = np.array([[1.0 - p1, p2], [p1, 1.0 - p2]])
    return ExplicitMatrix(m, kind="binary", meta={"p1": float(p1), "p2": float(p2)})


def grouped_symmetric(n_values: int, groups: Sequence[Sequence[int]], p: float) -> ExplicitMatrix:
    """Grouped categories: a symmetric channel of level ``p`` inside each group of codes.

    Groups of one code are left unchanged. The matrix is block-diagonal up to a
    permutation of the codes.

    Examples
    --------
    >>> grouped_symmetric(3, [[0, 2], [1]], 0.2).dense().round(2).tolist()
    [[0.8, 0.0, 0.2], [0.0, 1.0, 0.0], [0.2, 0.0, 0.8]]

    References
    ----------
    Ma & Sivakumar, Sec. 3 (partitioning the K_i categories into groups).
    """
    order = [int(c) for g in groups for c in g]
    if sorted(order) != list(range(n_values)):
        raise MatrixError(
            f"groups must partition the codes 0..{n_values - 1} (got {[list(g) for g in groups]})"
        )
    blocks = [
        np.ones((1, 1)) if len(g) == 1 else symmetric_channel(len(g), p).dense() for g in groups
    ]
    m = block_diagonal(blocks, order=order)
    return ExplicitMatrix(
        m.dense(),
        kind="block-diagonal",
        meta={"groups": [[int(c) for c in g] for g in groups], "p": float(p)},
    )


def retention_matrix(retention: Sequence[float] | np.ndarray) -> np.ndarray:
    """The column-stochastic matrix keeping value ``j`` w.p. ``retention[j]`` and moving
    it to each other value w.p. ``(1 - retention[j]) / (N - 1)`` (sdcMicro's ``P``,
    transposed to this module's convention).

    Examples
    --------
    >>> retention_matrix([0.75, 0.5]).tolist()
    [[0.75, 0.5], [0.25, 0.5]]
    """
    r = np.asarray(retention, dtype=np.float64)
    n = r.size
    m = np.broadcast_to((1.0 - r) / (n - 1), (n, n)).copy()
    np.fill_diagonal(m, r)
    return m


def invariant_matrix(base: np.ndarray, marginal: np.ndarray, alpha: float) -> np.ndarray:
    """Invariant PRAM: ``alpha B^T-backward-forward + (1 - alpha) I``, leaving ``marginal`` fixed.

    With ``B[h, o] = P(o -> h)`` (column-stochastic), ``p`` the original marginal and
    ``lam = B p`` the expected released one, the backward matrix
    ``Q[o, h] = B[h, o] p_o / lam_h`` is the posterior of the original given the
    released value, and the two steps forward then backward give
    ``R = diag(p) B^T diag(1/lam) B`` (``R[o', o] = P(o -> o')``), for which
    ``R p = p``. The released matrix is ``alpha R + (1 - alpha) I``, so the expected
    released marginal equals the original one. In sdcMicro's row-stochastic notation
    (``P = B^T``) this is ``Rs = alpha P Q + (1 - alpha) I``.

    Parameters
    ----------
    base : array of shape (N, N)
        Column-stochastic base matrix.
    marginal : array of shape (N,)
        Original counts or proportions, all positive.
    alpha : float
        In [0, 1].

    Examples
    --------
    >>> p = np.array([0.5, 0.3, 0.2])
    >>> m = invariant_matrix(retention_matrix([0.8, 0.8, 0.8]), p, 0.5)
    >>> bool(np.allclose(m @ p, p)), bool(np.allclose(m.sum(axis=0), 1.0))
    (True, True)

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


def _build_gamma_diagonal(spec: dict, n_values: int | None) -> PerturbationMatrix:
    return GammaDiagonal(_spec_n("gamma-diagonal", spec, n_values), spec["gamma"])


def _build_identity(spec: dict, n_values: int | None) -> PerturbationMatrix:
    return identity(_spec_n("identity", spec, n_values))


def _build_symmetric(spec: dict, n_values: int | None) -> PerturbationMatrix:
    return symmetric_channel(_spec_n("symmetric", spec, n_values), float(spec["p"]))


def _build_symmetric_binary(spec: dict, n_values: int | None) -> PerturbationMatrix:
    _need_values("symmetric-binary", 2, n_values)
    return symmetric_binary(float(spec["p"]))


def _build_symmetric_ternary(spec: dict, n_values: int | None) -> PerturbationMatrix:
    _need_values("symmetric-ternary", 3, n_values)
    return symmetric_channel(3, float(spec["p"]))


def _build_binary(spec: dict, n_values: int | None) -> PerturbationMatrix:
    _need_values("binary", 2, n_values)
    return binary_randomization(float(spec["p1"]), float(spec["p2"]))


def _build_block_diagonal(spec: dict, n_values: int | None) -> PerturbationMatrix:
    groups = spec["groups"]
    n = sum(len(g) for g in groups) if n_values is None else n_values
    return grouped_symmetric(n, groups, float(spec["p"]))


def _pram_parameters(spec: Mapping, n: int) -> tuple[np.ndarray | None, float]:
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


def _build_pram(
    spec: dict, n_values: int | None, marginal=None, rng: np.random.Generator | None = None
) -> PerturbationMatrix:
    """Invariant PRAM of a spec entry, from the original ``marginal`` (counts per value).

    For ``sdcmicro-pram`` the retention of every value is drawn from ``rng`` (sdcMicro's
    ``U[pd, 1]``; ``pd`` itself without ``rng``) and recorded as ``retention``.
    """
    if marginal is None:
        raise MatrixError(
            f"a {spec['kind']} matrix is built from the data's marginal; ppdm perturb builds "
            "it (ppdm.perturbation.realise_matrices)"
        )
    return _pram_matrix(spec, n_values, marginal, rng)


def _pram_matrix(
    spec: Mapping, n_values: int | None, marginal, rng: np.random.Generator | None
) -> ExplicitMatrix:
    """:func:`_build_pram` at any marginal (a uniform one checks an entry's parameters)."""
    kind = spec["kind"]
    n = _spec_n(kind, spec, n_values)
    base, alpha = _pram_parameters(spec, n)
    meta = {k: v for k, v in spec.items() if k not in ("kind", "matrix", "n_values")}
    if base is None:
        r = np.full(n, float(spec["pd"])) if rng is None else draw_retention(spec["pd"], n, rng)
        base = retention_matrix(r)
        meta["retention"] = r.tolist()
    p = np.asarray(marginal, dtype=np.float64)
    if p.shape != (n,) or np.any(p < 0):
        raise MatrixError(f"a {kind} marginal must be {n} counts (got {p.tolist()})")
    if np.any(p == 0):
        j = int(np.flatnonzero(p == 0)[0])
        raise MatrixError(
            f"{kind} needs every value of the domain in the data; value {j + 1} of {n} has "
            "count 0 (its released value would reveal it: infinite amplification)"
        )
    return ExplicitMatrix(invariant_matrix(base, p, alpha), kind=kind, meta=meta)


class StratifiedMatrix:
    """One matrix per value of a stratum column, released as is beside the attribute.

    A record is perturbed by the matrix of its stratum; the stratum column is released
    unperturbed, so the miner knows which matrix acted on each record and estimates
    stratum by stratum. Every stratum's matrix is kept dense (an explicit matrix of its
    own kind), so all strata sample alike, one uniform per record in record order.

    The attribute's guarantee is that of its least private stratum: ``gamma`` is the
    largest amplification over the strata (:meth:`worst`).

    Parameters
    ----------
    strata : str
        The stratum column.
    matrices : dict of str -> PerturbationMatrix
        One matrix per stratum value (the value as text), all of the same N.

    Examples
    --------
    >>> m = StratifiedMatrix("region", {"n": GammaDiagonal(3, 4.0), "s": GammaDiagonal(3, 9.0)})
    >>> round(m.amplification(), 6), m.worst_stratum
    (9.0, 's')

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


def _build_stratified(
    spec: dict, n_values: int | None, marginal=None, rng: np.random.Generator | None = None
) -> StratifiedMatrix:
    """One matrix per stratum value; ``marginal`` maps a stratum to its original counts
    (for the strata whose matrix is built from the data), ``rng`` draws their retentions."""
    entries = spec["matrices"]
    if not isinstance(entries, Mapping) or not entries:
        raise MatrixError(
            f"stratified matrices must map each stratum value to a matrix (got {entries!r})"
        )
    built = {}
    for value, entry in entries.items():
        if isinstance(entry, Mapping) and entry.get("kind") == "stratified":
            raise MatrixError(f"stratum {value!r}: a stratified matrix cannot be nested")
        sub = None if marginal is None else marginal.get(str(value))
        try:
            built[str(value)] = matrix_from_spec(entry, n_values, marginal=sub, rng=rng)
        except MatrixError as exc:
            raise MatrixError(f"stratum {value!r}: {exc}") from None
    return StratifiedMatrix(spec["strata"], built)


#: Kinds whose matrix is built from the data (the original marginal of the attribute):
#: a spec entry of such a kind without an explicit ``matrix`` is realised by
#: :func:`ppdm.perturbation.realise_matrices`, and the release states the marginal as a leak.
FROM_DATA = frozenset({"invariant-pram", "sdcmicro-pram"})


def needs_data(entry: Mapping | None) -> bool:
    """Whether a matrix entry still has to be built from the data (or, for a stratified
    one, checked against the strata the data holds): a released entry has every matrix."""
    if not isinstance(entry, Mapping):
        return False
    if entry.get("kind") == "stratified":
        subs = entry.get("matrices")
        return not isinstance(subs, Mapping) or any(
            not isinstance(e, Mapping) or "matrix" not in e for e in subs.values()
        )
    return entry.get("kind") in FROM_DATA and "matrix" not in entry


def check_matrix_entry(entry: Mapping, n_values: int | None = None) -> None:
    """Raise :class:`MatrixError` unless a spec entry is well formed; an entry built
    from the data has its parameters checked (against a uniform marginal)."""
    if needs_data(entry) and entry.get("kind") == "stratified":
        subs = entry.get("matrices")
        if not isinstance(entry.get("strata"), str) or not entry.get("strata"):
            raise MatrixError(f"stratified strata must name a column (got {entry.get('strata')!r})")
        if not isinstance(subs, Mapping) or not subs:
            raise MatrixError(
                f"stratified matrices must map each stratum value to a matrix (got {subs!r})"
            )
        for value, sub in subs.items():
            if isinstance(sub, Mapping) and sub.get("kind") == "stratified":
                raise MatrixError(f"stratum {value!r}: a stratified matrix cannot be nested")
            if n_values is None and not needs_data(sub):
                continue  # its size is known only with the domain
            try:
                check_matrix_entry(sub, n_values)
            except MatrixError as exc:
                raise MatrixError(f"stratum {value!r}: {exc}") from None
        return
    if needs_data(entry):
        if n_values is None:  # without a domain: the parameters, at the size they imply
            sized = next((entry[k] for k in ("base", "retention") if k in entry), None)
            n_values = len(sized) if isinstance(sized, list) and len(sized) >= 2 else 2
            n_values = entry.get("n_values", n_values)
        try:
            _pram_matrix(entry, n_values, np.ones(n_values), None)
        except KeyError as exc:
            raise MatrixError(
                f"matrix kind {entry['kind']!r} needs the key {exc.args[0]!r} (got {sorted(entry)})"
            ) from None
        return
    matrix_from_spec(entry, n_values)


#: The one table of matrix kinds of a spec: kind -> (builder, keys it needs, what it is).
#: Used by :func:`matrix_from_spec` (release specs) and
#: :func:`ppdm.bayesnet.pram.scheme_matrix` (PRAM schemes), so both accept the same kinds.
#: Any kind may instead carry an explicit ``matrix`` (as released specs do).
MATRIX_KINDS: dict[str, tuple[Any, tuple[str, ...], str]] = {
    "gamma-diagonal": (
        _build_gamma_diagonal,
        ("gamma",),
        "gamma on the diagonal, 1 elsewhere, scaled (Dowd, Xu & Zhang, Sec. 3)",
    ),
    "identity": (_build_identity, (), "no perturbation (a control; infinite amplification)"),
    "explicit": (None, ("matrix",), "an explicit column-stochastic matrix M[h][k] = P(k -> h)"),
    "symmetric": (
        _build_symmetric,
        ("p",),
        "keep the value w.p. 1 - p, else move to one of the other N - 1 uniformly",
    ),
    "symmetric-binary": (_build_symmetric_binary, ("p",), "flip one of 2 values w.p. p"),
    "symmetric-ternary": (
        _build_symmetric_ternary,
        ("p",),
        "change one of 3 values w.p. p, to each other value w.p. p/2",
    ),
    "binary": (_build_binary, ("p1", "p2"), "0 -> 1 w.p. p1, 1 -> 0 w.p. p2"),
    "block-diagonal": (
        _build_block_diagonal,
        ("groups", "p"),
        "a symmetric channel of level p inside each group of codes",
    ),
    "invariant-pram": (
        _build_pram,
        ("alpha",),
        "invariant PRAM: alpha (base forward, then backward) + (1 - alpha) I, keeping the "
        "data's marginal in expectation; base or retention (per value) gives the base",
    ),
    "sdcmicro-pram": (
        _build_pram,
        ("pd", "alpha"),
        "sdcMicro's pram(): retention of each value drawn U[pd, 1], then invariant PRAM",
    ),
    "stratified": (
        _build_stratified,
        ("strata", "matrices"),
        "one matrix (of any other kind) per value of the stratum column, released as is",
    ),
}


def matrix_from_spec(
    spec: dict,
    n_values: int | None = None,
    *,
    marginal: np.ndarray | None = None,
    rng: np.random.Generator | None = None,
) -> PerturbationMatrix:
    """Build a matrix from a spec entry: a ``to_spec()`` dictionary or a shorthand kind.

    Parameters
    ----------
    spec : dict
        ``{"kind": ..., ...}`` with a kind of :data:`MATRIX_KINDS` and its keys, or any
        kind with an explicit ``"matrix"`` (as written in a release spec).
    n_values : int, optional
        N of the attribute's domain; the matrix must have it.
    marginal : array of shape (N,), optional
        Original counts per value, for a kind of :data:`FROM_DATA` without a ``matrix``.
    rng : numpy.random.Generator, optional
        The release's generator, for the random retentions of ``sdcmicro-pram``.

    Raises
    ------
    MatrixError
        On an unknown kind, a missing key, or a matrix of the wrong size.

    Examples
    --------
    >>> matrix_from_spec({"kind": "symmetric-binary", "p": 0.25}).amplification()
    3.0

    References
    ----------
    Ma & Sivakumar, Sec. 3 (binary, ternary and grouped channels); Dowd, Xu & Zhang, Sec. 3.
    """
    if not isinstance(spec, Mapping):
        raise MatrixError(f"a matrix entry must be a mapping (got {spec!r})")
    kind = spec.get("kind")
    if kind in ("gamma-diagonal", "identity") or ("matrix" not in spec and kind in MATRIX_KINDS):
        build = MATRIX_KINDS[kind][0]
        try:
            if kind in FROM_DATA or kind == "stratified":
                return build(dict(spec), n_values, marginal, rng)
            return build(dict(spec), n_values)
        except KeyError as exc:
            raise MatrixError(
                f"matrix kind {kind!r} needs the key {exc.args[0]!r} (got {sorted(spec)})"
            ) from None
        except TypeError as exc:
            raise MatrixError(f"matrix kind {kind!r}: {exc}") from None
    if "matrix" in spec:
        rows = spec["matrix"]
        if isinstance(rows, (list, tuple)):
            check_n_values(len(rows), "N (matrix rows)", dense=True, error=MatrixError)
        meta = {k: v for k, v in spec.items() if k not in ("kind", "matrix")}
        m = ExplicitMatrix(spec["matrix"], kind=kind or "explicit", meta=meta)
        if n_values is not None and m.n_values != n_values:
            raise MatrixError(
                f"matrix is {m.n_values} x {m.n_values} but the domain has N = {n_values}"
            )
        return m
    raise MatrixError(
        f"matrix kind must be one of {', '.join(MATRIX_KINDS)}, or any kind with an "
        f"explicit 'matrix' (got {kind!r})"
    )
