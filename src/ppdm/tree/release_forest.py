"""A bagged forest of release trees: class distributions averaged over perturbed bootstraps.

A bootstrap sample of the release is a release of a bootstrap sample of the original, so
every tree is a release tree on its resample's box counts; docs/release_tree.md says why,
and how :func:`~ppdm.tree.release_accuracy` scores a forest cell by cell.

References
----------
Breiman (1996), Bagging predictors, Machine Learning 24; Breiman (2001), Random forests,
Machine Learning 45 (random attribute subsets per split); Dowd, Xu & Zhang, Eq. (1) (the
box counts of every tree).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state

from .classifier import is_bool, is_int
from .release_base import ReleaseLearner, TreeParams
from .release_coding import ReleaseData
from .release_tree import _PARAMETER_CONSTRAINTS as _TREE_CONSTRAINTS

__all__ = ["ReleaseForestClassifier"]


def _max_features_ok(v) -> bool:
    if v is None or (isinstance(v, str) and v == "sqrt"):
        return True
    return v >= 1 if is_int(v) else isinstance(v, float) and 0 < v <= 1


_PARAMETER_CONSTRAINTS = {
    **_TREE_CONSTRAINTS,
    "n_estimators": (lambda v: is_int(v) and v >= 1, "an integer >= 1"),
    "max_features": (
        _max_features_ok,
        "None, 'sqrt', an integer >= 1 or a fraction in (0, 1]",
    ),
    "bootstrap": (is_bool, "True or False"),
    "random_state": (
        lambda v: (
            v is None or isinstance(v, (np.random.RandomState, np.random.Generator)) or is_int(v)
        ),
        "None, an integer or a random generator",
    ),
}


@dataclass(eq=False, repr=False, kw_only=True)
class ReleaseForestClassifier(TreeParams, ReleaseLearner):
    """Bagged release trees, learnt from a random-substitution release.

    Every tree is grown as :class:`ReleaseTreeClassifier` grows one (the same
    parameters), on a bootstrap sample of the release records, optionally searching a
    random subset of the attributes at every split; the forest averages the trees'
    class distributions.

    Parameters
    ----------
    spec : ReleaseSpec, path or None, default=None
        As for :class:`ReleaseTreeClassifier`.
    n_estimators : int, default=25
        Number of trees.
    max_features : None, "sqrt", int or float, default=None
        Attributes searched at every split: all (None), ``sqrt(d)``, a number, or a
        fraction of d.
    bootstrap : bool, default=True
        Resample the records (with replacement) for every tree; False grows every tree
        on the whole release (useful only with ``max_features``).
    random_state : int, RandomState instance or None, default=None
        Draws the resamples and the attribute subsets.
    max_depth, min_leaf, alpha, confidence, prune, prior_strength, criterion, \
