"""Attacks on substitution releases, with bounds derived from the amplification gamma.

The inequality used throughout (module :mod:`ppdm.attacks.bayes_optimal`): for any
released value h and any property S of the original, posterior odds are at most gamma
times prior odds, so P(S | h) <= rho2(gamma, P(S)) = gamma P(S) / (1 - P(S) + gamma P(S)).
A guess rule g recovers a record when the original is in the set g(h) stands for (the
value, or the values within the tolerance), a property of prior at most q*, the best
prior-only success; averaging over h, P(success) <= rho2(gamma, q*). An attack that also
reads the other perturbed attributes sees the product of their gammas, unless those
attributes are independent of the one attacked, when gamma alone applies again.
Counted rates are tested through an exact binomial lower limit at level 1 - 1e-4
(Bonferroni over the rates tested), so a failure is a real excess, not noise.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdm.attacks import (
    NUMERIC_ATTACKS,
    attack_substitution_release,
    bayes_optimal_attack,
    empirical_breach,
    entropy_of_powers,
    recovery_bound,
    repeated_perturbation_attack,
    substitution_noise_variance,
    theorem2_entries,
    worst_posterior,
)
from ppdm.attacks._substitution import binomial_lower, binomial_upper
from ppdm.domain import CategoricalDomain
from ppdm.exceptions import DataError, ParameterError
from ppdm.matrix import GammaDiagonal, symmetric_channel
from ppdm.perturbation import perturb_codes, perturb_frame, plan_release
from ppdm.privacy import rho2_from_gamma

ALPHA = 1e-4


#: seeded releases and owner-side warnings are expected here
pytestmark = [
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning"),
]


# -- Theorem 2 ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 5, 20])
@pytest.mark.parametrize("gamma", [1.5, 9.0, 100.0])
def test_theorem2_closed_form_equals_matrix_powers(n, gamma):
    m = GammaDiagonal(n, gamma)
    prev = None
    for t in range(1, 13):
        dense_t = np.linalg.matrix_power(m.dense(), t)
        d, o = theorem2_entries(n, gamma, t)
        expected = np.full((n, n), o)
        np.fill_diagonal(expected, d)
        np.testing.assert_allclose(dense_t, expected, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(m.power(t).dense(), expected, rtol=1e-12, atol=1e-15)
        if prev is not None:  # Theorem 2: diagonal falls, off-diagonal rises, strictly
            # (until both sit within rounding of 1/N)
            if abs(prev[0] - 1 / n) > 1e-14:
                assert d < prev[0] and o > prev[1]
        prev = (d, o)
    d, o = theorem2_entries(n, gamma, 2000)
    assert d == pytest.approx(1 / n, abs=1e-12) and o == pytest.approx(1 / n, abs=1e-12)


@pytest.mark.parametrize("n,gamma", [(5, 9.0), (20, 9.0), (20, 1000.0), (100, 3.0)])
def test_entropy_of_powers_rises_monotonically_to_log2_n(n, gamma):
    m = GammaDiagonal(n, gamma)
    # M^t = lam^t I + (1 - lam^t) J/N; run until lam^t < 1e-6, where log2 N - H = O(lam^2t)
    t_max = int(np.ceil(np.log(1e-6) / np.log(m.keep_probability)))
    h = entropy_of_powers(m, t_max)
    top = math.log2(n)
    assert np.all(h <= top + 1e-12)
    gap = top - h
    # strictly increasing while the gap is above floating-point resolution
    live = gap[:-1] > 1e-10
    assert np.all(np.diff(h)[live] > 0)
    assert np.all(np.diff(h) >= -1e-12)
    assert gap[-1] < 1e-9 * n


def test_repeated_perturbation_gains_nothing():
    n_rec, n, gamma, t = 20_000, 10, 9.0, 4
    rng = np.random.default_rng(5)
    prior = rng.dirichlet(np.ones(n) * 0.7)
    x = rng.choice(n, n_rec, p=prior)
    m = GammaDiagonal(n, gamma)
    y = perturb_codes(x, m, rng)
    rounds = repeated_perturbation_attack(y, m, t, rng)
    rates = np.array([np.mean(r.guess == x) for r in rounds])
    # the channel of round s is M^(s+1): its amplification only falls (Theorem 2)
    gammas = [r.channel.amplification() for r in rounds]
    assert all(a > b for a, b in zip(gammas, gammas[1:]))
    # no round beats the release itself beyond sampling noise (exact limits)
    hits = rates * n_rec
    lower = binomial_lower(hits[1:], n_rec, ALPHA / t)
    upper0 = 1 - binomial_lower(n_rec - hits[0], n_rec, ALPHA)
    assert np.all(lower <= upper0)
    # and each round's success is within the rho bound of its own channel
    q_star = np.bincount(x, minlength=n).max() / n_rec
    for r, h in zip(rounds, hits):
        assert binomial_lower(h, n_rec, ALPHA) <= recovery_bound(r.channel.amplification(), q_star)
    # the distribution estimate gets worse: its expected squared error rises with t
    counts = np.bincount(x, minlength=n).astype(float)
    errs = [r.channel.expected_squared_error(counts) for r in rounds]
    assert all(a < b for a, b in zip(errs, errs[1:]))


# -- Bayes-optimal per-record attack and the breach bound --------------------------------

priors = st.integers(2, 12).flatmap(
    lambda n: st.lists(st.floats(0.01, 1.0), min_size=n, max_size=n)
)


@settings(max_examples=60, deadline=None)
@given(weights=priors, gamma=st.floats(1.1, 500.0))
def test_map_success_is_between_prior_guess_and_rho_bound(weights, gamma):
    p = np.asarray(weights) / np.sum(weights)
    m = GammaDiagonal(len(p), gamma)
    res = bayes_optimal_attack(np.array([0]), m, p)
    assert p.max() - 1e-12 <= res.expected_success <= recovery_bound(gamma, p.max()) + 1e-12


@settings(max_examples=60, deadline=None)
@given(weights=priors, gamma=st.floats(1.1, 500.0), p_change=st.floats(0.05, 0.4))
def test_model_worst_posterior_never_exceeds_rho2(weights, gamma, p_change):
    p = np.asarray(weights) / np.sum(weights)
    for m in (
        GammaDiagonal(len(p), gamma),
        symmetric_channel(len(p), p_change * (len(p) - 1) / len(p)),
    ):
        for level in worst_posterior(m, p):
            assert level.worst_posterior <= level.bound + 1e-12
            assert level.prior <= level.rho1 + 1e-12


def test_worst_posterior_reaches_the_bound_for_uniform_prior():
    # uniform prior 1/N = rho1: the single value h itself reaches rho2(gamma, rho1) exactly
    lv = worst_posterior(GammaDiagonal(10, 9.0), np.full(10, 0.1), rho1_levels=[0.1])[0]
    assert lv.worst_posterior == pytest.approx(rho2_from_gamma(9.0, 0.1), abs=1e-12)
    assert lv.property_values == (lv.observed_value,)
    # unions: rho1 = 0.2 allows two values; posterior is (d + o) / 1 under uniform prior
    lv = worst_posterior(GammaDiagonal(10, 9.0), np.full(10, 0.1), rho1_levels=[0.2])[0]
    assert len(lv.property_values) == 2
    assert lv.worst_posterior == pytest.approx(10 / 18, abs=1e-12)


def test_empirical_breach_flags_weak_and_passes_strong():
    rng = np.random.default_rng(3)
    x = rng.choice(10, 20_000, p=np.r_[0.3, np.full(9, 0.7 / 9)])
    weak = perturb_codes(x, GammaDiagonal(10, 1000.0), rng)
    strong = perturb_codes(x, GammaDiagonal(10, 9.0), rng)
    assert any(lv.violated for lv in empirical_breach(x, weak, 10, 9.0))
    assert not any(lv.violated for lv in empirical_breach(x, strong, 10, 9.0))
    with pytest.raises(DataError, match="same length"):
        empirical_breach(x, strong[:10], 10, 9.0)
    with pytest.raises(DataError, match=r"original_codes must lie in 0..4"):
        empirical_breach(x, strong, 5, 9.0)


def test_empirical_breach_reports_its_counts_and_interval():
    rng = np.random.default_rng(4)
    x = rng.choice(10, 5_000, p=np.r_[0.3, np.full(9, 0.7 / 9)])
    y = perturb_codes(x, GammaDiagonal(10, 9.0), rng)
    levels = empirical_breach(x, y, 10, 9.0)
    # no value has a share below about 0.07: nothing to count at rho1 = 0.01 and 0.05
    for lv in levels[:2]:
        assert (lv.observed_value, lv.records, lv.hits) == (-1, 0, 0)
    for lv in levels[2:]:
        assert lv.records == np.sum(y == lv.observed_value) > 0
        in_property = np.isin(x[y == lv.observed_value], lv.property_values)
        assert lv.hits == in_property.sum()
        assert lv.worst_posterior == pytest.approx(lv.hits / lv.records, abs=1e-12)
        assert lv.lower_confidence <= lv.worst_posterior <= lv.upper_confidence
        # each limit is one-sided at alpha / (rows x 2 candidates x levels)
        assert lv.alpha == pytest.approx(0.001 / (10 * 2 * 4))
        assert lv.upper_confidence == pytest.approx(
            float(binomial_upper(lv.hits, lv.records, lv.alpha)), abs=1e-12
        )


def test_bayes_attack_bad_input():
    m = GammaDiagonal(3, 9.0)
    with pytest.raises(DataError, match="integer codes"):
        bayes_optimal_attack(np.array([0.5]), m)
    with pytest.raises(DataError, match=r"lie in 0..2"):
        bayes_optimal_attack(np.array([3]), m)
    with pytest.raises(ParameterError, match="prior must be 3"):
        bayes_optimal_attack(np.array([0]), m, [0.5, 0.5])
    with pytest.raises(ParameterError, match="prior_success"):
        recovery_bound(9.0, 1.5)
    with pytest.raises(ParameterError, match="t must be an integer >= 1"):
        repeated_perturbation_attack(np.array([0]), m, 0)


# -- the data-recovery attacks on a substitution release ---------------------------------


def test_substitution_noise_variance_closed_form():
    # values 0..N-1, uniform prior: keep with lam, else uniform; E(U - V)^2 = (N^2 - 1)/6
    n, gamma = 7, 9.0
    m = GammaDiagonal(n, gamma)
    dom = CategoricalDomain(tuple(range(n)))
    got = substitution_noise_variance(dom, m, np.full(n, 1 / n))
    assert got == pytest.approx((1 - m.keep_probability) * (n * n - 1) / 6, rel=1e-12)
    with pytest.raises(DataError, match="not numeric"):
        substitution_noise_variance(
            CategoricalDomain(("a", "b")), GammaDiagonal(2, 3.0), [0.5, 0.5]
        )


def _q_star(x, tol):
    xs = np.sort(x)
    return (np.searchsorted(xs, xs + 2 * tol, side="right") - np.arange(xs.size)).max() / xs.size


def _release(df, gamma, seed=0):
    spec = plan_release(df, n_bins=10, gamma=gamma)
    return spec, perturb_frame(df, spec, random_state=seed)


def _hit_rates(df, spec, rel):
    """Recovery of every attack, per attribute: {name: {attack: (hits, q*)}}."""
    out = {}
    est = {a: attack_substitution_release(rel, spec, a).estimate for a in NUMERIC_ATTACKS}
    for a in spec.perturbed_attributes():
        dom, m = a.get_domain(), a.get_matrix()
        centers = dom.decode(np.arange(dom.n_values))
        x = df[a.name].to_numpy()
        y = dom.encode(rel[a.name])
        tol = dom.width
        res = bayes_optimal_attack(y, m)
        last = repeated_perturbation_attack(y, m, 2, 0)[-1]
        guesses = {
            "bayes-map": centers[res.guess],
            "released-value": rel[a.name].to_numpy(),
            "repeated": centers[last.guess],
        }
        guesses.update({k: v[a.name].to_numpy() for k, v in est.items()})
        out[a.name] = (
            {k: int(np.sum(np.abs(g - x) <= tol)) for k, g in guesses.items()},
            _q_star(x, tol),
            m.amplification(),
        )
    return out


def test_no_attack_beats_prior_guess_by_more_than_rho_bound_independent_attributes():
    # independent attributes: the other columns say nothing about this one, so every
    # attack, record-level ones included, is held to rho2(gamma, q*)
    rng = np.random.default_rng(11)
    n = 4000
    df = pd.DataFrame(
        {
            "a": rng.normal(0, 1, n),
            "b": rng.exponential(1.0, n),
            "c": rng.uniform(0, 5, n),
        }
    )
    spec, rel = _release(df, 9.0)
    rates = _hit_rates(df, spec, rel)
    k = sum(len(h) for h, _, _ in rates.values())
    for name, (hits, q_star, gamma) in rates.items():
        bound = recovery_bound(gamma, q_star)
        for attack, h in hits.items():
            assert binomial_lower(h, n, ALPHA / k) <= bound, (name, attack, h / n, bound)


def test_no_attack_beats_prior_guess_by_more_than_rho_bound_correlated_low_rank():
    # correlated low-rank data: one-attribute attacks are held to rho2(gamma, q*), the
    # record-level attacks to rho2(gamma^m, q*); and on this data none of the additive-noise
    # attacks even reaches the one-attribute bound
    rng = np.random.default_rng(12)
    n, m_attr = 4000, 5
    basis = np.linalg.qr(rng.normal(size=(m_attr, 2)))[0]
    x = (rng.normal(size=(n, 2)) * np.sqrt([40.0, 20.0])) @ basis.T + 0.3 * rng.normal(
        size=(n, m_attr)
    )
    df = pd.DataFrame(x, columns=[f"x{i}" for i in range(m_attr)])
    spec, rel = _release(df, 9.0)
    rates = _hit_rates(df, spec, rel)
    k = sum(len(h) for h, _, _ in rates.values())
    for _name, (hits, q_star, gamma) in rates.items():
        for attack, h in hits.items():
            g = gamma**m_attr if attack in NUMERIC_ATTACKS else gamma
            assert binomial_lower(h, n, ALPHA / k) <= recovery_bound(g, q_star)
            assert binomial_lower(h, n, ALPHA / k) <= recovery_bound(gamma, q_star)


def test_attack_substitution_release_bad_input():
    df = pd.DataFrame({"a": np.arange(50.0), "c": ["u", "v"] * 25})
    spec, rel = _release(df, 9.0)
    with pytest.raises(ParameterError, match="attack must be one of"):
        attack_substitution_release(rel, spec, "magic")
    with pytest.raises(DataError, match="not numeric perturbed attributes"):
        attack_substitution_release(rel, spec, "pca_reconstruct", attributes=["c"])
    with pytest.raises(ValueError, match="spec does not match"):
        attack_substitution_release(rel[["a"]], spec, "pca_reconstruct")


def test_experiment_quick_writes_csv_and_png_and_ignores_jobs(tmp_path, reproduce_quick):
    from ppdm_papers.attacks import gamma_for_interval_level, run
    from ppdm_papers.cellrun import CellRun

    df1 = run(tmp_path / "a", quick=True, seed=0, cell_run=CellRun(jobs=1))
    # the shared ``ppdm reproduce all --quick --jobs 2`` run: same seed, two workers
    two = (reproduce_quick / "attacks.csv").read_bytes()
    assert (tmp_path / "a" / "attacks.csv").read_bytes() == two
    assert (tmp_path / "a" / "attacks.csv").stat().st_size > 0
    assert (tmp_path / "a" / "attacks.png").stat().st_size > 0
    assert not list((tmp_path / "a").glob(".*tmp"))
    rec = df1[df1.experiment == "recovery"]
    assert set(rec.dataset) == {"low-rank", "wisconsin"}
    # additive noise on low-rank data: BE-DR beats the noisy data itself
    add = rec[(rec.dataset == "low-rank") & (rec.method == "additive")]
    for _, part in add.groupby("privacy_level"):
        by = part.set_index("attack").rmse_rel
        assert by["bayes_reconstruct"] < by["released"]
    # repeated perturbation: the MAP success never rises with t (sampling noise aside)
    rep = rec[rec.attack == "repeated_map"]
    for _, part in rep.groupby(["dataset", "privacy_level"]):
        r = part.sort_values("t").recovered.to_numpy()
        assert r[-1] < r[0]
    ent = df1[df1.experiment == "entropy"]
    for _, part in ent.groupby("gamma"):
        assert np.all(np.diff(part.sort_values("t").entropy_bits.to_numpy()) >= -1e-12)
    assert gamma_for_interval_level(0.5, 10) == 91.0
    with pytest.raises(ParameterError, match=r"level must be in \[1/N, 0.95\)"):
        gamma_for_interval_level(0.96, 10)
    with pytest.raises(ParameterError, match="jobs must be an integer >= 1"):
        run(tmp_path / "c", quick=True, cell_run=CellRun(jobs=0))


def test_the_attack_table_pickles_and_its_copies_guess_alike():
    """Process pools and dask ship the table to workers: every entry pickles, and a copy
    guesses the same codes as the original with the same generator state."""
    import pickle

    from ppdm.attacks.registry import ATTACKS, CodeAttack
    from ppdm.matrix import GammaDiagonal

    copy = pickle.loads(pickle.dumps(ATTACKS))
    assert list(copy) == list(ATTACKS)
    m = GammaDiagonal(6, 4.0)
    codes = np.random.default_rng(0).integers(0, 6, 500)
    for name, attack in ATTACKS.items():
        if isinstance(attack, CodeAttack):
            a = attack.guess(codes, m, np.random.default_rng(1), 2)
            b = copy[name].guess(codes, m, np.random.default_rng(1), 2)
            np.testing.assert_array_equal(a, b)
