"""The matrices of the papers and their relatives: gamma-diagonal, explicit, symmetric
channels, binary randomization, block-diagonal and grouped.

References
----------
Dowd, Xu & Zhang, Sec. 3.1 (the gamma-diagonal matrix); Warner (1965).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import cached_property

import numpy as np

from ..exceptions import MatrixError
from ..limits import check_n_values
from ..random import WordStream
from ..validation import check_gamma, check_int, check_probability
from .base import ExplicitMatrix, PerturbationMatrix, along, check_n


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
        self._n = check_n_values(check_n(n_values), "N", error=MatrixError)
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

    def dense(self) -> np.ndarray:
        m = np.full((self._n, self._n), self.off_diagonal)
        np.fill_diagonal(m, self.diagonal)
        return m

    def apply(self, x: np.ndarray, axis: int = 0) -> np.ndarray:
        lam, n = self.keep_probability, self._n
        return along(lambda a: lam * a + (1 - lam) * a.sum(axis=0) / n, x, axis)

    def inverse_apply(self, y: np.ndarray, axis: int = 0) -> np.ndarray:
        """X_hat_i = ((gamma + N - 1) y_i - n) / (gamma - 1), in O(N)."""
        g, n = self.gamma, self._n
        return along(lambda a: ((g + n - 1) * a - a.sum(axis=0)) / (g - 1), y, axis)

    def power(self, t: int) -> PerturbationMatrix:
        """``M^t = lam^t I + (1 - lam^t) J/N`` (Theorem 2): again gamma-diagonal."""
        t = check_int(t, "t", error=MatrixError)
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

        A word ``r`` uniform on ``[0, 2^b)`` gives ``h = r // q``, ``q = ceil(2^b /
        (gamma + N - 1))``: each code ``h < N`` has probability exactly ``q / 2^b`` and the
        value is kept when ``h >= N`` (amplification :attr:`realised_gamma`). A
        :class:`ppdm.random.WordStream` ``rng`` keeps a leftover half word between calls,
        so batch-by-batch perturbation equals one call; ``chunk`` does not change the result.
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


def explicit(matrix) -> ExplicitMatrix:
    """A validated explicit matrix (see :class:`ExplicitMatrix`)."""
    return ExplicitMatrix(matrix)


def identity(n_values: int) -> ExplicitMatrix:
    """The identity channel (no perturbation), useful as a control."""
    n = check_n_values(check_n(n_values), "N", dense=True, error=MatrixError)
    return ExplicitMatrix(np.eye(n), kind="identity", meta={"n_values": n})


def symmetric_channel(n_values: int, p: float) -> ExplicitMatrix:
    """Keep the value with probability ``1 - p``, else move to one of the other N-1 uniformly.

    ``p`` is the total probability of a change, ``0 <= p < (N-1)/N``.

    References
    ----------
    Ma & Sivakumar, Sec. 3 (binary and ternary symmetric channels).
    """
    n = check_n_values(check_n(n_values), "N", dense=True, error=MatrixError)
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
    """Binary symmetric channel: flip with probability ``p`` (``p != 0.5``)."""
    if not 0.0 <= p <= 1.0 or p == 0.5:
        raise MatrixError(f"p must be in [0, 1] and not 0.5 (got {p}); p = 0.5 is singular")
    m = np.array([[1 - p, p], [p, 1 - p]])
    return ExplicitMatrix(m, kind="symmetric-binary", meta={"p": float(p)})


def symmetric_ternary(p: float) -> ExplicitMatrix:
    """Ternary symmetric channel: change with probability ``p``, to each other value ``p/2``."""
    return symmetric_channel(3, p)


def block_diagonal(blocks: list, order: list[int] | None = None) -> ExplicitMatrix:
    """Grouped categories: values only move within their group.

    ``blocks`` holds one column-stochastic matrix per group, in code order; ``order``
    maps block positions to codes when groups are not contiguous.

    References
    ----------
    Ma & Sivakumar, Sec. 3 (grouped randomization).
    """
    mats = [np.asarray(b, dtype=np.float64) for b in blocks]
    for i, b in enumerate(mats):
        if b.ndim != 2 or b.shape[0] != b.shape[1]:
            raise MatrixError(f"block {i} must be square (got shape {b.shape})")
    from scipy.linalg import block_diag  # imported when needed: the command line starts without it

    m = block_diag(*mats) if mats else np.zeros((0, 0))
    n, sizes = len(m), [b.shape[0] for b in mats]
    if order is not None:
        perm = np.asarray(order)
        if sorted(perm.tolist()) != list(range(n)):
            raise MatrixError(f"order must be a permutation of 0..{n - 1} (got {list(order)})")
        full = np.zeros_like(m)
        full[np.ix_(perm, perm)] = m
        m = full
    return ExplicitMatrix(m, kind="block-diagonal", meta={"block_sizes": sizes})


def binary_randomization(p1: float, p2: float) -> ExplicitMatrix:
    """The general binary channel of Fig. 1(a): ``0 -> 1`` w.p. ``p1``, ``1 -> 0`` w.p. ``p2``.

    ``p1 + p2 != 1`` (else the matrix is singular).

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
    """Grouped categories: a symmetric channel of level ``p`` inside each group of codes
    (a group of one code is left unchanged).

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
