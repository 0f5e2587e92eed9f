"""Class noise in heterogeneous leaves: E(N) against simulation, class counts, security."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ppdm.noise import (
    add_class_noise,
    all_leaves_probability,
    expected_changes,
    leaf_info,
    variance_of_changes,
)

pytestmark = pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")

R = 600  # simulated releases per technique
Z = 4.5  # |mean - E(N)| <= Z * sd / sqrt(R): a false alarm has probability < 1e-5


def _simulate(X, y, tree, technique, seed):
    rng = np.random.default_rng(seed)
    return np.array(
        [add_class_noise(X, y, technique, tree=tree, random_state=rng).n_changed for _ in range(R)]
    )


def test_expected_changes_is_the_papers_double_sum():
    # E(N) = 2 sum_k sum_i p_k^i (n_k - i), p_k^i hypergeometric (Sec. 3.1)
    counts = np.array([[32, 1], [248, 8], [3, 2], [5, 0]])
    double_sum = 0.0
    for m, n in counts:
        i = np.arange(n + 1)
        double_sum += 2 * (stats.hypergeom(m + n, n, n).pmf(i) * (n - i)).sum()
    assert expected_changes(counts) == pytest.approx(double_sum, rel=1e-12)
    assert expected_changes(counts) == pytest.approx(
        sum(2 * m * n / (m + n) for m, n in counts), rel=1e-12
    )


@pytest.mark.parametrize("technique", ["random", "probabilistic", "all-leaves"])
def test_expected_changes_match_simulation(boston300, technique):
    X, y, tree = boston300
    info = leaf_info(tree, X, y)
    e = expected_changes(info.counts)
    var = variance_of_changes(info.counts, technique, len(y))
    sim = _simulate(X, y, tree, technique, seed=11)
    assert abs(sim.mean() - e) <= Z * np.sqrt(var / R), (sim.mean(), e, var)
    # the variance too: the sample variance has sd ~ sqrt((mu4 - var^2) / R), with the
    # fourth central moment mu4 estimated from the same simulation
    mu4 = np.mean((sim - sim.mean()) ** 4)
    assert abs(sim.var(ddof=1) - var) <= Z * np.sqrt(max(mu4 - var**2, 0.0) / R)


def test_random_variance_matches_the_hypergeometric_law():
    # two classes: unchanged minority i ~ Hypergeometric(N, n, n), N = 2 (n - i)
    m, n = 9, 4
    law = stats.hypergeom(m + n, n, n)
    assert variance_of_changes([[m, n]], "random") == pytest.approx(4 * law.var(), rel=1e-12)
    # three classes: brute force over all permutations of a small leaf
    from itertools import permutations

    labels = np.array([0, 0, 1, 2, 2])
    changes = [np.sum(np.array(p) != labels) for p in permutations(labels)]
    assert expected_changes([[2, 1, 2]]) == pytest.approx(np.mean(changes))
    assert variance_of_changes([[2, 1, 2]], "random") == pytest.approx(np.var(changes))


def test_all_leaves_probability_is_a_ratio(boston300):
    X, y, tree = boston300
    info = leaf_info(tree, X, y)
    p = all_leaves_probability(info.counts, len(y))
    assert 0 < p < 1
    assert p * len(y) == pytest.approx(expected_changes(info.counts))


def test_random_keeps_every_class_count(boston300, wbc350):
    for X, y, tree in (boston300, wbc350):
        info = leaf_info(tree, X, y)
        for seed in range(5):
            r = add_class_noise(X, y, "random", tree=tree, random_state=seed)
            assert r.n_changed > 0
            codes = np.searchsorted(info.classes, r.y)
            for k in range(info.leaves.size):  # per leaf, hence in the data set
                in_leaf = info.row_position == k
                np.testing.assert_array_equal(
                    np.bincount(codes[in_leaf], minlength=info.classes.size), info.counts[k]
                )


def test_probabilistic_changes_class_counts(boston300):
    X, y, tree = boston300
    original = np.bincount(y)
    counts = [
        np.bincount(add_class_noise(X, y, "probabilistic", tree=tree, random_state=s).y)
        for s in range(10)
    ]
    assert any((c != original).any() for c in counts)
    counts = [
        np.bincount(add_class_noise(X, y, "all-leaves", tree=tree, random_state=s).y)
        for s in range(10)
    ]
    assert any((c != original).any() for c in counts)


@pytest.mark.parametrize("technique", ["random", "probabilistic"])
def test_homogeneous_leaves_untouched(boston300, technique):
    X, y, tree = boston300
    r = add_class_noise(X, y, technique, tree=tree, random_state=3)
    homogeneous = ~r.info.heterogeneous[r.info.row_position]
    assert not r.changed[homogeneous].any()
    assert (r.p_same[homogeneous] == 1).all()


def test_p_same_matches_simulation(boston300):
    X, y, tree = boston300
    rng = np.random.default_rng(5)
    runs = 300
    for technique in ("random", "probabilistic", "all-leaves"):
        kept = np.zeros(len(y), dtype=np.int64)
        for _ in range(runs):
            kept += ~add_class_noise(X, y, technique, tree=tree, random_state=rng).changed
        p = add_class_noise(X, y, technique, tree=tree, random_state=0).p_same
        # exact two-sided binomial test per record, Bonferroni over the records
        law = stats.binom(runs, p)
        p_value = np.minimum(1.0, 2 * np.minimum(law.cdf(kept), law.sf(kept - 1)))
        assert p_value.min() >= 1e-4 / len(y), technique


def test_security_table(boston300):
    X, y, tree = boston300
    r = add_class_noise(X, y, "random", tree=tree, random_state=0)
    s = r.security
    het = s["heterogeneous"].to_numpy()
    m, n = s["n_majority"].to_numpy(float), s["n_minority"].to_numpy(float)
    np.testing.assert_allclose(s["p_same_majority"][het], (m / (m + n))[het])
    np.testing.assert_allclose(s["p_same_minority"][het], (n / (m + n))[het])
    assert s["expected_changes"].sum() == pytest.approx(r.expected_changes)
    d = r.to_dict()
    assert d["n_heterogeneous_leaves"] == int(het.sum())
    assert d["class_counts_released"] == d["class_counts_original"]


def test_multiclass_random_keeps_counts(two_level):
    X, y = two_level
    X = X.copy()
    y = y.copy()
    y[[0, 1]] = [2, 1]  # make the left leaves heterogeneous with a third class
    r = add_class_noise(X, y, "random", random_state=0)
    assert sorted(r.y.tolist()) == sorted(y.tolist())
    r = add_class_noise(X, y, "all-leaves", random_state=0)
    assert set(r.y.tolist()) <= {0, 1, 2}


def test_seed_reproducible_and_input_not_mutated(boston300):
    X, y, tree = boston300
    X0, y0 = X.copy(), y.copy()
    a = add_class_noise(X, y, "probabilistic", tree=tree, random_state=7)
    b = add_class_noise(X, y, "probabilistic", tree=tree, random_state=7)
    np.testing.assert_array_equal(a.y, b.y)
    assert X.equals(X0) and y.equals(y0)
