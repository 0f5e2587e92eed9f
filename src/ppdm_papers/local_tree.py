"""Agrawal & Srikant's *Local* baseline: reconstruct at every node, then split.

A baseline of the experiments beside the release tree (``beyond``): measured, never
chosen, so it is not a learner of ``ppdm mine``.

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

from dataclasses import dataclass
from typing import Any

import numpy as np

from ppdm.estimate import point_estimate
from ppdm.random import check_random_state
from ppdm.reconstruct import largest_remainder, matrix_reconstruct
from ppdm.tree.criterion import gain_ratio, info_gain
from ppdm.tree.release_base import BASE_CONSTRAINTS, GrowParams, ReleaseLearner
from ppdm.tree.release_coding import ReleaseData
from ppdm.tree.release_storage import CodeTree

__all__ = ["LocalReconstructionClassifier"]

_PARAMETER_CONSTRAINTS = {
    **BASE_CONSTRAINTS,
    "method": (lambda v: isinstance(v, str), "the name of an estimation method"),
}


@dataclass(eq=False, repr=False, kw_only=True)
class LocalReconstructionClassifier(GrowParams, ReleaseLearner):
    """Decision tree with per-node reconstruction (Agrawal & Srikant's Local).

    Parameters
    ----------
    spec : ReleaseSpec, path or None, default=None
        The release spec; None: the input is an unperturbed table (identity channel).
    max_depth : int, default=12
    min_leaf : int or float, default=0.005
        Least records per leaf (a float in (0, 1) is a fraction of n).
    method : str, default="set-scale"
        Estimation method behind every reconstruction.
    random_state : int, Generator or None, default=0
    max_bins : int, default=255
        Without a spec: most codes of a numeric column.

    Attributes
    ----------
    classes_ : ndarray
    tree_ : CodeTree
        ``value`` holds the class frequencies of the reconstructed records.

    References
    ----------
    Agrawal & Srikant (2000), Sec. 5.
    """

    _parameter_constraints = _PARAMETER_CONSTRAINTS

    method: str = "set-scale"
    random_state: Any = 0

    def _grow(self, data: ReleaseData, min_leaf: float) -> LocalReconstructionClassifier:
        y_codes = data.y
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
        self.matrices_ = data.matrices
        return self

    def _split(self, data: ReleaseData, idx, box, rng, min_leaf):
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


def _to_arrays(nodes: list[dict], max_n: int, n_classes: int) -> CodeTree:
    m = len(nodes)
    counts = np.array([n["value"] for n in nodes], dtype=float).reshape(m, n_classes)
    tree = CodeTree(
        feature=np.array([n["feature"] for n in nodes], dtype=np.int64),
        left=np.array([n["left"] for n in nodes], dtype=np.int64),
        right=np.array([n["right"] for n in nodes], dtype=np.int64),
        mask=np.zeros((m, max_n), dtype=bool),
        value=np.zeros((m, n_classes)),
        count=counts.sum(axis=1),
        n_eff=counts.sum(axis=1),
    )
    for i, n in enumerate(nodes):
        total = counts[i].sum()
        tree.value[i] = counts[i] / total if total > 0 else 1.0 / n_classes
        if n["mask"] is not None:
            tree.mask[i, : len(n["mask"])] = n["mask"]
    return tree
