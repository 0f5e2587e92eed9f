"""Matrix products along any axis equal the dense product on that axis.

``apply``, ``apply_transpose``, ``inverse_apply`` and ``inverse_transpose_apply`` act on
axis 0 without moving any axis (the hot path of the iterative Bayesian update) and on any
other axis by moving it first; both must agree with ``np.tensordot`` on the dense matrix.
"""

from __future__ import annotations

import numpy as np
import pytest

from ppdm.matrix import GammaDiagonal, symmetric_channel

MATRICES = [GammaDiagonal(5, 4.0), symmetric_channel(5, 0.3)]


def _dense_along(m: np.ndarray, x: np.ndarray, axis: int) -> np.ndarray:
    return np.moveaxis(np.tensordot(m, x, axes=([1], [axis])), 0, axis)


@pytest.mark.parametrize("matrix", MATRICES, ids=["gamma-diagonal", "explicit"])
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_products_along_every_axis_equal_the_dense_ones(matrix, axis):
    rng = np.random.default_rng(3)
    shape = [3, 4, 2]
    shape[axis] = 5
    x = rng.uniform(0, 10, shape)
    m = matrix.dense()
    inv = np.linalg.inv(m)
    np.testing.assert_allclose(matrix.apply(x, axis=axis), _dense_along(m, x, axis), rtol=1e-12)
    np.testing.assert_allclose(
        matrix.apply_transpose(x, axis=axis), _dense_along(m.T, x, axis), rtol=1e-12
    )
    np.testing.assert_allclose(
        matrix.inverse_apply(x, axis=axis), _dense_along(inv, x, axis), rtol=1e-9, atol=1e-9
    )
    np.testing.assert_allclose(
        matrix.inverse_transpose_apply(x, axis=axis),
        _dense_along(inv.T, x, axis),
        rtol=1e-9,
        atol=1e-9,
    )


@pytest.mark.parametrize("matrix", MATRICES, ids=["gamma-diagonal", "explicit"])
def test_one_dimensional_counts_keep_their_shape(matrix):
    y = np.arange(1.0, 6.0)
    out = matrix.apply(y)
    assert out.shape == (5,)
    np.testing.assert_allclose(out, matrix.dense() @ y, rtol=1e-12)
