"""``C45Classifier``: C4.5 Release 8 as Weka's J48 implements it, as a scikit-learn estimator.

References
----------
Quinlan, J. R. (1993). C4.5: Programs for Machine Learning. Morgan Kaufmann.
Weka J48 (``weka.classifiers.trees.J48``), Weka 3.6.
"""

from __future__ import annotations

import numbers
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError as _SklearnNotFittedError
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import column_or_1d

from ..exceptions import DataError, NotFittedError, ParameterError
from ..validation import show
from ._encoding import fit_encoding
from .builder import grow
from .level import grow_level_wise, level_wise_ok
from .pruning import collapse, prune
from .splitter import TrainingSet
from .storage import Tree

__all__ = ["C45Classifier"]


def is_bool(v) -> bool:
    return isinstance(v, (bool, np.bool_))


def is_number(v) -> bool:
    return isinstance(v, numbers.Real) and not is_bool(v)


def is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not is_bool(v)


def check_params(estimator, constraints: dict) -> None:
    """Raise :class:`ParameterError` for the first parameter failing its test in
    ``constraints`` (name -> (test, what it must be))."""
    for name, (test, what) in constraints.items():
        value = getattr(estimator, name)
        if not test(value):
            raise ParameterError(f"{name} must be {what} (got {show(value)})")


#: name -> (test, what it must be).  Checked once, when ``fit`` starts.
_PARAMETER_CONSTRAINTS = {
    "confidence": (lambda v: is_number(v) and 0 < v <= 0.5, "a number in (0, 0.5]"),
    "min_leaf": (lambda v: is_int(v) and v >= 1, "an integer >= 1"),
    "unpruned": (is_bool, "True or False"),
    "subtree_raising": (is_bool, "True or False"),
    "collapse_tree": (is_bool, "True or False"),
    "use_mdl_correction": (is_bool, "True or False"),
    "categorical_features": (
        lambda v: v is None or (isinstance(v, str) and v == "auto") or not isinstance(v, str),
        'None, "auto", a list of column names or indices, or a boolean mask',
    ),
    "class_weight": (
        lambda v: v is None or (isinstance(v, str) and v == "balanced") or isinstance(v, dict),
        'None, "balanced" or a dict {class label: weight}',
    ),
}


