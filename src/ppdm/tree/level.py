"""Growing a C4.5 tree level by level: one split search for all nodes of a depth.

The node-by-node search of :mod:`ppdm.tree.splitter` pays NumPy's per-call
overhead at every node, which dominates on the large, noisy trees learned from
reconstructed data (thousands of nodes). Here all nodes of one depth are
searched together:

* numeric attributes are binned by value rank once per level with one
  ``bincount`` over (node, value, class) for the nodes with many rows, and
  sorted by (node, value) for the nodes with few rows;
* every (node, attribute) pair's boundary candidates are scored in one call of
  the splitter's vectorised scorer (J48's rules, see :mod:`ppdm.tree.splitter`);
* J48's choice among attributes (average-gain filter, then the largest gain
  ratio) is taken for all nodes at once;
* the rows of all split nodes are partitioned with one stable sort, and the
  children are ordered by size, so each attribute's binned nodes are a prefix.

The result is the same tree as :func:`ppdm.tree.builder.grow`, number for
number, because class counts are sums of *integral* weights, which are exact
in any order. This path is therefore taken only when every weight is a
positive integer, every attribute is numeric and no value is missing (the
reconstructed tables of the Figs. 4-6 grid, and most plain data sets); anything
else is grown node by node.

References
----------
Quinlan, J. R. (1993). C4.5: Programs for Machine Learning, ch. 2.
Weka J48 (``C45ModelSelection``, ``C45Split``), Weka 3.6.
"""

from __future__ import annotations

import numpy as np

from ._compare import SMALL, eq, sm
from .splitter import Split, TrainingSet, score_candidates

__all__ = ["level_wise_ok", "grow_level_wise"]

#: A node's attribute is binned (histogram) when it has at least this many rows
#: per distinct value of the attribute; otherwise its rows are sorted.
ROWS_PER_VALUE = 4


def level_wise_ok(ts: TrainingSet, w: np.ndarray) -> bool:
    """Whether :func:`grow_level_wise` grows the same tree as the node-by-node path.

    True when every attribute is numeric, no value is missing and every weight is
    a positive integer (with a total small enough for exact float sums).
    """
    return (
        ts.cat_cols.size == 0
        and not np.isnan(ts.X).any()
        and bool(np.all(w == np.round(w)))
        and bool(np.all(w > 0))
        and float(w.sum()) < 2.0**52
    )


def _max_class_rows(dist: np.ndarray) -> np.ndarray:
    """Row-wise J48 ``maxClass``: first class beating all earlier ones by more than 1e-6."""
    best = np.zeros(dist.shape[0], dtype=np.int64)
    top = np.zeros(dist.shape[0])
    for k in range(dist.shape[1]):  # per class, vectorised over nodes
        upd = dist[:, k] - top > SMALL
        best = np.where(upd, k, best)
        top = np.where(upd, dist[:, k], top)
    return best


