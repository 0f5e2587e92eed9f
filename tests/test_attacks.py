"""Data-recovery attacks on additive noise, with tolerances derived from theory.

The low-rank case: n records of m attributes whose centred part lies in a k-dimensional
subspace, with signal variances lambda_i along it, plus independent N(0, sigma^2) noise.

Projection attacks (spectral filtering, PCA-DR). If the subspace were known, projecting
keeps the k noise coordinates inside it and removes the m - k outside, so the mean
squared error per value is sigma^2 k/m, against sigma^2 for the noisy data. That
per-value error is a mean of n k independent sigma^2 chi^2_1 terms divided by m: its
relative standard deviation is sqrt(2/(n k)). Estimating the subspace adds, per signal
direction, about gamma sigma^2 (1 + sigma^2/lambda_i) (gamma = m/n) from the tilt of the
sample eigenvector (spiked-covariance asymptotics, Paul 2007), and as much again from
the noise it then picks up: at most 2 gamma sigma^2 sum_i (1 + sigma^2/lambda_i) / m in
all. The eigenvalue gap lambda_i >> sigma^2 (1 + sqrt(gamma))^2 makes this small and makes
the selection of k reliable.

BE-DR. With the covariance known the posterior-mean error per value is
sum_i lambda_i sigma^2 / (lambda_i + sigma^2) / m. The estimated covariance of the
m - k noise directions is Cov(Y) - sigma^2, which is at most lambda_max - sigma^2 by the
Marchenko-Pastur edge; a direction with estimated variance v gets gain v / (v + sigma^2)
and error gain^2 sigma^2, at most s^2 sigma^2 with s = 1 - sigma^2 / lambda_max.
"""

import numpy as np
import pandas as pd
import pytest

from ppdm.additive import additive_perturb
from ppdm.attacks import (
    AttackResult,
    bayes_reconstruct,
    marchenko_pastur_bounds,
    noise_covariance,
    pca_reconstruct,
    spectral_filtering,
)
from ppdm.exceptions import DataError, ParameterError

N, M, K, SIGMA = 2000, 20, 2, 1.0
LAM = np.array([40.0, 20.0])  # signal variances, far above the noise edge 1.21
GAMMA = M / N
Z = 4.0  # standard deviations allowed for sampling noise


@pytest.fixture(scope="module")
def low_rank():
    rng = np.random.default_rng(20030)
    basis = np.linalg.qr(rng.normal(size=(M, K)))[0]  # orthonormal columns
    original = 5.0 + (rng.normal(size=(N, K)) * np.sqrt(LAM)) @ basis.T
    released = additive_perturb(original, "gaussian", SIGMA, random_state=rng)
    return original, released, basis


def _mse(a, b):
    return float(np.mean((np.asarray(a) - np.asarray(b)) ** 2))


def _projection_bounds():
    rel = Z * np.sqrt(2 / (N * K))
    low = SIGMA**2 * K / M * (1 - rel)
    subspace = 2 * GAMMA * SIGMA**2 * np.sum(1 + SIGMA**2 / LAM) / M
    high = (SIGMA**2 * K / M + subspace) * (1 + rel)
    return low, high


def test_noisy_data_error_is_sigma(low_rank):
    original, released, _ = low_rank
    rel = Z * np.sqrt(2 / (N * M))
    assert abs(_mse(released, original) / SIGMA**2 - 1) < rel


@pytest.mark.parametrize("attack", [spectral_filtering, pca_reconstruct])
def test_projection_attacks_keep_k_over_m_of_the_noise(low_rank, attack):
    original, released, basis = low_rank
    res = attack(released, SIGMA**2)
    assert res.n_components == K
    # the recovered subspace is the true one, up to the tilt derived above
    overlap = np.linalg.svd(basis.T @ res.components, compute_uv=False)
    assert np.all(1 - overlap**2 < 2 * GAMMA * (1 + SIGMA**2 / LAM.min()))
    low, high = _projection_bounds()
    mse = res.rmse(original) ** 2
    assert low <= mse <= high
    # "clearly lower": RMSE about sqrt(k/m) = 0.32 of the noisy data's
    assert res.rmse(original) < 0.35 * np.sqrt(_mse(released, original))


def test_bayes_estimate_beats_the_noisy_data(low_rank):
    original, released, _ = low_rank
    res = bayes_reconstruct(released, SIGMA**2)
    rel = Z * np.sqrt(2 / (N * K))
    oracle = np.sum(LAM * SIGMA**2 / (LAM + SIGMA**2)) / M
    _, lam_max = marchenko_pastur_bounds(SIGMA**2, N, M)
    s = 1 - SIGMA**2 / lam_max
    leak = (M - K) * s**2 * SIGMA**2 / M
    subspace = 2 * GAMMA * SIGMA**2 * np.sum(1 + SIGMA**2 / LAM) / M
    mse = res.rmse(original) ** 2
    assert oracle * (1 - rel) <= mse <= (oracle + leak + subspace) * (1 + rel)
    assert res.rmse(original) < 0.4 * np.sqrt(_mse(released, original))


