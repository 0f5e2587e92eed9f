"""Split criteria of C4.5: entropy, information gain, split information, gain ratio.

Every function takes class-count arrays, weighted or fractional: the last axis holds
classes, the one before it the branches ("bags") of a split; leading axes broadcast.
Unknown values are treated as J48 does (docs/tree.md).

References
----------
Quinlan, J. R. (1993). C4.5: Programs for Machine Learning, ch. 2 and 8.
Weka J48 (``InfoGainSplitCrit``, ``GainRatioSplitCrit``), Weka 3.6.
"""

from __future__ import annotations

import numpy as np

from ._compare import eq

__all__ = ["entropy", "info_gain", "split_info", "gain_ratio"]

_LN2 = np.log(2.0)


def xlog2x(x):
    """``x * log2(x)``, taken as 0 below 1e-6 (Weka's ``logFunc``)."""
    x = np.asarray(x, dtype=float)
    out = x * np.log(np.maximum(x, 1e-300)) / _LN2
    if out.ndim == 0:
        return out if x >= 1e-6 else np.float64(0.0)
    out[x < 1e-6] = 0.0
    return out


def total_entropy(counts):
    """Entropy of a class distribution times its total weight, in bits (``oldEnt``)."""
    counts = np.asarray(counts, dtype=float)
    return xlog2x(counts.sum(axis=-1)) - xlog2x(counts).sum(axis=-1)


def split_entropy(bag_counts):
    """Weighted class entropy after a split, times the total weight (``newEnt``)."""
    bag_counts = np.asarray(bag_counts, dtype=float)
    return xlog2x(bag_counts.sum(axis=-1)).sum(axis=-1) - xlog2x(bag_counts).sum(axis=(-2, -1))


def entropy(counts) -> np.ndarray | float:
    """Class entropy ``-sum(p log2 p)`` of class counts, in bits per instance (0 if empty).

    References
    ----------
    Quinlan (1993), C4.5, sec. 2.2, ``info(T)``.
    """
    counts = np.asarray(counts, dtype=float)
    total = counts.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(total > 0, total_entropy(counts) / np.where(total > 0, total, 1), 0.0)
    return out[()] if out.ndim == 0 else out


def info_gain(bag_counts, total_weight=None, parent_entropy=None) -> np.ndarray | float:
    """Information gain ``F * (info(T) - info_X(T))`` in bits per known instance, ``F`` the
    known fraction; 0 when the numerator is below 1e-6.

    ``total_weight``: the node's weight, unknowns included (default: the known weight);
    ``parent_entropy``: ``total_entropy`` of the known instances, if already computed.

    References
    ----------
    Quinlan (1993), C4.5, sec. 2.2 and 3.1; Weka J48 ``InfoGainSplitCrit``.
    """
    bag_counts = np.asarray(bag_counts, dtype=float)
    known = bag_counts.sum(axis=(-2, -1))
    if total_weight is None:
        total_weight = known
    if parent_entropy is None:
        parent_entropy = total_entropy(bag_counts.sum(axis=-2))
    total_weight = np.asarray(total_weight, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        unknown_rate = (total_weight - known) / total_weight
        numerator = (parent_entropy - split_entropy(bag_counts)) * (1 - unknown_rate)
        out = np.where(eq(numerator, 0) | (known <= 0), 0.0, numerator / known)
    return out[()] if out.ndim == 0 else out


def split_info(bag_counts, total_weight=None) -> np.ndarray | float:
    """Split information times the total weight, unknowns as an extra branch.

    ``-sum(n_i log2 n_i) - n_? log2 n_? + N log2 N`` (Weka's ``splitEnt``);
    ``total_weight`` defaults to the known weight.

    References
    ----------
    Quinlan (1993), C4.5, sec. 2.2 (``split info``) and 3.1.
    """
    bag_counts = np.asarray(bag_counts, dtype=float)
    bags = bag_counts.sum(axis=-1)
    known = bags.sum(axis=-1)
    if total_weight is None:
        total_weight = known
    total_weight = np.asarray(total_weight, dtype=float)
    out = (
        np.where(known > 1e-6, -xlog2x(bags).sum(axis=-1), 0.0)
        - xlog2x(total_weight - known)
        + xlog2x(total_weight)
    )
    return out[()] if out.ndim == 0 else out


def gain_ratio(bag_counts, total_weight=None, gain=None) -> np.ndarray | float:
    """Information gain over split information, per instance; 0 where the latter is 0.

    ``total_weight`` defaults to the known weight, ``gain`` (e.g. after J48's MDL
    correction) to :func:`info_gain`.

    References
    ----------
    Quinlan (1993), C4.5, sec. 2.2; Weka J48 ``GainRatioSplitCrit``.
    """
    bag_counts = np.asarray(bag_counts, dtype=float)
    if total_weight is None:
        total_weight = bag_counts.sum(axis=(-2, -1))
    if gain is None:
        gain = info_gain(bag_counts, total_weight)
    total_weight = np.asarray(total_weight, dtype=float)
    denominator = split_info(bag_counts, total_weight)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(eq(denominator, 0), 0.0, gain / (denominator / total_weight))
    return out[()] if out.ndim == 0 else out
