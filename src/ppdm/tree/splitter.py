"""C4.5's split search: binary thresholds on numeric attributes, multiway splits on
categorical ones, and J48's choice among them (its rules are listed on docs/tree.md).

The class counts left of every boundary come from sorting the node's rows per
attribute or, for attributes with few distinct values, from one ``bincount`` over
value ranks (the same numbers); one vectorised scorer applies J48's rules to them.

References
----------
Quinlan, J. R. (1993). C4.5: Programs for Machine Learning, sec. 2.2-2.4.
Quinlan, J. R. (1996). Improved use of continuous attributes in C4.5. JAIR 4.
Weka J48 (``C45Split``, ``C45ModelSelection``), Weka 3.6.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._compare import SMALL, eq, first_best, gr, gr_or_eq, sm, sm_or_eq
from .criterion import gain_ratio, info_gain, total_entropy, xlog2x

__all__ = ["Split", "TrainingSet", "find_split", "partition", "score_candidates"]

#: Attributes with fewer distinct values than this fraction of the node's rows
#: take the histogram path.
HISTOGRAM_FRACTION = 0.25
#: ... and never more distinct values than this.
HISTOGRAM_MAX_VALUES = 65536


@dataclass
class Split:
    """The test chosen at a node: category codes if ``categorical``, else ``x <= threshold``
    (NaN for a categorical split); ``gain`` is after the MDL correction."""

    feature: int
    categorical: bool
    threshold: float
    n_branches: int
    gain: float
    gain_ratio: float


class TrainingSet:
    """Encoded training data with the per-attribute lookup tables the splitter needs.

    ``X`` holds numeric values and category codes (as floats), NaN for a missing value;
    ``y`` class codes; ``n_categories`` the declared categories per column (0: numeric).
    """

    def __init__(self, X, y, categorical, n_categories, n_classes, min_leaf, use_mdl_correction):
        self.X = X
        self.y = y
        self.n_classes = int(n_classes)
        self.min_leaf = min_leaf
        self.use_mdl = use_mdl_correction
        self.categorical = np.asarray(categorical, dtype=bool)
        self.n_instances = X.shape[0]
        self.num_cols = np.flatnonzero(~self.categorical)
        self.cat_cols = np.flatnonzero(self.categorical)
        # numeric: rank codes into the sorted distinct values; missing -> U (sorts last)
        self.uniques = []
        codes = np.empty((X.shape[0], self.num_cols.size), dtype=np.int32)
        for k, j in enumerate(self.num_cols):
            col = X[:, j]
            known = ~np.isnan(col)
            u, inv = _rank_codes(col[known])
            self.uniques.append(u)
            codes[:, k] = u.size
            codes[known, k] = inv
        self.num_codes = codes
        # attribute-major copy for the sort path; 16-bit codes let numpy radix-sort
        small = codes.size == 0 or int(codes.max(initial=0)) < np.iinfo(np.int16).max
        self.num_codes_t = np.ascontiguousarray(codes.T, dtype=np.int16 if small else np.int32)
        self.num_U = np.array([u.size for u in self.uniques], dtype=np.int64)
        self.num_off = np.concatenate(([0], np.cumsum(self.num_U + 1)[:-1])).astype(np.int64)
        self.num_table = (
            np.concatenate([np.append(u, np.nan) for u in self.uniques])
            if self.uniques
            else np.empty(0)
        )
        # padded value table for the histogram path (attributes with few values)
        self.hist_ok = self.num_U <= HISTOGRAM_MAX_VALUES
        width = int(self.num_U[self.hist_ok].max()) + 1 if self.hist_ok.any() else 1
        self.hist_table = np.full((self.num_cols.size, width), np.nan)
        for k in np.flatnonzero(self.hist_ok):
            self.hist_table[k, : self.num_U[k]] = self.uniques[k]
        # categorical: codes, missing -> V
        self.cat_V = np.asarray(n_categories, dtype=np.int64)[self.cat_cols]
        cc = X[:, self.cat_cols]
        self.cat_codes = np.where(np.isnan(cc), self.cat_V, np.nan_to_num(cc)).astype(np.int32)
        n_values = np.where(self.categorical, np.asarray(n_categories), 0)
        # J48 leaves many-valued categorical attributes out of the average gain,
        # unless every attribute is one of them.
        self.many_valued = self.categorical & (n_values >= 0.3 * self.n_instances)
        cat_present = [np.unique(self.cat_codes[:, k]) for k in range(self.cat_cols.size)]
        self.n_informative = int((self.num_U > 1).sum()) + sum(
            int((p < v).sum() > 1) for p, v in zip(cat_present, self.cat_V)
        )
        self.all_many_valued = bool(self.many_valued.all())

    def num_order(self, cols: np.ndarray | None = None) -> np.ndarray:
        """Per numeric attribute (positions ``cols`` in ``num_cols``, default all), the rows
        sorted by value (stable; missing last)."""
        codes = self.num_codes_t if cols is None else self.num_codes_t[cols]
        if codes.dtype.itemsize <= 2:  # NumPy radix-sorts 16-bit keys
            return np.argsort(codes, axis=1, kind="stable")
        # wider codes: sort (code, row) keys, unique, so any sort is stable
        n = codes.shape[1]
        keys = codes.astype(np.int64) * n + np.arange(n)
        keys.sort(axis=1)
        return keys % n

    def snap_threshold(self, feature: int, midpoint: float) -> float:
        """Largest training value of ``feature`` not above ``midpoint`` (J48's split point)."""
        u = self.uniques[int(np.searchsorted(self.num_cols, feature))]
        pos = int(np.searchsorted(u, midpoint + SMALL, side="left")) - 1
        return float(u[max(pos, 0)])


def _rank_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)``, sorting only the distinct values (by
    hashing; -0.0 beside 0.0 is left to ``np.unique``)."""
    codes, uniques = pd.factorize(values, sort=False)
    if np.signbit(values[values == 0]).any():
        return np.unique(values, return_inverse=True)
    order = np.argsort(uniques)
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return np.asarray(uniques)[order], rank[codes]


def _min_split(known_weight, n_classes, min_leaf):
    ms = 0.1 * known_weight / n_classes
    return np.where(sm_or_eq(ms, min_leaf), float(min_leaf), np.where(gr(ms, 25.0), 25.0, ms))


def _best_per_group(values, group, n_groups):
    """Per group, the flat index J48's ``if gr(v, best)`` scan (from 0) ends on, or -1;
    ``group`` must be sorted (candidates grouped by attribute, in scan order)."""
    out = np.full(n_groups, -1, dtype=np.int64)
    if values.size == 0:
        return out
    starts = np.flatnonzero(np.concatenate(([True], group[1:] != group[:-1])))
    present = group[starts]
    gmax = np.maximum.reduceat(values, starts)
    top = np.repeat(gmax, np.diff(np.append(starts, values.size)))
    exact = values == top
    near = values >= top - 1e-5
    n_exact = np.add.reduceat(exact.astype(np.int64), starts)
    n_near = np.add.reduceat(near.astype(np.int64), starts)
    exact_idx = np.flatnonzero(exact)
    ge = group[exact_idx]
    first = exact_idx[np.concatenate(([True], ge[1:] != ge[:-1]))]
    simple = n_exact == n_near
    out[present[simple]] = first[simple]
    for k in np.flatnonzero(~simple):
        lo = starts[k]
        hi = starts[k + 1] if k + 1 < starts.size else values.size
        j = first_best(values[lo:hi], 0.0)
        out[present[k]] = lo + j if j >= 0 else -1
    out[present[~(gmax > SMALL)]] = -1
    return out


def _class_sum(counts_t: np.ndarray) -> np.ndarray:
    """``counts_t.T.sum(axis=1)`` of class-major ``counts_t``, the same numbers without a
    reduction along a short axis."""
    K = counts_t.shape[0]
    if K > 7:
        return np.ascontiguousarray(counts_t.T).sum(axis=1)
    out = counts_t[0] + counts_t[1] if K > 1 else counts_t[0].copy()
    for k in range(2, K):
        out += counts_t[k]
    return out


def score_candidates(
    ts: TrainingSet,
    g: int,
    group: np.ndarray,
    left: np.ndarray,
    lval: np.ndarray,
    rval: np.ndarray,
    known: np.ndarray,
    n_known: np.ndarray,
    total_weight: np.ndarray,
    log_table: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best threshold per group (a numeric column at a node) from its boundary candidates:
    gains (after the MDL correction), gain ratios and midpoints, NaN where none is valid.

    Parameters
    ----------
    group : ndarray of int
        Each candidate's group among ``g``, sorted (scan order within a group).
    left : ndarray of shape (n_candidates, n_classes)
        Known class counts left of each boundary (fastest as the transpose of a
        C-ordered array); ``lval``, ``rval`` the values on its two sides.
    known, n_known, total_weight : ndarray
        Per group: known class counts, rows with a known value, and the weight of
        all the node's rows, unknowns included.
    log_table : ndarray, optional
        ``xlog2x(arange(N + 1))`` for integer counts, looked up instead of computed.
    """
    K = ts.n_classes
    gains = np.full(g, np.nan)
    ratios = np.full(g, np.nan)
    mids = np.full(g, np.nan)
    known_w = known.sum(axis=1)
    min_split = _min_split(known_w, K, ts.min_leaf)
    enough = ~sm(n_known, 2 * min_split)
    lt = left.T  # class-major: one contiguous row per class when built so
    lw = _class_sum(lt)
    ms = min_split[group]
    kwg = known_w[group]
    valid = enough[group] & gr_or_eq(lw, ms) & gr_or_eq(kwg - lw, ms)
    if not valid.all():
        group, lt, lval, rval, lw, kwg = (
            group[valid],
            lt[:, valid],
            lval[valid],
            rval[valid],
            lw[valid],
            kwg[valid],
        )
    if group.size == 0:
        return gains, ratios, mids
    n_cand = np.bincount(group, minlength=g)
    rt = np.take(np.ascontiguousarray(known.T), group, axis=1) - lt
    xl = xlog2x if log_table is None else log_table.__getitem__
    new_ent = xl(lw) + xl(kwg - lw) - _class_sum(xl(lt)) - _class_sum(xl(rt))
    old_ent = total_entropy(known)[group]
    twg = total_weight[group]
    numerator = (old_ent - new_ent) * (1 - (twg - kwg) / twg)
    cand_gain = np.where(eq(numerator, 0), 0.0, numerator / kwg)
    best = _best_per_group(cand_gain, group, g)
    c = np.flatnonzero(best >= 0)
    if c.size == 0:
        return gains, ratios, mids
    b = best[c]
    gain = cand_gain[b]
    if ts.use_mdl:
        gain = gain - np.log2(n_cand[c]) / total_weight[c]
    keep = ~sm_or_eq(gain, 0.0)
    c, b, gain = c[keep], b[keep], gain[keep]
    left_b = np.ascontiguousarray(lt[:, b].T)
    bags = np.stack([left_b, known[c] - left_b], axis=1)
    gains[c] = gain
    ratios[c] = gain_ratio(bags, total_weight[c], gain)
    mid = (lval[b] + rval[b]) / 2
    mids[c] = np.where(mid == rval[b], lval[b], mid)
    return gains, ratios, mids


def _numeric_sorted(ts, sel, idx, y, w, total_weight):
    g = np.count_nonzero(sel)
    onehot = np.zeros((idx.size, ts.n_classes))
    onehot[np.arange(idx.size), y] = w
    codes = np.take(ts.num_codes_t if sel.all() else ts.num_codes_t[sel], idx, axis=1)  # (g, m)
    U = ts.num_U[sel]
    order = np.argsort(codes, axis=1, kind="stable")
    sc = np.take_along_axis(codes, order, axis=1)
    sv = ts.num_table[ts.num_off[sel][:, None] + sc]
    cum = np.cumsum(onehot[order], axis=1)  # (g, m, K)
    n_known = (codes < U[:, None]).sum(axis=1)
    known = np.where((n_known > 0)[:, None], cum[np.arange(g), np.maximum(n_known - 1, 0)], 0.0)
    with np.errstate(invalid="ignore"):
        boundary = sv[:, :-1] + 1e-5 < sv[:, 1:]
    gi, pi = np.nonzero(boundary)
    total = np.full(g, total_weight)
    return score_candidates(
        ts, g, gi, cum[gi, pi], sv[gi, pi], sv[gi, pi + 1], known, n_known, total
    )


def _numeric_histogram(ts, sel, idx, y, w, total_weight):
    g = np.count_nonzero(sel)
    K = ts.n_classes
    U = ts.num_U[sel]
    umax = int(U.max())
    if umax == 0:  # no known value in any of these columns (all missing): no split
        return np.full(g, np.nan), np.full(g, np.nan), np.full(g, np.nan)
    codes = ts.num_codes[np.ix_(idx, np.flatnonzero(sel))]
    codes = np.where(codes >= U, umax, codes)
    slot = np.arange(g) * (umax + 1) + codes  # (m, g)
    hist = np.bincount(
        (slot * K + y[:, None]).ravel(), weights=np.repeat(w, g), minlength=g * (umax + 1) * K
    ).reshape(g, umax + 1, K)[:, :umax]
    counts = np.bincount(slot.ravel(), minlength=g * (umax + 1)).reshape(g, umax + 1)[:, :umax]
    present = counts > 0
    n_known = counts.sum(axis=1)
    table = ts.hist_table[sel, : umax + 1]
    pos = np.where(present, np.arange(umax), umax)
    nxt = np.minimum.accumulate(pos[:, ::-1], axis=1)[:, ::-1]
    nxt = np.concatenate([nxt[:, 1:], np.full((g, 1), umax)], axis=1)
    rows = np.arange(g)[:, None]
    with np.errstate(invalid="ignore"):
        boundary = present & (nxt < umax) & (table[:, :umax] + 1e-5 < table[rows, nxt])
    cum = np.cumsum(hist, axis=1)
    gi, ui = np.nonzero(boundary)
    return score_candidates(
        ts,
        g,
        gi,
        cum[gi, ui],
        table[gi, ui],
        table[gi, nxt[gi, ui]],
        cum[:, -1],
        n_known,
        np.full(g, total_weight),
    )


def _categorical(ts, idx, y, w, total_weight):
    c = ts.cat_cols.size
    K = ts.n_classes
    vmax = int(ts.cat_V.max())
    codes = ts.cat_codes[idx]
    codes = np.where(codes >= ts.cat_V, vmax, codes)
    slot = np.arange(c) * (vmax + 1) + codes
    bags = np.bincount(
        (slot * K + y[:, None]).ravel(), weights=np.repeat(w, c), minlength=c * (vmax + 1) * K
    ).reshape(c, vmax + 1, K)[:, :vmax]
    ok = gr_or_eq(bags.sum(axis=2), ts.min_leaf).sum(axis=1) > 1
    gains = info_gain(bags, total_weight)
    ratios = gain_ratio(bags, total_weight, gains)
    return np.where(ok, gains, np.nan), np.where(ok, ratios, np.nan)


def find_split(ts: TrainingSet, idx: np.ndarray, w: np.ndarray) -> Split | None:
    """J48's split at a node holding rows ``idx`` with weights ``w``, or None for a leaf.

    References
    ----------
    Weka J48 ``C45ModelSelection.selectModel``; Quinlan (1993), sec. 2.2.
    """
    K = ts.n_classes
    y = ts.y[idx]
    dist = np.bincount(y, weights=w, minlength=K)
    total = float(dist.sum())
    if sm(total, 2 * ts.min_leaf) or eq(total, dist[_max_class(dist)]):
        return None
    d = ts.X.shape[1]
    gains = np.full(d, np.nan)
    ratios = np.full(d, np.nan)
    thresholds = np.full(d, np.nan)
    if ts.num_cols.size:
        hist_sel = ts.hist_ok & (ts.num_U < HISTOGRAM_FRACTION * idx.size)
        for sel, search in ((hist_sel, _numeric_histogram), (~hist_sel, _numeric_sorted)):
            if sel.any():
                cols = ts.num_cols[sel]
                gains[cols], ratios[cols], thresholds[cols] = search(ts, sel, idx, y, w, total)
    if ts.cat_cols.size:
        gains[ts.cat_cols], ratios[ts.cat_cols] = _categorical(ts, idx, y, w, total)
    valid = ~np.isnan(gains)
    counted = valid & (~ts.many_valued | ts.all_many_valued)
    if not counted.any():
        return None
    average = np.cumsum(gains[counted])[-1] / np.count_nonzero(counted)  # summed in order, as J48
    best, best_ratio = -1, 0.0
    for j in np.flatnonzero(valid & (gains >= average - 1e-3)):
        if ratios[j] - best_ratio > SMALL:
            best, best_ratio = int(j), float(ratios[j])
    if best < 0 or eq(best_ratio, 0.0):
        return None
    cat = bool(ts.categorical[best])
    n_branches = int(ts.cat_V[np.searchsorted(ts.cat_cols, best)]) if cat else 2
    threshold = np.nan if cat else ts.snap_threshold(best, float(thresholds[best]))
    return Split(best, cat, threshold, n_branches, float(gains[best]), best_ratio)


def _max_class(dist) -> int:
    """First class whose count beats all earlier ones by more than 1e-6 (``maxClass``)."""
    best, top = 0, 0.0
    for k, v in enumerate(dist.tolist() if isinstance(dist, np.ndarray) else dist):
        if v - top > SMALL:
            best, top = k, v
    return best


def branch_of(x: np.ndarray, categorical: bool, threshold: float) -> np.ndarray:
    """Branch index of known values ``x``: category code, or 0 if ``x <= threshold`` (1e-6)."""
    if categorical:
        return x.astype(np.int64)
    return np.where(sm_or_eq(x, threshold), 0, 1)


def partition(
    X: np.ndarray, split: Split, idx: np.ndarray, w: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray]]:
    """One ``(idx, w)`` per branch of ``split``; a row with a missing value goes to every
    branch, its weight times the branch's share of the known weight (shares <= 1e-6 dropped).

    References
    ----------
    Quinlan (1993), C4.5, sec. 3.1; Weka J48 ``ClassifierSplitModel.split``.
    """
    categorical, threshold, n_branches = split.categorical, split.threshold, split.n_branches
    x = X[idx, split.feature]
    known = ~np.isnan(x)
    if known.all():
        if not categorical:
            left = (x - threshold < SMALL) | (x <= threshold)
            right = ~left
            return [(idx[left], w[left]), (idx[right], w[right])]
        codes = x.astype(np.int64)
        order = np.argsort(codes, kind="stable")
        ends = np.cumsum(np.bincount(codes, minlength=n_branches))[:-1]
        return list(zip(np.split(idx[order], ends), np.split(w[order], ends)))
    b = np.full(idx.size, -1, dtype=np.int64)
    b[known] = branch_of(x[known], categorical, threshold)
    bag = np.bincount(b[known], weights=w[known], minlength=n_branches)
    total = bag.sum()
    share = np.full(n_branches, 1.0 / n_branches) if eq(total, 0.0) else bag / total
    miss = np.flatnonzero(~known)
    out = []
    for k in range(n_branches):
        sel = np.flatnonzero(b == k)
        if miss.size and share[k] > SMALL:
            sel_idx = np.concatenate([idx[sel], idx[miss]])
            sel_w = np.concatenate([w[sel], w[miss] * share[k]])
        else:
            sel_idx, sel_w = idx[sel], w[sel]
        out.append((sel_idx, sel_w))
    return out
