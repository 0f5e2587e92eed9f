"""J48-style text, rules with coverage/errors, and tree comparison."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ppdm.datasets import load_wisconsin
from ppdm.exceptions import ParameterError
from ppdm.tree import C45Classifier, compare_trees, export_text, extract_rules, format_rules
from ppdm_papers.weka import parse_j48_tree


@pytest.fixture(scope="module")
def wisc_tree():
    d = load_wisconsin()
    return C45Classifier().fit(d.X, d.y), d


def test_text_layout_and_counts(wisc_tree):
    clf, _ = wisc_tree
    text = export_text(clf)
    assert text.startswith("J48 pruned tree\n------------------\n\n")
    assert f"Number of Leaves  : \t{clf.tree_.n_leaves}" in text
    assert f"Size of the tree : \t{clf.tree_.n_nodes}" in text
    parsed = parse_j48_tree(text)
    assert parsed.n_nodes() == clf.tree_.n_nodes
    assert parsed.attribute == clf.feature_names_[clf.tree_.feature[0]]
    # the leaves' weights add up to the training set
    leaves = [r.coverage for r in extract_rules(clf, include_empty=True)]
    assert sum(leaves) == pytest.approx(683)
    assert "J48 unpruned tree" in export_text(
        C45Classifier(unpruned=True).fit(clf.n_features_in_ and _X(), _y())
    )


def _X():
    return load_wisconsin().X


def _y():
    return load_wisconsin().y


def test_categorical_text_and_empty_leaves():
    # "purple" is declared but never seen: its branch is an empty leaf labelled
    # with the parent's majority class, as J48 prints it
    color = pd.Categorical(["red"] * 6 + ["blue"] * 4, categories=["blue", "purple", "red"])
    X = pd.DataFrame({"color": color})
    clf = C45Classifier(unpruned=True).fit(X, ["yes"] * 6 + ["no"] * 4)
    assert export_text(clf, header=False).splitlines() == [
        "color = blue: no (4.0)",
        "color = purple: yes (0.0)",
        "color = red: yes (6.0)",
    ]
    assert len(extract_rules(clf)) == 2
    assert len(extract_rules(clf, include_empty=True)) == 3
    row = pd.DataFrame({"color": pd.Categorical(["purple"], categories=["blue", "purple", "red"])})
    np.testing.assert_allclose(clf.predict_proba(row), [[0.4, 0.6]])


def test_rules_cover_paths_and_count_errors(wisc_tree):
    clf, d = wisc_tree
    rules = extract_rules(clf)
    assert len(rules) == clf.tree_.n_leaves
    X = d.X
    for rule in rules:
        mask = np.ones(len(X), dtype=bool)
        for c in rule.conditions:
            col = X[c.attribute].to_numpy()
            mask &= col <= c.value if c.op == "<=" else col > c.value
        assert mask.sum() == pytest.approx(rule.coverage)
        assert (d.y[mask] != rule.label).sum() == pytest.approx(rule.errors)
    text = format_rules(rules)
    assert text.startswith(
        "Rule 1: (395/2)\n    cell_size <= 2\n    bare_nuclei <= 3\n    ->  class 2"
    )


def test_compare_identical_trees(wisc_tree):
    clf, d = wisc_tree
    report = compare_trees(clf, clf, d.X)
    assert report.same_root
    assert len(report.matches) == len(report.rules_a)
    assert report.matched_fraction == 1.0
    assert report.agreement == 1.0
    json.dumps(report.to_dict())
    assert "prediction agreement: 1.0000 on 683 rows" in report.to_text()


def test_compare_different_trees(wisc_tree):
    clf, d = wisc_tree
    other = C45Classifier().fit(d.X.drop(columns=["cell_size"]), d.y)
    report = compare_trees(clf, other, None)
    assert not report.same_root
    assert "cell_size" not in report.shared_attributes
    assert report.agreement is None
    assert len(report.matches) < len(report.rules_a)


def test_compare_threshold_tolerance():
    X = np.array([[1.0], [2.0], [3.0], [10.0], [11.0], [12.0], [0.0], [20.0]])
    y = [0, 0, 0, 1, 1, 1, 0, 1]
    a = C45Classifier(min_leaf=1).fit(X, y)
    b = C45Classifier(min_leaf=1).fit(X + 2.0, y)  # threshold 3 -> 5, range 20
    assert len(compare_trees(a, b, tolerance=0.05).matches) == 0
    assert len(compare_trees(a, b, tolerance=0.15).matches) == 2
    with pytest.raises(ParameterError, match="tolerance must be >= 0"):
        compare_trees(a, b, tolerance=-1)
