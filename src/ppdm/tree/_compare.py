"""Weka's comparisons within 1e-6 (``weka.core.Utils.SMALL``), vectorised; ppdm breaks
ties with them wherever J48 does."""

from __future__ import annotations

import numpy as np

SMALL = 1e-6


def gr(a, b):
    """``a`` is greater than ``b`` by more than ``SMALL``."""
    return np.asarray(a) - b > SMALL


def sm(a, b):
    """``a`` is smaller than ``b`` by more than ``SMALL``."""
    return b - np.asarray(a) > SMALL


def eq(a, b):
    """``a`` equals ``b`` within ``SMALL``."""
    a = np.asarray(a)
    return (a == b) | ((a - b < SMALL) & (b - a < SMALL))


def gr_or_eq(a, b):
    """``a >= b`` within ``SMALL``."""
    a = np.asarray(a)
    return (b - a < SMALL) | (a >= b)


def sm_or_eq(a, b):
    """``a <= b`` within ``SMALL``."""
    a = np.asarray(a)
    return (a - b < SMALL) | (a <= b)


def first_best(values, start: float = 0.0) -> int:
    """Index J48's sequential scan ``if gr(v, best): best = v`` ends on, or -1.

    Only strict running maxima within 1e-5 of the maximum can be the last pick, so the
    loop runs over a handful of entries.
    """
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return -1
    v = np.where(np.isnan(v), -np.inf, v)
    top = v.max()
    if not top - start > SMALL:
        return -1
    prev = np.concatenate(([-np.inf], np.maximum.accumulate(v)[:-1]))
    records = np.flatnonzero(v > prev)
    near = records[v[records] >= top - 1e-5]
    below = records[v[records] < top - 1e-5]
    best = max(start, v[below[-1]]) if below.size and v[below[-1]] - start > SMALL else start
    pick = -1
    for i in near:
        if v[i] - best > SMALL:
            best = v[i]
            pick = int(i)
    if pick < 0 and below.size:
        pick = int(below[-1])
    return pick
