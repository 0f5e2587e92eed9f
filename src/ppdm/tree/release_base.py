"""The common base of ppdm's learners that learn from a release: spec, inputs, predictions.

A release learner is fitted on a *perturbed* table and predicts on *original* ones; its
inputs, with or without a spec, are described on docs/release_learners.md.

References
----------
Dowd, Xu & Zhang, Sec. 3 (the release and its matrices).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d, validate_data

from ..exceptions import DataError, ParameterError, SpecError
from ..validation import show
from .classifier import _NotFitted, check_params, is_int, is_number
from .release_builder import ReleaseTreeBuilder
from .release_coding import DomainCoder, ReleaseData, fit_coder

__all__ = ["GrowParams", "ReleaseLearner", "TreeParams"]


def _spec_like(v) -> bool:
    from ..release import ReleaseSpec

    return v is None or isinstance(v, (ReleaseSpec, str, os.PathLike))


#: name -> (test, what it must be); the parameters every release learner has.
BASE_CONSTRAINTS = {
    "spec": (_spec_like, "None, a ReleaseSpec or a release path"),
    "max_depth": (lambda v: is_int(v) and v >= 0, "an integer >= 0"),
    "min_leaf": (
        lambda v: is_number(v) and (0 < v < 1 and isinstance(v, float) or v >= 1),
        "a count >= 1 or a fraction in (0, 1)",
    ),
    "max_bins": (lambda v: is_int(v) and 2 <= v <= 4096, "an integer in [2, 4096]"),
}


@dataclass(eq=False, repr=False, kw_only=True)
class GrowParams:
    """Parameters of every release learner that grows trees top-down (declared once)."""

    max_depth: int = 12
    min_leaf: float = 0.005


@dataclass(eq=False, repr=False, kw_only=True)
class TreeParams(GrowParams):
    """The release tree's parameters, shared by :class:`ReleaseTreeClassifier` and
    :class:`ReleaseForestClassifier` (declared once; documented on the tree)."""

    alpha: float = 0.001
    confidence: float = 0.25
    prune: bool = True
    prior_strength: float = 1.0
    criterion: str = "gini"
    leaf_model: str = "auto"
    min_effective_leaf: float = 30.0

    def _fit_tree(self, data: ReleaseData, min_leaf: float, max_features=None, rng=None):
        """One release tree on ``data`` with these settings (``leaf_model`` resolved into
        ``leaf_model_``; ``max_features`` and ``rng``: the forest's)."""
        auto = "naive-bayes" if len(self.classes_) > 2 else "majority"
        self.leaf_model_ = auto if self.leaf_model == "auto" else self.leaf_model
        builder = ReleaseTreeBuilder(data, len(self.classes_), self, min_leaf, max_features, rng)
        return builder.build()


@dataclass(eq=False, repr=False, kw_only=True)
class ReleaseLearner(ClassifierMixin, BaseEstimator):
    """Base of the classifiers learnt from a release (not used directly).

    Subclasses set ``_parameter_constraints`` (name -> (test, description)) and implement
    ``_grow(data, min_leaf)``, which sets ``tree_``.
    """

    _parameter_constraints: ClassVar[dict] = BASE_CONSTRAINTS

    #: The release spec (or a release directory / spec file); None: an unperturbed table.
    spec: Any = None
    #: Most bins a numeric column of an unperturbed table (no spec) is coded into.
    max_bins: int = 255

    def _validate_params(self) -> None:
        check_params(self, self._parameter_constraints)

    def _min_leaf_count(self, n: int) -> float:
        if isinstance(self.min_leaf, float) and 0 < self.min_leaf < 1:
            return max(2.0, self.min_leaf * n)
        return float(self.min_leaf)

    def fit(self, X, y=None):
        """Learn from the perturbed table ``X`` (the release data) and the spec.

        Parameters
        ----------
        X : DataFrame, array-like of shape (n_samples, n_features), or Release
            The release's data (may include the class column), or an array whose columns
            follow the spec's order. Without a spec: an unperturbed table. A
            :class:`ppdm.Release` (from :func:`ppdm.perturb` or :func:`ppdm.load`) is
            learnt from with its own spec, as :meth:`fit_release` does.
        y : array-like of shape (n_samples,), optional
            Class labels; default: the spec's (unperturbed) class column of ``X``.

        Returns
        -------
        self
        """
        from ..pipeline import Release
        from ..release import ReleaseSpec, read_spec

        if isinstance(X, Release):
            return self.fit_release(X)
        self._validate_params()
        spec = self.spec
        if spec is not None and not isinstance(spec, ReleaseSpec):
            spec = read_spec(spec)
        data = self._unperturbed_data(X, y) if spec is None else self._release_data(X, y, spec)
        return self._grow(data, self._min_leaf_count(len(data.y)))

    def fit_release(self, release):
        """Learn from a release directory (or :class:`ppdm.pipeline.Release`)."""
        from ..pipeline import load_release

        self._validate_params()
        rel = load_release(release)
        data = self._release_data(rel.frame(), None, rel.spec)
        return self._grow(data, self._min_leaf_count(len(data.y)))

    def fit_codes(self, codes, y, domains, matrices, names=None):
        """Learn from the perturbed ``codes`` (n, d) and unperturbed ``y`` directly, with each
        attribute's domain and perturbation matrix (experiments work at the code level)."""
        self._validate_params()
        y_codes = self._labels(y, len(codes))
        names = list(names) if names is not None else [f"a{j}" for j in range(len(domains))]
        coders = [DomainCoder(d) for d in domains]
        self._set_inputs(names, coders, list(domains), None, frame=True)
        data = ReleaseData(names, coders, matrices, codes, y_codes)
        return self._grow(data, self._min_leaf_count(len(y_codes)))

    def _labels(self, y, n_rows: int) -> np.ndarray:
        if y is None:
            raise ParameterError("requires y to be passed, but the target y is None")
        y = np.asarray(y.to_numpy() if isinstance(y, (pd.Series, pd.DataFrame)) else y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)
        if y.ndim != 1:
            raise DataError(f"y must be 1-D (one label per row); got shape {y.shape}")
        if len(y) != n_rows:
            raise DataError(f"X has {n_rows} rows but y has {len(y)}")
        if n_rows == 0:
            raise DataError("cannot learn from an empty release (0 rows)")
        missing = np.asarray(pd.isna(y))
        if missing.any():
            raise DataError(
                f"the class has no value in {int(missing.sum())} of {n_rows} rows (the first "
                f"at data row {int(np.flatnonzero(missing)[0]) + 1}); leave them out to learn"
            )
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise DataError(
                f"y has one class, {show(self.classes_[0])}; "
                "a classifier needs at least two classes to learn from"
            )
        self.n_classes_ = len(self.classes_)
        return codes

    def _set_inputs(self, names, coders, domains, spec, *, frame: bool) -> None:
        self.coders_ = coders
        self.domains_ = domains
        self.spec_ = spec
        self.n_features_in_ = len(names)
        self._names = list(names)
        if frame:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def _unperturbed_data(self, X, y) -> ReleaseData:
        """An ordinary table: the identity channel on every column."""
        frame = isinstance(X, pd.DataFrame)
        Xa = validate_data(self, X, reset=True, dtype=None, ensure_all_finite=True)
        y_codes = self._labels(y, Xa.shape[0])
        names = list(X.columns.astype(str)) if frame else [f"x{j}" for j in range(Xa.shape[1])]
        coders = [fit_coder(Xa[:, j], self.max_bins) for j in range(Xa.shape[1])]
        codes = np.column_stack(
            [c.encode(Xa[:, j], n) for j, (c, n) in enumerate(zip(coders, names))]
        )
        self.coders_, self.domains_, self.spec_ = coders, None, None
        self._names = names
        return ReleaseData.unperturbed(names, coders, codes, y_codes)

    def _release_data(self, X, y, spec) -> ReleaseData:
        if spec.class_perturbed:
            raise SpecError(
                f"the class {spec.class_attribute!r} was perturbed; "
                f"{type(self).__name__} needs it unperturbed"
            )
        names = [a.name for a in spec.perturbed_attributes() if a.name != spec.class_attribute]
        if not names:
            raise SpecError("the release has no perturbed attribute to learn from")
        frame = self._as_frame(X, names, spec)
        if y is None:
            if spec.class_attribute is None or spec.class_attribute not in frame:
                raise DataError("give y, or a release whose spec names a class column present in X")
            y = frame[spec.class_attribute]
        y_codes = self._labels(y, len(frame))
        missing = [n for n in names if n not in frame.columns]
        if missing:
            raise DataError(f"X lacks the release's columns {missing}")
        domains = [spec.attribute(n).get_domain() for n in names]
        matrices = [spec.attribute(n).get_matrix() for n in names]
        coders = [DomainCoder(d) for d in domains]
        codes = np.column_stack(
            [c.encode(frame[n], n, fitting=True) for n, c in zip(names, coders)]
        )
        self._set_inputs(names, coders, domains, spec, frame=True)
        return ReleaseData(names, coders, matrices, codes, y_codes)

    @staticmethod
    def _as_frame(X, names: list[str], spec) -> pd.DataFrame:
        """``X`` as a DataFrame; an array's columns follow the spec's order."""
        if isinstance(X, pd.DataFrame):
            return X
        if hasattr(X, "toarray") or hasattr(X, "tocsr"):
            raise DataError("sparse input is not supported: pass a dense array or a DataFrame")
        arr = np.asarray(X, dtype=object)
        if arr.ndim != 2:
            raise DataError(f"X must be 2-D (rows by columns); got shape {arr.shape}")
        every = [a.name for a in spec.attributes]
        if arr.shape[1] == len(names):
            return pd.DataFrame(arr, columns=names).infer_objects()
        if arr.shape[1] == len(every):
            return pd.DataFrame(arr, columns=every).infer_objects()
        raise DataError(
            f"X has {arr.shape[1]} columns; an array needs the spec's {len(names)} learnt "
            f"attributes {names} or all its {len(every)} attributes, in the spec's order"
        )

    def _grow(self, data: ReleaseData, min_leaf: float):  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_fitted(self) -> None:
        if not (hasattr(self, "tree_") or hasattr(self, "trees_")):
            raise _NotFitted(
                f"This {type(self).__name__} instance is not fitted yet; call fit(X, y) first"
            )

    @property
    def feature_names_(self) -> list[str]:
        """Names of the attributes the tree tests (``x0, x1, ...`` for arrays)."""
        self._check_fitted()
        return list(self._names)

    def _encode(self, X) -> np.ndarray:
        """Original codes of the rows of ``X`` (original domain)."""
        self._check_fitted()
        if self.spec_ is None and self.domains_ is None:
            Xa = validate_data(self, X, reset=False, dtype=None, ensure_all_finite=True)
            cols = [
                c.encode(Xa[:, j], n) for j, (c, n) in enumerate(zip(self.coders_, self._names))
            ]
            return np.column_stack(cols).astype(np.int64)
        if not isinstance(X, pd.DataFrame):
            arr = np.asarray(X, dtype=object)
            if arr.ndim != 2:
                raise DataError(f"X must be 2-D (rows by columns); got shape {arr.shape}")
            every = [a.name for a in self.spec_.attributes] if self.spec_ is not None else []
            if arr.shape[1] == self.n_features_in_:
                X = pd.DataFrame(arr, columns=self._names).infer_objects()
            elif arr.shape[1] == len(every):
                X = pd.DataFrame(arr, columns=every).infer_objects()
            else:
                raise DataError(
                    f"X has {arr.shape[1]} features, but {type(self).__name__} is expecting "
                    f"{self.n_features_in_} features as input"
                )
        missing = [n for n in self._names if n not in X.columns]
        if missing:
            raise DataError(f"X lacks the columns the tree was fitted on: {missing}")
        cols = [c.encode(X[n], n) for n, c in zip(self._names, self.coders_)]
        return np.column_stack(cols).astype(np.int64)

    def apply(self, X) -> np.ndarray:
        """Index of the leaf every row of ``X`` (original domain) lands in."""
        codes = self._encode(X)
        return self.tree_.apply(codes)

    def decision_path(self, X):
        """Sparse indicator (n_samples, n_nodes) of the nodes every row passes through."""
        codes = self._encode(X)
        return self.tree_.decision_path(codes)

    def _proba_codes(self, codes: np.ndarray) -> np.ndarray:
        return self.tree_.proba(codes)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities of the rows of ``X`` (original domain).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.
        """
        return self._proba_codes(self._encode(X))

    def predict(self, X) -> np.ndarray:
        """Predicted classes of the rows of ``X`` (original domain)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def predict_codes(self, codes) -> np.ndarray:
        """Predicted classes for rows already encoded into original codes."""
        self._check_fitted()
        proba = self._proba_codes(np.asarray(codes, dtype=np.int64))
        return self.classes_[np.argmax(proba, axis=1)]

    @property
    def n_leaves_(self) -> int:
        self._check_fitted()
        return self.tree_.n_leaves

    def get_n_leaves(self) -> int:
        """Number of leaves."""
        return self.n_leaves_

    def get_depth(self) -> int:
        """Length of the longest root-to-leaf path."""
        self._check_fitted()
        return self.tree_.max_depth

    @property
    def feature_importances_(self) -> np.ndarray:
        """Gini decrease (on estimated counts) per attribute, normalised to sum 1."""
        self._check_fitted()
        return self.tree_.feature_importances(self.n_features_in_)