def _histogram_candidates(
    ts: TrainingSet,
    k: int,
    codes: np.ndarray,
    pos: np.ndarray,
    n_nodes: int,
    y: np.ndarray,
    w: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Boundary candidates of numeric attribute ``k`` for nodes binned by value rank.

    ``pos`` gives each row's node (0 .. n_nodes-1). Returns node, left class
    counts, and the values on both sides of each boundary, in (node, value) order.
    """
    K = ts.n_classes
    U = int(ts.num_U[k])
    slot = pos * U + codes
    hist = np.bincount(slot * K + y, weights=w, minlength=n_nodes * U * K).reshape(n_nodes, U, K)
    present = hist.sum(axis=2) > 0  # weights are positive integers
    table = ts.uniques[k]
    at = np.where(present, np.arange(U), U)
    nxt = np.minimum.accumulate(at[:, ::-1], axis=1)[:, ::-1]
    nxt = np.concatenate([nxt[:, 1:], np.full((n_nodes, 1), U)], axis=1)
    table_ext = np.append(table, np.inf)
    boundary = present & (nxt < U) & (table + 1e-5 < table_ext[nxt])
    gi, ui = np.nonzero(boundary)
    cum = np.cumsum(hist, axis=1)
    return gi, cum[gi, ui], table[ui], table[nxt[gi, ui]]


def _sorted_candidates(
    ts: TrainingSet,
    k: int,
    codes: np.ndarray,
    pos: np.ndarray,
    starts: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Boundary candidates of numeric attribute ``k`` for nodes whose rows are sorted.

    Rows are grouped by node (``pos`` non-decreasing, node ``i`` starting at
    ``starts[i]``). Returns the same as :func:`_histogram_candidates`.
    """
    K = ts.n_classes
    U = int(ts.num_U[k])
    order = np.argsort(pos * (U + 1) + codes, kind="stable")
    sv = ts.uniques[k][codes[order]]
    onehot = np.zeros((order.size, K))
    onehot[np.arange(order.size), y[order]] = w[order]
    cum = np.cumsum(onehot, axis=0)
    base = np.vstack([np.zeros((1, K)), cum])[starts]  # counts before each node
    boundary = (pos[1:] == pos[:-1]) & (sv[:-1] + 1e-5 < sv[1:])
    i = np.flatnonzero(boundary)
    node = pos[i]
    return node, cum[i] - base[node], sv[i], sv[i + 1]


def _search(
    ts: TrainingSet,
    idx: np.ndarray,
    pos: np.ndarray,
    counts: np.ndarray,
    dist: np.ndarray,
    totals: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best numeric split of every node of a level.

    Parameters are the level's rows ``idx`` grouped by node ``pos`` (0 .. L-1),
    each node's row count, class counts and total weight. Nodes come in
    non-increasing order of row count, so for every attribute the binned nodes
    (many rows per distinct value) are a prefix and the sorted ones the rest.

    Returns
    -------
    gains, ratios, mids : ndarray of shape (L, n_features)
        NaN where an attribute offers no valid split.
    """
    L = counts.size
    d = ts.num_cols.size
    bounds = np.concatenate(([0], np.cumsum(counts)))
    parts = []
    for k in range(d):
        codes = ts.num_codes_t[k][idx]
        n_hist = int(np.count_nonzero(counts >= ROWS_PER_VALUE * ts.num_U[k]))
        cut = int(bounds[n_hist])
        if n_hist:
            gi, left, lval, rval = _histogram_candidates(
                ts, k, codes[:cut], pos[:cut], n_hist, y[:cut], w[:cut]
            )
            parts.append((k * L + gi, left, lval, rval))
        if n_hist < L:
            gi, left, lval, rval = _sorted_candidates(
                ts, k, codes[cut:], pos[cut:] - n_hist, bounds[n_hist:-1] - cut, y[cut:], w[cut:]
            )
            parts.append((k * L + n_hist + gi, left, lval, rval))
    # candidates are already grouped by (attribute, node), in scan order
    group = np.concatenate([p[0] for p in parts])
    left = np.concatenate([p[1] for p in parts])
    lval = np.concatenate([p[2] for p in parts])
    rval = np.concatenate([p[3] for p in parts])
    G = d * L
    known = np.tile(dist, (d, 1))
    n_known = np.tile(counts, d)
    total = np.tile(totals, d)
    gains, ratios, mids = score_candidates(ts, G, group, left, lval, rval, known, n_known, total)
    return gains.reshape(d, L).T, ratios.reshape(d, L).T, mids.reshape(d, L).T


def _choose(
    ts: TrainingSet, gains: np.ndarray, ratios: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """J48's choice per node: the largest gain ratio among gains >= average - 1e-3.

    Returns the chosen column per node (-1 for none) and its gain ratio.
    """
    L, d = gains.shape
    valid = ~np.isnan(gains)
    average = np.full(L, np.nan)
    for i in np.flatnonzero(valid.any(axis=1)):  # per node, as J48 sums (same float order)
        average[i] = gains[i][valid[i]].mean()
    with np.errstate(invalid="ignore"):
        cand = valid & (gains >= (average - 1e-3)[:, None])
    best = np.full(L, -1, dtype=np.int64)
    best_ratio = np.zeros(L)
    for j in range(d):  # per attribute, vectorised over nodes
        upd = cand[:, j] & (ratios[:, j] - best_ratio > SMALL)
        best = np.where(upd, j, best)
        best_ratio = np.where(upd, ratios[:, j], best_ratio)
    best[eq(best_ratio, 0.0)] = -1
    return best, best_ratio


def grow_level_wise(ts: TrainingSet, w: np.ndarray, keep_data: bool, node_cls: type):
    """Grow the unpruned tree on all rows of ``ts``, one depth at a time.

    Parameters
    ----------
    ts : TrainingSet
        Only numeric attributes, no missing value (see :func:`level_wise_ok`).
    w : ndarray of shape (n_samples,)
        Integral weights.
    keep_data : bool
        Keep each node's rows (needed by subtree raising).
    node_cls : type
        :class:`ppdm.tree.builder.Node`.

    Returns
    -------
    Node
        The root.
    """
    K = ts.n_classes
    n = ts.X.shape[0]
    idx = np.arange(n)
    pos = np.zeros(n, dtype=np.int64)
    root = node_cls(idx, w, np.bincount(ts.y, weights=w, minlength=K))
    nodes = [root]
    ycodes = ts.y
    while nodes:
        L = len(nodes)
        y = ycodes[idx]
        counts = np.bincount(pos, minlength=L)
        dist = np.bincount(pos * K + y, weights=w, minlength=L * K).reshape(L, K)
        totals = dist.sum(axis=1)
        top = dist[np.arange(L), _max_class_rows(dist)]
        active = ~(sm(totals, 2 * ts.min_leaf) | eq(totals, top))
        chosen = np.full(L, -1, dtype=np.int64)
        if active.any():
            act = np.flatnonzero(active)
            if act.size == L:
                a_idx, a_pos, a_y, a_w = idx, pos, y, w
            else:
                local_of = np.full(L, -1, dtype=np.int64)
                local_of[act] = np.arange(act.size)
                lp = local_of[pos]
                mask = lp >= 0
                a_idx, a_pos, a_y, a_w = idx[mask], lp[mask], y[mask], w[mask]
            gains, ratios, mids = _search(
                ts, a_idx, a_pos, counts[act], dist[act], totals[act], a_y, a_w
            )
            best, best_ratio = _choose(ts, gains, ratios)
            chosen[act] = best
            a_rows = np.arange(act.size)
            picked = best >= 0
            for i, j, g, r, mid in zip(
                act[picked].tolist(),
                best[picked].tolist(),
                gains[a_rows[picked], best[picked]].tolist(),
                best_ratio[picked].tolist(),
                mids[a_rows[picked], best[picked]].tolist(),
            ):
                feature = int(ts.num_cols[j])
                nodes[i].split = Split(
                    feature, False, ts.snap_threshold(feature, mid), 2, float(g), float(r)
                )
        split = chosen >= 0
        for i in np.flatnonzero(~split).tolist():
            nodes[i].empty = bool(eq(totals[i], 0.0))
            if not keep_data:
                nodes[i].idx = nodes[i].w = None
        if not split.any():
            break
        # partition the rows of split nodes: child 2c (left, x <= t) and 2c + 1
        split_nodes = np.flatnonzero(split)
        rank = np.full(L, -1, dtype=np.int64)
        rank[split_nodes] = np.arange(split_nodes.size)
        r = rank[pos]
        keep = r >= 0
        idx, w, r = idx[keep], w[keep], r[keep]
        feat = np.array([nodes[i].split.feature for i in split_nodes.tolist()], dtype=np.int64)
        thr = np.array([nodes[i].split.threshold for i in split_nodes.tolist()])
        x = ts.X[idx, feat[r]]
        t = thr[r]
        left = (x - t < SMALL) | (x <= t)
        child = 2 * r + (~left)
        n_children = 2 * split_nodes.size
        # children in non-increasing order of row count (see _search), rows stay in order
        sizes = np.bincount(child, minlength=n_children)
        by_size = np.argsort(-sizes, kind="stable")
        new_pos = np.empty(n_children, dtype=np.int64)
        new_pos[by_size] = np.arange(n_children)
        key = new_pos[child]
        order = np.argsort(key, kind="stable")
        idx, w, pos = idx[order], w[order], key[order]
        bounds = np.concatenate(([0], np.cumsum(sizes[by_size])))
        c_dist = np.bincount(pos * K + ts.y[idx], weights=w, minlength=n_children * K).reshape(
            n_children, K
        )
        b = bounds.tolist()
        new_nodes = [
            node_cls(idx[b[c] : b[c + 1]], w[b[c] : b[c + 1]], c_dist[c]) for c in range(n_children)
        ]
        np_ = new_pos.tolist()
        for s, i in enumerate(split_nodes.tolist()):
            nodes[i].children = [new_nodes[np_[2 * s]], new_nodes[np_[2 * s + 1]]]
            if not keep_data:
                nodes[i].idx = nodes[i].w = None
        nodes = new_nodes
    return root
