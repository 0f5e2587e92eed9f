import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from ppdm.additive import (
    AdditiveNoise,
    additive_perturb,
    privacy_interval_width,
    reconstruct_distribution,
    transition_masses,
)
from ppdm.exceptions import DataError


def test_interval_width_formulas():
    assert privacy_interval_width("uniform", 2.0, 0.95) == pytest.approx(0.95 * 4.0)
    assert privacy_interval_width("uniform", 1.0, 0.5) == pytest.approx(1.0)
    # 2 z_{(1+c)/2} sigma: 3.92 sigma at 95 %, 1.35 sigma at 50 %, 6.58 sigma at 99.9 %
    assert privacy_interval_width("gaussian", 1.0, 0.95) == pytest.approx(3.92, abs=5e-3)
    assert privacy_interval_width("gaussian", 1.0, 0.5) == pytest.approx(1.349, abs=5e-4)
    assert privacy_interval_width("gaussian", 2.0, 0.999) == pytest.approx(2 * 6.58, abs=1e-2)


@pytest.mark.parametrize("kind,scale", [("uniform", 3.0), ("gaussian", 3.0)])
@pytest.mark.parametrize("c", [0.5, 0.95])
def test_interval_width_has_its_coverage(kind, scale, c):
    n = 200_000
    y = AdditiveNoise(kind, scale).sample(n, random_state=11)
    half = privacy_interval_width(kind, scale, c) / 2
    cover = np.mean(np.abs(y) <= half)
    # binomial standard error, 4 sigma
    assert abs(cover - c) < 4 * np.sqrt(c * (1 - c) / n)


def test_perturb_is_seeded_keeps_shape_and_frame():
    x = np.arange(12.0).reshape(4, 3)
    a = additive_perturb(x, "gaussian", 1.0, random_state=5)
    b = additive_perturb(x, "gaussian", 1.0, random_state=5)
    np.testing.assert_array_equal(a, b)
    assert a.shape == x.shape
    np.testing.assert_array_equal(x, np.arange(12.0).reshape(4, 3))  # input untouched
    u = additive_perturb(x, "uniform", 0.5, random_state=5)
    assert np.all(np.abs(u - x) <= 0.5)
    f = pd.DataFrame(x, columns=list("abc"), index=[3, 4, 5, 6])
    g = additive_perturb(f, "uniform", 0.5, random_state=5)
    assert isinstance(g, pd.DataFrame) and list(g.columns) == list("abc")
    assert list(g.index) == [3, 4, 5, 6]


@pytest.mark.parametrize("kind", ["uniform", "gaussian"])
def test_noise_variance(kind):
    noise = AdditiveNoise(kind, 2.0)
    y = noise.sample(400_000, random_state=2)
    # variance of the sample variance is about 2 v^2 / n for the Gaussian, less for the uniform
    assert abs(y.var() - noise.variance) < 4 * np.sqrt(2 / 400_000) * noise.variance


@pytest.mark.parametrize("kind", ["uniform", "gaussian"])
def test_transition_masses_match_numerical_integration(kind):
    noise = AdditiveNoise(kind, 1.5)
    x_edges = np.array([0.0, 0.7, 2.0])
    w_edges = np.array([-2.0, -0.5, 0.3, 1.0, 2.5, 4.0])
    T = transition_masses(x_edges, w_edges, kind, 1.5)
    for p in range(2):
        a, b = x_edges[p], x_edges[p + 1]
        for q in range(5):
            lo, hi = w_edges[q], w_edges[q + 1]
            val, _ = integrate.quad(
                lambda x, lo=lo, hi=hi: noise.cdf(hi - x) - noise.cdf(lo - x), a, b
            )
            assert T[q, p] == pytest.approx(val / (b - a), abs=1e-9)