def _sorted_labels(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(y, return_inverse=True)``; labels of object or string dtype are
    hashed first, so that only their distinct values are sorted."""
    if y.dtype.kind not in "OUS":
        return np.unique(y, return_inverse=True)
    codes, distinct = pd.factorize(y, sort=False)
    classes, rank = np.unique(np.asarray(distinct, dtype=y.dtype), return_inverse=True)
    return classes, rank[codes]


class _NotFitted(NotFittedError, _SklearnNotFittedError):
    """ppdm's and scikit-learn's not-fitted error at once."""


@dataclass(eq=False, repr=False, kw_only=True)
class C45Classifier(ClassifierMixin, BaseEstimator):
    """C4.5 decision tree (Release 8), faithful to Weka's J48.

    Gain ratio with the average-gain filter; multiway splits on categorical
    attributes and binary thresholds on numeric ones (with the MDL correction
    and J48's threshold rule); a minimum number of instances per leaf;
    pessimistic pruning with a confidence factor, collapsing and subtree
    raising; missing values as fractional instances; sample and class weights.
    The first six parameters are J48's options ``-C``, ``-M``, ``-U``, ``-S``, ``-O``
    and ``-J`` (docs/tree.md maps them).

    Parameters
    ----------
    confidence : float, default=0.25
        Confidence factor of the pessimistic error estimate, in (0, 0.5]; smaller
        prunes more.  Used as a 32-bit float, as J48 does.
    min_leaf : int, default=2
        Each split must send at least this weight to two of its branches.
    unpruned : bool, default=False
        Skip pessimistic pruning.
    subtree_raising : bool, default=True
        Let pruning replace a subtree by its largest branch.
    collapse_tree : bool, default=True
        Replace subtrees that do not lower the training error by leaves, before pruning.
    use_mdl_correction : bool, default=True
        Subtract ``log2(number of candidate thresholds) / N`` from the gain of numeric splits.
    categorical_features : None, "auto", list of str or int, or bool mask, default=None
        Which columns are categorical.  None / "auto": DataFrame columns of
        object, string, category or bool dtype (and every column of a non-numeric
        array); all other columns are numeric.
    class_weight : None, "balanced" or dict, default=None
        Multiplies each instance's weight by its class's weight; "balanced" uses
        ``n_samples / (n_classes * class_count)``.

    Attributes
    ----------
    classes_ : ndarray
        Class labels, sorted.
    n_classes_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a DataFrame.
    categorical_ : ndarray of bool
        Which columns were treated as categorical.
    categories_ : list
        Per column, the categories seen at fit (None for numeric columns).
    value_ranges_ : dict
        Numeric column name -> (min, max) of its training values.
    tree_ : Tree
        The fitted tree as flat arrays.

    Notes
    -----
    Differences from J48 are listed in ``docs/tree.md``.

    References
    ----------
    Quinlan, J. R. (1993). C4.5: Programs for Machine Learning. Morgan Kaufmann.
    Weka 3.6, ``weka.classifiers.trees.J48`` (Witten & Frank, Data Mining, 2005).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]])
    >>> clf = C45Classifier(min_leaf=1).fit(X, ["a", "a", "a", "b", "b", "b"])
    >>> clf.predict([[2.5], [11.5]]).tolist()
    ['a', 'b']
    """

    confidence: float = 0.25
    min_leaf: int = 2
    unpruned: bool = False
    subtree_raising: bool = True
    collapse_tree: bool = True
    use_mdl_correction: bool = True
    categorical_features: Any = None
    class_weight: Any = None

    def _validate_params(self) -> None:
        check_params(self, _PARAMETER_CONSTRAINTS)

    def _labels(self, y, n_rows: int):
        if y is None:
            raise DataError("requires y to be passed, but the target y is None")
        if isinstance(y, (pd.Series, pd.DataFrame)):
            y = y.to_numpy()
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)
        if y.ndim != 1:
            raise DataError(f"y must be 1-D (one label per row); got shape {y.shape}")
        if y.shape[0] != n_rows:
            raise DataError(f"X has {n_rows} rows but y has {y.shape[0]} labels")
        known = ~pd.isna(pd.Series(y)).to_numpy()
        if y.dtype.kind == "f" and known.any():
            if type_of_target(y[known]) == "continuous":
                raise DataError(
                    "Unknown label type: continuous. C45Classifier needs class labels, "
                    "not a continuous target"
                )
        try:
            classes, codes = _sorted_labels(y[known])
        except TypeError as exc:
            raise DataError(f"y mixes label types that cannot be sorted: {exc}") from None
        if classes.size < 2:
            found = "no labels" if classes.size == 0 else f"one class, {classes.tolist()[0]!r}"
            raise DataError(f"y has {found}; a classifier needs at least two classes to learn from")
        return classes, codes, known

    def _weights(self, sample_weight, n_rows: int) -> np.ndarray:
        if sample_weight is None:
            w = np.ones(n_rows)
        else:
            w = np.asarray(sample_weight, dtype=float)
            if w.shape != (n_rows,):
                raise DataError(f"sample_weight must have shape ({n_rows},); got {w.shape}")
            if not np.isfinite(w).all() or (w < 0).any():
                raise DataError("sample_weight must be finite and >= 0")
        return w

    def _class_weights(self, classes, codes, w) -> np.ndarray:
        cw = self.class_weight
        if cw is None:
            return w
        if isinstance(cw, str):
            counts = np.bincount(codes, minlength=classes.size)
            factors = codes.size / (classes.size * np.maximum(counts, 1))
        else:
            unknown = [k for k in cw if k not in set(classes.tolist())]
            if unknown:
                raise DataError(f"class_weight names classes not in y: {unknown!r}")
            factors = np.array([float(cw.get(c, 1.0)) for c in classes.tolist()])
            if not np.isfinite(factors).all() or (factors < 0).any():
                raise DataError("class_weight values must be finite and >= 0")
        return w * factors[codes]

    def fit(self, X, y, sample_weight=None) -> C45Classifier:
        """Grow and prune the tree.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            NaN / None marks a missing value.
        y : array-like of shape (n_samples,)
            Class labels; rows whose label is missing are dropped, as J48 does.
        sample_weight : array-like of shape (n_samples,), optional
            Instance weights (J48's instance weights); rows of weight 0 are ignored.

        Returns
        -------
        self
        """
        self._validate_params()
        encoding, Xe = fit_encoding(X, self.categorical_features)
        classes, codes, known = self._labels(y, Xe.shape[0])
        w = self._weights(sample_weight, Xe.shape[0])[known]
        w = self._class_weights(classes, codes, w)
        Xe = Xe[known]
        keep = w > 0
        if not keep.any():
            raise DataError("all sample weights are zero; there is nothing to learn from")
        Xe, codes, w = Xe[keep], codes[keep], w[keep]
        if np.count_nonzero(np.bincount(codes, minlength=classes.size)) < 2:
            raise DataError("y has a single class among rows of positive weight; need at least two")
        ts = TrainingSet(
            Xe,
            codes,
            encoding.categorical,
            encoding.n_categories,
            classes.size,
            int(self.min_leaf),
            bool(self.use_mdl_correction),
        )
        if ts.n_informative == 0:
            raise DataError(
                "every feature is constant (or missing) in the training rows, so no split "
                "can be learned; J48 would return a single leaf predicting the majority class"
            )
        cf = float(np.float32(self.confidence))
        prune_it = not self.unpruned
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, 10_000))  # pruning recurses down the tree
        try:
            exact = level_wise_ok(ts, w)
            grower = grow_level_wise if exact else grow
            root = grower(ts, w, prune_it and self.subtree_raising)
            if self.collapse_tree:
                collapse(root)
            if prune_it:
                prune(ts, root, cf, bool(self.subtree_raising), exact)
        finally:
            sys.setrecursionlimit(old_limit)
        ranges = {
            encoding.names[j]: (float(u[0]), float(u[-1]))
            for j, u in zip(ts.num_cols, ts.uniques)
            if u.size
        }
        return self._set_fitted(Tree.from_root(root), classes, encoding, ranges)

    def _set_fitted(self, tree: Tree, classes, encoding, value_ranges: dict) -> C45Classifier:
        """Set the fitted attributes (by ``fit`` and by reading a model file)."""
        self.tree_ = tree
        self.classes_ = classes
        self.n_classes_ = int(classes.size)
        self.n_features_in_ = len(encoding.names)
        if encoding.from_frame:
            self.feature_names_in_ = np.asarray(encoding.names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.value_ranges_ = value_ranges
        self.categorical_ = encoding.categorical.copy()
        self.categories_ = list(encoding.categories)
        self._encoding = encoding
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "tree_"):
            raise _NotFitted(
                f"This {type(self).__name__} instance is not fitted yet; call fit(X, y) first"
            )

    def _encode(self, X) -> np.ndarray:
        self._check_fitted()
        return self._encoding.transform(X)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, as J48 computes them (no Laplace correction).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.
        """
        Xe = self._encode(X)
        return self.tree_.predict_proba(Xe)

    def predict(self, X) -> np.ndarray:
        """Predicted class labels.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Same columns as at fit.

        Returns
        -------
        ndarray of shape (n_samples,)
            Per row, the first class of ``classes_`` whose probability is within 1e-6 of
            the largest (J48's rule).
        """
        self._check_fitted()
        return self.classes_[Tree.decide(self.predict_proba(X))]

    def apply(self, X) -> np.ndarray:
        """Index of the leaf (a node of ``tree_``) every row of ``X`` reaches.

        A missing value at a test follows the branch with the most training weight.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Node ids (preorder numbering of ``tree_``).
        """
        Xe = self._encode(X)
        return self.tree_.route(Xe)[0]

    def decision_path(self, X):
        """Sparse indicator (n_samples, n_nodes) of the nodes every row passes through.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        scipy.sparse.csr_matrix
        """
        from scipy import sparse

        Xe = self._encode(X)
        _, rows, nodes = self.tree_.route(Xe)
        data = np.ones(rows.size, dtype=np.int64)
        return sparse.csr_matrix((data, (rows, nodes)), shape=(Xe.shape[0], self.tree_.n_nodes))

    @property
    def feature_importances_(self) -> np.ndarray:
        """Information gain of each column's tests, weighted by the weight reaching them,
        normalised to sum 1 (all zeros for a single leaf)."""
        self._check_fitted()
        return self.tree_.feature_importances(self.n_features_in_)

    @property
    def feature_names_(self) -> list[str]:
        """Column names used in text output (``x0, x1, ...`` for arrays)."""
        self._check_fitted()
        return list(self._encoding.names)

    def get_n_leaves(self) -> int:
        """Number of leaves."""
        self._check_fitted()
        return self.tree_.n_leaves

    def get_depth(self) -> int:
        """Length of the longest root-to-leaf path."""
        self._check_fitted()
        return self.tree_.max_depth

    def __str__(self) -> str:
        if not hasattr(self, "tree_"):
            return repr(self)
        from .export import export_text

        return export_text(self)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags
