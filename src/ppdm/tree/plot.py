"""Drawing a fitted ppdm tree with matplotlib.

Works for :class:`~ppdm.tree.C45Classifier` and for the trees over original codes
(:class:`~ppdm.tree.ReleaseTreeClassifier`).

References
----------
Quinlan (1993), C4.5, ch. 1 (tree diagrams).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..exceptions import NotFittedError
from .storage import Tree

__all__ = ["plot_tree", "tree_layout"]


@dataclass
class _Drawn:
    """A node to draw: its label, its children and the labels of the edges to them."""

    label: str
    children: list[int] = field(default_factory=list)
    edges: list[str] = field(default_factory=list)


def _c45_nodes(clf) -> dict[int, _Drawn]:
    from .export import _branch_text, _leaf_text

    t = clf.tree_
    names = clf.feature_names_
    parent = np.full(t.n_nodes, -1)
    out: dict[int, _Drawn] = {}
    for i in range(t.n_nodes):  # preorder: a leaf's parent is seen first
        if t.feature[i] < 0:
            p = int(parent[i])
            out[i] = _Drawn(_leaf_text(t, i, p if p >= 0 else None, clf.classes_))
            continue
        kids = [int(k) for k in t.child_ids(i)]
        parent[kids] = i
        edges = [_branch_text(clf, i, k) for k in range(len(kids))]
        out[i] = _Drawn(names[int(t.feature[i])], kids, edges)
    return out


def _code_tree_nodes(clf) -> dict[int, _Drawn]:
    t = clf.tree_
    names = clf.feature_names_
    out: dict[int, _Drawn] = {}
    stack = [(0, [np.ones(c.n_values, bool) for c in clf.coders_])]
    while stack:
        i, box = stack.pop()
        j = int(t.feature[i])
        if j < 0:
            cls = clf.classes_[int(np.argmax(t.value[i]))]
            out[i] = _Drawn(f"{cls}\n(est. {t.count[i]:.1f})")
            continue
        go = t.mask[i, : len(box[j])]
        drawn = _Drawn(names[j])
        for child, side in ((int(t.left[i]), go), (int(t.right[i]), ~go)):
            kid = list(box)
            kid[j] = box[j] & side
            drawn.children.append(child)
            drawn.edges.append(clf.coders_[j].test_text(names[j], kid[j]))
            stack.append((child, kid))
        out[i] = drawn
    return out


def tree_layout(clf, max_depth: int | None = None) -> dict[int, tuple[float, float]]:
    """Position ``(x, depth)`` of every node drawn down to ``max_depth``: leaves at
    consecutive x in order, a parent centred over its children."""
    nodes = _nodes(clf)
    pos: dict[int, tuple[float, float]] = {}
    next_x = [0.0]

    def place(i: int, depth: int) -> float:
        kids = nodes[i].children if max_depth is None or depth < max_depth else []
        if not kids:
            x = next_x[0]
            next_x[0] += 1.0
        else:
            x = float(np.mean([place(k, depth + 1) for k in kids]))
        pos[i] = (x, float(depth))
        return x

    place(0, 0)
    return pos


def _nodes(clf) -> dict[int, _Drawn]:
    if not hasattr(clf, "tree_"):
        raise NotFittedError(f"this {type(clf).__name__} is not fitted yet; call fit first")
    if isinstance(clf.tree_, Tree):
        return _c45_nodes(clf)
    return _code_tree_nodes(clf)


def plot_tree(clf, *, ax=None, max_depth: int | None = None, fontsize: float = 8.0):
    """Draw a fitted tree: tests on inner nodes, the branch conditions on the edges,
    class and weight at the leaves.

    Parameters
    ----------
    clf : C45Classifier or ReleaseTreeClassifier
        A fitted tree.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure sized to the tree).
    max_depth : int, optional
        Deepest level drawn; a cut subtree is drawn as its root with "...".
    fontsize : float, default=8

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from ppdm.tree import C45Classifier
    >>> clf = C45Classifier(min_leaf=1).fit([[1.0], [2.0], [8.0], [9.0]], ["a", "a", "b", "b"])
    >>> ax = plot_tree(clf)
    >>> sorted(t.get_text() for t in ax.texts)[:2]
    ['a (2.0)', 'b (2.0)']
    """
    import matplotlib.pyplot as plt

    nodes = _nodes(clf)
    pos = tree_layout(clf, max_depth)
    width = max(x for x, _ in pos.values()) + 1
    depth = max(d for _, d in pos.values()) + 1
    if ax is None:
        # one leaf slot must hold two sibling edge labels side by side
        longest = max((len(e) for n in nodes.values() for e in n.edges), default=10)
        unit = max(1.6, 0.0125 * longest * fontsize + 0.2)
        _, ax = plt.subplots(figsize=(max(4.0, unit * width), max(3.0, 1.5 * depth)))
    box = {"boxstyle": "round,pad=0.3", "fc": "white", "ec": "0.3"}
    leaf_box = {"boxstyle": "round,pad=0.3", "fc": "#e8f0fa", "ec": "0.3"}
    for i, (x, d) in pos.items():
        node = nodes[i]
        cut = bool(node.children) and not any(k in pos for k in node.children)
        text = node.label + ("\n..." if cut else "")
        ax.text(
            x,
            -d,
            text,
            ha="center",
            va="center",
            fontsize=fontsize,
            bbox=leaf_box if not node.children else box,
            zorder=3,
        )
        for k, edge in zip(node.children, node.edges):
            if k not in pos:
                continue
            xk, dk = pos[k]
            ax.plot([x, xk], [-d, -dk], color="0.5", lw=1, zorder=1)
            ax.text(
                x + 0.62 * (xk - x),
                -(d + 0.62 * (dk - d)),
                edge,
                ha="center",
                va="center",
                fontsize=fontsize * 0.85,
                color="0.2",
                bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8},
                zorder=2,
            )
    ax.set_xlim(-0.7, width - 0.3)
    ax.set_ylim(-depth + 0.5, 0.5)
    ax.set_axis_off()
    return ax
