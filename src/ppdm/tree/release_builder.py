"""Growing and pruning the release tree on unbiased box counts.

Records are never routed down the tree: every node weighs all of them by the product of
its constrained attributes' factors ``v_{I_j}(p_rj)`` (:mod:`ppdm.boxcounts`), so a node
costs O(n d). See :class:`~ppdm.tree.ReleaseTreeClassifier` for the variance controls.

References
----------
Dowd, Xu & Zhang, Eq. (1) and Sec. 4.3; Ma & Sivakumar, Sec. 4; Quinlan (1993), C4.5,
ch. 2 and 4 (gain ratio, pessimistic pruning).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from .pruning import added_errors
from .release_coding import ReleaseData
from .release_nb import naive_bayes_leaves
from .release_split import SplitRules, best_split, search_attribute
from .release_storage import CodeTree

__all__ = ["ReleaseTreeBuilder"]


@dataclass
class _Node:
    """A node while growing: its box (masks), per-record factors and estimated counts."""

    masks: dict[int, np.ndarray]
    factors: dict[int, np.ndarray]
    weights: np.ndarray = field(repr=False)
    counts: np.ndarray
    total: float
    n_eff: float
    dist: np.ndarray
    depth: int
    feature: int = -1
    left: int = -1
    right: int = -1
    go_left: np.ndarray | None = None

    def make_leaf(self) -> None:
        self.feature, self.left, self.right, self.go_left = -1, -1, -1, None


class ReleaseTreeBuilder:
    """Grows, prunes and freezes one release tree with the settings of ``params`` (a fitted
    estimator's :class:`~ppdm.tree.release_base.TreeParams` and ``leaf_model_``), searching
    ``max_features`` attributes drawn afresh with ``rng`` at every split (None: all)."""

    def __init__(
        self,
        data: ReleaseData,
        n_classes: int,
        params,
        min_leaf: float,
        max_features=None,
        rng=None,
    ):
        self.d = data
        self.C = n_classes
        self.max_depth = int(params.max_depth)
        self.min_leaf = min_leaf
        self.confidence = float(params.confidence)
        self.prune = bool(params.prune)
        self.prior_strength = float(params.prior_strength)
        self.naive_bayes = params.leaf_model_ == "naive-bayes"
        self.max_features, self.rng = max_features, rng
        self.max_n = max(data.n_values)
        self.nodes: list[_Node] = []
        # a naive Bayes leaf estimates C x N probabilities per attribute: ask for
        # min_effective_leaf effective records per class and per 10 codes
        scale = n_classes * float(np.mean(data.n_values)) / 10.0 if self.naive_bayes else 1.0
        alpha = float(params.alpha)
        self.rules = SplitRules(
            min_leaf=min_leaf,
            z=float(stats.norm.ppf(1 - alpha)),
            g_crit=float(stats.chi2.ppf(1 - alpha, df=n_classes - 1)),
            min_neff=float(params.min_effective_leaf) * max(scale, 1.0),
            criterion=params.criterion,
        )

    def build(self) -> CodeTree:
        n = len(self.d.y)
        stack = [self._node({}, {}, np.ones(n), None, 0)]
        while stack:
            idx = stack.pop()
            node = self.nodes[idx]
            split = self._best_split(node) if node.depth < self.max_depth else None
            if split is None:
                continue
            j = split.feature
            left_mask, right_mask = split.masks(self.d.n_values[j])
            f_left, f_right = split.factors(self.d.codes[:, j])
            kids = []
            for mask, f in ((left_mask, f_left), (right_mask, f_right)):
                masks = {**node.masks, j: mask}
                factors = {**node.factors, j: f}
                kids.append(self._node(masks, factors, split.others * f, node.dist, node.depth + 1))
            node.feature, node.left, node.right, node.go_left = j, kids[0], kids[1], left_mask
            stack.extend(kids)
        if self.prune:
            self._prune(0)
        order = self._preorder()
        tree = self._freeze(order)
        if self.naive_bayes:
            nodes = [(new, self.nodes[old]) for new, old in enumerate(order)]
            leaves = [(new, nd.masks, nd.factors) for new, nd in nodes if nd.feature < 0]
            tree.nb_logp, tree.nb_slot = naive_bayes_leaves(self.d, self.C, leaves, tree.n_nodes)
        return tree

    def _node(self, masks, factors, w, parent_dist, depth) -> int:
        counts = np.bincount(self.d.y, weights=w, minlength=self.C)
        clipped = np.clip(counts, 0, None)
        total = float(clipped.sum())
        sq = float(np.dot(w, w))
        n_eff = float(w.sum() ** 2 / sq) if sq > 0 else 0.0
        if parent_dist is None:
            dist = clipped / total if total > 0 else np.full(self.C, 1.0 / self.C)
        else:
            s = self.prior_strength
            dist = (clipped + s * parent_dist) / (total + s) if total + s > 0 else parent_dist
        self.nodes.append(_Node(masks, factors, w, clipped, total, n_eff, dist, depth))
        return len(self.nodes) - 1

    def _best_split(self, node: _Node):
        if node.total < 2 * self.min_leaf or np.count_nonzero(node.counts) < 2:
            return None
        if node.counts.max() >= node.total * (1 - 1e-9):
            return None
        d = len(self.d.names)
        k = self.max_features
        if k is None or k >= d:
            batches = [list(range(d))]
        else:
            # a random subset of k attributes; as in Breiman's forests, when none of them
            # has an admissible split the search goes on through the others, k at a time
            rng = self.rng if self.rng is not None else np.random.default_rng(0)
            perm = rng.permutation(d)
            batches = [sorted(int(j) for j in perm[i : i + k]) for i in range(0, d, k)]
        cands = []
        for batch in batches:
            for j in batch:
                c = search_attribute(
                    self.d,
                    self.C,
                    j,
                    node.masks.get(j),
                    self.d.others(node.factors, j),
                    node.counts,
                    node.n_eff,
                    self.rules,
                )
                if c is not None:
                    cands.append(c)
            if cands:
                break
        return best_split(cands)

    def _leaf_error(self, node: _Node) -> float:
        total = node.total
        if total <= 0:
            return 0.0
        n_eff = max(node.n_eff, 1e-9)
        wrong = max(total - (node.dist * total).max(), 0.0)
        e_eff = wrong / total * n_eff
        rate = (e_eff + added_errors(n_eff, e_eff, self.confidence)) / n_eff
        return rate * total

    def _prune(self, idx: int) -> float:
        node = self.nodes[idx]
        leaf = self._leaf_error(node)
        if node.feature < 0:
            return leaf
        sub = self._prune(node.left) + self._prune(node.right)
        if leaf <= sub + 0.1:
            node.make_leaf()
            return leaf
        return sub

    def _preorder(self) -> list[int]:
        keep, stack = [], [0]
        while stack:
            i = stack.pop()
            keep.append(i)
            nd = self.nodes[i]
            if nd.feature >= 0:
                stack.extend([nd.right, nd.left])
        return keep

    def _freeze(self, keep: list[int]) -> CodeTree:
        remap = {old: new for new, old in enumerate(keep)}
        m = len(keep)
        tree = CodeTree(
            feature=np.full(m, -1, dtype=np.int64),
            left=np.full(m, -1, dtype=np.int64),
            right=np.full(m, -1, dtype=np.int64),
            mask=np.zeros((m, self.max_n), dtype=bool),
            value=np.zeros((m, self.C)),
            count=np.zeros(m),
            n_eff=np.zeros(m),
        )
        for new, old in enumerate(keep):
            nd = self.nodes[old]
            tree.value[new] = nd.dist
            tree.n_eff[new] = nd.n_eff
            tree.count[new] = nd.total
            if nd.feature >= 0:
                tree.feature[new] = nd.feature
                tree.left[new] = remap[nd.left]
                tree.right[new] = remap[nd.right]
                tree.mask[new, : len(nd.go_left)] = nd.go_left
        return tree
