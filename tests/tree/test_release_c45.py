"""C4.5 on a reconstruction read as a tree over the release's codes: same predictions,
exact box scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ppdm.datasets import agrawal
from ppdm.demo import agrawal_spec
from ppdm.matrix import identity
from ppdm.perturbation import perturb_frame
from ppdm.pipeline import reconstruct_frame
from ppdm.tree import C45Classifier
from ppdm.tree.release_c45 import c45_on_codes
from ppdm.tree.release_scoring import release_accuracy_score, release_correct

pytestmark = [pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")]


@pytest.fixture(scope="module")
def fitted():
    df = agrawal(5000, function=2, random_state=3)[["age", "elevel", "salary", "group"]]
    spec = agrawal_spec(df, 9.0, 10)
    rel = perturb_frame(df.iloc[:3000], spec, random_state=0)
    table = reconstruct_frame(rel, spec, by_class=True, random_state=0)
    clf = C45Classifier().fit(table.drop(columns="group"), table["group"])
    return df.iloc[3000:].reset_index(drop=True), spec, clf, c45_on_codes(clf, spec)


def test_predicts_as_c45_on_the_values_the_codes_decode_to(fitted):
    test, spec, clf, coded = fitted
    assert clf.tree_.n_leaves >= 3
    X = test.drop(columns="group")
    codes = coded._encode(X)
    decoded = pd.DataFrame(
        {n: d.decode(codes[:, j]) for j, (n, d) in enumerate(zip(coded._names, coded.domains_))}
    )[list(X.columns)]
    np.testing.assert_array_equal(coded.predict(X), clf.predict(decoded))


def test_box_scores_equal_a_direct_count_when_the_originals_are_known(fitted):
    # with the identity channel every factor v_I(o) is 1_I(o): the score of an original
    # record is exactly "the coded tree classifies it correctly"
    test, spec, clf, coded = fitted
    coded.matrices_ = [identity(d.n_values) for d in coded.domains_]
    X, y = test.drop(columns="group"), test["group"].to_numpy()
    right = coded.predict(X) == y
    np.testing.assert_allclose(release_correct(coded, X, y), right.astype(float))
    assert release_accuracy_score(coded, X, y)[0] == pytest.approx(right.mean())
    assert 0 < right.mean() < 1


@pytest.mark.parametrize("depth", [0, 1, 2])
def test_cut_at_a_depth_every_node_there_is_a_leaf_of_c45s_counts_below(fitted, depth):
    test, spec, clf, coded = fitted
    assert coded.tree_.max_depth > depth
    cut = c45_on_codes(clf, spec, max_depth=depth).tree_
    assert cut.max_depth == depth
    leaves = cut.feature < 0
    # the leaves partition the training records: their counts add up to the root's
    assert cut.count[leaves].sum() == pytest.approx(clf.tree_.value[0].sum())
    np.testing.assert_allclose(cut.value[leaves].sum(axis=1), 1.0)
    if depth == 0:
        np.testing.assert_allclose(cut.value[0], clf.tree_.value[0] / clf.tree_.value[0].sum())


def test_cut_below_the_deepest_node_is_the_whole_tree(fitted):
    test, spec, clf, coded = fitted
    deep = c45_on_codes(clf, spec, max_depth=coded.tree_.max_depth)
    X = test.drop(columns="group")
    np.testing.assert_array_equal(deep.predict(X), coded.predict(X))
    np.testing.assert_array_equal(deep.tree_.feature, coded.tree_.feature)
