"""The level-wise grower and the vectorised subtree-raising estimate give the same trees
as the node-by-node path they replace (on numeric data with integral weights)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ppdm.tree import C45Classifier, builder, classifier, level


def _noisy_table(n: int, seed: int, n_values: int) -> tuple[np.ndarray, np.ndarray]:
    """Few-valued noisy numeric data, like a reconstructed table (both search paths run)."""
    rng = np.random.default_rng(seed)
    X = np.column_stack(
        [
            rng.integers(0, n_values, n) * 1.5,
            rng.integers(0, 7, n).astype(float),
            rng.normal(0, 1, n).round(1),
            rng.uniform(0, 10, n).round(3),
        ]
    )
    score = (X[:, 0] > n_values * 0.7) + (X[:, 1] < 3) + X[:, 2] + rng.normal(0, 1.2, n)
    y = np.digitize(score, [0.3, 1.2])
    return X, y


def _arrays(clf: C45Classifier) -> tuple:
    t = clf.tree_
    return t.feature, t.threshold, t.children, t.n_children, t.value, t.empty


@pytest.mark.parametrize(
    ("seed", "n_values", "params", "weights"),
    [
        (0, 40, {}, False),
        (1, 100, {}, True),
        (2, 10, {"min_leaf": 5, "confidence": 0.1}, False),
        (3, 60, {"subtree_raising": False}, True),
        (4, 20, {"unpruned": True}, False),
    ],
)
def test_level_wise_matches_node_by_node(monkeypatch, seed, n_values, params, weights):
    X, y = _noisy_table(3000, seed, n_values)
    w = np.random.default_rng(seed).integers(1, 4, y.size).astype(float) if weights else None
    fast = C45Classifier(**params).fit(X, y, sample_weight=w)
    assert fast.tree_.n_nodes > 20
    monkeypatch.setattr(level, "level_wise_ok", lambda ts, w: False)
    monkeypatch.setattr(classifier, "level_wise_ok", lambda ts, w: False)
    slow = C45Classifier(**params).fit(X, y, sample_weight=w)
    for a, b in zip(_arrays(fast), _arrays(slow)):
        np.testing.assert_array_equal(a, b)


def test_level_wise_only_where_exact():
    X, y = _noisy_table(200, 0, 10)
    ts = classifier.TrainingSet(X, y, np.zeros(4, bool), np.zeros(4, int), 3, 2, True)
    assert level.level_wise_ok(ts, np.ones(200))
    assert not level.level_wise_ok(ts, np.full(200, 0.5))
    X2 = X.copy()
    X2[0, 1] = np.nan
    ts2 = classifier.TrainingSet(X2, y, np.zeros(4, bool), np.zeros(4, int), 3, 2, True)
    assert not level.level_wise_ok(ts2, np.ones(200))
    assert builder.grow(ts, np.ones(200), keep_data=False).split is not None


def test_predict_without_missing_values_matches_the_general_routing():
    rng = np.random.default_rng(0)
    n = 3000
    a = rng.choice(list("abcdefgh"), n)
    b = rng.choice(list("xyz"), n)
    c = rng.normal(size=n).round(2)
    a = np.where((a == "h") & (b != "z"), "g", a)  # "h" is seen only with "z": empty leaves
    y = np.where(((a < "d") & (b == "x")) | (c > 1) | (rng.random(n) < 0.1), "p", "q")
    clf = C45Classifier(min_leaf=1).fit(pd.DataFrame({"a": a, "b": b, "c": c}), y)
    assert clf.tree_.empty.any()
    test = pd.DataFrame(
        {
            "a": rng.choice(list("abcdefgh"), n),
            "b": rng.choice(list("xyz"), n),
            "c": rng.normal(size=n).round(2),
        }
    )
    Xe = clf._encoding.transform(test)
    np.testing.assert_array_equal(clf.tree_._predict_known(Xe), clf.tree_._predict_general(Xe))
    X, y2 = _noisy_table(2000, 5, 30)
    clf = C45Classifier().fit(X, y2)
    np.testing.assert_array_equal(clf.tree_._predict_known(X), clf.tree_._predict_general(X))


def test_blocks_of_attribute_lists_give_the_same_tree(monkeypatch):
    X, y = _noisy_table(3000, 6, 40)
    whole = C45Classifier().fit(X, y)
    monkeypatch.setattr(level, "CHUNK_ENTRIES", 5000)  # one attribute per block
    blocks = C45Classifier().fit(X, y)
    assert blocks.tree_.n_nodes > 20
    for a, b in zip(_arrays(whole), _arrays(blocks)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("weights", [False, True])
def test_binned_attributes_give_the_same_tree(monkeypatch, weights):
    X, y = _noisy_table(3000, 7, 40)
    w = np.random.default_rng(7).integers(1, 4, y.size).astype(float) if weights else None
    listed = C45Classifier().fit(X, y, sample_weight=w)
    monkeypatch.setattr(level, "BINNED_MIN_ROWS", 0)  # few-valued attributes binned
    binned = C45Classifier().fit(X, y, sample_weight=w)
    assert binned.tree_.n_nodes > 20
    for a, b in zip(_arrays(listed), _arrays(binned)):
        np.testing.assert_array_equal(a, b)
