"""Class-conditional distributions from a release (naive Bayes leaves)."""

import numpy as np

from ppdm.estimate import iterative_bayesian_update
from ppdm.matrix import ExplicitMatrix, GammaDiagonal
from ppdm.tree.release_nb import class_conditionals, coarsen, group_ids


def test_batched_ibu_equals_separate_runs():
    m = GammaDiagonal(12, 4.0)
    rng = np.random.default_rng(3)
    hists = rng.integers(0, 200, size=(12, 5)).astype(float)
    hists[:, 2] = 0.0  # an empty histogram stays zero
    together = iterative_bayesian_update(hists, m)
    for k in range(hists.shape[1]):
        np.testing.assert_allclose(
            together[:, k], iterative_bayesian_update(hists[:, k], m), rtol=1e-12, atol=1e-9
        )


def test_coarsen_keeps_each_group_total():
    ids = group_ids(10, 3)
    counts = np.arange(20.0).reshape(2, 10)
    out = coarsen(counts, ids)
    for g in range(3):
        np.testing.assert_allclose(out[:, ids == g].sum(axis=1), counts[:, ids == g].sum(axis=1))
        assert np.ptp(out[:, ids == g], axis=1).max() == 0


def _draw(probs, n, matrix, rng):
    codes = rng.choice(len(probs), size=n, p=probs)
    m = matrix.dense()
    cum = np.cumsum(m[:, codes], axis=0)
    return (rng.random(n)[None, :] > cum).sum(axis=0)


def test_spiky_distribution_without_noise_is_not_merged():
    n_values = 10
    probs = np.where(np.arange(n_values) % 2 == 0, 0.18, 0.02)
    rng = np.random.default_rng(0)
    identity = ExplicitMatrix(np.eye(n_values))
    codes = _draw(probs, 20_000, identity, rng)
    [(p, ids)] = class_conditionals(
        codes[:, None], np.zeros(len(codes), int), 1, [identity], [True]
    )
    assert len(np.unique(ids)) == n_values
    # the estimate is the sample frequency (plus 1/N pseudo-count per code): within 4 SE
    se = np.sqrt(probs * (1 - probs) / len(codes))
    assert np.all(np.abs(p[0] - probs) < 4 * se + 1e-3)


def test_smooth_distribution_under_heavy_noise_is_merged():
    n_values = 40
    probs = np.full(n_values, 1.0 / n_values)
    m = GammaDiagonal(n_values, 3.0)
    rng = np.random.default_rng(1)
    codes = _draw(probs, 2_000, m, rng)
    [(p, ids)] = class_conditionals(codes[:, None], np.zeros(len(codes), int), 1, [m], [True])
    assert len(np.unique(ids)) < n_values
    # merged estimate of a flat distribution is closer to it than the code-by-code one
    [(p_raw, _)] = class_conditionals(codes[:, None], np.zeros(len(codes), int), 1, [m], [False])
    assert np.abs(p - probs).sum() < np.abs(p_raw - probs).sum()
