"""C4.5 fitted on a reconstruction, read as a tree over the release's original codes.

Algorithm 2 reconstructs a code as one value of its domain, so C4.5's prediction on
reconstructed records is a function of the codes: :func:`c45_on_codes` writes it as a
:class:`~ppdm.tree.release_storage.CodeTree` whose leaves are boxes, which
:func:`~ppdm.tree.release_scoring.release_correct` scores without bias.
docs/release_learners.md lists where the coded tree differs from C4.5.

References
----------
Dowd, Xu & Zhang, Sec. 6 (C4.5 on the reconstructed data); Quinlan (1993), C4.5, sec.
3.2 (the tree and its empty leaves).
"""

from __future__ import annotations

import numpy as np

from ..domain import BinnedDomain
from ..exceptions import DataError
from ._compare import sm_or_eq
from .release_coding import DomainCoder
from .release_storage import CodeTree

__all__ = ["c45_on_codes"]


def _code_values(domain) -> np.ndarray:
    """The value C4.5 saw for every code: what the reconstruction decodes it to."""
    if isinstance(domain, BinnedDomain):
        reps = np.append(
            domain.low + (np.arange(domain.n_bins) + 0.5) * domain.width
            if domain.representative == "random"
            else domain.representatives(),
            np.nan,
        )
        return reps[: domain.n_values]
    return domain.decode(np.arange(domain.n_values))


def _branches(clf, tree, node: int, values: np.ndarray) -> np.ndarray:
    """Child index (0-based) every code of the node's attribute goes to."""
    j = int(tree.feature[node])
    kids = tree.child_ids(node)
    largest = int(np.argmax(tree.value[kids].sum(axis=1)))
    b = np.full(len(values), largest, dtype=np.int64)
    if tree.categorical[node]:
        cats = list(clf._encoding.categories[j])
        for k, v in enumerate(values):
            if v in cats:
                b[k] = cats.index(v)
        return b
    x = np.asarray(values, dtype=float)
    known = ~np.isnan(x)
    b[known] = np.where(sm_or_eq(x[known], tree.threshold[node]), 0, 1)
    return b


def _dist(v: np.ndarray) -> np.ndarray:
    total = v.sum()
    return v / total if total > 0 else np.full(v.size, 1.0 / v.size)


def c45_on_codes(clf, spec, max_depth: int | None = None):
    """The :class:`~ppdm.tree.C45Classifier` ``clf``, fitted on a reconstruction of a
    release with spec ``spec``, as a fitted release tree over the release's codes.

    Parameters
    ----------
    clf : C45Classifier
        Fitted on a reconstruction (its columns are attributes of ``spec``).
    spec : ReleaseSpec
    max_depth : int, optional
        Deepest node of the coded tree (the root has depth 0; a multiway test counts one
        level per binary test of its chain); deeper nodes are cut off.

    Returns
    -------
    ReleaseTreeClassifier
        Fitted: ``tree_`` is C4.5's tree over codes, ``matrices_`` the release's.

    Raises
    ------
    DataError
        C4.5 tests a column that has no domain in ``spec``.
    """
    from .release_tree import ReleaseTreeClassifier

    tree, enc = clf.tree_, clf._encoding
    tested = sorted({int(f) for f in tree.feature if f >= 0})
    perturbed = {a.name for a in spec.perturbed_attributes()} - {spec.class_attribute}
    with_domain = [n for n in enc.names if n in perturbed]
    lost = [enc.names[j] for j in tested if enc.names[j] not in with_domain]
    if lost:
        raise DataError(f"C4.5 tests {lost}, which the release does not perturb with a domain")
    pos = {n: i for i, n in enumerate(with_domain)}
    domains = [spec.attribute(n).get_domain() for n in with_domain]
    values = {j: _code_values(domains[pos[enc.names[j]]]) for j in tested}
    width = max(d.n_values for d in domains)
    rows: list[list] = []  # feature, left, right, mask, value, count per node, preorder

    def add(feature, mask, value, count) -> int:
        rows.append([feature, -1, -1, mask, value, count])
        return len(rows) - 1

    deepest = np.inf if max_depth is None else max_depth

    def visit(node: int, parent_dist: np.ndarray, depth: int) -> int:
        v = tree.value[node]
        dist = parent_dist if tree.empty[node] else _dist(v)
        if tree.feature[node] < 0 or depth >= deepest:
            return add(-1, np.zeros(width, bool), dist, float(v.sum()))
        j = int(tree.feature[node])
        b = _branches(clf, tree, node, values[j])
        kids = tree.child_ids(node)
        used = [k for k in range(len(kids)) if (b == k).any()]
        return chain(used, kids, b, pos[enc.names[j]], dist, float(v.sum()), depth)

    def chain(used, kids, b, f, dist, count, depth) -> int:
        if len(used) == 1:
            return visit(int(kids[used[0]]), dist, depth)
        if depth >= deepest:  # the records of the branches left
            v = tree.value[kids[used]].sum(axis=0)
            return add(-1, np.zeros(width, bool), _dist(v) if v.sum() > 0 else dist, v.sum())
        mask = np.zeros(width, bool)
        mask[: b.size] = b == used[0]
        at = add(f, mask, dist, count)
        rows[at][1] = visit(int(kids[used[0]]), dist, depth + 1)
        rows[at][2] = chain(used[1:], kids, b, f, dist, count, depth + 1)
        return at

    visit(0, _dist(tree.value[0]), 0)
    feature, left, right, mask, value, count = (list(c) for c in zip(*rows))
    count = np.array(count, dtype=float)
    model = ReleaseTreeClassifier(spec=spec, leaf_model="majority")
    coders = [DomainCoder(d) for d in domains]
    model._set_inputs(with_domain, coders, domains, spec, frame=True)
    model.classes_, model.n_classes_ = clf.classes_, len(clf.classes_)
    model.leaf_model_ = "majority"
    model.matrices_ = [spec.attribute(n).get_matrix() for n in with_domain]
    model.tree_ = CodeTree(
        np.array(feature, dtype=np.int64), np.array(left, dtype=np.int64),
        np.array(right, dtype=np.int64), np.array(mask, dtype=bool).reshape(len(rows), width),
        np.array(value, dtype=float), count, count.copy(),
    )  # fmt: skip
    return model
