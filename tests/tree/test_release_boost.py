"""Squared-loss stump boosting learnt from a release (``ReleaseBoostingClassifier``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingRegressor

from ppdm.datasets import agrawal
from ppdm.demo import agrawal_spec
from ppdm.domain import CategoricalDomain
from ppdm.exceptions import SeededReleaseWarning
from ppdm.matrix import ExplicitMatrix, GammaDiagonal, identity
from ppdm.perturb import perturb_codes, perturb_frame
from ppdm.pipeline import make_release
from ppdm.tree import ReleaseBoostingClassifier
from ppdm.tree.release_boost import ReleaseStatistics
from ppdm.tree.release_coding import ReleaseData, ThresholdCoder


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeededReleaseWarning)
        yield


def _table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack(
        [rng.integers(0, 6, n), rng.integers(0, 5, n), rng.integers(0, 7, n)]
    ).astype(float)
    y = (X[:, 0] + rng.normal(0, 1.5, n) > 3).astype(int) + (X[:, 1] > 2)
    return X, y


def test_identity_channel_is_scikit_learns_l2_stump_booster():
    """Without a spec, every class's scores equal GradientBoostingRegressor's (squared
    loss, depth-1 trees, mean init) fitted on that class's indicator, stump by stump.
    Continuous noise in y makes ties in gain between different splits improbable."""
    X, y = _table()
    m, lr = 30, 0.2
    clf = ReleaseBoostingClassifier(
        n_estimators=m, learning_rate=lr, min_effective_leaf=0, pair_weight=1.0
    ).fit(X, y)
    F = clf.decision_scores(X)
    ref = np.zeros_like(F)
    for k in range(3):
        gbr = GradientBoostingRegressor(
            loss="squared_error", max_depth=1, learning_rate=lr, n_estimators=m, random_state=0
        ).fit(X, (y == k).astype(float))
        ref[:, k] = gbr.predict(X)
        features = [int(e[0].tree_.feature[0]) for e in gbr.estimators_]
        assert clf.stump_feature_[k].tolist() == features
    np.testing.assert_allclose(F, ref, atol=1e-9, rtol=0)
    np.testing.assert_array_equal(clf.predict(X), np.argmax(ref, axis=1))
    assert clf.n_estimators_.tolist() == [m] * 3


def test_staged_scores_end_at_the_model():
    X, y = _table()
    clf = ReleaseBoostingClassifier(n_estimators=12, early_stopping=False).fit(X, y)
    stages = list(clf.staged_predict(X))
    assert len(stages) == 12
    np.testing.assert_array_equal(stages[-1], clf.predict(X))
    codes = clf._encode(X)
    np.testing.assert_allclose(list(clf.staged_scores_codes(codes))[-1], clf.decision_scores(X))


def _fixed_table(n=2000, seed=3):
    rng = np.random.default_rng(seed)
    orig = np.column_stack([rng.integers(0, 6, n), rng.integers(0, 4, n), rng.integers(0, 5, n)])
    orig[:, 2] = np.where(rng.random(n) < 0.5, orig[:, 0] % 5, orig[:, 2])  # correlated pair
    y = ((orig[:, 0] + orig[:, 1] + rng.integers(0, 3, n)) > 5).astype(int)
    mats = [
        GammaDiagonal(6, 5.0),
        # not symmetric: M^-1 and M^-T differ
        ExplicitMatrix(
            [[0.7, 0.2, 0.1, 0.1], [0.1, 0.6, 0.1, 0.1], [0.1, 0.1, 0.6, 0.2], [0.1, 0.1, 0.2, 0.6]]
        ),
        GammaDiagonal(5, 9.0),
    ]
    return orig, y, mats


def _stats(codes, y, mats):
    coders = [ThresholdCoder(np.arange(m.n_values - 1) + 0.5) for m in mats]
    return ReleaseStatistics(ReleaseData(["a", "b", "c"], coders, mats, codes, y), 2)


def test_residual_sums_and_pair_counts_are_unbiased_by_simulation():
    """A fixed table and a fixed additive model (tables on every attribute): the mean
    over 300 perturbations of the estimated residual sums ``r_kj[u]`` and of the two-way
    counts ``T_jj'`` is within 4 simulated standard errors (plus float slack) of the
    exact values on the original codes; the interaction term makes the residual sums
    depend on every pair table."""
    orig, y, mats = _fixed_table()
    rng = np.random.default_rng(11)
    intercept = np.array([0.4, 0.6])
    tables = np.zeros((2, 3, 6))
    for j, m in enumerate(mats):
        tables[:, j, : m.n_values] = rng.normal(0, 0.3, (2, m.n_values))
    exact = _stats(orig, y, [identity(m.n_values) for m in mats])
    truth_r = exact.residual_sums(intercept, tables)
    truth_t = exact.pair_block(0)
    # the identity statistics are the original counts themselves
    direct = np.array(
        [[np.sum((orig[:, 1] == u) & (orig[:, 0] == v)) for v in range(6)] for u in range(4)]
    )
    np.testing.assert_array_equal(truth_t[1, :4], direct)
    reps = 300
    est_r, est_t = [], []
    for _ in range(reps):
        pert = np.column_stack([perturb_codes(orig[:, j], mats[j], rng) for j in range(3)])
        s = _stats(pert, y, mats)
        est_r.append(s.residual_sums(intercept, tables))
        est_t.append(s.pair_block(0))
    for est, truth in ((np.array(est_r), truth_r), (np.array(est_t), truth_t)):
        se = est.std(axis=0, ddof=1) / np.sqrt(reps)
        assert np.all(np.abs(est.mean(axis=0) - truth) <= 4 * se + 1e-9)
    # and the noise is real: a single release is not exact
    assert np.abs(est_r[0] - truth_r).max() > 1.0


def test_learns_from_a_release_and_early_stopping_stops_on_noise():
    df, spec, rel = _agrawal_release()
    X, y = df.drop(columns="group"), df["group"]
    clf = ReleaseBoostingClassifier(spec=spec, n_estimators=100, early_stopping=True).fit(rel)
    assert clf.score(X, y) > 0.85  # function 1 is additive (age only)
    assert clf.n_estimators_.min() > 0
    # a class independent of every attribute: held-out error stops the boosting early
    noise = rel.assign(group=np.random.default_rng(0).permutation(rel["group"].to_numpy()))
    stopped = ReleaseBoostingClassifier(spec=spec, n_estimators=100, early_stopping=True)
    stopped.fit(noise)
    assert stopped.n_estimators_.max() < 50
    assert stopped.cv_loss_.shape == (2, 101)


def _agrawal_release(n=6000, gamma=9.0, n_bins=10):
    df = agrawal(n, function=1, random_state=0)[["age", "salary", "elevel", "group"]]
    spec = agrawal_spec(df, gamma, n_bins)
    return df, spec, perturb_frame(df, spec, random_state=1)


def test_dataframe_array_and_release_directory_give_the_same_model(tmp_path):
    df, spec, rel = _agrawal_release(n=3000)
    kw = {"spec": spec, "n_estimators": 40}
    a = ReleaseBoostingClassifier(**kw).fit(rel)
    names = list(a.feature_names_in_)
    b = ReleaseBoostingClassifier(**kw).fit(rel[names].to_numpy(), rel["group"])
    np.testing.assert_allclose(a.tables_, b.tables_)
    X = df.drop(columns="group")
    np.testing.assert_array_equal(a.predict(X), b.predict(X[names].to_numpy()))
    make_release(df, tmp_path / "rel", spec=spec, random_state=0)
    c = ReleaseBoostingClassifier(n_estimators=40).fit_release(tmp_path / "rel")
    assert list(c.feature_names_in_) == names
    assert c.score(X, df["group"]) > 0.8
    before = rel.copy()
    ReleaseBoostingClassifier(**kw).fit(rel)
    assert rel.equals(before)


def test_fit_codes_and_probabilities():
    orig, y, mats = _fixed_table()
    rng = np.random.default_rng(0)
    pert = np.column_stack([perturb_codes(orig[:, j], mats[j], rng) for j in range(3)])
    domains = [CategoricalDomain(tuple(range(m.n_values))) for m in mats]
    clf = ReleaseBoostingClassifier(n_estimators=20).fit_codes(pert, y, domains, mats)
    proba = clf._proba_codes(orig)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.all((proba >= 0) & (proba <= 1))
    F = clf._scores_codes(orig)
    np.testing.assert_array_equal(np.argmax(F, axis=1), clf.predict_codes(orig))


def test_probabilities_clip_and_renormalise():
    F = np.array([[1.4, -0.2], [0.3, 0.1], [-0.5, -0.1], [0.75, 0.75]])
    p = ReleaseBoostingClassifier._proba_from_scores(F)
    np.testing.assert_allclose(p, [[1.0, 0.0], [0.75, 0.25], [0.5, 0.5], [0.5, 0.5]])


@pytest.mark.parametrize(
    ("param", "value", "message"),
    [
        ("n_estimators", 0, "n_estimators must be an integer >= 1 \\(got 0\\)"),
        ("learning_rate", 1.5, "learning_rate must be a number in \\(0, 1\\] \\(got 1.5\\)"),
        ("min_effective_leaf", -1, "min_effective_leaf must be a number >= 0"),
        ("early_stopping", "yes", "early_stopping must be True or False"),
    ],
)
def test_bad_parameters_are_named(param, value, message):
    X = np.array([[0.0], [1.0], [2.0], [3.0]] * 10)
    with pytest.raises(ValueError, match=message):
        ReleaseBoostingClassifier(**{param: value}).fit(X, [0, 0, 1, 1] * 10)


def test_no_leaves_to_apply_and_importances():
    X, y = _table()
    clf = ReleaseBoostingClassifier(n_estimators=10, min_effective_leaf=0).fit(X, y)
    assert not hasattr(clf, "apply") and not hasattr(clf, "decision_path")
    assert clf.get_depth() == 1
    assert clf.feature_importances_.sum() == pytest.approx(1.0)
    assert clf.feature_importances_[2] < clf.feature_importances_[0]  # x2 carries no class


def test_pair_weight_zero_is_the_independence_model():
    """On a full factorial table (every code combination once) the two-way counts are
    exactly the independence model's, so pair weights 0 and 1 fit the same model; on a
    table with dependent attributes they do not."""
    grid = np.array([[a, b] for a in range(4) for b in range(3)] * 5, dtype=float)
    y = (grid[:, 0] + grid[:, 1] > 2).astype(int)
    kw = {"n_estimators": 15, "min_effective_leaf": 0, "early_stopping": False}
    one = ReleaseBoostingClassifier(pair_weight=1.0, **kw).fit(grid, y)
    zero = ReleaseBoostingClassifier(pair_weight=0.0, **kw).fit(grid, y)
    np.testing.assert_allclose(zero.tables_, one.tables_, atol=1e-12)
    X, y = _table()
    X[:, 2] = np.where(np.arange(len(X)) % 2 == 0, X[:, 0], X[:, 2])
    one = ReleaseBoostingClassifier(pair_weight=1.0, **kw).fit(X, y)
    zero = ReleaseBoostingClassifier(pair_weight=0.0, **kw).fit(X, y)
    assert np.abs(zero.tables_ - one.tables_).max() > 1e-3
