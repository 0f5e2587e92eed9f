"""A decision tree learnt from the release itself: unbiased split statistics, no reconstruction.

Every node is a box of original codes whose class counts are estimated without bias from
the perturbed codes (:mod:`ppdm.boxcounts`); docs/release_tree.md derives each step.

References
----------
Dowd, Xu & Zhang, Eq. (1) and Sec. 4.3 (estimation and the zero fix); Ma & Sivakumar,
Sec. 4 and concluding remarks (learning from estimated sufficient statistics);
Quinlan (1993), C4.5, ch. 2 and 4 (gain ratio, pessimistic pruning).
"""

from __future__ import annotations

from dataclasses import dataclass

from .classifier import is_bool, is_number
from .release_base import BASE_CONSTRAINTS, ReleaseLearner, TreeParams
from .release_coding import ReleaseData

__all__ = ["ReleaseTreeClassifier"]

#: name -> (test, what it must be).  Checked once, when ``fit`` starts.
_PARAMETER_CONSTRAINTS = {
    **BASE_CONSTRAINTS,
    "alpha": (lambda v: is_number(v) and 0 < v < 0.5, "a number in (0, 0.5)"),
    "confidence": (lambda v: is_number(v) and 0 < v <= 0.5, "a number in (0, 0.5]"),
    "prune": (is_bool, "True or False"),
    "prior_strength": (lambda v: is_number(v) and v >= 0, "a number >= 0"),
    "criterion": (
        lambda v: isinstance(v, str) and v in ("gini", "gain_ratio"),
        "'gini' or 'gain_ratio'",
    ),
    "leaf_model": (
        lambda v: isinstance(v, str) and v in ("auto", "majority", "naive-bayes"),
        "'auto', 'majority' or 'naive-bayes'",
    ),
    "min_effective_leaf": (lambda v: is_number(v) and v >= 0, "a number >= 0"),
}


@dataclass(eq=False, repr=False, kw_only=True)
class ReleaseTreeClassifier(TreeParams, ReleaseLearner):
    """Decision tree learnt from a random-substitution release, with no reconstruction.

    Parameters
    ----------
    spec : ReleaseSpec, path or None, default=None
        The release spec (or a release directory / spec file); :meth:`fit_release` reads
        it from the release. None: the input is an unperturbed table (identity channel),
        and the learner is an ordinary tree learner.
    max_depth : int, default=12
        Deepest node (the root has depth 0).
    min_leaf : int or float, default=0.005
        Least estimated records per leaf; a float in (0, 1) is a fraction of n.
    alpha : float, default=0.001
        Significance level of the split test and of the support test.
    confidence : float, default=0.25
        C4.5's pruning confidence factor; pruning uses the effective sample size.
    prune : bool, default=True
    prior_strength : float, default=1.0
        Pseudo-records of the parent's class distribution added to every leaf.
    criterion : {"gini", "gain_ratio"}, default="gini"
        ``"gini"``: Gini decrease with bias-corrected squared counts (an unbiased
        estimate of the true decrease's numerator, so noise does not look like purity).
        ``"gain_ratio"``: C4.5's gain ratio on clipped estimated counts, with the
        average-gain filter. The significance test uses the entropy gain either way.
    min_effective_leaf : float, default=30
        Least Kish effective sample size ``(sum w)^2 / sum w^2`` of each side of a split:
        a side whose estimated counts rest on fewer effective records is noise. With
        naive Bayes leaves, which estimate C x N probabilities per attribute, the
        requirement is scaled by ``C * mean(N) / 10``.
    leaf_model : {"auto", "majority", "naive-bayes"}, default="auto"
        ``"majority"``: every leaf predicts its estimated class distribution.
        ``"naive-bayes"``: every leaf is a naive Bayes classifier learnt from the release
        (Kohavi's NBTree; docs/release_tree.md, Leaves); with ``max_depth=0`` a plain
        naive Bayes classifier. ``"auto"``: naive Bayes leaves with more than two
        classes, majority leaves otherwise.
    max_bins : int, default=255
        Without a spec: most codes of a numeric column (cut at quantile midpoints).

    Attributes
    ----------
    classes_ : ndarray
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        The perturbed attributes used, in spec order (absent when fitted on an array
        without a spec).
    spec_ : ReleaseSpec or None
    domains_ : list or None
        The attributes' domains (None without a spec).
    coders_ : list
        Per attribute, how its values map to codes.
    leaf_model_ : str
        The leaf model used (``"auto"`` resolved).
    tree_ : CodeTree
        ``feature``, ``left``, ``right``, ``mask`` (codes going left), ``value``
        (class distribution), ``count`` and ``n_eff`` per node; leaves have
        ``feature == -1`` (:class:`~ppdm.tree.release_storage.CodeTree`).
    feature_importances_ : ndarray
        Gini decrease per attribute on the estimated counts, summing to 1.

    Examples
    --------
    >>> from ppdm.examples import agrawal_release
    >>> df, spec, rel = agrawal_release()
    >>> clf = ReleaseTreeClassifier(spec=spec).fit(rel)
    >>> clf.score(df.drop(columns="group"), df["group"]) > 0.85
    True

    References
    ----------
    Dowd, Xu & Zhang, Eq. (1); Ma & Sivakumar, Sec. 4; Quinlan (1993), C4.5.
    """

    _parameter_constraints = _PARAMETER_CONSTRAINTS

    def _grow(self, data: ReleaseData, min_leaf: float) -> ReleaseTreeClassifier:
        self.tree_ = self._fit_tree(data, min_leaf)
        self.matrices_ = data.matrices
        return self

    def export_text(self, *, conditionals: str = "summary") -> str:
        """The tree as indented tests; every leaf with what it predicts and on how much.

        A majority leaf shows its class, estimated count, effective sample size and the
        estimated count of every class; a naive Bayes leaf shows its class prior, and a
        section after the tree its class-conditional model
        (:func:`~ppdm.tree.export.export_release_text`).

        Parameters
        ----------
        conditionals : {"summary", "table", "none"}, default="summary"
            How naive Bayes leaves show their class-conditional distributions.

        Examples
        --------
        >>> import numpy as np
        >>> X = np.array([[0.0], [1.0], [2.0], [3.0]] * 20)
        >>> clf = ReleaseTreeClassifier(min_effective_leaf=5).fit(X, [0, 0, 1, 1] * 20)
        >>> print(clf.export_text())
        x0 <= 1.5: 0 (est. 40.0, n_eff 40.0) {0: 40.0, 1: 0.0}
        x0 > 1.5: 1 (est. 40.0, n_eff 40.0) {0: 0.0, 1: 40.0}
        <BLANKLINE>
        Number of Leaves  : 2
        Size of the tree : 3
        """
        from .export import export_release_text

        self._check_fitted()
        return export_release_text(self, conditionals=conditionals)
