"""Array storage of a tree over original codes (release tree, local-reconstruction tree).

Every inner node tests one attribute by a set of codes (``mask``: the codes that go left),
so every node is a box ``I_1 x ... x I_d`` of original codes. Nodes are numbered in
preorder (a parent before its children).

References
----------
Breiman, Friedman, Olshen & Stone (1984), ch. 2 (binary trees, value-subset splits).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from ._nodes import NodeArrays

__all__ = ["CodeTree"]


@dataclass
class CodeTree(NodeArrays):
    """A fitted binary tree over original codes, as flat arrays.

    Attributes
    ----------
    feature : int array (n_nodes,)
        Tested attribute, -1 at leaves.
    left, right : int array (n_nodes,)
        Children (-1 at leaves).
    mask : bool array (n_nodes, max N)
        Codes sent left by the node's test.
    value : float array (n_nodes, n_classes)
        Class distribution of the node.
    count : float array (n_nodes,)
        Estimated number of records in the node's box.
    n_eff : float array (n_nodes,)
        Kish effective sample size of the node's estimate.
    nb_logp : float array (n_leaves, d, n_classes, max N) or None
        Naive Bayes leaves: ``log P(code | class, leaf)``.
    nb_slot : int array (n_nodes,) or None
        Row of ``nb_logp`` of every leaf.
    """

    feature: np.ndarray
    left: np.ndarray
    right: np.ndarray
    mask: np.ndarray
    value: np.ndarray
    count: np.ndarray
    n_eff: np.ndarray
    nb_logp: np.ndarray | None = field(default=None, repr=False)
    nb_slot: np.ndarray | None = field(default=None, repr=False)

    def child_ids(self, node: int) -> np.ndarray:
        return np.array([self.left[node], self.right[node]])

    def apply(self, codes: np.ndarray) -> np.ndarray:
        """Leaf reached by every row of original ``codes`` (n, d)."""
        node = np.zeros(len(codes), dtype=np.int64)
        rows = np.arange(len(codes))
        while True:
            feat = self.feature[node]
            inner = feat >= 0
            if not inner.any():
                return node
            code = codes[rows, np.where(inner, feat, 0)]
            go_left = self.mask[node, code]
            nxt = np.where(go_left, self.left[node], self.right[node])
            node = np.where(inner, nxt, node)

    def decision_path(self, codes: np.ndarray) -> sparse.csr_matrix:
        """Indicator (n, n_nodes) of the nodes every row passes through."""
        n = len(codes)
        rows, cols = [np.arange(n)], [np.zeros(n, dtype=np.int64)]
        node = np.zeros(n, dtype=np.int64)
        live = np.arange(n)
        while live.size:
            feat = self.feature[node]
            inner = feat >= 0
            live, node, feat = live[inner], node[inner], feat[inner]
            if not live.size:
                break
            go_left = self.mask[node, codes[live, feat]]
            node = np.where(go_left, self.left[node], self.right[node])
            rows.append(live)
            cols.append(node)
        r, c = np.concatenate(rows), np.concatenate(cols)
        return sparse.csr_matrix((np.ones(r.size, dtype=np.int64), (r, c)), shape=(n, self.n_nodes))

    def proba(self, codes: np.ndarray) -> np.ndarray:
        """Class probabilities: the leaf's distribution, times its naive Bayes likelihoods."""
        leaves = self.apply(codes)
        value = self.value[leaves]
        if self.nb_logp is None:
            return value
        slot = self.nb_slot[leaves]
        d = codes.shape[1]
        # log P(x_j | c, leaf), gathered per record: (n, d, C)
        logp = self.nb_logp[slot[:, None], np.arange(d)[None, :], :, codes]
        score = np.log(np.maximum(value, 1e-12)) + logp.sum(axis=1)
        score -= score.max(axis=1, keepdims=True)
        p = np.exp(score)
        return p / p.sum(axis=1, keepdims=True)

    def leaf_boxes(self, n_values: list[int]) -> Iterator[tuple[int, list[np.ndarray | None]]]:
        """Every leaf with its box: per attribute the allowed codes (None = unconstrained)."""
        stack: list[tuple[int, list]] = [(0, [None] * len(n_values))]
        while stack:
            node, box = stack.pop()
            j = int(self.feature[node])
            if j < 0:
                yield node, box
                continue
            allowed = np.ones(n_values[j], bool) if box[j] is None else box[j]
            go = self.mask[node, : n_values[j]]
            for child, side in ((self.right[node], ~go), (self.left[node], go)):
                kid = list(box)
                kid[j] = allowed & side
                stack.append((int(child), kid))

    def _impurity(self) -> np.ndarray:
        """Gini impurity times the estimated count per node."""
        return self.count * (1.0 - np.sum(self.value**2, axis=1))