min_effective_leaf, leaf_model, max_bins
        Every tree's parameters, as for :class:`ReleaseTreeClassifier`.

    Attributes
    ----------
    classes_ : ndarray
    n_features_in_ : int
    feature_names_in_ : ndarray of str
    spec_, domains_, coders_, leaf_model_, matrices_
        As for :class:`ReleaseTreeClassifier`.
    trees_ : list of CodeTree
        The fitted trees.
    feature_importances_ : ndarray
        Mean of the trees' normalised Gini decreases.

    Examples
    --------
    >>> from ppdm.examples import agrawal_release
    >>> df, spec, rel = agrawal_release()
    >>> clf = ReleaseForestClassifier(spec=spec, n_estimators=5, random_state=0).fit(rel)
    >>> clf.score(df.drop(columns="group"), df["group"]) > 0.85
    True

    References
    ----------
    Breiman (1996), Bagging predictors; Breiman (2001), Random forests; Dowd, Xu & Zhang,
    Eq. (1).
    """

    _parameter_constraints = _PARAMETER_CONSTRAINTS

    n_estimators: int = 25
    max_features: int | float | str | None = None
    bootstrap: bool = True
    random_state: Any = None

    def _n_search(self, d: int) -> int | None:
        mf = self.max_features
        if mf is None:
            return None
        if mf == "sqrt":
            k = int(np.sqrt(d))
        elif isinstance(mf, float):
            k = int(round(mf * d))
        else:
            k = int(mf)
        return min(max(k, 1), d)

    def _grow(self, data: ReleaseData, min_leaf: float) -> ReleaseForestClassifier:
        top, size = np.iinfo(np.int32).max, int(self.n_estimators)
        if isinstance(self.random_state, np.random.Generator):
            seeds = self.random_state.integers(0, top, size=size)
        else:
            seeds = check_random_state(self.random_state).randint(0, top, size=size)
        n = len(data.y)
        trees = []
        for seed in seeds:
            rng = np.random.default_rng(int(seed))
            sample = data
            if self.bootstrap:
                idx = rng.integers(0, n, n)
                sample = ReleaseData(
                    data.names, data.coders, data.matrices, data.codes[idx], data.y[idx]
                )
            trees.append(self._fit_tree(sample, min_leaf, self._n_search(len(data.names)), rng))
        self.trees_ = trees
        self.matrices_ = data.matrices
        return self

    def _proba_codes(self, codes: np.ndarray) -> np.ndarray:
        total = np.zeros((len(codes), len(self.classes_)))
        for tree in self.trees_:
            total += tree.proba(codes)
        return total / len(self.trees_)

    def apply(self, X) -> np.ndarray:
        """Leaf index of every row of ``X`` in every tree, shape (n_samples, n_estimators)."""
        codes = self._encode(X)
        return np.column_stack([t.apply(codes) for t in self.trees_])

    def decision_path(self, X):
        """Node indicator (n_samples, total nodes) over all trees, and the column offsets
        ``n_nodes_ptr`` of every tree (as scikit-learn's forests return them)."""
        codes = self._encode(X)
        paths = [t.decision_path(codes) for t in self.trees_]
        ptr = np.concatenate([[0], np.cumsum([p.shape[1] for p in paths])])
        return sparse.hstack(paths).tocsr(), ptr

    def export_text(self, *, top: int = 10) -> str:
        """A summary of the forest: its trees, their sizes and the most used attributes.

        Parameters
        ----------
        top : int, default=10
            Attributes listed, by decreasing importance.

        References
        ----------
        Breiman (2001), random forests; the trees are release trees (docs/release_tree.md).
        """
        self._check_fitted()
        leaves = [int(t.n_leaves) for t in self.trees_]
        searched = "all" if self.max_features is None else f"{self.max_features!r} of the"
        lines = [
            f"Release forest: {len(self.trees_)} release trees, each on "
            f"{'a bootstrap sample' if self.bootstrap else 'every record'} of the release, "
            f"{searched} attributes searched per split; leaves are "
            f"{self.leaf_model_.replace('-', ' ')} models",
            f"leaves per tree: {min(leaves)} to {max(leaves)} (mean {np.mean(leaves):.1f}); "
            f"depth up to {self.get_depth()}",
            "attributes by importance (mean share of the trees' impurity decrease):",
        ]
        imp = self.feature_importances_
        order = np.argsort(-imp, kind="stable")[: max(int(top), 0)]
        names = self._names
        lines += [f"  {names[j]}: {imp[j]:.3f}" for j in order if imp[j] > 0]
        return "\n".join(lines) + "\n"

    @property
    def n_leaves_(self) -> int:
        """Leaves summed over the trees."""
        self._check_fitted()
        return int(sum(t.n_leaves for t in self.trees_))

    def get_depth(self) -> int:
        """Longest root-to-leaf path of any tree."""
        self._check_fitted()
        return int(max(t.max_depth for t in self.trees_))

    @property
    def feature_importances_(self) -> np.ndarray:
        """Mean over the trees of their normalised Gini decreases."""
        self._check_fitted()
        imp = np.mean([t.feature_importances(self.n_features_in_) for t in self.trees_], axis=0)
        total = imp.sum()
        return imp / total if total > 0 else imp
