"""Growing a C4.5 tree level by level: one split search for all nodes of a depth.

Each attribute's rows are sorted once and kept sorted within each node by a stable
partition (SPRINT's attribute lists); with integral weights the class counts are exact
in any order, so the tree is the node-by-node one (docs/tree.md, "Speed").

References
----------
Quinlan, J. R. (1993). C4.5: Programs for Machine Learning, ch. 2.
Shafer, J., Agrawal, R., Mehta, M. (1996). SPRINT: a scalable parallel
classifier for data mining. VLDB (attribute lists sorted once, kept sorted).
Weka J48 (``C45ModelSelection``, ``C45Split``), Weka 3.6.
"""

from __future__ import annotations

import numpy as np

from ._compare import SMALL, eq, gr_or_eq, sm
from .builder import Node
from .criterion import xlog2x
from .splitter import Split, TrainingSet, _best_per_group, _min_split, score_candidates

__all__ = ["level_wise_ok", "grow_level_wise"]

#: Attribute lists are searched and partitioned in blocks of about this many
#: entries (attributes times rows), which bounds the memory of a level.
CHUNK_ENTRIES = 2**22

#: On tables of at least ``BINNED_MIN_ROWS`` rows, attributes with at most
#: ``BINNED_MAX_VALUES`` distinct values are binned at every level instead of listed.
BINNED_MAX_VALUES = 64
BINNED_MIN_ROWS = 16384

#: Largest total weight for which ``x log2 x`` of class counts is looked up.
LOG_TABLE_MAX = 2**21


def level_wise_ok(ts: TrainingSet, w: np.ndarray) -> bool:
    """Whether :func:`grow_level_wise` grows the node-by-node tree: numeric attributes, no
    missing value, positive integral weights summing below 2^52 (exact in floats)."""
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


class _Rows:
    """Per-fit arrays of the level-wise grower (``w`` None when all weights are 1,
    ``log_table`` None for large totals)."""

    def __init__(self, ts: TrainingSet, w: np.ndarray) -> None:
        self.n = ts.X.shape[0]
        self.y = ts.y.astype(np.min_scalar_type(max(ts.n_classes - 1, 0)))
        total = float(w.sum())
        self.dtype = np.int32 if total < 2.0**31 else np.int64
        self.w = None if bool(np.all(w == 1.0)) else w.astype(self.dtype)
        self.log_table = xlog2x(np.arange(total + 1)) if total <= LOG_TABLE_MAX else None
        self.listed = (ts.num_U > BINNED_MAX_VALUES) | (self.n < BINNED_MIN_ROWS)
        self.list_row = np.cumsum(self.listed) - 1


