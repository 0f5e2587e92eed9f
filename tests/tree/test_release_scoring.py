"""Accuracy on the original data, estimated from perturbed folds (``release_accuracy``)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from ppdm.datasets import agrawal, load_synth, load_wisconsin
from ppdm.demo import agrawal_spec
from ppdm.exceptions import DataError
from ppdm.perturbation import perturb_frame, plan_release
from ppdm.tree import (
    C45Classifier,
    ReleaseTreeClassifier,
    release_accuracy,
    release_accuracy_score,
    release_accuracy_se,
)
from ppdm.tree.release_scoring import release_correct

#: seeded releases and owner-side warnings are expected here
pytestmark = [pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")]


def test_mean_over_perturbations_is_the_original_accuracy():
    """A fixed tree, a fixed held-out table, 200 perturbations of it: the estimates
    average to the tree's accuracy on the original table, within 4 standard errors of
    their mean; and the reported standard error matches their spread."""
    df = agrawal(6000, function=3, random_state=0)[["age", "elevel", "salary", "group"]]
    spec = agrawal_spec(df, 9.0, 10)
    train, test = df.iloc[:4000].reset_index(drop=True), df.iloc[4000:].reset_index(drop=True)
    clf = ReleaseTreeClassifier(spec=spec).fit(perturb_frame(train, spec, random_state=0))
    assert clf.tree_.n_leaves >= 3
    truth = clf.score(test.drop(columns="group"), test["group"])
    reps = 200
    res = np.array(
        [
            release_accuracy_score(clf, perturb_frame(test, spec, random_state=r))
            for r in range(1, reps + 1)
        ]
    )
    acc, se = res[:, 0], res[:, 1]
    assert abs(acc.mean() - truth) < 4 * acc.std(ddof=1) / np.sqrt(reps)
    # E[se^2] = Var over perturbations + the records' own a(1-a)/n; the sample variance
    # of 200 draws has relative standard error sqrt(2/199)
    spread = acc.var(ddof=1)
    expected = (se**2).mean() - truth * (1 - truth) / len(test)
    assert abs(spread / expected - 1) < 4 * np.sqrt(2 / (reps - 1))


def test_identity_channel_gives_the_exact_accuracy():
    df = agrawal(3000, function=2, random_state=1)[["age", "salary", "group"]]
    X, y = df[["age", "salary"]], df["group"]
    clf = ReleaseTreeClassifier().fit(X.iloc[:2000], y.iloc[:2000])
    s = release_correct(clf, X.iloc[2000:], y.iloc[2000:])
    np.testing.assert_allclose(s, clf.predict(X.iloc[2000:]) == y.iloc[2000:].to_numpy())
    acc, se = release_accuracy_score(clf, X.iloc[2000:], y.iloc[2000:])
    assert acc == pytest.approx(clf.score(X.iloc[2000:], y.iloc[2000:]))


def test_usable_as_scoring_and_refuses_other_models():
    df = agrawal(3000, function=1, random_state=2)[["age", "salary", "group"]]
    spec = agrawal_spec(df, 9.0, 10)
    rel = perturb_frame(df, spec, random_state=3)
    scores = cross_val_score(
        ReleaseTreeClassifier(spec=spec), rel, rel["group"], cv=3, scoring=release_accuracy
    )
    assert scores.shape == (3,) and (scores > 0.8).all()
    ses = cross_val_score(
        ReleaseTreeClassifier(spec=spec), rel, rel["group"], cv=3, scoring=release_accuracy_se
    )
    assert (ses > 0).all() and (ses < 0.1).all()
    c45 = C45Classifier().fit(rel.drop(columns="group"), rel["group"])
    with pytest.raises(DataError, match="needs a fitted release learner"):
        release_accuracy(c45, rel, rel["group"])


def _pick(train, test, spec, target, grid, seed=0):
    """Grid search with release_accuracy; the test accuracy (original data) of every
    grid point refitted on the whole release, and the chosen index."""
    rel = perturb_frame(train, spec, random_state=seed + 1)
    gs = GridSearchCV(
        ReleaseTreeClassifier(spec=spec),
        grid,
        cv=KFold(3, shuffle=True, random_state=seed),
        scoring=release_accuracy,
    ).fit(rel, rel[target])
    Xt, yt = test.drop(columns=target), test[target]
    test_acc = np.array(
        [
            ReleaseTreeClassifier(spec=spec, **p).fit(rel).score(Xt, yt)
            for p in gs.cv_results_["params"]
        ]
    )
    return test_acc, gs.best_index_


def _within_one_se(test_acc, chosen, n_test):
    best = test_acc.max()
    se = np.sqrt(best * (1 - best) / n_test)
    assert test_acc[chosen] >= best - se, (test_acc, chosen, se)


def test_grid_search_on_synth2_picks_a_best_depth():
    train, test = load_synth(2, n_train=10_000, n_test=5_000)
    spec = agrawal_spec(train.frame, 9.0, 10)
    test_acc, chosen = _pick(train.frame, test.frame, spec, "group", {"max_depth": [1, 2, 4, 8]})
    assert test_acc.max() - test_acc.min() > 0.1  # the grid matters
    _within_one_se(test_acc, chosen, len(test.frame))


def test_grid_search_on_wisconsin_picks_a_best_depth():
    data = load_wisconsin().frame
    idx = np.random.default_rng(0).permutation(len(data))
    train = data.iloc[idx[:450]].reset_index(drop=True)
    test = data.iloc[idx[450:]].reset_index(drop=True)
    spec = plan_release(
        train,
        class_attribute="class",
        gamma=19,
        bounds={c: (1, 10) for c in train.columns if c != "class"},
    )
    test_acc, chosen = _pick(
        train, test, spec, "class", {"max_depth": [0, 1, 2, 3], "min_effective_leaf": [10]}
    )
    assert test_acc.max() - test_acc.min() > 0.1
    _within_one_se(test_acc, chosen, len(test))


def test_chooses_between_majority_and_naive_bayes_leaves():
    """Ten classes named by one attribute (20 codes) and a noise attribute: majority
    leaves of a depth-2 tree cannot name ten classes, naive Bayes leaves can. Each naive
    Bayes leaf is scored cell by cell (20 x 20 codes at most)."""
    import pandas as pd

    from ppdm.domain import CategoricalDomain
    from ppdm.matrix import GammaDiagonal
    from ppdm.release import AttributeSpec, ReleaseSpec

    rng = np.random.default_rng(0)
    n = 24000
    cls = rng.integers(0, 10, n)
    frame = pd.DataFrame(
        {
            "x": np.clip(cls * 2 + rng.integers(0, 2, n), 0, 19),
            "z": rng.integers(0, 20, n),
            "c": cls,
        }
    )
    dom = CategoricalDomain(tuple(range(20))).to_spec()
    mat = GammaDiagonal(20, 9.0).to_spec()
    spec = ReleaseSpec(
        class_attribute="c",
        attributes=[AttributeSpec(name=a, domain=dom, matrix=mat) for a in ("x", "z")]
        + [AttributeSpec(name="c", perturbed=False)],
    )
    train, test = frame.iloc[:20000].reset_index(drop=True), frame.iloc[20000:]
    rel = perturb_frame(train, spec, random_state=1)
    gs = GridSearchCV(
        ReleaseTreeClassifier(spec=spec, max_depth=2),
        {"leaf_model": ["majority", "naive-bayes"]},
        cv=KFold(3, shuffle=True, random_state=0),
        scoring=release_accuracy,
    ).fit(rel, rel["c"])
    assert gs.best_params_ == {"leaf_model": "naive-bayes"}
    assert gs.best_estimator_.score(test[["x", "z"]], test["c"]) > 0.9
    # the naive Bayes model's estimate agrees with its accuracy on original records
    model = ReleaseTreeClassifier(spec=spec, max_depth=2, leaf_model="naive-bayes")
    model.fit(rel.iloc[:16000])
    acc, se = release_accuracy_score(model, rel.iloc[16000:])
    truth = model.score(train.iloc[16000:][["x", "z"]], train["c"].iloc[16000:])
    assert abs(acc - truth) < 4 * se


def test_a_naive_bayes_leaf_over_a_large_grid_is_refused():
    df = agrawal(3000, function=1, random_state=4)
    spec = agrawal_spec(df, 9.0, 10)
    rel = perturb_frame(df, spec, random_state=5)
    model = ReleaseTreeClassifier(spec=spec, max_depth=0, leaf_model="naive-bayes").fit(rel)
    with pytest.raises(DataError, match=r"spans \d+ cells of the code grid \(at most 4096\)"):
        release_accuracy(model, rel)


def test_local_trees_and_pipelines_are_scored_too():
    """The Local baseline's leaves are boxes as well; a Pipeline is scored through its
    last step, with X transformed by the steps before it."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    from ppdm_papers.local_tree import LocalReconstructionClassifier

    df = agrawal(6000, function=1, random_state=6)[["age", "salary", "group"]]
    spec = agrawal_spec(df, 19.0, 10)
    rel = perturb_frame(df, spec, random_state=7)
    fit, fold = rel.iloc[:4000], rel.iloc[4000:]
    original = df.iloc[4000:]
    local = LocalReconstructionClassifier(spec=spec).fit(fit)
    acc, se = release_accuracy_score(local, fold)
    truth = local.score(original[["age", "salary"]], original["group"])
    assert abs(acc - truth) < 4 * se
    pipe = make_pipeline(
        FunctionTransformer(lambda f: f[["age", "salary"]].to_numpy()),
        ReleaseTreeClassifier(spec=spec),
    ).fit(fit, fit["group"])
    direct = ReleaseTreeClassifier(spec=spec).fit(fit)
    assert release_accuracy(pipe, fold, fold["group"]) == pytest.approx(
        release_accuracy(direct, fold)
    )