def test_bayes_estimate_matches_the_posterior_risk_on_gaussian_data():
    """Full-rank Gaussian data with unequal noise: the case BE-DR's model assumes exactly."""
    n, m = 20_000, 10
    i = np.arange(m)
    sigma_x = 4.0 * 0.8 ** np.abs(i[:, None] - i[None, :])
    noise_var = np.linspace(0.5, 2.0, m)
    rng = np.random.default_rng(2005)
    x = rng.multivariate_normal(np.arange(m, dtype=float), sigma_x, size=n)
    y = x + rng.normal(size=(n, m)) * np.sqrt(noise_var)
    res = bayes_reconstruct(y, noise_var)
    post = sigma_x - sigma_x @ np.linalg.solve(sigma_x + np.diag(noise_var), sigma_x)
    risk = np.trace(post) / m
    # sd of a mean of n squared norms of N(0, post) vectors; plug-in error is O(m/n)
    tol = Z * np.sqrt(2 * np.trace(post @ post) / n) / m + risk * m / n
    assert abs(res.rmse(x) ** 2 - risk) < tol
    # and PCA-DR with the same knowledge cannot do better than the posterior mean
    assert pca_reconstruct(y, noise_var).rmse(x) ** 2 > risk - tol


def test_pure_noise_has_no_signal_and_gives_the_mean():
    rng = np.random.default_rng(4)
    y = 3.0 + rng.normal(size=(4000, 10))
    res = spectral_filtering(y, 1.0)
    assert res.n_components == 0
    np.testing.assert_allclose(res.estimate, np.broadcast_to(y.mean(axis=0), y.shape))
    lo, hi = marchenko_pastur_bounds(1.0, 4000, 10)
    # sample eigenvalues of pure noise sit inside the Marchenko-Pastur bulk (a little slack
    # for the finite-size edge fluctuation, of order n^(-2/3))
    assert lo - 0.05 < res.eigenvalues.min() and res.eigenvalues.max() < hi + 0.05


def test_marchenko_pastur_bounds():
    assert marchenko_pastur_bounds(2.0, 100, 25) == pytest.approx((0.5, 4.5))
    with pytest.raises(ParameterError, match=r"noise_variance must be .* \(got -1\)"):
        marchenko_pastur_bounds(-1, 10, 2)


def test_dataframe_in_dataframe_out_and_input_untouched(low_rank):
    original, released, _ = low_rank
    frame = pd.DataFrame(released[:300], columns=[f"a{j}" for j in range(M)])
    before = frame.copy()
    for attack in (spectral_filtering, pca_reconstruct, bayes_reconstruct):
        res = attack(frame, SIGMA**2)
        assert isinstance(res, AttackResult)
        assert isinstance(res.estimate, pd.DataFrame)
        assert list(res.estimate.columns) == list(frame.columns)
        pd.testing.assert_frame_equal(frame, before)


def test_pca_explicit_components_and_zero(low_rank):
    original, released, _ = low_rank
    res = pca_reconstruct(released, SIGMA**2, n_components=M)
    np.testing.assert_allclose(res.estimate, released)  # the full basis gives back Y
    res0 = pca_reconstruct(released, SIGMA**2, n_components=0)
    np.testing.assert_allclose(res0.estimate, np.broadcast_to(released.mean(0), released.shape))


def test_noise_covariance_forms():
    np.testing.assert_array_equal(noise_covariance(2.0, 3), 2.0 * np.eye(3))
    np.testing.assert_array_equal(noise_covariance([1.0, 2.0], 2), np.diag([1.0, 2.0]))
    with pytest.raises(DataError, match="noise_variance must be"):
        noise_covariance([1.0, 2.0, 3.0], 2)
    with pytest.raises(ParameterError, match="positive definite"):
        noise_covariance(0.0, 2)


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: spectral_filtering(np.zeros(5), 1.0), DataError, "2-D"),
        (lambda: spectral_filtering(np.full((5, 2), np.nan), 1.0), DataError, "finite"),
        (lambda: spectral_filtering(np.ones((5, 2)), [1.0, 1.0]), ValueError, "one number"),
        (lambda: pca_reconstruct(np.ones((5, 2)), 1.0, n_components=3), ValueError, "0..2"),
        (lambda: bayes_reconstruct(np.ones((5, 2)), -1.0), ValueError, "positive definite"),
    ],
)
def test_errors_name_parameter(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_attack_table_names_every_attack_once():
    from ppdm.attacks import ATTACKS, NUMERIC_ATTACKS, CodeAttack, NoiseAttack

    assert list(ATTACKS) == [a.name for a in ATTACKS.values()]
    assert NUMERIC_ATTACKS == tuple(k for k, a in ATTACKS.items() if isinstance(a, NoiseAttack))
    assert {k for k, a in ATTACKS.items() if isinstance(a, CodeAttack)} == {
        "bayes-map",
        "released-value",
        "repeated-perturbation",
    }
    assert ATTACKS["repeated-perturbation"].label(2) == "repeated-perturbation(t=2)"
    # a noise attack from the table equals the function it names on unit-scaled data
    from ppdm.attacks import pca_reconstruct

    y = np.random.default_rng(1).normal(size=(200, 3))
    got = ATTACKS["pca_reconstruct"].estimate(y, np.ones(3)).estimate
    assert np.array_equal(got, pca_reconstruct(y, np.ones(3)).estimate)
