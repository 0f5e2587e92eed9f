"""The leaves of the original tree: which records reach them, their class counts, and the
attributes each leaf does not look at (Leaf and Total Innocent Attributes).

References
----------
Islam, M. Z. & Brankovic, L. Noise addition for protecting privacy in data mining,
Sec. 3 (heterogeneous leaves), Sec. 3.2 (Innocent, LIA and TIA attributes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..exceptions import DataError

__all__ = ["LeafInfo", "innocent_attributes", "leaf_index", "leaf_info"]


def _check_tree(tree) -> None:
    if not hasattr(tree, "tree_"):
        raise DataError("tree must be a fitted C45Classifier (call fit first)")


def leaf_index(tree, X) -> np.ndarray:
    """Leaf (node id) that each row of ``X`` reaches in a fitted C4.5 tree.

    A row with a missing value at a test follows the branch of most training weight, so
    that it lands in one leaf (C4.5 would split it); a row sent to an empty leaf stays there.

    Parameters
    ----------
    tree : C45Classifier
        Fitted.
    X : DataFrame or array-like of shape (n_samples, n_features)
        Same columns as at fit.

    Returns
    -------
    ndarray of int, shape (n_samples,)
        Node ids (preorder numbering of ``tree.tree_``).

    References
    ----------
    Islam & Brankovic, Sec. 3 (a case "arrives in one of the leaves").

    Examples
    --------
    >>> from ppdm.tree import C45Classifier
    >>> X = [[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]]
    >>> clf = C45Classifier(min_leaf=1).fit(X, [0, 0, 0, 1, 1, 1])
    >>> leaf_index(clf, X).tolist()
    [1, 1, 1, 2, 2, 2]
    """
    _check_tree(tree)
    return tree.apply(X)


def _leaf_paths(tree) -> dict[int, list[int]]:
    """Leaf id -> feature indices tested on its root-to-leaf path."""
    t = tree.tree_
    paths: dict[int, list[int]] = {}
    stack: list[tuple[int, list[int]]] = [(0, [])]
    while stack:
        node, path = stack.pop()
        if t.feature[node] < 0:
            paths[node] = path
            continue
        stack.extend((int(c), path + [int(t.feature[node])]) for c in t.child_ids(node))
    return paths


@dataclass(frozen=True)
class LeafInfo:
    """Records and class counts per leaf of the original tree.

    Attributes
    ----------
    leaf_of_row : ndarray of int, shape (n_samples,)
        Leaf reached by each record.
    codes : ndarray of int, shape (n_samples,)
        Each record's class as an index into ``classes``.
    classes : ndarray
        Class labels (sorted).
    leaves : ndarray of int
        Leaves that hold at least one record, in node order.
    counts : ndarray of int, shape (n_leaves, n_classes)
        Class counts per leaf (rows follow ``leaves``).
    leaf_class : ndarray of int, shape (n_leaves,)
        The class the tree assigns to each leaf (its majority class), as an index.
    depth : ndarray of int, shape (n_leaves,)
        Tests on the leaf's path.

    References
    ----------
    Islam & Brankovic, Sec. 3.1 (``m_k``, ``n_k``, ``H``).
    """

    leaf_of_row: np.ndarray
    codes: np.ndarray
    classes: np.ndarray
    leaves: np.ndarray
    counts: np.ndarray
    leaf_class: np.ndarray
    depth: np.ndarray

    @property
    def sizes(self) -> np.ndarray:
        """Records per leaf, ``m_k + n_k``."""
        return self.counts.sum(axis=1)

    @property
    def n_majority(self) -> np.ndarray:
        """Records of the leaf's class, ``m_k``."""
        return self.counts[np.arange(self.leaves.size), self.leaf_class]

    @property
    def n_minority(self) -> np.ndarray:
        """Records of any other class, ``n_k``."""
        return self.sizes - self.n_majority

    @property
    def heterogeneous(self) -> np.ndarray:
        """Leaves whose records have more than one class."""
        return (self.counts > 0).sum(axis=1) > 1

    @property
    def row_position(self) -> np.ndarray:
        """Each record's leaf as an index into ``leaves``."""
        return np.searchsorted(self.leaves, self.leaf_of_row)

    def to_frame(self) -> pd.DataFrame:
        """One row per leaf: size, class, ``m_k``, ``n_k``, heterogeneous, depth."""
        return pd.DataFrame(
            {
                "leaf": self.leaves,
                "depth": self.depth,
                "n": self.sizes,
                "leaf_class": self.classes[self.leaf_class],
                "n_majority": self.n_majority,
                "n_minority": self.n_minority,
                "heterogeneous": self.heterogeneous,
            }
        )


