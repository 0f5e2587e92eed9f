"""The Kronecker product of attribute matrices: the channel of a pair (or more) of
attributes perturbed independently.

References
----------
Ma & Sivakumar, Sec. 4 (joint estimates through the Kronecker product).
"""

from __future__ import annotations

import functools

import numpy as np

from ..exceptions import MatrixError
from .base import PerturbationMatrix


class KroneckerMatrix:
    """``M_1 kron M_2 kron ...`` kept factored: each factor acts on its own axis of a
    count tensor (N_1, N_2, ...), never forming the product matrix.

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
        return functools.reduce(np.kron, (f.dense() for f in self.factors), np.ones((1, 1)))

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
    """A :class:`KroneckerMatrix` seen as one matrix over the flattened cells, for the
    estimators (arrays of shape (cells,) or (cells, K)), computed factor by factor."""

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
