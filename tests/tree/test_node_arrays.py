"""Size, leaves and depth of both array storages, against a walk of their children."""

import numpy as np

from ppdm.tree import C45Classifier
from ppdm.tree.release_storage import CodeTree


def _walk_depth(tree, node=0):
    if tree.feature[node] < 0:
        return 0
    return 1 + max(_walk_depth(tree, int(c)) for c in tree.child_ids(node))


def test_code_tree_shape():
    # root tests attribute 0; its right child tests attribute 1: three leaves, depth 2
    t = CodeTree(
        feature=np.array([0, -1, 1, -1, -1]),
        left=np.array([1, -1, 3, -1, -1]),
        right=np.array([2, -1, 4, -1, -1]),
        mask=np.zeros((5, 2), dtype=bool),
        value=np.zeros((5, 2)),
        count=np.zeros(5),
        n_eff=np.zeros(5),
    )
    assert (t.n_nodes, t.n_leaves, t.max_depth) == (5, 3, 2)
    assert t.child_ids(2).tolist() == [3, 4]
    leaf = CodeTree(
        *(np.array([v]) for v in (-1, -1, -1)), np.zeros((1, 2), bool), *[np.zeros(1)] * 3
    )
    assert (leaf.n_nodes, leaf.n_leaves, leaf.max_depth) == (1, 1, 0)


def test_c45_tree_shape():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 6, size=(300, 3)).astype(float)
    y = (X[:, 0] > 2) ^ (X[:, 1] > 3) | (X[:, 2] == 5)
    tree = C45Classifier(min_leaf=2).fit(X, y).tree_
    assert tree.max_depth == _walk_depth(tree) >= 2
    kids = sum(len(tree.child_ids(i)) for i in range(tree.n_nodes))
    assert tree.n_nodes == kids + 1  # every node but the root is somebody's child
    assert tree.n_leaves == sum(len(tree.child_ids(i)) == 0 for i in range(tree.n_nodes))
