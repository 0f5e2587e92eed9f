"""The bagged forest of release trees (``ReleaseForestClassifier``) and its scoring."""

from __future__ import annotations

import numpy as np
import pytest

from ppdm.datasets import agrawal
from ppdm.demo import agrawal_spec
from ppdm.exceptions import DataError
from ppdm.perturbation import perturb_frame
from ppdm.tree import ReleaseForestClassifier, ReleaseTreeClassifier, release_accuracy_score
from ppdm.tree.release_scoring import release_correct

#: seeded releases and owner-side warnings are expected here
pytestmark = [pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")]


def _release(function=2, n=6000, gamma=9.0, n_bins=10, seed=0):
    df = agrawal(n, function=function, random_state=seed)[["age", "salary", "elevel", "group"]]
    spec = agrawal_spec(df, gamma, n_bins)
    return df, spec, perturb_frame(df, spec, random_state=seed + 1)


def test_without_resampling_or_subsets_every_tree_is_the_release_tree():
    df, spec, rel = _release()
    tree = ReleaseTreeClassifier(spec=spec).fit(rel)
    forest = ReleaseForestClassifier(spec=spec, n_estimators=3, bootstrap=False).fit(rel)
    for t in forest.trees_:
        np.testing.assert_array_equal(t.feature, tree.tree_.feature)
        np.testing.assert_allclose(t.value, tree.tree_.value)
    X = df.drop(columns="group")
    np.testing.assert_allclose(forest.predict_proba(X), tree.predict_proba(X))


def test_attribute_subsets_are_drawn_per_split_and_reproducible():
    _, spec, rel = _release()
    full = ReleaseForestClassifier(spec=spec, n_estimators=4, bootstrap=False).fit(rel)
    assert len({tuple(t.feature) for t in full.trees_}) == 1
    # one attribute searched per split: the trees differ in what they test
    one = ReleaseForestClassifier(
        spec=spec, n_estimators=4, bootstrap=False, max_features=1, random_state=0
    ).fit(rel)
    assert len({tuple(t.feature) for t in one.trees_}) > 1
    seeded = [ReleaseForestClassifier(spec=spec, n_estimators=4, random_state=7).fit(rel)]
    seeded.append(ReleaseForestClassifier(spec=spec, n_estimators=4, random_state=7).fit(rel))
    for a, b in zip(seeded[0].trees_, seeded[1].trees_):
        np.testing.assert_array_equal(a.feature, b.feature)
        np.testing.assert_allclose(a.value, b.value)


def test_identity_channel_scores_exactly():
    """Without perturbation the scorer's cells give every record's exact correctness."""
    df = agrawal(4000, function=2, random_state=1)[["age", "salary", "group"]]
    X, y = df[["age", "salary"]], df["group"]
    forest = ReleaseForestClassifier(n_estimators=5, max_bins=20, random_state=0)
    forest.fit(X.iloc[:3000], y.iloc[:3000])
    s = release_correct(forest, X.iloc[3000:], y.iloc[3000:])
    np.testing.assert_allclose(s, forest.predict(X.iloc[3000:]) == y.iloc[3000:].to_numpy())


def test_release_accuracy_of_a_forest_is_unbiased():
    """A fixed forest, a fixed held-out table, 60 perturbations of it: the estimates
    average to the forest's accuracy on the original table within 4 standard errors."""
    df, spec, rel = _release(function=2, n=8000)
    forest = ReleaseForestClassifier(spec=spec, n_estimators=5, random_state=0)
    forest.fit(rel.iloc[:5000])
    test = df.iloc[5000:].reset_index(drop=True)
    truth = forest.score(test.drop(columns="group"), test["group"])
    reps = 60
    acc = np.array(
        [
            release_accuracy_score(forest, perturb_frame(test, spec, random_state=r))[0]
            for r in range(100, 100 + reps)
        ]
    )
    assert abs(acc.mean() - truth) < 4 * acc.std(ddof=1) / np.sqrt(reps)


def test_naive_bayes_forest_is_refused_by_the_scorer():
    _, spec, rel = _release()
    forest = ReleaseForestClassifier(
        spec=spec, n_estimators=2, leaf_model="naive-bayes", random_state=0
    ).fit(rel.iloc[:4000])
    with pytest.raises(DataError, match="naive Bayes"):
        release_accuracy_score(forest, rel.iloc[4000:])


@pytest.mark.parametrize(
    ("param", "value", "message"),
    [
        ("n_estimators", 0, "n_estimators must be an integer >= 1 \\(got 0\\)"),
        ("max_features", 1.5, "max_features must be None, 'sqrt'"),
        ("max_features", "log2", "max_features must be None, 'sqrt'"),
        ("bootstrap", "yes", "bootstrap must be True or False"),
    ],
)
def test_bad_parameters_are_named(param, value, message):
    X = np.array([[0.0], [1.0], [2.0], [3.0]] * 10)
    with pytest.raises(ValueError, match=message):
        ReleaseForestClassifier(**{param: value}).fit(X, [0, 0, 1, 1] * 10)


def test_forest_helpers():
    df, spec, rel = _release()
    forest = ReleaseForestClassifier(spec=spec, n_estimators=3, random_state=0).fit(rel)
    X = df.drop(columns="group").iloc[:50]
    leaves = forest.apply(X)
    assert leaves.shape == (50, 3)
    path, ptr = forest.decision_path(X)
    assert path.shape == (50, ptr[-1]) and len(ptr) == 4
    assert forest.n_leaves_ == sum(t.n_leaves for t in forest.trees_)
    assert forest.feature_importances_.sum() == pytest.approx(1.0)


def test_scorer_enumerates_only_the_attributes_the_forest_tests():
    """40 attributes, of which the trees test a few: the cells are enumerated over those
    only (numpy's grids stop at 32 dimensions), and without perturbation the score is
    every record's exact correctness."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(3000, 40)).astype(float)
    y = (X[:, 0] + X[:, 1] >= 3).astype(int)
    forest = ReleaseForestClassifier(n_estimators=3, random_state=0).fit(X[:2000], y[:2000])
    s = release_correct(forest, X[2000:], y[2000:])
    np.testing.assert_allclose(s, forest.predict(X[2000:]) == y[2000:])


def test_random_state_may_be_a_generator():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]] * 20)
    y = [0, 0, 1, 1] * 20
    a = ReleaseForestClassifier(n_estimators=3, random_state=np.random.default_rng(5)).fit(X, y)
    b = ReleaseForestClassifier(n_estimators=3, random_state=np.random.default_rng(5)).fit(X, y)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))
