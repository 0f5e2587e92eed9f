"""The tree learners as scikit-learn citizens: inputs, inspection, drawing."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError as SklearnNotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from ppdm.datasets import agrawal
from ppdm.demo import agrawal_spec
from ppdm.exceptions import SeededReleaseWarning
from ppdm.perturbation import perturb_frame
from ppdm.tree import C45Classifier, ReleaseTreeClassifier, plot_tree
from ppdm_papers.local_tree import LocalReconstructionClassifier


@pytest.fixture(scope="module")
def release():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeededReleaseWarning)
        data = agrawal(8000, function=3, random_state=0)
        train, test = data.iloc[:6000].reset_index(drop=True), data.iloc[6000:]
        spec = agrawal_spec(train, 9.0, 10)
        return train, test.reset_index(drop=True), spec, perturb_frame(train, spec, random_state=1)


def _features(spec):
    return [a.name for a in spec.perturbed_attributes() if a.name != spec.class_attribute]


@pytest.mark.parametrize("cls", [ReleaseTreeClassifier, LocalReconstructionClassifier])
def test_numpy_input_in_the_spec_order_equals_the_frame(release, cls):
    train, test, spec, rel = release
    names = _features(spec)
    every = [a.name for a in spec.attributes]
    a = cls(spec=spec, max_depth=4).fit(rel)
    b = cls(spec=spec, max_depth=4).fit(rel[names].to_numpy(), rel["group"].to_numpy())
    c = cls(spec=spec, max_depth=4).fit(rel[every].to_numpy())  # class column in the array
    want = a.predict(test)
    np.testing.assert_array_equal(b.predict(test[names].to_numpy()), want)
    np.testing.assert_array_equal(c.predict(test[every].to_numpy()), want)
    with pytest.raises(ValueError, match="X has 2 features, but"):
        a.predict(test[names[:2]].to_numpy())


def test_a_pipeline_step_that_outputs_arrays(release):
    train, test, spec, rel = release
    names = _features(spec)
    to_array = FunctionTransformer(lambda f: f[names].to_numpy())
    pipe = make_pipeline(to_array, ReleaseTreeClassifier(spec=spec, max_depth=4))
    pipe.fit(rel, rel["group"])
    direct = ReleaseTreeClassifier(spec=spec, max_depth=4).fit(rel)
    np.testing.assert_array_equal(pipe.predict(test), direct.predict(test))


def test_without_a_spec_it_is_an_ordinary_tree_learner(release):
    train, test, _, _ = release
    X, y = train[["age", "elevel", "salary"]], train["group"]
    clf = ReleaseTreeClassifier().fit(X, y)
    assert clf.spec_ is None
    assert list(clf.feature_names_in_) == ["age", "elevel", "salary"]
    # identity channel: every estimated count is an exact count
    np.testing.assert_allclose(clf.tree_.count, clf.tree_.n_eff)
    assert clf.tree_.count[0] == len(X)
    c45 = C45Classifier().fit(X, y)
    Xt, yt = test[["age", "elevel", "salary"]], test["group"]
    assert clf.score(Xt, yt) > c45.score(Xt, yt) - 0.02
    assert clf.score(Xt, yt) > 0.9


def test_a_numeric_column_has_at_most_max_bins_codes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 1))
    y = (X[:, 0] > 0.3).astype(int)
    clf = ReleaseTreeClassifier(max_bins=16).fit(X, y)
    assert clf.coders_[0].n_values <= 16
    assert clf.score(X, y) > 0.9


@pytest.mark.parametrize(
    "est", [C45Classifier(), ReleaseTreeClassifier(), LocalReconstructionClassifier()]
)
def test_unfitted_inspection_raises_the_sklearn_error(est):
    X = np.zeros((2, 1))
    for call in (est.apply, est.decision_path, est.predict):
        with pytest.raises(SklearnNotFittedError):
            call(X)


def _tree_checks(clf, X, leaf_of):
    leaves = clf.apply(X)
    path = clf.decision_path(X)
    assert path.shape == (len(X), clf.tree_.n_nodes)
    dense = path.toarray()
    assert (dense[:, 0] == 1).all()
    assert leaf_of(leaves).all()
    # the leaf is on the path, and is the path's deepest node (the largest preorder index)
    np.testing.assert_array_equal(np.array([np.flatnonzero(row).max() for row in dense]), leaves)
    imp = clf.feature_importances_
    assert imp.shape == (clf.n_features_in_,)
    assert imp.sum() == pytest.approx(1.0)
    return imp


def test_c45_apply_decision_path_and_importances():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(600, 3))
    y = np.where(X[:, 0] > 0.5, "a", np.where(X[:, 2] > 0.3, "b", "c"))
    clf = C45Classifier().fit(X, y)
    imp = _tree_checks(clf, X, lambda leaves: clf.tree_.feature[leaves] < 0)
    assert imp[1] == 0.0 and imp[0] > 0 and imp[2] > 0
    # the leaf's class is the prediction for rows without missing values
    leaf_class = clf.classes_[np.argmax(clf.tree_.value[clf.apply(X)], axis=1)]
    np.testing.assert_array_equal(leaf_class, clf.predict(X))
    # a missing value follows the heavier branch: x0 > 0.5 holds about half the weight,
    # so the row goes wherever the larger side is
    row = np.array([[np.nan, 0.5, 0.9]])
    root_kids = clf.tree_.child_ids(0)
    heavier = root_kids[np.argmax(clf.tree_.value[root_kids].sum(axis=1))]
    assert clf.decision_path(row).toarray()[0, heavier] == 1


def test_release_tree_apply_decision_path_and_importances(release):
    train, test, spec, rel = release
    clf = ReleaseTreeClassifier(spec=spec).fit(rel)
    imp = _tree_checks(clf, test, lambda leaves: clf.tree_.feature[leaves] < 0)
    names = list(clf.feature_names_in_)
    # function 3 depends on age and elevel only
    top = {names[j] for j in np.argsort(imp)[-2:]}
    assert top == {"age", "elevel"}, dict(zip(names, imp.round(3)))


@pytest.mark.parametrize("kind", ["c45", "release"])
def test_plot_tree_draws_every_node_and_edge(release, kind, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    train, test, spec, rel = release
    if kind == "c45":
        clf = C45Classifier(confidence=0.05).fit(train[["age", "elevel"]], train["group"])
        n_nodes, n_edges = clf.tree_.n_nodes, clf.tree_.n_nodes - 1
    else:
        clf = ReleaseTreeClassifier(spec=spec).fit(rel)
        n_nodes, n_edges = clf.tree_.n_nodes, clf.tree_.n_nodes - 1
    ax = plot_tree(clf)
    assert len(ax.texts) == n_nodes + n_edges
    assert len(ax.lines) == n_edges
    out = tmp_path / "tree.png"
    ax.figure.savefig(out)
    assert out.stat().st_size > 1000
    plt.close(ax.figure)
    ax = plot_tree(clf, max_depth=1)
    assert sum("..." in t.get_text() for t in ax.texts) >= 1
    plt.close(ax.figure)


def test_input_is_not_modified(release):
    train, test, spec, rel = release
    before = rel.copy()
    arr = rel[_features(spec)].to_numpy()
    arr_before = arr.copy()
    ReleaseTreeClassifier(spec=spec, max_depth=2).fit(arr, rel["group"])
    ReleaseTreeClassifier(spec=spec, max_depth=2).fit(rel)
    pd.testing.assert_frame_equal(rel, before)
    np.testing.assert_array_equal(arr, arr_before)
