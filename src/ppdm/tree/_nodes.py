"""Size, leaves, depth and column importances of a tree stored as node arrays, shared by
:class:`ppdm.tree.storage.Tree` and :class:`ppdm.tree.release_storage.CodeTree`."""

from __future__ import annotations

import numpy as np

__all__ = ["NodeArrays"]


class NodeArrays:
    """Mixin for a class holding ``feature`` (-1 at a leaf, nodes in preorder) and defining
    ``child_ids(node)`` and ``_impurity()``."""

    feature: np.ndarray

    def child_ids(self, node: int) -> np.ndarray:  # pragma: no cover - defined by users
        raise NotImplementedError

    def _impurity(self) -> np.ndarray:  # pragma: no cover - defined by users
        raise NotImplementedError

    def feature_importances(self, n_features: int) -> np.ndarray:
        """Decrease of ``_impurity`` (a node's less its children's) per column, normalised
        to sum 1."""
        node = self._impurity()
        imp = np.zeros(n_features)
        for i in np.flatnonzero(self.feature >= 0):
            drop = node[i]
            for k in self.child_ids(i):
                drop -= node[k]
            imp[self.feature[i]] += max(drop, 0.0)
        total = imp.sum()
        return imp / total if total > 0 else imp

    @property
    def n_nodes(self) -> int:
        return int(self.feature.size)

    @property
    def n_leaves(self) -> int:
        return int((self.feature < 0).sum())

    @property
    def max_depth(self) -> int:
        """Tests on the longest root-to-leaf path (0 for a single leaf)."""
        depth = np.zeros(self.n_nodes, dtype=np.int64)
        for i in range(self.n_nodes):  # preorder: a parent's depth is known first
            if self.feature[i] >= 0:
                depth[self.child_ids(i)] = depth[i] + 1
        return int(depth.max())
