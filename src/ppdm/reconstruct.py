"""Matrix-based reconstruction (Algorithm 2), by counting instead of sorting.

Algorithm 2 sorts the perturbed records on an attribute and hands the first ``Dist[1]``
value 1, the next ``Dist[2]`` value 2, and so on. Perturbed values are codes, so the sort
is a counting sort whose only freedom, the order inside a tie group, is uniformly random:
each tie group owns a fixed multiset of reconstructed codes (:func:`tie_group_multisets`),
handed out by every record's random key (:class:`RankTable`: files, batches, partitions)
or by hypergeometric draws (:class:`AssignmentState`: in memory).

References
----------
Dowd, Xu & Zhang, Sec. 4.1 (Algorithm 2); Agrawal & Srikant (2000), Sec. 4 (the
global and by-class reconstruction heuristics).
"""

from __future__ import annotations

import copy

import numpy as np

from . import limits
from .exceptions import DataError, ParameterError

__all__ = [
    "check_tie_group_table",
    "largest_remainder",
    "tie_group_multisets",
    "AssignmentState",
    "RankTable",
    "coarsen_buckets",
    "rank_bits",
    "rank_cells",
    "matrix_reconstruct",
]


def check_tie_group_table(n_classes: int, n_values: int, what: str = "attribute") -> None:
    """Refuse a reconstruction whose tie-group table exceeds ``MAX_TIE_GROUP_CELLS``;
    ``what`` names the attribute in the :class:`DataError` (e.g. ``"attribute 'age'"``)."""
    cells = int(n_classes) * int(n_values) ** 2
    if cells > limits.MAX_TIE_GROUP_CELLS:
        hint = "reconstruct globally or with fewer values" if n_classes > 1 else "use fewer values"
        raise DataError(
            f"{what}: N = {n_values} with {n_classes} class(es) needs a tie-group table of "
            f"{cells} cells, above the cap of {limits.MAX_TIE_GROUP_CELLS} "
            f"(ppdm.limits.MAX_TIE_GROUP_CELLS); {hint}"
        )


def largest_remainder(counts: np.ndarray, total: int) -> np.ndarray:
    """Integers summing to ``total`` that round non-negative ``counts`` by largest remainder.

    ``counts`` are clipped at 0 and scaled to ``total``; ties go to the lower index.
    """
    c = np.clip(np.asarray(counts, dtype=np.float64), 0, None)
    total = int(total)
    if total < 0:
        raise ParameterError(f"total must be >= 0 (got {total})")
    if total == 0:
        return np.zeros(len(c), dtype=np.int64)
    s = c.sum()
    with np.errstate(over="ignore"):
        factor = total / s if s > 0 else np.inf
    if np.isfinite(factor) and np.isfinite(s):
        scaled = c * factor
    else:  # subnormal or overflowing sums: scale by the largest count first
        top = c.max() if c.size else 0.0
        c = c / top if top > 0 else c
        s = c.sum()
        scaled = c * (total / s) if s > 0 else np.full(len(c), total / len(c))
    base = np.floor(scaled).astype(np.int64)
    short = total - int(base.sum())
    if short > 0:
        order = np.argsort(-(scaled - base), kind="stable")
        base[order[:short]] += 1
    return base


