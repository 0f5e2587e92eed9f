"""Agrawal & Srikant's *Local* baseline: reconstruct at every node, then split.

At each node the records that reached it are reconstructed again (Algorithm 2, by
class) from their perturbed codes, using the distribution estimated from those records
only and restricted to the node's box; the best split is then chosen on the
reconstructed codes with C4.5's gain ratio, and the records are routed by their
reconstructed values. The *ByClass* baseline (reconstruct once per class at the root,
then learn) is ``ppdm.pipeline.reconstruct_frame(..., by_class=True)`` followed by
:class:`~ppdm.tree.C45Classifier`.

References
----------
Agrawal & Srikant (2000), Sec. 5 (Global, ByClass, Local); Dowd, Xu & Zhang, Alg. 2.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

from ..estimate import point_estimate
from ..exceptions import DataError, NotFittedError
from ..random import check_random_state
from ..reconstruct import largest_remainder, matrix_reconstruct
from .criterion import gain_ratio, info_gain
from .release_tree import ReleaseTreeClassifier, _Data

__all__ = ["LocalReconstructionClassifier"]


class LocalReconstructionClassifier(ClassifierMixin, BaseEstimator):
    """Decision tree with per-node reconstruction (Agrawal & Srikant's Local).

    Parameters
    ----------
    spec : ReleaseSpec or path
    max_depth : int, default=12
    min_leaf : int or float, default=0.005
        Least records per leaf (a float in (0, 1) is a fraction of n).
    method : str, default="set-scale"
        Estimation method behind every reconstruction.
    random_state : int, Generator or None, default=0

    References
    ----------
    Agrawal & Srikant (2000), Sec. 5.
    """

    def __init__(
        self,
        *,
        spec=None,
        max_depth: int = 12,
        min_leaf: float = 0.005,
        method: str = "set-scale",
        random_state=0,
    ) -> None:
        self.spec = spec
        self.max_depth = max_depth
        self.min_leaf = min_leaf
        self.method = method
        self.random_state = random_state

    def fit(self, X: pd.DataFrame, y=None) -> LocalReconstructionClassifier:
        """Learn from the perturbed table ``X`` (the release data) and its spec."""
        helper = ReleaseTreeClassifier(spec=self.spec, min_leaf=self.min_leaf)
        spec = helper._resolve_spec()
        if y is None:
            if spec.class_attribute is None or spec.class_attribute not in X:
                raise DataError("give y, or a release whose spec names a class column present in X")
            y = X[spec.class_attribute]
        self.classes_, y_codes = np.unique(np.asarray(y), return_inverse=True)
        if len(self.classes_) < 2:
            raise DataError(f"the class has a single value {self.classes_[0]!r}: nothing to learn")
        return self._grow(_Data.from_release(spec, X, y_codes), helper._check_params(len(X)))

    def fit_codes(self, codes, y, domains, matrices, names=None) -> LocalReconstructionClassifier:
        """Learn from perturbed codes directly (see :meth:`ReleaseTreeClassifier.fit_codes`)."""
        self.classes_, y_codes = np.unique(np.asarray(y), return_inverse=True)
        if len(self.classes_) < 2:
            raise DataError(f"the class has a single value {self.classes_[0]!r}: nothing to learn")
        names = list(names) if names is not None else [f"a{j}" for j in range(len(domains))]
        data = _Data(names, domains, matrices, codes, y_codes)
        helper = ReleaseTreeClassifier(min_leaf=self.min_leaf)
        return self._grow(data, helper._check_params(len(y_codes)))

    def _grow(self, data: _Data, min_leaf: float) -> LocalReconstructionClassifier:
        y_codes = data.y
        self.feature_names_in_ = data.names
        self.domains_ = data.domains
        rng = check_random_state(self.random_state)
        nodes: list[dict] = []
        box = [np.ones(n, bool) for n in data.n_values]
        stack = [(np.arange(len(y_codes)), box, 0, -1, None)]
        while stack:
            idx, box, depth, parent, side = stack.pop()
            me = len(nodes)
            counts = np.bincount(y_codes[idx], minlength=len(self.classes_)).astype(float)
            nodes.append({"feature": -1, "mask": None, "left": -1, "right": -1, "value": counts})
            if parent >= 0:
                nodes[parent][side] = me
            if depth >= self.max_depth or len(idx) < 2 * min_leaf or np.count_nonzero(counts) < 2:
                continue
            split = self._split(data, idx, box, rng, min_leaf)
            if split is None:
                continue
            j, left_codes, recon = split
            go_left = left_codes[recon]
            nodes[me]["feature"], nodes[me]["mask"] = j, left_codes
            for name, part, mask in (
                ("right", ~go_left, ~left_codes),
                ("left", go_left, left_codes),
            ):
                child_box = list(box)
                child_box[j] = box[j] & mask
                stack.append((idx[part], child_box, depth + 1, me, name))
        self.tree_ = _to_arrays(nodes, max(data.n_values), len(self.classes_))
        return self

    def _split(self, data: _Data, idx, box, rng, min_leaf):
        C = len(self.classes_)
        y = data.y[idx]
        best = None
        for j, m in enumerate(data.matrices):
            allowed = box[j]
            if allowed.sum() < 2:
                continue
            n_j = data.n_values[j]
            p = data.codes[idx, j]
            ys = np.bincount(y * n_j + p, minlength=C * n_j).reshape(C, n_j)
            est = point_estimate(ys.T.astype(float), m, self.method).T * allowed
            dist = np.stack([largest_remainder(e, int(h.sum())) for e, h in zip(est, ys)])
            recon = matrix_reconstruct(p, dist, rng, classes=y)
            hist = np.stack([np.bincount(recon[y == c], minlength=n_j) for c in range(C)], axis=1)
            codes_in = np.flatnonzero(allowed)
            cum = np.cumsum(hist[codes_in], axis=0)[:-1]  # (k-1, C) left counts
            bags = np.stack([cum, hist[codes_in].sum(axis=0) - cum], axis=1).astype(float)
            sizes = bags.sum(axis=2)
            ok = (sizes >= min_leaf).all(axis=1)
            if not ok.any():
                continue
            gains = np.where(ok, np.asarray(info_gain(bags)), -np.inf)
            t = int(np.argmax(gains))
            if gains[t] <= 0:
                continue
            ratio = float(gain_ratio(bags[t]))
            if best is None or ratio > best[0]:
                left = np.zeros(n_j, bool)
                left[codes_in[: t + 1]] = True
                best = (ratio, j, left, recon)
        return None if best is None else best[1:]

    def predict_proba(self, X) -> np.ndarray:
        """Class frequencies of the leaves reached by ``X`` (original domain)."""
        if not hasattr(self, "tree_"):
            raise NotFittedError(
                "this LocalReconstructionClassifier is not fitted yet; call fit first"
            )
        leaves = ReleaseTreeClassifier.apply(self, X)
        return self.tree_["value"][leaves]

    def predict(self, X) -> np.ndarray:
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    _codes = ReleaseTreeClassifier._codes
    _apply_codes = ReleaseTreeClassifier._apply_codes

    def predict_codes(self, codes) -> np.ndarray:
        """Predicted classes for rows already encoded into original codes."""
        if not hasattr(self, "tree_"):
            raise NotFittedError(
                "this LocalReconstructionClassifier is not fitted yet; call fit first"
            )
        leaves = self._apply_codes(np.asarray(codes, dtype=np.int64))
        return self.classes_[np.argmax(self.tree_["value"][leaves], axis=1)]


def _to_arrays(nodes: list[dict], max_n: int, n_classes: int) -> dict:
    m = len(nodes)
    out = {
        "feature": np.array([n["feature"] for n in nodes], dtype=np.int64),
        "left": np.array([n["left"] for n in nodes], dtype=np.int64),
        "right": np.array([n["right"] for n in nodes], dtype=np.int64),
        "mask": np.zeros((m, max_n), dtype=bool),
        "value": np.zeros((m, n_classes)),
    }
    for i, n in enumerate(nodes):
        total = n["value"].sum()
        out["value"][i] = n["value"] / total if total > 0 else 1.0 / n_classes
        if n["mask"] is not None:
            out["mask"][i, : len(n["mask"])] = n["mask"]
    return out
