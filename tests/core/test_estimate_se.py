"""Standard errors that belong to the estimate they accompany.

The non-linear methods (clipped, rescaled, projected, EM) get a parametric bootstrap:
it must match the spread of the same method over real re-perturbations of a fixed
original table.
"""

import json

import numpy as np
import pytest

from ppdm.estimate import _project_columns as project_columns
from ppdm.estimate import (
    bootstrap_stderr,
    estimate_counts,
    point_estimate,
    project_simplex,
)
from ppdm.exceptions import ParameterError
from ppdm.matrix import ExplicitMatrix, GammaDiagonal
from ppdm.perturbation import perturb_codes

NONLINEAR = ("zero", "set-scale", "norm-sub", "ibu")
# small and empty cells, so clipping and projection are active
TABLE = np.array([600, 300, 50, 0, 20, 5, 25, 0])
R = 1000  # real re-perturbations
B = 1000  # bootstrap replicates in the comparison


def _explicit(n: int) -> ExplicitMatrix:
    keep = 0.4 + 0.05 * np.arange(n)  # a different diagonal per column: not a I + b J
    m = np.tile((1 - keep) / (n - 1), (n, 1))
    np.fill_diagonal(m, keep)
    return ExplicitMatrix(m)


MATRICES = {"gamma": GammaDiagonal(len(TABLE), 3.0), "explicit": _explicit(len(TABLE))}


@pytest.fixture(scope="module")
def real_replicates():
    """R perturbations of TABLE through the release path (Algorithm 1), per matrix: (N, R)."""
    rng = np.random.default_rng(11)
    codes = np.repeat(np.arange(len(TABLE)), TABLE)
    out = {}
    for name, m in MATRICES.items():
        out[name] = np.column_stack(
            [np.bincount(perturb_codes(codes, m, rng), minlength=len(TABLE)) for _ in range(R)]
        ).astype(np.float64)
    return out


@pytest.mark.parametrize("matrix_name", list(MATRICES))
@pytest.mark.parametrize("method", NONLINEAR)
def test_bootstrap_matches_monte_carlo_spread(real_replicates, matrix_name, method):
    """Bootstrap sd at the true table within 4 sampling errors of the Monte Carlo sd.

    The sampling error of an sd s from K draws is sqrt((m4 - s^4) / K) / (2 s) (delta
    method on the sample variance; sqrt(1/(2K)) s for normal draws), with the fourth
    central moment m4 taken from the Monte Carlo draws since clipped estimates are not
    normal. Both sds are estimated (R and B draws), so the variances add.
    """
    m = MATRICES[matrix_name]
    est = point_estimate(real_replicates[matrix_name], m, method)
    s_mc = est.std(axis=1, ddof=1)
    m4 = np.mean((est - est.mean(axis=1, keepdims=True)) ** 4, axis=1)
    y = real_replicates[matrix_name][:, 0]
    s_bs = bootstrap_stderr(
        y, m, method, TABLE.astype(float), replicates=B, rng=np.random.default_rng(5)
    )
    live = s_mc > 1e-6
    assert live.sum() >= 5
    se_sd = np.sqrt(np.clip(m4[live] - s_mc[live] ** 4, 0, None) * (1 / R + 1 / B)) / (
        2 * s_mc[live]
    )
    z = (s_bs[live] - s_mc[live]) / se_sd
    assert np.all(np.abs(z) < 4), (s_bs, s_mc, z)
    np.testing.assert_allclose(s_bs[~live], 0.0, atol=1e-6)


@pytest.mark.parametrize("method", NONLINEAR)
def test_clipped_estimate_gets_its_own_stderr(method):
    """The raw inverse's figure is far larger than the spread of a clipped estimate."""
    m = GammaDiagonal(len(TABLE), 3.0)
    y = np.bincount(
        perturb_codes(np.repeat(np.arange(len(TABLE)), TABLE), m, 2), minlength=len(TABLE)
    ).astype(float)
    e = estimate_counts(y, m, method)
    raw = estimate_counts(y, m, "inverse")
    assert e.stderr_kind == "bootstrap (B=200)"
    assert raw.stderr_kind == "analytic"
    # the empty cell: the raw inverse's se is ~ sqrt(n) / a, the clipped one much smaller
    assert e.stderr[3] < 0.8 * raw.stderr[3], (e.stderr, raw.stderr)
    again = estimate_counts(y, m, method)
    np.testing.assert_array_equal(e.stderr, again.stderr)  # seeded from the counts
    assert estimate_counts(y, m, method, replicates=0).stderr_kind == "analytic"


def test_inverse_keeps_analytic_stderr():
    m = GammaDiagonal(len(TABLE), 3.0)
    y = m.apply(TABLE.astype(float))
    e = estimate_counts(y, m, "inverse")
    # Theorems 1-2 literally: M^-1 (sum_k x_k (diag(m_k) - m_k m_k^T)) M^-T, x the clipped estimate
    dense = m.dense()
    x = np.clip(e.counts, 0, None)
    cov_y = sum(
        x[k] * (np.diag(dense[:, k]) - np.outer(dense[:, k], dense[:, k])) for k in range(len(x))
    )
    inv = np.linalg.inv(dense)
    np.testing.assert_allclose(e.stderr, np.sqrt(np.diag(inv @ cov_y @ inv.T)), rtol=1e-9)
    assert e.stderr_kind == "analytic"


def test_bad_replicates_rejected():
    m = GammaDiagonal(3, 3.0)
    with pytest.raises(ParameterError, match="replicates"):
        estimate_counts(np.array([5.0, 3.0, 2.0]), m, "zero", replicates=1)


def test_columnwise_projection_equals_one_at_a_time():
    rng = np.random.default_rng(3)
    x = rng.normal(2, 5, (40, 25))
    total = rng.uniform(0, 50, 25)
    total[4] = 0.0
    expect = np.column_stack([project_simplex(x[:, k], total[k]) for k in range(25)])
    np.testing.assert_array_equal(project_columns(x, total), expect)


@pytest.mark.parametrize(
    ("method", "kind"), [("inverse", "analytic"), ("set-scale", "bootstrap (B=200)")]
)
def test_cli_labels_the_stderr_kind(tmp_path, run_cli, method, kind):
    rng = np.random.default_rng(0)
    src = tmp_path / "orig.csv"
    src.write_text("color\n" + "\n".join(rng.choice(["r", "g", "b", "y"], 400)) + "\n")
    rel = tmp_path / "rel"
    code, _, err = run_cli("perturb", src, "--out", rel, "--seed", "1")
    assert code == 0, err
    code, out, err = run_cli("estimate", rel, "--method", method)
    assert code == 0, err
    shown = {"analytic": "analytic", "bootstrap (B=200)": "bootstrap, B=200"}[kind]
    assert f"stderr ({shown})" in out
    other = "analytic" if kind != "analytic" else "bootstrap"
    assert other not in out
    code, out, err = run_cli("estimate", rel, "--method", method, "--json")
    assert code == 0, err
    (attr,) = json.loads(out)["attributes"]
    assert attr["stderr_kind"] == kind