def test_transition_columns_sum_to_one_when_w_grid_covers_the_noise():
    T = transition_masses(np.linspace(0, 1, 5), np.linspace(-1, 2, 13), "uniform", 1.0)
    np.testing.assert_allclose(T.sum(axis=0), 1.0, atol=1e-12)
    T = transition_masses(np.linspace(0, 1, 5), np.linspace(-10, 11, 43), "gaussian", 1.0)
    np.testing.assert_allclose(T.sum(axis=0), 1.0, atol=1e-12)


def _bimodal(n, rng):
    x = np.where(rng.random(n) < 0.5, rng.normal(25, 5, n), rng.normal(75, 5, n))
    return np.clip(x, 0, 100)


@pytest.mark.parametrize("kind,scale", [("uniform", 50.0), ("gaussian", 10.0)])
def test_reconstruction_recovers_a_bimodal_distribution(kind, scale):
    rng = np.random.default_rng(0)
    n = 20_000
    x = _bimodal(n, rng)
    w = additive_perturb(x, kind, scale, random_state=1)
    est = reconstruct_distribution(w, kind, scale, bins=20, bounds=(0, 100))
    assert est.converged and est.n_iter < 10_000 and est.statistic < est.threshold
    assert est.probabilities.sum() == pytest.approx(1.0)
    truth = np.histogram(x, est.edges)[0] / n
    seen = np.histogram(w, est.edges)[0] / n
    tv_noisy = 0.5 * (np.abs(seen - truth).sum() + (1 - seen.sum()))  # mass outside counts
    tv_rec = 0.5 * np.abs(est.probabilities - truth).sum()
    # "far better": at least four times closer than the noisy histogram
    assert tv_rec < tv_noisy / 4
    # the valley between the modes comes back: truth has ~0.0 in [40, 60)
    middle = (est.edges[:-1] >= 40) & (est.edges[1:] <= 60)
    assert est.probabilities[middle].sum() < 0.05 < seen[middle].sum()


def test_stopping_rule_threshold_is_one_percent_of_chi2_critical_value():
    rng = np.random.default_rng(3)
    w = additive_perturb(_bimodal(5000, rng), "gaussian", 10.0, random_state=4)
    est = reconstruct_distribution(w, "gaussian", 10.0, bins=25, bounds=(0, 100))
    assert est.threshold == pytest.approx(0.01 * stats.chi2.ppf(0.95, 24))
    with pytest.warns(RuntimeWarning, match="stopping rule"):
        short = reconstruct_distribution(w, "gaussian", 10.0, bins=25, bounds=(0, 100), max_iter=2)
    assert not short.converged and short.n_iter == 2


def test_default_bounds_cover_the_noisy_range():
    w = additive_perturb(np.full(1000, 5.0), "uniform", 1.0, random_state=0)
    est = reconstruct_distribution(w, "uniform", 1.0, bins=10)
    assert est.edges[0] == w.min() and est.edges[-1] == w.max()


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: AdditiveNoise("laplace", 1.0), ValueError, "kind must be"),
        (lambda: AdditiveNoise("uniform", -1.0), ValueError, r"scale must be .* \(got -1.0\)"),
        (lambda: privacy_interval_width("uniform", 1.0, 1.5), ValueError, "confidence"),
        (lambda: reconstruct_distribution([], "uniform", 1.0), DataError, "noisy"),
        (lambda: reconstruct_distribution([1.0, 2], "uniform", 1.0, bins=1), ValueError, "bins"),
        (
            lambda: reconstruct_distribution([1.0, 2], "uniform", 1.0, bounds=(3, 1)),
            ValueError,
            "bounds",
        ),
    ],
)
def test_errors_name_parameter(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(["uniform", "gaussian"]),
    scale=st.floats(0.05, 20.0),
    widths=st.lists(st.floats(0.01, 5.0), min_size=1, max_size=6),
    shift=st.floats(-10.0, 10.0),
)
def test_transition_masses_are_probabilities(kind, scale, widths, shift):
    x_edges = shift + np.concatenate([[0.0], np.cumsum(widths)])
    reach = 10 * scale if kind == "gaussian" else scale
    w_edges = np.linspace(x_edges[0] - reach - 1, x_edges[-1] + reach + 1, 40)
    T = transition_masses(x_edges, w_edges, kind, scale)
    assert np.all(T >= 0) and np.all(T <= 1)
    # the w grid covers x + noise entirely: each column is a full distribution
    np.testing.assert_allclose(T.sum(axis=0), 1.0, atol=1e-9)
    # a sub-grid can only lose mass
    assert np.all(transition_masses(x_edges, w_edges[5:-5], kind, scale).sum(axis=0) <= 1 + 1e-9)