def tie_group_multisets(perturbed_counts: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Multiset of reconstructed codes owned by every tie group.

    ``R[v, i]`` is how many records of tie group ``v`` (perturbed code ``v``, sized by
    ``perturbed_counts``) get reconstructed code ``i`` (``dist``, the same total).
    """
    y = np.asarray(perturbed_counts, dtype=np.int64)
    d = np.asarray(dist, dtype=np.int64)
    if y.sum() != d.sum():
        raise DataError(f"group sizes sum to {y.sum()} but the distribution sums to {d.sum()}")
    # the rank ranges [cum y) and [cum d) overlap in at most 2N - 1 segments
    gy = np.concatenate([[0], np.cumsum(y)])
    gd = np.concatenate([[0], np.cumsum(d)])
    cuts = np.union1d(gy, gd)
    starts = cuts[:-1]
    out = np.zeros((len(y), len(d)), dtype=np.int64)
    groups = np.searchsorted(gy, starts, side="right") - 1
    codes = np.searchsorted(gd, starts, side="right") - 1
    out[groups, codes] = np.diff(cuts)
    return out


class AssignmentState:
    """What is left to hand out: the remaining multisets ``R[g, i]``, one row per tie
    group (for by-class reconstruction, one per (class, code))."""

    def __init__(self, multisets: np.ndarray) -> None:
        self.remaining = np.array(multisets, dtype=np.int64)

    def draw(self, groups: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Reconstructed codes for a batch of records with tie-group labels ``groups``."""
        groups = np.asarray(groups, dtype=np.int64)
        n_groups, n_codes = self.remaining.shape
        sizes = np.bincount(groups, minlength=n_groups)
        all_codes = np.arange(n_codes, dtype=np.int32)
        parts = []
        for g in np.flatnonzero(sizes):  # O(G) calls per batch, never per record
            left = self.remaining[g]
            total = int(left.sum())
            if sizes[g] > total:
                raise DataError(
                    f"tie group {g} has more records ({sizes[g]}) than the counts allow ({total})"
                )
            size = int(sizes[g])
            drawn = left.copy() if size == total else rng.multivariate_hypergeometric(left, size)
            left -= drawn
            parts.append(np.repeat(all_codes, drawn))  # the group's codes in code order
        # records in random order inside each group, groups in order
        perm = rng.permutation(len(groups))
        order = perm[_stable_group_order(groups, n_groups, perm)]
        out = np.empty(len(groups), dtype=np.int32)
        out[order] = np.concatenate(parts) if parts else np.empty(0, dtype=np.int32)
        return out


def _stable_group_order(groups: np.ndarray, n_groups: int, perm: np.ndarray) -> np.ndarray:
    """``argsort(groups[perm], kind="stable")``, a radix sort (O(n)) on labels held in
    8 or 16 bits."""
    width = np.uint8 if n_groups <= 1 << 8 else np.uint16 if n_groups <= 1 << 16 else groups.dtype
    return np.argsort(groups.astype(width, copy=False)[perm], kind="stable")


#: Largest table of buckets whose records are counted again cell by cell while drawing.
MAX_CHECKED_CELLS = 1 << 20

#: Most bits of a record's rank key that bucket it (see :func:`rank_bits`).
MAX_RANK_BITS = 12

#: Most (class, code, bucket) cells of one attribute's count table (see :func:`rank_bits`).
MAX_RANK_CELLS = 1 << 20


def rank_bits(n_values: int, n_classes: int = 1) -> int:
    """Bits of the rank key that bucket a tie group's records: about 64 buckets per code.

    A group gets at most ``2**MAX_RANK_BITS`` buckets, an attribute's groups at most
    ``MAX_RANK_CELLS`` together; coarser buckets straddle more codes, and their records
    (about ``(N - 1) / 2**bits`` of them) take a random arrangement held in memory.

    Examples
    --------
    >>> rank_bits(2), rank_bits(20), rank_bits(1000), rank_bits(20, n_classes=2000)
    (7, 11, 10, 4)
    """
    groups = max(int(n_values), 1) * max(int(n_classes), 1)
    want = int(np.ceil(np.log2(64 * max(int(n_values), 1))))
    cap = int(np.floor(np.log2(max(MAX_RANK_CELLS // groups, 1))))
    return max(0, min(want, MAX_RANK_BITS, cap))


def coarsen_buckets(table: np.ndarray, bits_from: int, bits_to: int) -> np.ndarray:
    """A count table over ``2**bits_from`` key buckets per group, over ``2**bits_to``.

    A bucket is the top bits of a key, so bucket ``b`` at ``bits_to`` sums buckets
    ``b * 2**k .. (b + 1) * 2**k - 1`` at ``bits_from = bits_to + k``.
    """
    if bits_to > bits_from:
        raise ParameterError(f"cannot refine buckets from {bits_from} to {bits_to} bits")
    if bits_to == bits_from:
        return table
    f = 1 << (bits_from - bits_to)
    return table.reshape(*table.shape[:-1], table.shape[-1] // f, f).sum(axis=-1)


def rank_cells(groups: np.ndarray, keys: np.ndarray, bits: int, n_groups: int) -> np.ndarray:
    """Cell of every record: its tie group (``< n_groups``) and the top ``bits`` of its key."""
    wide = (int(n_groups) << bits) > 1 << 32
    cells = np.asarray(groups).astype(np.int64 if wide else np.uint32)
    if bits:
        cells <<= bits
        cells |= np.asarray(keys, dtype=np.uint32) >> np.uint32(32 - bits)
    return cells


class RankTable:
    """Algorithm 2 addressed by row: ties broken by every record's own random key.

    Sorting on (perturbed code, random key) is Algorithm 2 with uniform tie breaking.
    The count pass's ``hist`` (records per tie group and key bucket) fixes a record's
    rank up to its bucket: a bucket inside one code's rank range hands out that code, one
    that straddles codes hands out its codes in a random arrangement (from ``rng``) in
    record order. A record's code does not depend on batches or partitions.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 4.1 (Algorithm 2, random tie breaking).
    """

    def __init__(self, multisets: np.ndarray, hist: np.ndarray, rng: np.random.Generator) -> None:
        multisets = np.asarray(multisets, dtype=np.int64)
        hist = np.asarray(hist, dtype=np.int64)
        n_groups, n_codes = multisets.shape
        n_buckets = hist.shape[1]
        self.bits = int(n_buckets).bit_length() - 1
        if hist.shape[0] != n_groups or n_buckets != 1 << self.bits:
            raise ParameterError(f"hist must have shape ({n_groups}, 2**bits) (got {hist.shape})")
        sizes = hist.sum(axis=1)
        if not np.array_equal(multisets.sum(axis=1), sizes):
            raise DataError("the tie groups' multisets do not add up to the counted records")
        base = np.cumsum(sizes) - sizes  # rank of every group's first record, all groups
        cell_start = (base[:, None] + np.cumsum(hist, axis=1) - hist).ravel()
        code_start = (base[:, None] + np.cumsum(multisets, axis=1) - multisets).ravel()
        h = hist.ravel()
        filled = np.flatnonzero(h)
        first = np.searchsorted(code_start, cell_start[filled], side="right") - 1
        last = np.searchsorted(code_start, cell_start[filled] + h[filled] - 1, side="right") - 1
        self.table = np.zeros(len(h), dtype=np.int32)  # code, or -(slot + 1) if straddling
        self.table[filled] = first % n_codes
        straddle = filled[first != last]
        self.table[straddle] = -1 - np.arange(len(straddle), dtype=np.int32)
        self.straddle = straddle
        lengths = h[straddle]
        self.slot_start = np.cumsum(lengths) - lengths
        self.slot_size = lengths
        self.seen = np.zeros(len(straddle), dtype=np.int64)
        ranks = np.repeat(cell_start[straddle] - self.slot_start, lengths) + np.arange(
            int(lengths.sum())
        )
        codes = (np.searchsorted(code_start, ranks, side="right") - 1) % n_codes
        slots = np.repeat(np.arange(len(straddle)), lengths)
        order = np.lexsort((rng.random(len(slots)), slots))  # shuffle inside every slot
        self.arrangement = codes[order].astype(np.int32)
        self.cells_total = h
        self.cells_left = h.copy()
        self.left = sizes.copy()

    def after(self, before: np.ndarray, expected: np.ndarray | None = None) -> RankTable:
        """A fresh copy that starts after records counted elsewhere (earlier partitions).

        ``before`` (G, 2**bits) counts the records per cell that come before; with
        ``expected``, the records per cell this copy will be given (a partition's own
        count pass), it holds only its part of the straddling codes and checks its
        records per tie group, else all the records after ``before``, checked per cell.
        """
        before = np.asarray(before, dtype=np.int64).reshape(-1)
        if before.shape != self.table.shape:
            raise ParameterError(f"before must have {self.table.size} cells (got {before.size})")
        total = self.cells_total if expected is None else before + np.ravel(expected)
        if total.shape != self.table.shape or (total > self.cells_total).any():
            raise DataError("the partitions' bucket counts do not add up to the count pass")
        out = copy.copy(self)
        out.cells_total = None  # only a table built from the count pass hands out copies
        start = before[self.straddle]
        size = total[self.straddle] - start
        # the straddling buckets' codes of this part only, slot after slot
        out.slot_size = size
        out.slot_start = np.cumsum(size) - size
        take = np.repeat(self.slot_start + self.seen + start - out.slot_start, size)
        out.arrangement = self.arrangement[take + np.arange(int(size.sum()))]
        out.seen = np.zeros_like(size)
        cells = total - before
        out.left = cells.reshape(len(self.left), -1).sum(axis=1)
        out.cells_left = cells if expected is None else None
        return out

    def fresh(self) -> RankTable:
        """A copy with its own counters (a task that may run twice draws from a copy)."""
        out = copy.copy(self)
        out.seen, out.left = self.seen.copy(), self.left.copy()
        out.cells_left = None if self.cells_left is None else self.cells_left.copy()
        return out

    def finish(self) -> None:
        """Refuse a run that drew fewer records than it was given."""
        if self.left.any():
            raise DataError(
                "the records differ from the count pass (fewer records than were "
                "counted); the data changed between the two passes"
            )

    def draw(self, groups: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """Reconstructed codes of the next records, given their tie groups and keys."""
        groups = np.asarray(groups)
        if len(groups) and (groups.min() < 0 or groups.max() >= len(self.left)):
            raise DataError(f"tie groups must lie in 0..{len(self.left) - 1}")
        cells = rank_cells(groups, keys, self.bits, len(self.left))
        # records left per cell (small tables) or per tie group: a record the count pass
        # did not see, or saw in another bucket, is refused rather than miscounted
        per_cell = self.cells_left is not None and len(self.cells_left) <= MAX_CHECKED_CELLS
        if per_cell:
            found = np.bincount(cells, minlength=len(self.cells_left))
            self.cells_left -= found
            self.left -= found.reshape(len(self.left), -1).sum(axis=1)
        else:
            self.left -= np.bincount(groups, minlength=len(self.left))
        if (self.left < 0).any() or (per_cell and (self.cells_left < 0).any()):
            raise DataError(
                "the records differ from the count pass (more records in a tie group or "
                "key bucket than were counted); the data changed between the two passes"
            )
        out = self.table[cells]
        straddling = np.flatnonzero(out < 0)
        if straddling.size:
            slots = -1 - out[straddling].astype(np.int64)
            order = np.argsort(slots, kind="stable")
            s = slots[order]
            counts = np.bincount(slots, minlength=len(self.seen))
            first = np.cumsum(counts) - counts
            pos = self.slot_start[s] + self.seen[s] + np.arange(len(s)) - first[s]
            self.seen += counts
            if (self.seen > self.slot_size).any():
                raise DataError(
                    "the records differ from the count pass (their random keys fall "
                    "elsewhere); the data changed between the two passes"
                )
            out[straddling[order]] = self.arrangement[pos]
        return out


def matrix_reconstruct(
    codes: np.ndarray,
    dist: np.ndarray,
    rng: np.random.Generator,
    *,
    classes: np.ndarray | None = None,
    batch_size: int | None = None,
) -> np.ndarray:
    """Algorithm 2 on one attribute held in memory.

    ``dist`` holds the integer reconstructed counts, one row per class of ``classes`` for
    by-class reconstruction; the reconstructed codes have exactly these counts.
    """
    codes = np.asarray(codes, dtype=np.int64)
    dist = np.atleast_2d(np.asarray(dist, dtype=np.int64))
    n_classes, n_codes = dist.shape
    check_tie_group_table(n_classes, n_codes, "dist")
    if classes is None and n_classes != 1:
        raise ParameterError("a per-class distribution needs the class codes")
    groups = codes if classes is None else np.asarray(classes, dtype=np.int64) * n_codes + codes
    y = np.bincount(groups, minlength=n_classes * n_codes).reshape(n_classes, n_codes)
    multisets = np.concatenate([tie_group_multisets(y[c], dist[c]) for c in range(n_classes)])
    size = max(len(codes) if batch_size is None else int(batch_size), 1)
    state = AssignmentState(multisets)
    out = [state.draw(groups[i : i + size], rng) for i in range(0, len(groups), size)]
    return np.concatenate(out) if out else np.empty(0, dtype=np.int32)
