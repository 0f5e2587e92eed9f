"""C4.5's pessimistic pruning: error estimates with a confidence factor, collapsing,
and subtree raising, in the order and with the tolerances of Weka's J48.

References
----------
Quinlan, J. R. (1993). C4.5: Programs for Machine Learning, ch. 4.
Weka J48 (``C45PruneableClassifierTree``, ``Stats.addErrs``), Weka 3.6.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtri

from ._compare import SMALL, eq, sm_or_eq
from .builder import Node, class_counts
from .splitter import TrainingSet, _max_class, partition

__all__ = ["added_errors", "collapse", "prune"]


def added_errors(n: float, errors: float, confidence: float) -> float:
    """Extra errors added to ``errors`` observed among ``n`` for a pessimistic estimate.

    The upper limit of the binomial confidence interval at level ``confidence`` (C4.5's
    CF), normal approximation with continuity correction, with C4.5's special cases for
    ``errors < 1`` and ``errors`` near ``n``.

    References
    ----------
    Quinlan (1993), C4.5, sec. 4.2; Weka J48 ``Stats.addErrs``.
    """
    if confidence > 0.5:
        return 0.0
    if errors < 1:
        base = n * (1 - math.pow(confidence, 1 / n))
        if errors == 0:
            return base
        return base + errors * (added_errors(n, 1, confidence) - base)
    if errors + 0.5 >= n:
        return max(n - errors, 0.0)
    z = float(ndtri(1 - confidence))
    f = (errors + 0.5) / n
    r = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (
        1 + z * z / n
    )
    return r * n - errors


def _incorrect(dist) -> float:
    counts = dist.tolist()
    return sum(counts) - counts[_max_class(counts)]


def _estimated(dist, confidence) -> float:
    total = sum(dist.tolist())
    if abs(total) < 1e-6:
        return 0.0
    e = _incorrect(dist)
    return e + added_errors(total, e, confidence)


def _fill_training_errors(node: Node) -> float:
    """Cache every subtree's training errors in ``errors``, bottom-up; return the root's."""
    if node.is_leaf:
        node.errors = _incorrect(node.dist)
    else:
        node.errors = sum(_fill_training_errors(c) for c in node.children)
    return node.errors


def _branch_estimated(ts, node: Node, idx, w, confidence) -> float:
    """Estimated errors of ``node``'s subtree on other rows (``getEstimatedErrorsForBranch``)."""
    if node.is_leaf:
        return _estimated(class_counts(ts, idx, w), confidence)
    return sum(
        _branch_estimated(ts, child, ci, cw, confidence)
        for child, (ci, cw) in zip(node.children, partition(ts.X, node.split, idx, w))
    )


class _Forest:
    """The tree being pruned as flat arrays, for routing many rows at once.

    Siblings get consecutive indices; ``feat`` is the split attribute (-1 for a leaf),
    ``kid`` the index of the first child.
    """

    def __init__(self, root: Node) -> None:
        self.nodes = [root]
        self.index = {id(root): 0}
        feat, thr, kid = [], [], []
        j = 0
        while j < len(self.nodes):  # breadth first: siblings get consecutive indices
            nd = self.nodes[j]
            if nd.is_leaf:
                feat.append(-1)
                thr.append(0.0)
                kid.append(-1)
            else:
                feat.append(nd.split.feature)
                thr.append(nd.split.threshold)
                kid.append(len(self.nodes))
                for c in nd.children:
                    self.index[id(c)] = len(self.nodes)
                    self.nodes.append(c)
            j += 1
        self.feat = np.array(feat, dtype=np.int64)
        self.thr = np.array(thr)
        self.kid = np.array(kid, dtype=np.int64)

    def make_leaf(self, node: Node) -> None:
        self.feat[self.index[id(node)]] = -1

    def raise_branch(self, node: Node, branch: Node) -> None:
        """``node`` now holds ``branch``'s split and children."""
        i, b = self.index[id(node)], self.index[id(branch)]
        self.feat[i], self.thr[i], self.kid[i] = self.feat[b], self.thr[b], self.kid[b]


def _largest_estimated_exact(
    ts: TrainingSet, forest: _Forest, nodes: list[Node], largest: list[int], confidence: float
) -> list[float]:
    """:func:`_branch_estimated` of each node's largest branch on all its rows, vectorised.

    With exact counts a leaf's counts are its ``dist`` plus those of the other branch's
    rows routed to it, so only those rows are routed; subtrees they do not reach keep
    their cached estimated errors (the same sums in the same order).
    """
    # the other branch's rows are that child's rows (binary splits, no missing values)
    others = [nd.children[1 - lg] for nd, lg in zip(nodes, largest)]
    starts = [forest.index[id(nd.children[lg])] for nd, lg in zip(nodes, largest)]
    rows = np.concatenate([o.idx for o in others])
    wts = np.concatenate([o.w for o in others])
    slot = np.repeat(np.array(starts, dtype=np.int64), [o.idx.size for o in others])
    final = np.empty(rows.size, dtype=np.int64)
    pos = np.arange(rows.size)
    cur = rows
    passed = []  # internal nodes the rows went through
    feat, thr, kid = forest.feat, forest.thr, forest.kid
    while pos.size:
        fs = feat[slot]
        leaf = fs < 0
        final[pos[leaf]] = slot[leaf]
        go = ~leaf
        pos, cur, fs, slot = pos[go], cur[go], fs[go], slot[go]
        passed.append(slot)
        xv = ts.X[cur, fs]
        tv = thr[slot]
        slot = kid[slot] + ~((xv - tv < SMALL) | (xv <= tv))
    N = len(forest.nodes)
    K = ts.n_classes
    extra = np.bincount(final * K + ts.y[rows], weights=wts, minlength=N * K).reshape(N, K)
    reached = np.bincount(np.concatenate([final, *passed]), minlength=N) > 0
    reached, kids, tree_nodes = reached.tolist(), kid.tolist(), forest.nodes

    def value(j: int) -> float:
        if not reached[j]:
            return tree_nodes[j].errors
        k = kids[j] if feat[j] >= 0 else -1
        if k < 0:
            return _estimated(tree_nodes[j].dist + extra[j], confidence)
        return value(k) + value(k + 1)

    return [value(j) for j in starts]


