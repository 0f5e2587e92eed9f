"""scikit-learn's common estimator checks that apply to C45Classifier."""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from ppdm.tree import C45Classifier

# Checks whose premise C4.5 rejects on purpose (documented in docs/tree.md):
# a training set whose features are all constant raises DataError instead of
# fitting a single leaf.
EXPECTED_FAILED = {
    "check_fit2d_1sample": "one row: every feature is constant, which raises DataError",
}


@parametrize_with_checks([C45Classifier()], expected_failed_checks=lambda est: EXPECTED_FAILED)
def test_sklearn_compatible(estimator, check):
    check(estimator)
