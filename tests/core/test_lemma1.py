"""Lemma 1 of Dowd, Xu & Zhang (Sec. 3.3): the raw estimate's L1 norm is at least n.

Every column of M sums to 1, so ``1^T M^-1 = 1^T`` and the raw estimate
``X_hat = M^-1 y`` sums to ``n = sum(y)`` exactly. Hence ``||X_hat||_1 >= |sum X_hat| = n``,
with equality exactly when X_hat has no negative element, and in particular when
``X_hat = X``. The set-scale estimate (zero the negatives, rescale to n; ppdm's reading of
the name the paper gives in Sec. 6.1) then satisfies both C1 and C2.

Tolerances: the closed-form inverse has entries of size at most (gamma + N - 1) / (gamma - 1),
so the floating-point error of a sum over N entries of ``|X_hat|`` is far below
``1e-9 * n * N * (gamma + N - 1) / (gamma - 1)``.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdm.estimate import point_estimate
from ppdm.matrix import GammaDiagonal


def _tol(n: float, m: GammaDiagonal, gamma: float) -> float:
    return 1e-9 * max(n, 1.0) * m.n_values * (gamma + m.n_values - 1) / (gamma - 1)


counts = st.lists(st.integers(0, 10_000), min_size=2, max_size=60)
gammas = st.floats(1.05, 50.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(y=counts, gamma=gammas)
def test_raw_estimate_l1_norm_is_at_least_n(y, gamma):
    y = np.asarray(y, dtype=np.float64)
    n = y.sum()
    m = GammaDiagonal(len(y), gamma)
    raw = point_estimate(y, m, "inverse")
    tol = _tol(n, m, gamma)
    assert abs(raw.sum() - n) <= tol  # 1^T M^-1 = 1^T
    l1 = np.abs(raw).sum()
    assert l1 >= n - tol
    # equality exactly when nothing is negative; the excess is twice the negative mass
    assert l1 - n == pytest.approx(2.0 * -raw[raw < 0].sum(), abs=2 * tol)


@settings(max_examples=200, deadline=None)
@given(x=counts, gamma=gammas)
def test_l1_norm_is_n_when_the_estimate_is_exact(x, gamma):
    """If y = M X (the expected perturbed counts), X_hat = X and ||X_hat||_1 = n."""
    x = np.asarray(x, dtype=np.float64)
    m = GammaDiagonal(len(x), gamma)
    raw = point_estimate(m.apply(x), m, "inverse")
    tol = _tol(x.sum(), m, gamma)
    assert np.allclose(raw, x, atol=tol)
    assert abs(np.abs(raw).sum() - x.sum()) <= tol


@settings(max_examples=200, deadline=None)
@given(y=counts, gamma=gammas)
def test_set_scale_meets_c1_and_c2(y, gamma):
    """Set-scale: no negative count (C2) and L1 norm n (C1), never above the raw L1 norm."""
    y = np.asarray(y, dtype=np.float64)
    m = GammaDiagonal(len(y), gamma)
    fixed = point_estimate(y, m, "set-scale")
    tol = _tol(y.sum(), m, gamma)
    assert fixed.min() >= 0.0
    assert abs(fixed.sum() - y.sum()) <= tol
    assert fixed.sum() <= np.abs(point_estimate(y, m, "inverse")).sum() + tol


def test_lemma1_is_strict_for_a_sampled_sparse_histogram():
    """A plateau with empty values, perturbed at gamma 3: the raw estimate goes negative
    on the empty values, so ||X_hat||_1 > n (by far more than the tolerance)."""
    rng = np.random.default_rng(11)
    m = GammaDiagonal(40, 3.0)
    x = np.zeros(40, dtype=np.int64)
    x[10:20] = 500
    codes = np.repeat(np.arange(40), x)
    y = np.bincount(m.draw(codes, rng), minlength=40).astype(np.float64)
    raw = point_estimate(y, m, "inverse")
    assert (raw < 0).any()
    assert np.abs(raw).sum() > y.sum() + 1.0
