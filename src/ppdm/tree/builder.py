"""Growing a C4.5 tree node by node.

References
----------
Quinlan, J. R. (1993). C4.5: Programs for Machine Learning, ch. 2-3.
Weka J48 (``ClassifierTree.buildTree``), Weka 3.6.
"""

from __future__ import annotations

import numpy as np

from ._compare import eq
from .splitter import Split, TrainingSet, find_split, partition

__all__ = ["Node", "grow"]


class Node:
    """A mutable tree node used while growing and pruning.

    ``dist``: weighted class counts; ``empty``: a leaf no training weight reached (J48's
    ``m_isEmpty``); ``idx, w``: its rows, kept for subtree raising; ``errors``: the
    subtree's training errors, or its estimated errors once pruned.
    """

    __slots__ = ("split", "children", "dist", "empty", "idx", "w", "errors")

    def __init__(self, idx, w, dist):
        self.split: Split | None = None
        self.children: list[Node] = []
        self.dist = dist
        self.empty = False
        self.idx = idx
        self.w = w
        self.errors = 0.0

    @property
    def is_leaf(self) -> bool:
        return self.split is None

    def make_leaf(self) -> None:
        self.split = None
        self.children = []


def class_counts(ts: TrainingSet, idx: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted class counts of rows ``idx``."""
    return np.bincount(ts.y[idx], weights=w, minlength=ts.n_classes)


def grow(ts: TrainingSet, w: np.ndarray, keep_data: bool) -> Node:
    """Grow the unpruned tree on all rows of ``ts`` with weights ``w``; return its root.
    ``keep_data`` keeps each node's rows (subtree raising needs them)."""
    idx = np.arange(ts.X.shape[0])
    root = Node(idx, w, class_counts(ts, idx, w))
    stack = [root]
    while stack:
        node = stack.pop()
        split = find_split(ts, node.idx, node.w)
        if split is None:
            node.empty = bool(eq(node.w.sum(), 0.0))
        else:
            node.split = split
            parts = partition(ts.X, split, node.idx, node.w)
            node.children = [Node(i, cw, class_counts(ts, i, cw)) for i, cw in parts]
            stack.extend(reversed(node.children))
        if not keep_data:
            node.idx = node.w = None
    return root