def _search(
    ts: TrainingSet,
    rows: _Rows,
    lists: np.ndarray,
    bounds: np.ndarray,
    dist: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gains, gain ratios and midpoints (L, n_features) of the best split of every node
    and attribute of a level (NaN: none).

    ``lists`` (n_listed + 1, m): per listed attribute the rows of node ``i`` in columns
    ``bounds[i]:bounds[i + 1]``, sorted by value; the last row in index order.
    """
    d = ts.num_cols.size
    m = lists.shape[1]
    L, K = dist.shape
    counts = np.diff(bounds)
    parts = []  # candidates of every attribute in order: groups stay sorted
    k = 0
    while k < d:
        if not rows.listed[k]:
            parts.append(_binned_candidates(ts, rows, k, lists[-1], bounds, dist))
            k += 1
            continue
        end = k
        while end < d and rows.listed[end]:
            end += 1
        first = rows.list_row[k]
        for a, step in _chunks(end - k, m):
            block = lists[first + a : first + a + step]
            parts.append(_candidates(ts, rows, block, k + a, bounds, dist))
        k = end
    group = np.concatenate([p[0] for p in parts])
    left = np.concatenate([p[1] for p in parts], axis=1)
    lval = np.concatenate([p[2] for p in parts])
    rval = np.concatenate([p[3] for p in parts])
    known = dist
    if rows.log_table is None:
        left = left.astype(float)
    else:
        known = dist.astype(left.dtype)
    gains, ratios, mids = score_candidates(
        ts,
        d * L,
        group,
        left.T,
        lval,
        rval,
        np.tile(known, (d, 1)),
        np.tile(counts, d),
        np.tile(dist.sum(axis=1), d),
        rows.log_table,
    )
    return gains.reshape(d, L).T, ratios.reshape(d, L).T, mids.reshape(d, L).T


def _binned_candidates(
    ts: TrainingSet,
    rows: _Rows,
    k: int,
    idx: np.ndarray,
    bounds: np.ndarray,
    dist: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Boundary candidates of a few-valued attribute ``k`` (as :func:`_candidates`), from
    one ``bincount`` over node, value code and class."""
    L, K = dist.shape
    U = int(ts.num_U[k])
    pos = np.repeat(np.arange(L), np.diff(bounds))
    codes = ts.num_codes_t[k].take(idx)
    y = rows.y.take(idx)
    w = None if rows.w is None else rows.w.take(idx)
    table = ts.uniques[k]
    hist = np.bincount((pos * U + codes) * K + y, weights=w, minlength=L * U * K)
    hist = hist.astype(rows.dtype, copy=False).reshape(L, U, K)
    present = hist.any(axis=2)  # weights are positive
    at = np.where(present, np.arange(U), U)
    nxt = np.minimum.accumulate(at[:, ::-1], axis=1)[:, ::-1]
    nxt = np.concatenate([nxt[:, 1:], np.full((L, 1), U)], axis=1)
    beyond = np.append(table, np.inf)
    boundary = present & (nxt < U) & (table + 1e-5 < beyond[nxt])
    gi, ui = np.nonzero(boundary)
    left = np.ascontiguousarray(np.cumsum(hist, axis=1)[gi, ui].T)
    return k * L + gi, left, table[ui], table[nxt[gi, ui]]


def _chunks(n_lists: int, m: int):
    """``(first, size)`` of consecutive blocks of attribute lists of about
    ``CHUNK_ENTRIES`` entries, which bounds the temporaries of a level."""
    step = max(1, CHUNK_ENTRIES // max(m, 1))
    return [(a, min(step, n_lists - a)) for a in range(0, n_lists, step)]


def _candidates(
    ts: TrainingSet,
    rows: _Rows,
    lists: np.ndarray,
    first: int,
    bounds: np.ndarray,
    dist: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Boundary candidates of the attributes ``first, first + 1, ...`` of ``lists``: each
    one's (attribute, node) as ``attribute * L + node`` in scan order, its class counts
    on the left (n_classes, n_candidates), and the values on both sides."""
    d, m = lists.shape
    L, K = dist.shape
    counts = np.diff(bounds)
    pos = np.repeat(np.arange(L), counts)
    attrs = np.arange(first, first + d)
    codes = np.take(ts.num_codes_t.ravel(), lists + (attrs * rows.n)[:, None])
    # boundaries: consecutive rows of a node with values more than 1e-5 apart
    change = (codes[:, :-1] != codes[:, 1:]) & (pos[1:] == pos[:-1])
    gi, j = np.divmod(np.flatnonzero(change), m - 1)  # by attribute, node, value: scan order
    at = gi * m + j  # flat position in lists
    offset = ts.num_off[first + gi]
    flat_codes = codes.ravel()
    lval = ts.num_table[offset + flat_codes[at]]
    rval = ts.num_table[offset + flat_codes[at + 1]]
    apart = lval + 1e-5 < rval
    gi, j, at, lval, rval = gi[apart], j[apart], at[apart], lval[apart], rval[apart]
    node = pos[j]
    group = gi * L + node  # within this block
    y, w, total = _left_totals(rows, lists, bounds, at, group)
    # J48's minimum split on both sides (checked again, identically, by the scorer)
    node_w = dist.sum(axis=1)
    min_split = _min_split(node_w, K, ts.min_leaf)
    enough = ~sm(counts, 2 * min_split)
    ok = (
        enough[node]
        & gr_or_eq(total, min_split[node])
        & gr_or_eq(node_w[node] - total, min_split[node])
    )
    at, group, total, lval, rval = at[ok], group[ok], total[ok], lval[ok], rval[ok]
    left = _left_counts(rows, y, w, bounds, at, group, total, K)
    return group + first * L, left, lval, rval


def _upto(cum: np.ndarray, bounds: np.ndarray, at: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Cumulative sums ``cum`` (d, m) at flat positions ``at``, from each node's first row."""
    d = cum.shape[0]
    starts = bounds[:-1]
    inner = starts > 0
    before = np.zeros((d, starts.size), dtype=cum.dtype)
    before[:, inner] = cum[:, starts[inner] - 1]
    return cum.ravel()[at] - before.ravel()[group]


def _left_totals(
    rows: _Rows, lists: np.ndarray, bounds: np.ndarray, at: np.ndarray, group: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Class codes and weights along ``lists``, and the weight left of each boundary
    (``at``: its last row's flat position; ``group``: attribute * L + node)."""
    m = lists.shape[1]
    y = rows.y.take(lists)
    if rows.w is None:
        col = at % m
        node_start = np.repeat(bounds[:-1], np.diff(bounds))
        return y, None, (col + 1 - node_start[col]).astype(rows.dtype)
    w = rows.w.take(lists)
    return y, w, _upto(np.cumsum(w, axis=1, dtype=rows.dtype), bounds, at, group)


def _left_counts(
    rows: _Rows,
    y: np.ndarray,
    w: np.ndarray | None,
    bounds: np.ndarray,
    at: np.ndarray,
    group: np.ndarray,
    total: np.ndarray,
    K: int,
) -> np.ndarray:
    """Class counts (n_classes, n_boundaries) left of each boundary (see
    :func:`_left_totals`); class 0's is the total less the others'."""
    left = np.empty((K, at.size), dtype=rows.dtype)
    left[0] = total
    for k in range(1, K):  # per class, vectorised over attributes and rows
        hit = y == k
        cum = np.cumsum(hit if w is None else hit * w, axis=1, dtype=rows.dtype)
        left[k] = _upto(cum, bounds, at, group)
        left[0] -= left[k]
    return left


def _choose(gains: np.ndarray, ratios: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """J48's choice per node (column, -1 for none, and its gain ratio): the largest gain
    ratio among gains >= average - 1e-3, the average summed in J48's order."""
    L, d = gains.shape
    valid = ~np.isnan(gains)
    total = np.cumsum(np.where(valid, gains, 0.0), axis=1)[:, -1]
    with np.errstate(invalid="ignore", divide="ignore"):
        average = total / valid.sum(axis=1)
        cand = valid & (gains >= (average - 1e-3)[:, None])
    node, col = np.nonzero(cand)
    pick = _best_per_group(ratios[node, col], node, L)
    ok = np.flatnonzero(pick >= 0)
    best = np.full(L, -1, dtype=np.int64)
    best_ratio = np.zeros(L)
    best[ok] = col[pick[ok]]
    best_ratio[ok] = ratios[ok, best[ok]]
    best[eq(best_ratio, 0.0)] = -1
    return best, best_ratio


def _columns_of(bounds: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Columns of the nodes ``keep`` (bool per node) and the bounds of the kept nodes."""
    counts = np.diff(bounds)
    cols = np.repeat(keep, counts)
    new_bounds = np.concatenate(([0], np.cumsum(counts[keep])))
    return cols, new_bounds


def _partition(
    lists: np.ndarray, bounds: np.ndarray, goes_left: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Stable two-way partition of every node's columns, in every row of ``lists``.

    Node ``i``'s left child gets columns ``b[2i]:b[2i + 1]`` of the result, its right
    child ``b[2i + 1]:b[2i + 2]``; ``goes_left`` is indexed by row.
    """
    r, m = lists.shape
    counts = np.diff(bounds)
    pos = np.repeat(np.arange(counts.size), counts)
    lefts = np.cumsum(goes_left.take(lists[0]), dtype=np.int64)
    before = np.concatenate(([0], lefts[bounds[1:] - 1]))
    n_left = np.diff(before)
    before = before[:-1]
    # a left row goes to start + (lefts - before) - 1, a right one to
    # start + n_left + (col - start) - (lefts - before); blended without a branch
    to_left = (bounds[:-1] - 1 - before)[pos]
    to_right = (n_left + before)[pos] + np.arange(m)
    out = np.empty(lists.shape, dtype=lists.dtype)
    for a, step in _chunks(r, m):
        block = lists[a : a + step]
        is_left = goes_left.take(block)
        lefts = np.cumsum(is_left, axis=1, dtype=np.int32)  # inclusive
        target = to_right - lefts
        target += (np.arange(step) * m)[:, None]
        delta = lefts * 2
        delta += to_left - to_right
        delta *= is_left
        target += delta
        out[a : a + step].ravel()[target.ravel()] = block.ravel()
    b = np.empty(2 * counts.size + 1, dtype=np.int64)
    b[0::2] = bounds
    b[1::2] = bounds[:-1] + n_left
    return out, b


def grow_level_wise(ts: TrainingSet, w: np.ndarray, keep_data: bool) -> Node:
    """:func:`ppdm.tree.builder.grow`, one depth at a time (where :func:`level_wise_ok`)."""
    K = ts.n_classes
    n = ts.X.shape[0]
    data = _Rows(ts, w)
    listed = np.flatnonzero(data.listed)
    # per listed attribute the rows sorted by value; the last row keeps them in index order
    lists = np.empty((listed.size + 1, n), dtype=np.intp)
    lists[:-1] = ts.num_order(listed)
    lists[-1] = np.arange(n)
    bounds = np.array([0, n])
    dist = np.bincount(ts.y, weights=w, minlength=K)[None, :]
    root = Node(np.arange(n), w, dist[0])
    nodes = [root]
    goes_left = np.zeros(n, dtype=bool)
    while nodes:
        totals = dist.sum(axis=1)
        split = _choose_level(ts, data, nodes, lists, bounds, dist) >= 0
        for i in np.flatnonzero(~split).tolist():
            nodes[i].empty = bool(eq(totals[i], 0.0))
        if not keep_data:
            for nd in nodes:
                nd.idx = nd.w = None
        if not split.any():
            break
        lists, bounds, dist, children = _split_level(ts, w, nodes, lists, bounds, split, goes_left)
        new_nodes = [Node(idx, cw, cd) for idx, cw, cd in children]
        for s, i in enumerate(np.flatnonzero(split).tolist()):
            nodes[i].children = new_nodes[2 * s : 2 * s + 2]
        nodes = new_nodes
    return root


def _choose_level(
    ts: TrainingSet,
    data: _Rows,
    nodes: list,
    lists: np.ndarray,
    bounds: np.ndarray,
    dist: np.ndarray,
) -> np.ndarray:
    """Attach the split of every node of a level that J48 would split; return the chosen
    column per node (-1 for a leaf)."""
    L = len(nodes)
    totals = dist.sum(axis=1)
    top = dist[np.arange(L), _max_class_rows(dist)]
    active = ~(sm(totals, 2 * ts.min_leaf) | eq(totals, top))
    chosen = np.full(L, -1, dtype=np.int64)
    if not active.any():
        return chosen
    act = np.flatnonzero(active)
    if act.size < L:
        cols, bounds = _columns_of(bounds, active)
        lists = lists.compress(cols, axis=1)
    gains, ratios, mids = _search(ts, data, lists, bounds, dist[act])
    best, best_ratio = _choose(gains, ratios)
    chosen[act] = best
    _attach_splits(ts, nodes, act, best, best_ratio, gains, mids)
    return chosen


def _split_level(
    ts: TrainingSet,
    w: np.ndarray,
    nodes: list,
    lists: np.ndarray,
    bounds: np.ndarray,
    split: np.ndarray,
    goes_left: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """The next level's ``lists, bounds, dist`` (children ``2 s``, ``2 s + 1`` of the ``s``-th
    ``split`` node) and each child's rows, weights and class counts."""
    K = ts.n_classes
    d = lists.shape[0] - 1
    split_nodes = np.flatnonzero(split).tolist()
    if len(split_nodes) < len(nodes):
        cols, bounds = _columns_of(bounds, split)
        lists = lists.compress(cols, axis=1)
    rows = lists[d]
    pos = np.repeat(np.arange(len(split_nodes)), np.diff(bounds))
    feat = np.array([nodes[i].split.feature for i in split_nodes], dtype=np.int64)
    thr = np.array([nodes[i].split.threshold for i in split_nodes])
    x = ts.X[rows, feat[pos]]
    t = thr[pos]
    goes_left[rows] = (x - t < SMALL) | (x <= t)
    lists, bounds = _partition(lists, bounds, goes_left)
    n_children = 2 * len(split_nodes)
    rows = lists[d].copy()  # nodes keep views of it, not of all lists
    row_w = w[rows]
    child_pos = np.repeat(np.arange(n_children), np.diff(bounds))
    dist = np.bincount(child_pos * K + ts.y[rows], weights=row_w, minlength=n_children * K)
    dist = dist.reshape(n_children, K)
    b = bounds.tolist()
    children = [(rows[b[c] : b[c + 1]], row_w[b[c] : b[c + 1]], dist[c]) for c in range(n_children)]
    return lists, bounds, dist, children


def _attach_splits(ts, nodes, act, best, best_ratio, gains, mids) -> None:
    """Give each node of ``act`` whose ``best`` attribute is not -1 its :class:`Split`."""
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
