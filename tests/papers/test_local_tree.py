"""The experiments' Local baseline passes scikit-learn's common estimator checks."""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from ppdm_papers.local_tree import LocalReconstructionClassifier


@parametrize_with_checks([LocalReconstructionClassifier()])
def test_sklearn_compatible(estimator, check):
    check(estimator)
