"""Conditional Kullback-Leibler (CKL) distance between two parameter sets of a network.

``D(X_i) = sum_j P(pa_i = j) KL(P0(X_i | pa_i = j) || P1(X_i | pa_i = j))``, in nats, with
``P(pa_i = j)`` the parents' configuration frequencies in a reference data set.

References
----------
Ma & Sivakumar, Sec. 6.2 (the CKL distance of Fig. 4 and Fig. 5).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..exceptions import DataError, ParameterError, SpecError
from .estimation import family_counts
from .network import BayesNet

__all__ = [
    "kl_divergence",
    "conditional_kl",
    "parent_weights",
    "ckl_per_node",
    "infinite_ckl_cause",
]


def kl_divergence(p: np.ndarray, q: np.ndarray, axis: int = 0) -> np.ndarray:
    """KL(p || q) along ``axis``, in nats: 0 log 0 = 0, and inf where q = 0 < p."""
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * (np.log(np.where(p > 0, p, 1.0)) - np.log(q)), 0.0)
    return terms.sum(axis=axis)


def conditional_kl(cpd_ref: np.ndarray, cpd_other: np.ndarray, weights: np.ndarray) -> float:
    """CKL of one node: the average over parent configurations of the column KLs
    ``KL(P0(.|j) || P1(.|j))``, weighted by ``weights`` (``P(pa = j)``, normalised here).

    References
    ----------
    Ma & Sivakumar, Sec. 6.2.
    """
    a = np.asarray(cpd_ref, dtype=np.float64)
    b = np.asarray(cpd_other, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64).ravel()
    if a.shape != b.shape or a.ndim != 2 or w.shape != (a.shape[1],):
        raise DataError(
            f"CPDs must share a (K, J) shape and weights have J entries "
            f"(got {a.shape}, {b.shape}, {w.shape})"
        )
    if np.any(w < 0) or w.sum() <= 0:
        raise ParameterError("weights must be >= 0 with a positive sum")
    w = w / w.sum()
    kl = kl_divergence(a, b, axis=0)
    with np.errstate(invalid="ignore"):  # 0 * inf for an unseen configuration is dropped
        return float(np.sum(np.where(w > 0, w * kl, 0.0)))


def parent_weights(net: BayesNet, node: str, data: pd.DataFrame) -> np.ndarray:
    """Empirical ``P(pa = j)`` of ``node`` in ``data`` (state codes)."""
    parents = list(net.parents(node))
    if not parents:
        return np.ones(1)
    missing = [p for p in parents if p not in data.columns]
    if missing:
        raise SpecError(f"the data has no column for {missing}")
    counts = family_counts(data, parents, [net.cardinality(p) for p in parents]).ravel()
    return counts / max(counts.sum(), 1.0)


def ckl_per_node(net_ref: BayesNet, net_other: BayesNet, data: pd.DataFrame) -> pd.DataFrame:
    """CKL distance (columns ``node``, ``ckl``) of every node shared by two networks of the
    same structure.

    References
    ----------
    Ma & Sivakumar, Sec. 6.2.
    """
    rows = []
    for node in net_ref.topological_order:
        if not net_ref.has_cpd(node):
            continue
        if node not in net_other.names or net_other.parents(node) != net_ref.parents(node):
            raise SpecError(f"node {node!r} has different parents (or is missing) in the networks")
        if not net_other.has_cpd(node):
            continue
        w = parent_weights(net_ref, node, data)
        rows.append(
            {"node": node, "ckl": conditional_kl(net_ref.cpd(node), net_other.cpd(node), w)}
        )
    return pd.DataFrame(rows, columns=["node", "ckl"])


def infinite_ckl_cause(
    net_ref: BayesNet, net_other: BayesNet, node: str, data: pd.DataFrame
) -> str | None:
    """Why the CKL of ``node`` is infinite, in words; ``None`` when it is finite.

    Names the first parent configuration seen in ``data`` and state that the other network
    gives probability 0 and the reference does not.

    References
    ----------
    Ma & Sivakumar, Sec. 6.2.
    """
    ref, other = net_ref.cpd(node), net_other.cpd(node)
    w = parent_weights(net_ref, node, data)
    parents = net_ref.parents(node)
    cards = [net_ref.cardinality(p) for p in parents]
    for j in np.flatnonzero(w > 0):
        bad = np.flatnonzero((ref[:, j] > 0) & (other[:, j] <= 0))
        if bad.size == 0:
            continue
        k = int(bad[0])
        state = net_ref.node(node).states[k]
        given = ""
        if parents:
            codes = np.unravel_index(int(j), cards)
            config = ", ".join(
                f"{p}={net_ref.node(p).states[int(c)]!r}" for p, c in zip(parents, codes)
            )
            given = f" | {config}"
        return (
            f"P({node}={state!r}{given}) is 0 in the second network but "
            f"{float(ref[k, j]):.6g} in the reference"
        )
    return None
