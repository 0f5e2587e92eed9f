import numpy as np
import pandas as pd
import pytest

from ppdm.estimate import estimate_counts
from ppdm.exceptions import ParameterError
from ppdm.matrix import GammaDiagonal
from ppdm.privacy import kang_bound
from ppdm_papers.core import encode_table, perturb_table, point_estimate, reconstruct_table
from ppdm_papers.fig2 import fig2_cell
from ppdm_papers.multiple import (
    estimate_multiple,
    multiple_amplification,
    multiple_kang_bound,
    perturb_copies,
)


@pytest.mark.parametrize("method", ["inverse", "zero", "set-scale", "norm-sub", "ibu"])
def test_point_estimate_matches_estimate_counts(method):
    y = np.array([30.0, 0.0, 5.0, 12.0, 1.0])
    m = GammaDiagonal(5, 3.0)
    assert np.allclose(point_estimate(y, m, method), estimate_counts(y, m, method).counts)


def test_reconstruction_keeps_estimated_counts_and_modes():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.uniform(0, 1, 500), "b": rng.integers(0, 3, 500)})
    y = (X["a"] > 0.5).astype(int).to_numpy()
    t = encode_table(X, y, 10)
    assert t.n_values.tolist() == [10, 10]
    p = perturb_table(t, 5.0, rng)
    for mode in ("global", "by-class"):
        r = reconstruct_table(t, p, 5.0, rng, mode=mode)
        assert r.shape == p.shape and r.min() >= 0 and r.max() < 10
    ti = encode_table(X, y, 10, rule="infer")
    assert ti.n_values.tolist()[1] == 3  # d <= N integer attribute stays categorical
    with pytest.raises(ParameterError, match="mode"):
        reconstruct_table(t, p, 5.0, rng, mode="local")
    with pytest.raises(ParameterError, match="rule"):
        encode_table(X, y, 10, rule="quantile")


def test_pooled_equals_averaged_for_the_linear_estimate():
    m = GammaDiagonal(6, 4.0)
    codes = np.repeat(np.arange(6), [50, 10, 0, 200, 30, 10])
    c = perturb_copies(codes, m, 5, 1)
    assert c.shape == (5, len(codes))
    pool = estimate_multiple(c, m, "inverse", "pool")
    avg = estimate_multiple(c, m, "inverse", "average")
    assert np.allclose(pool, avg) and np.isclose(pool.sum(), len(codes))
    assert (estimate_multiple(c, m, "set-scale") >= 0).all()


def test_multiple_bound_and_privacy_cost():
    assert np.isclose(multiple_kang_bound(5, 20, 1000, 4), kang_bound(5, 20, 1000) / 2)
    assert multiple_amplification(9.0, 3) == 729.0
    with pytest.raises(ParameterError, match="m"):
        perturb_copies(np.array([0, 1]), GammaDiagonal(2, 3.0), 0)
    with pytest.raises(ParameterError, match="combine"):
        estimate_multiple(np.zeros((2, 3), int), GammaDiagonal(2, 3.0), combine="median")


def test_more_copies_shrink_the_error_variance():
    """Theory: Var of the pooled raw estimate falls as 1/m (tolerance from 200 draws)."""
    m = GammaDiagonal(10, 3.0)
    codes = np.repeat(np.arange(10), 100)
    true = np.bincount(codes, minlength=10).astype(float)
    rng = np.random.default_rng(3)

    def mse(k):
        return np.mean(
            [
                np.sum(
                    (estimate_multiple(perturb_copies(codes, m, k, rng), m, "inverse") - true) ** 2
                )
                for _ in range(200)
            ]
        )

    expected = m.expected_squared_error(true)
    # relative sd of a mean of 200 squared-error sums is well under 15 %
    assert abs(mse(1) / expected - 1) < 0.25
    assert abs(mse(4) / (expected / 4) - 1) < 0.25


def test_fig2_cell_rows_are_seeded():
    a = fig2_cell(("plateau", 5, 20), seed=1, n_records=2000, reps=2)
    b = fig2_cell(("plateau", 5, 20), seed=1, n_records=2000, reps=2)
    assert a == b and len(a) == 8