def leaf_info(tree, X, y) -> LeafInfo:
    """Route the records through the tree and count their classes per leaf.

    Parameters
    ----------
    tree : C45Classifier
        Fitted (normally on ``X``, ``y``: the original data).
    X : DataFrame or array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels; every label must be one of ``tree.classes_``.

    Returns
    -------
    LeafInfo

    References
    ----------
    Islam & Brankovic, Sec. 3.1 (homogeneous and heterogeneous leaves).

    Examples
    --------
    >>> import numpy as np
    >>> from ppdm.tree import C45Classifier
    >>> X = np.arange(12.0).reshape(-1, 1)
    >>> y = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0]
    >>> info = leaf_info(C45Classifier().fit(X, y), X, y)
    >>> info.counts.tolist(), info.heterogeneous.tolist()
    ([[5, 0], [1, 6]], [False, True])
    """
    _check_tree(tree)
    y = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y)
    classes = np.asarray(tree.classes_)
    if y.ndim != 1:
        raise DataError(f"y must be 1-D (one label per row); got shape {y.shape}")
    codes = np.clip(np.searchsorted(classes, y), 0, classes.size - 1)
    unknown = classes[codes] != y
    if unknown.any():
        raise DataError(
            f"y has labels the tree does not know: {sorted(set(y[unknown].tolist()))[:5]!r}"
        )
    leaf_of_row = leaf_index(tree, X)
    if leaf_of_row.size != y.size:
        raise DataError(f"X has {leaf_of_row.size} rows but y has {y.size} labels")
    leaves, pos = np.unique(leaf_of_row, return_inverse=True)
    counts = np.zeros((leaves.size, classes.size), dtype=np.int64)
    np.add.at(counts, (pos, codes), 1)
    # the tree's own leaf class (J48's first maximum of the training distribution)
    leaf_class = tree.tree_.decide(tree.tree_.value[leaves]).astype(np.int64)
    paths = _leaf_paths(tree)
    depth = np.array([len(paths[int(leaf)]) for leaf in leaves], dtype=np.int64)
    return LeafInfo(leaf_of_row, codes, classes, leaves, counts, leaf_class, depth)


def innocent_attributes(tree) -> pd.DataFrame:
    """Leaf Innocent Attributes (LIA) and Total Innocent Attributes (TIA) of every leaf.

    An attribute is innocent for a leaf when its path does not test it: a TIA is tested
    nowhere in the tree, a LIA elsewhere.

    Parameters
    ----------
    tree : C45Classifier
        Fitted.

    Returns
    -------
    DataFrame
        One row per leaf (node id order) with columns ``leaf``, ``path``
        (attributes tested on the path), ``lia`` and ``tia`` (lists of names).

    References
    ----------
    Islam & Brankovic, Sec. 3.2 (Innocent, Leaf Innocent and Total Innocent Attributes).

    Examples
    --------
    >>> import numpy as np
    >>> from ppdm.tree import C45Classifier
    >>> X = np.array([[a, b, 5] for a in (1, 2, 3, 4) for b in (0, 1)] + [[8, 0, 5], [9, 1, 5]] * 2)
    >>> y = [b for a in (1, 2, 3, 4) for b in (0, 1)] + [2] * 4
    >>> clf = C45Classifier(min_leaf=1).fit(X, y)  # x0 <= 4: (x1 <= 0: 0, x1 > 0: 1); x0 > 4: 2
    >>> innocent_attributes(clf)[["path", "lia", "tia"]].values.tolist()
    [[['x0', 'x1'], [], ['x2']], [['x0', 'x1'], [], ['x2']], [['x0'], ['x1'], ['x2']]]
    """
    _check_tree(tree)
    names = list(tree.feature_names_)
    paths = _leaf_paths(tree)
    used = {int(f) for f in tree.tree_.feature if f >= 0}
    tia = [names[j] for j in range(len(names)) if j not in used]
    rows = [
        {
            "leaf": leaf,
            "path": [names[j] for j in sorted(set(paths[leaf]))],
            "lia": [names[j] for j in sorted(used - set(paths[leaf]))],
            "tia": list(tia),
        }
        for leaf in sorted(paths)
    ]
    return pd.DataFrame(rows, columns=["leaf", "path", "lia", "tia"])
