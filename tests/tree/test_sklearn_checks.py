"""scikit-learn's common estimator checks, for every tree learner of ppdm.

Without a spec a release learner takes its input as an unperturbed table (every channel
the identity), so it is an ordinary tree learner and every generic check applies. No
check is expected to fail.
"""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from ppdm.tree import C45Classifier, ReleaseForestClassifier, ReleaseTreeClassifier


@parametrize_with_checks(
    [
        C45Classifier(),
        ReleaseTreeClassifier(),
        ReleaseForestClassifier(n_estimators=5),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
