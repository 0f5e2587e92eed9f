"""ppdm's C4.5 against Weka's J48 on the same data: identical trees and accuracies.

Every comparison here is exact (same attribute at every node, same thresholds,
same leaf classes, same leaf weights and errors to J48's two printed decimals,
same test accuracy): no difference with J48 remains on these data sets.
"""

from __future__ import annotations

import numpy as np
import pytest

from ppdm.datasets import load_pendigits, load_spambase, load_wisconsin
from ppdm.tree import C45Classifier, export_text
from ppdm_papers.data import train_test_split_fixed
from ppdm_papers.weka import parse_j48_tree, run_j48, tree_differences

from .conftest import synthetic

pytestmark = [pytest.mark.weka, pytest.mark.usefixtures("needs_weka")]

OPTIONS = {
    "default": ([], {}),
    "unpruned": (["-U"], {"unpruned": True}),
    "no-raising": (["-S"], {"subtree_raising": False}),
}

DATASETS = {
    "wisconsin": (load_wisconsin, 200),
    "pendigits": (load_pendigits, 3498),
    "spambase": (load_spambase, 1500),
}


def _check_same(train, test, target, options, params, **kwargs):
    X, y = train.drop(columns=target), train[target]
    clf = C45Classifier(**params).fit(X, y, sample_weight=kwargs.get("weights"))
    j48 = run_j48(train, target, test, options=options, **kwargs)
    mine = parse_j48_tree(export_text(clf))
    assert tree_differences(j48.tree, mine) == []
    assert mine.n_nodes() == clf.tree_.n_nodes == j48.tree.n_nodes()
    acc = float(np.mean(clf.predict(test.drop(columns=target)) == test[target]))
    assert acc == pytest.approx(j48.test_accuracy, abs=1e-4)
    return clf, j48


@pytest.mark.parametrize("option", list(OPTIONS))
@pytest.mark.parametrize("name", list(DATASETS))
def test_uci_trees_identical(name, option):
    loader, n_test = DATASETS[name]
    data = loader()
    train, test = train_test_split_fixed(data, n_test, 0)
    options, params = OPTIONS[option]
    clf, _ = _check_same(train, test, data.target, options, params)
    assert clf.tree_.n_leaves > 5


@pytest.mark.parametrize("missing", [0.0, 0.15])
@pytest.mark.parametrize("seed", [0, 1])
def test_synthetic_categorical_and_missing_identical(seed, missing):
    train, test = synthetic(500, seed, missing), synthetic(300, seed + 1000, missing)
    clf, _ = _check_same(train, test, "cls", [], {})
    assert clf.categorical_.tolist() == [True, True, False, False, False]


@pytest.mark.parametrize(
    ("options", "params"),
    [
        (["-U"], {"unpruned": True}),
        (["-C", "0.1", "-M", "5"], {"confidence": 0.1, "min_leaf": 5}),
        (["-C", "0.45", "-S"], {"confidence": 0.45, "subtree_raising": False}),
    ],
)
def test_synthetic_options_identical(options, params):
    train, test = synthetic(600, 7, 0.1), synthetic(300, 8, 0.1)
    _check_same(train, test, "cls", options, params)


def test_instance_weights_identical():
    train, test = synthetic(400, 3, 0.1), synthetic(200, 4, 0.1)
    weights = np.random.default_rng(0).choice([0.5, 1.0, 2.0, 3.0], len(train))
    _check_same(train, test, "cls", [], {}, weights=weights)
