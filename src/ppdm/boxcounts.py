"""Unbiased box counts straight from a release: no reconstruction.

For attribute j perturbed with matrix ``M_j`` (columns = original codes), the vector
``v_I = M_j^-T 1_I`` satisfies ``E[v_I(P) | O = o] = (M_j^T v_I)(o) = 1_I(o)``: the
perturbed code, mapped through ``v_I``, is an unbiased indicator of "the original code
lies in I". Attributes are perturbed independently, so for a box
``R = I_1 x ... x I_d`` of original codes the product ``prod_j v_{I_j}(p_rj)`` is an
unbiased indicator of "record r lies in R", and summing it over the records of class
c gives an unbiased estimate of the number of class-c records in R. Unconstrained
attributes contribute a factor 1. For a gamma-diagonal matrix,
``v_I(h) = ((gamma + N - 1) [h in I] - |I|) / (gamma - 1)``.

The summands ``w_r`` are independent across records with ``E[w_r] = 1_R(o_r)``, so
``Var(sum_r w_r) = sum_r E[w_r^2] - sum_r 1_R(o_r)``. Since an indicator equals its
square, ``sum_r w_r^2 - sum_r w_r`` is an unbiased estimate of that variance (the
plain ``sum_r w_r^2`` over-states it by the count itself); it is exactly 0 for the
identity matrix. Its square root (clipped at 0) is the standard error used by the
release-tree learner.

References
----------
Dowd, Xu & Zhang, Eq. (1) (the matrix inverse); Ma & Sivakumar, Sec. 4 and
Theorems 1-2 (estimating sufficient statistics from randomized data).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .matrix import PerturbationMatrix

__all__ = ["indicator_weights", "box_weights", "box_counts"]


def indicator_weights(matrix: PerturbationMatrix, mask: np.ndarray) -> np.ndarray:
    """``v_I = M^-T 1_I``: per perturbed code, the unbiased weight of "original in I".

    Examples
    --------
    >>> from ppdm.matrix import GammaDiagonal
    >>> indicator_weights(GammaDiagonal(4, 5.0), np.array([1, 1, 0, 0], bool)).tolist()
    [1.5, 1.5, -0.5, -0.5]
    """
    mask = np.asarray(mask, dtype=np.float64)
    return matrix.inverse_transpose_apply(mask)


def box_weights(
    codes: np.ndarray, matrices: Sequence[PerturbationMatrix], masks: Sequence[np.ndarray | None]
) -> np.ndarray:
    """Per-record unbiased indicator of the box ``prod_j I_j`` (``None`` = unconstrained)."""
    codes = np.asarray(codes)
    w = np.ones(codes.shape[0])
    for j, (m, mask) in enumerate(zip(matrices, masks)):
        if mask is not None:
            w *= indicator_weights(m, mask)[codes[:, j]]
    return w


def box_counts(
    codes: np.ndarray,
    classes: np.ndarray,
    n_classes: int,
    matrices: Sequence[PerturbationMatrix],
    masks: Sequence[np.ndarray | None],
) -> tuple[np.ndarray, np.ndarray]:
    """Estimated class counts of the records whose original codes lie in a box.

    ``codes`` (n, d) are perturbed, ``classes`` unperturbed; ``masks`` give the box, the
    allowed original codes per attribute (``None``: any). Returns the counts and their
    standard errors.

    Examples
    --------
    >>> from ppdm.matrix import identity
    >>> codes = np.array([[0, 1], [1, 1], [1, 0]])
    >>> c, s = box_counts(codes, np.array([0, 1, 1]), 2, [identity(2)] * 2,
    ...                   [np.array([False, True]), None])
    >>> c.tolist(), s.tolist()
    ([0.0, 2.0], [0.0, 0.0])
    """
    w = box_weights(codes, matrices, masks)
    counts = np.bincount(classes, weights=w, minlength=n_classes)
    var = np.bincount(classes, weights=w * w, minlength=n_classes) - counts
    return counts, np.sqrt(np.clip(var, 0.0, None))