def _redistribute(ts, node: Node, idx, w) -> None:
    """Send rows ``idx`` down ``node``'s subtree anew (``newDistribution``)."""
    node.idx, node.w = idx, w
    node.dist = class_counts(ts, idx, w)
    if node.is_leaf:
        if not eq(w.sum(), 0.0):
            node.empty = False
        return
    for child, (ci, cw) in zip(node.children, partition(ts.X, node.split, idx, w)):
        _redistribute(ts, child, ci, cw)


def collapse(node: Node) -> None:
    """Replace subtrees that do not lower the training error by leaves (J48 ``collapse``).

    References
    ----------
    Weka J48 ``C45PruneableClassifierTree.collapse``.
    """
    _fill_training_errors(node)
    stack = [node]
    while stack:
        nd = stack.pop()
        if nd.errors >= _incorrect(nd.dist) - 1e-3:
            nd.make_leaf()
        else:
            stack.extend(nd.children)


def _largest_branch(node: Node) -> int:
    """Last branch with the most weight (``Distribution.maxBag``, ties within 1e-6)."""
    best, top = -1, 0.0
    for k, child in enumerate(node.children):
        v = float(child.dist.sum())
        if (top - v < 1e-6) or v >= top:
            best, top = k, v
    return best


def prune(
    ts: TrainingSet,
    node: Node,
    confidence: float,
    subtree_raising: bool,
    exact_counts: bool = False,
) -> None:
    """Pessimistic pruning with optional subtree raising, bottom-up (J48 ``prune``, rules on
    docs/tree.md, Pruning); each pruned subtree caches its estimated errors in ``errors``.

    Nodes are pruned a height at a time (disjoint subtrees, so the result is J48's);
    ``exact_counts`` (:func:`ppdm.tree.level.level_wise_ok`): one vectorised routing
    finds the largest branches' errors of a whole height.

    References
    ----------
    Quinlan (1993), C4.5, sec. 4.2; Weka J48 ``C45PruneableClassifierTree.prune``.
    """
    forest = _Forest(node) if exact_counts and subtree_raising else None
    _prune_by_height(ts, forest, [node], confidence, subtree_raising)


def _decide(node: Node, largest: int, err_largest: float, confidence: float) -> bool:
    """Leaf, raise or keep ``node`` whose children are pruned (the end of J48's ``prune``);
    True when the largest branch replaced the subtree, which the caller prunes again."""
    err_leaf = _estimated(node.dist, confidence)
    err_tree = sum(c.errors for c in node.children)
    if sm_or_eq(err_leaf, err_tree + 0.1) and sm_or_eq(err_leaf, err_largest + 0.1):
        node.make_leaf()
        node.errors = err_leaf
        return False
    if sm_or_eq(err_largest, err_tree + 0.1):
        branch = node.children[largest]
        node.split, node.children = branch.split, branch.children
        return True
    node.errors = err_tree
    return False


def _prune_by_height(
    ts: TrainingSet,
    forest: _Forest | None,
    roots: list[Node],
    confidence: float,
    subtree_raising: bool,
) -> None:
    """J48's recursive ``prune`` of disjoint subtrees, all nodes of a height at once
    (``forest``: the flat tree for the vectorised largest-branch errors, exact counts only)."""
    nodes: list[Node] = []
    stack = list(roots)
    while stack:
        nd = stack.pop()
        nodes.append(nd)
        stack.extend(nd.children)
    height: dict[int, int] = {}
    by_height: list[list[Node]] = []
    for nd in reversed(nodes):  # children before parents
        if nd.is_leaf:
            nd.errors = _estimated(nd.dist, confidence)
            height[id(nd)] = 0
            continue
        h = 1 + max(height[id(c)] for c in nd.children)
        height[id(nd)] = h
        if len(by_height) < h:
            by_height.extend([] for _ in range(h - len(by_height)))
        by_height[h - 1].append(nd)
    for batch in by_height:
        largest = [_largest_branch(nd) for nd in batch]
        if not subtree_raising:
            errs = [np.inf] * len(batch)
        elif forest is not None:
            errs = _largest_estimated_exact(ts, forest, batch, largest, confidence)
        else:
            errs = [
                _branch_estimated(ts, nd.children[lg], nd.idx, nd.w, confidence)
                for nd, lg in zip(batch, largest)
            ]
        raised = []
        for nd, lg, err in zip(batch, largest, errs):
            branch = nd.children[lg]
            if _decide(nd, lg, err, confidence):
                raised.append(nd)
                if forest is not None:
                    forest.raise_branch(nd, branch)
            elif nd.is_leaf and forest is not None:
                forest.make_leaf(nd)
        for nd in raised:
            _redistribute(ts, nd, nd.idx, nd.w)
        if raised:
            _prune_by_height(ts, forest, raised, confidence, True)
