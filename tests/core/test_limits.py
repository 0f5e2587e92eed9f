"""Limits on work and input size, and closed forms instead of dense N x N arrays."""

import json

import numpy as np
import pandas as pd
import pytest

from ppdm import limits
from ppdm.estimate import estimate_counts, iterative_bayesian_update
from ppdm.exceptions import MatrixError, SpecError
from ppdm.matrix import ExplicitMatrix, GammaDiagonal, matrix_from_spec, symmetric_channel


class _Dense(ExplicitMatrix):
    """The same matrix, forced onto the dense path."""

    affine_form = None


def _dense_variance(m: np.ndarray, x: np.ndarray) -> np.ndarray:
    inv = np.linalg.inv(m)
    cov_y = np.diag(m @ x) - (m * x) @ m.T
    return np.diag(inv @ cov_y @ inv.T)


@pytest.mark.parametrize(
    "matrix",
    [GammaDiagonal(7, 3.0), GammaDiagonal(2, 1.5), symmetric_channel(5, 0.3)],
    ids=["gamma-7", "gamma-2", "symmetric-5"],
)
def test_closed_forms_equal_dense(matrix):
    rng = np.random.default_rng(1)
    n = matrix.n_values
    dense = _Dense(matrix.dense())
    assert dense.affine_form is None and matrix.affine_form is not None
    y = rng.integers(0, 500, n).astype(float)
    x = rng.integers(0, 500, n).astype(float)
    m = matrix.dense()
    np.testing.assert_allclose(matrix.inverse_apply(y), np.linalg.solve(m, y), rtol=1e-9)
    np.testing.assert_allclose(matrix.apply(x), m @ x, rtol=1e-12)
    np.testing.assert_allclose(
        matrix.inverse_transpose_apply(y), np.linalg.solve(m.T, y), rtol=1e-9
    )
    np.testing.assert_allclose(matrix.estimate_variance(x), _dense_variance(m, x), rtol=1e-9)
    np.testing.assert_allclose(dense.estimate_variance(x), _dense_variance(m, x), rtol=1e-9)
    for method in ("inverse", "set-scale", "ibu"):
        fast, slow = estimate_counts(y, matrix, method), estimate_counts(y, dense, method)
        np.testing.assert_allclose(fast.counts, slow.counts, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(fast.stderr, slow.stderr, rtol=1e-9, atol=1e-9)
    two = np.column_stack([y, y[::-1]])
    np.testing.assert_allclose(
        iterative_bayesian_update(two, matrix), iterative_bayesian_update(two, dense), rtol=1e-9
    )


def test_large_gamma_diagonal_never_builds_a_dense_matrix(monkeypatch):
    n = 20_000  # a dense N x N float array would be 3.2 GB

    def refuse(self):
        raise AssertionError("dense() called")

    monkeypatch.setattr(GammaDiagonal, "dense", refuse)
    m = GammaDiagonal(n, 9.0)
    y = np.random.default_rng(0).integers(0, 50, n).astype(float)
    est = estimate_counts(y, m, "ibu")
    assert est.stderr.shape == (n,) and np.all(np.isfinite(est.stderr))
    assert abs(est.counts.sum() - y.sum()) < 1e-6 * y.sum()
    assert m.min_row_support() == n
    from ppdm.perturb import attribute_privacy

    assert attribute_privacy(m, 1000)["K"] == n


def test_gamma_diagonal_cap():
    GammaDiagonal(limits.MAX_VALUES, 9.0)  # at the cap: fine, nothing allocated
    with pytest.raises(MatrixError, match=f"N is {limits.MAX_VALUES + 1}, above the cap"):
        GammaDiagonal(limits.MAX_VALUES + 1, 9.0)


def test_explicit_matrix_cap_checked_before_building_it():
    rows = [[]] * (limits.MAX_DENSE_VALUES + 1)
    with pytest.raises(MatrixError, match="above the cap of 4096 values per attribute for an"):
        matrix_from_spec({"kind": "explicit", "matrix": rows})
    with pytest.raises(MatrixError, match="above the cap"):
        symmetric_channel(limits.MAX_DENSE_VALUES + 1, 0.1)


def test_cli_bins_above_cap_fails_fast(run_cli, tmp_path):
    data = tmp_path / "in.csv"
    pd.DataFrame({"x": np.linspace(0, 1, 50)}).to_csv(data, index=False)
    out = tmp_path / "rel"
    code, _, err = run_cli("perturb", data, "--out", out, "--bins", "10000000", "--seed", "1")
    assert code == 2
    assert err.strip() == (
        "error: --bins is 10000000, above the cap of 65536 values per attribute "
        "(ppdm.limits.MAX_VALUES)"
    )
    assert not out.exists()


def test_spec_domain_above_cap_names_the_attribute(tmp_path):
    from ppdm.release import read_spec

    spec = {
        "attributes": [
            {
                "name": "age",
                "domain": {"kind": "binned", "low": 0, "high": 1, "n_bins": 10_000_000},
                "matrix": {"kind": "gamma-diagonal", "gamma": 9},
            }
        ]
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    with pytest.raises(SpecError, match=r"attributes\.0.*'age'.*N is 10000000, above the cap"):
        read_spec(path)


def test_categorical_column_above_cap_names_the_column(monkeypatch):
    from ppdm.perturb import plan_release

    monkeypatch.setattr(limits, "MAX_VALUES", 10)
    frame = pd.DataFrame({"city": [f"c{i}" for i in range(11)]})
    with pytest.warns(UserWarning):
        with pytest.raises(SpecError, match="attribute 'city': N is 11, above the cap of 10"):
            plan_release(frame, gamma=9.0)
    with pytest.raises(SpecError, match="n_bins is 11, above the cap of 10"):
        plan_release(frame, gamma=9.0, n_bins=11)


def test_largest_remainder_with_a_subnormal_total():
    from ppdm.reconstruct import largest_remainder

    est = np.zeros(10)
    est[-1] = 5e-324  # total / sum overflows to inf
    assert largest_remainder(est, 3).tolist() == [0] * 9 + [3]
