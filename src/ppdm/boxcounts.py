"""Unbiased box counts straight from a release: no reconstruction.

``v_I = M_j^-T 1_I`` maps a perturbed code to an unbiased indicator of "the original
code lies in I" (gamma-diagonal: ``v_I(h) = ((gamma + N - 1) [h in I] - |I|) /
(gamma - 1)``); over independently perturbed attributes the product for a box is
unbiased for "the record lies in the box" (docs/release_learners.md derives it). With
summands ``w_r``, ``sum_r w_r^2 - sum_r w_r`` estimates ``Var(sum_r w_r)`` without bias
(0 for the identity matrix).

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
    """``v_I = M^-T 1_I``: per perturbed code, the unbiased weight of "original in I"."""
    return matrix.inverse_transpose_apply(np.asarray(mask, dtype=np.float64))


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
    """Estimated class counts of the records whose original codes lie in a box, and
    their standard errors.

    ``codes`` (n, d) are perturbed, ``classes`` unperturbed; ``masks`` give the box, the
    allowed original codes per attribute (``None``: any).
    """
    w = box_weights(codes, matrices, masks)
    counts = np.bincount(classes, weights=w, minlength=n_classes)
    var = np.bincount(classes, weights=w * w, minlength=n_classes) - counts
    return counts, np.sqrt(np.clip(var, 0.0, None))
