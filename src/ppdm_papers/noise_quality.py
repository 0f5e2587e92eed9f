"""Data quality of a noisy release: how similar the tree built on it is to the original tree.

Islam & Brankovic judge a release by the tree a miner would build on it: does it
test the same attribute at the root, which of the original tree's attributes it
still uses, how many of the original logic rules it keeps (the same, or with
thresholds within a tolerance), and whether it has new rules with significant
support.  ppdm adds the prediction agreement of the two trees and their accuracy
on held-out records.

References
----------
Islam, M. Z. & Brankovic, L. Noise addition for protecting privacy in data mining,
Sec. 3 (data quality as tree similarity) and Sec. 4.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from ppdm.exceptions import ParameterError
from ppdm.fields import fields_dict
from ppdm.tree import compare_trees
from ppdm.validation import check_probability

__all__ = ["TreeQuality", "tree_quality"]


@dataclass
class TreeQuality:
    """How close the tree built on a release is to the tree built on the original data.

    Attributes
    ----------
    same_root : bool
    original_attributes : list of str
        Attributes the original tree tests.
    kept_attributes : list of str
        Those the perturbed tree tests too.
    n_original_rules, n_perturbed_rules : int
    rules_kept : int
        Original rules found in the perturbed tree (same path, class and categories,
        thresholds within ``tolerance`` of the attribute's range).
    new_rules : int
        Rules of the perturbed tree that match no original rule.
    new_significant_rules : int
        New rules covering at least ``significant_support`` of the training records.
    agreement : float or None
        Share of the given records on which both trees predict the same class.
    accuracy_original, accuracy_perturbed : float or None
        Accuracy of each tree on the test records.
    comparison : TreeComparison
        The full comparison (:func:`ppdm.tree.compare_trees`).

    References
    ----------
    Islam & Brankovic, Sec. 4.
    """

    same_root: bool
    original_attributes: list
    kept_attributes: list
    n_original_rules: int
    n_perturbed_rules: int
    rules_kept: int
    new_rules: int
    new_significant_rules: int
    agreement: float | None
    accuracy_original: float | None
    accuracy_perturbed: float | None
    comparison: object = field(repr=False)

    def to_dict(self) -> dict:
        """A JSON-ready summary (without the rule lists)."""
        names = [f.name for f in fields(self) if f.name != "comparison"]
        return fields_dict(self, names, {"agreement": "prediction_agreement"})


def tree_quality(
    original,
    perturbed,
    X=None,
    *,
    X_test=None,
    y_test=None,
    tolerance: float = 0.05,
    significant_support: float = 0.03,
) -> TreeQuality:
    """Compare the tree built on a release with the tree built on the original data.

    Parameters
    ----------
    original, perturbed : C45Classifier
        Fitted on the original and on the released data.
    X : DataFrame or array-like, optional
        Records on which to measure prediction agreement (normally the original ones).
    X_test, y_test : optional
        Held-out records for the test accuracy of both trees.
    tolerance : float, default=0.05
        Thresholds match within this fraction of the attribute's value range.
    significant_support : float, default=0.03
        A new rule is significant when it covers at least this share of the records
        the perturbed tree was built on (the paper does not give a number).

    Returns
    -------
    TreeQuality

    References
    ----------
    Islam & Brankovic, Sec. 4 (attributes kept, root, logic rules, new rules).

    Examples
    --------
    One class changed by noise moves the split from 3 to 2: the root stays, no rule is
    kept, and the trees disagree on one record in six.

    >>> from ppdm.tree import C45Classifier
    >>> X = [[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]]
    >>> a = C45Classifier(min_leaf=1).fit(X, [0, 0, 0, 1, 1, 1])
    >>> b = C45Classifier(min_leaf=1).fit(X, [0, 0, 1, 1, 1, 1])
    >>> q = tree_quality(a, b, X)
    >>> q.same_root, q.rules_kept, q.new_rules, round(q.agreement, 3)
    (True, 0, 2, 0.833)
    """
    check_probability(significant_support, "significant_support", closed=True, error=ParameterError)
    cmp = compare_trees(original, perturbed, X, tolerance=tolerance)
    matched_b = {j for _, j in cmp.matches}
    new = [r for j, r in enumerate(cmp.rules_b) if j not in matched_b]
    n_train = float(perturbed.tree_.value[0].sum())
    significant = [r for r in new if r.coverage >= significant_support * n_train]
    acc_o = acc_p = None
    if X_test is not None and y_test is not None:
        y_true = np.asarray(y_test)
        acc_o = float(np.mean(original.predict(X_test) == y_true))
        acc_p = float(np.mean(perturbed.predict(X_test) == y_true))
    return TreeQuality(
        same_root=bool(cmp.same_root),
        original_attributes=list(cmp.attributes_a),
        kept_attributes=list(cmp.shared_attributes),
        n_original_rules=len(cmp.rules_a),
        n_perturbed_rules=len(cmp.rules_b),
        rules_kept=len(cmp.matches),
        new_rules=len(new),
        new_significant_rules=len(significant),
        agreement=cmp.agreement,
        accuracy_original=acc_o,
        accuracy_perturbed=acc_p,
        comparison=cmp,
    )