@pytest.mark.parametrize("scale", [5.0, 25.0])
def test_reconstruction_stderr_matches_the_spread_of_the_estimate(scale):
    """The bootstrap standard error belongs to the estimate as computed (early stopping
    included): it agrees with the spread of the estimate over fresh samples and noise.

    Tolerance: the Monte Carlo standard deviation from R = 200 samples has relative
    error 1/sqrt(2(R-1)) = 5 %, the mean of 20 bootstrap values (B = 200) about 2 %;
    the bootstrap's own bias at n = 600 is O(1/sqrt(n)) = 4 %. Summed over the bins,
    +-20 % is three times their combined spread. (The inverse Fisher information of the
    maximum likelihood estimate, printed before, was up to 10^5 times the spread.)"""
    from ppdm.additive import reconstruction_stderr

    def sample(rng):
        return np.clip(np.r_[rng.normal(30, 8, 300), rng.normal(70, 8, 300)], 0, 100)

    estimates, boots = [], []
    for i in range(200):
        x = sample(np.random.default_rng(i))  # noise from streams of its own:
        w = additive_perturb(x, "gaussian", scale, random_state=10_000 + i)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            e = reconstruct_distribution(w, "gaussian", scale, bins=10, bounds=(0, 100))
            estimates.append(len(w) * e.probabilities)
            if i < 20:
                boots.append(reconstruction_stderr(w, "gaussian", scale, bins=10, bounds=(0, 100)))
    spread = np.std(estimates, axis=0, ddof=1).sum()
    assert 0.8 < np.mean(boots, axis=0).sum() / spread < 1.25


def test_reconstruction_stderr_is_deterministic_and_checked():
    from ppdm.additive import reconstruction_stderr

    w = additive_perturb(np.linspace(0, 1, 500), "uniform", 0.3, random_state=0)
    first = reconstruction_stderr(w, "uniform", 0.3, bins=8, bounds=(0, 1))
    assert np.array_equal(first, reconstruction_stderr(w, "uniform", 0.3, bins=8, bounds=(0, 1)))
    assert first.shape == (8,) and np.all(first >= 0) and np.all(np.isfinite(first))
    with pytest.raises(ValueError, match="replicates"):
        reconstruction_stderr(w, "uniform", 0.3, bins=8, replicates=1)


def test_estimate_of_an_additive_release_shows_a_standard_error_of_its_estimate(run_cli, tmp_path):
    """stderr is the bootstrap's, of the size of the counts (the Fisher bound printed
    before reached 10^6 records per bin of 569), and --method, which does not apply,
    is refused rather than ignored."""
    import json

    from sklearn.datasets import load_breast_cancer

    src = tmp_path / "bc.csv"
    load_breast_cancer(as_frame=True).frame.to_csv(src, index=False)
    rel = tmp_path / "rel"
    code, _, err = run_cli(
        "perturb", src, "--out", rel, "--class", "target", "--method", "additive", "--seed", "1"
    )
    assert code == 0, err
    code, out, err = run_cli("estimate", rel, "--json")
    assert code == 0, err
    for a in json.loads(out)["attributes"]:
        assert a["stderr_kind"] == "bootstrap (B=200)" and a["method"] == "as2000"
        assert 0 < max(a["stderr"]) < 569 / 4, (a["name"], max(a["stderr"]))
    code, _, err = run_cli("estimate", rel, "--method", "inverse")
    assert code == 2 and "--method inverse applies to substitution releases" in err
