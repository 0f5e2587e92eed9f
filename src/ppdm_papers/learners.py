"""Learners for the accuracy experiments, by name.

``c45`` is ppdm's own C4.5 (:class:`ppdm.tree.C45Classifier`, confidence 0.25, at
least 2 records per leaf), the learner of the paper's Table 1 and Figs. 4-6.
``cart-entropy`` (scikit-learn's CART with the entropy criterion, at least 2 records
per leaf, no pruning) is a fast stand-in for checking the pipeline; results made with
it are not the paper's.

References
----------
Dowd, Xu & Zhang, Sec. 6.2 ("a version of C4.5 implemented in Java").
"""

from __future__ import annotations

from collections.abc import Callable

from ppdm.exceptions import ParameterError
from ppdm.validation import check_choice

__all__ = ["LEARNERS", "make_learner"]


def _c45():
    try:
        from ppdm.tree import C45Classifier
    except ImportError as exc:  # the tree package is optional in partial builds
        raise ParameterError(
            "learner 'c45' needs ppdm.tree.C45Classifier, which this build lacks "
            f"({exc}); use learner 'cart-entropy' for a stand-in"
        ) from None
    return C45Classifier(confidence=0.25, min_leaf=2)


def _cart_entropy():
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2, random_state=0)


LEARNERS: dict[str, Callable] = {"c45": _c45, "cart-entropy": _cart_entropy}


def make_learner(name: str = "c45"):
    """A fresh, unfitted classifier registered as ``name``.

    Examples
    --------
    >>> make_learner("cart-entropy").criterion
    'entropy'
    """
    check_choice(name, "learner", LEARNERS, error=ParameterError)
    return LEARNERS[name]()
