"""Code-level perturbation and reconstruction for the experiment grids.

The grids evaluate thousands of (gamma, N) cells, so they work on integer codes held
in memory: each attribute is encoded once per N, perturbed with the closed-form
gamma-diagonal sampler, its counts estimated and rounded (largest remainder), and the
records reconstructed with Algorithm 2 (:func:`ppdm.reconstruct.matrix_reconstruct`),
globally or by class. This is the computation of :func:`ppdm.pipeline.reconstruct_frame`
without files or specs: the same counts and the same distribution of the tie breaking,
drawn from the experiment's NumPy ``Generator`` instead of row-addressed keys.

References
----------
Dowd, Xu & Zhang, Sec. 3 (Algorithm 1), Sec. 4 (Algorithm 2 and the estimate), Sec. 6.2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ppdm.domain import BinnedDomain, CategoricalDomain, infer_domain
from ppdm.estimate import point_estimate
from ppdm.exceptions import ParameterError
from ppdm.matrix import GammaDiagonal
from ppdm.reconstruct import largest_remainder, matrix_reconstruct
from ppdm.validation import check_choice, check_int

__all__ = [
    "EncodedTable",
    "encode_table",
    "perturb_table",
    "reconstruct_table",
    "point_estimate",
    "MODES",
]

#: Reconstruction modes of Figs. 4-6: one distribution per attribute, or one per class.
MODES: tuple[str, ...] = ("global", "by-class")


@dataclass(frozen=True)
class EncodedTable:
    """A training table encoded into per-attribute codes.

    Attributes
    ----------
    codes : int array (n, d)
        Original codes.
    n_values : int array (d,)
        N of every attribute.
    domains : list
        The domain of every attribute (decodes codes to representative values).
    columns : list of str
    classes : int array (n,)
        Class codes (the class is never perturbed).
    n_classes : int
    """

    codes: np.ndarray
    n_values: np.ndarray
    domains: list
    columns: list[str]
    classes: np.ndarray
    n_classes: int

    def decode(self, codes: np.ndarray) -> pd.DataFrame:
        """Representative values (bin centers; category codes for categorical domains)."""
        out = {}
        for j, (name, dom) in enumerate(zip(self.columns, self.domains)):
            if isinstance(dom, CategoricalDomain):
                out[name] = codes[:, j].astype(np.int64)
            else:
                out[name] = dom.decode(codes[:, j])
        return pd.DataFrame(out)


def _binned(values: np.ndarray, n_bins: int) -> BinnedDomain:
    low, high = float(np.min(values)), float(np.max(values))
    if high <= low:  # a constant column: one wide bin holds it
        high = low + 1.0
    return BinnedDomain(low, high, int(n_bins), bounds_from_data=True)


def encode_table(
    X: pd.DataFrame, y: np.ndarray, n_bins: int, rule: str = "equi-width"
) -> EncodedTable:
    """Encode every attribute of ``X`` into ``n_bins`` codes.

    Parameters
    ----------
    X : DataFrame
        Non-class attributes.
    y : array (n,)
        Class labels (encoded to ``0..C-1`` in sorted order).
    n_bins : int
        N.
    rule : {"equi-width", "infer"}, default="equi-width"
        ``equi-width``: every numeric attribute in N equi-width bins over its min and max
        (the paper's Sec. 6 setup); ``infer``: :func:`ppdm.domain.infer_domain`, which
        keeps an integer attribute with d <= N values categorical with N = d (Sec. 7),
        as the release pipeline does.

    Returns
    -------
    EncodedTable
    """
    check_choice(rule, "rule", ("equi-width", "infer"), error=ParameterError)
    check_int(n_bins, "n_bins (N)", low=2, error=ParameterError)
    domains, codes = [], []
    for name in X.columns:
        col = X[name]
        if rule == "infer" or not pd.api.types.is_numeric_dtype(col):
            dom = infer_domain(col, column=str(name), n_bins=int(n_bins), warn=False)
        else:
            dom = _binned(col.to_numpy(np.float64), n_bins)
        domains.append(dom)
        codes.append(np.asarray(dom.encode(col, column=str(name)), dtype=np.int64))
    labels, classes = np.unique(np.asarray(y), return_inverse=True)
    return EncodedTable(
        codes=np.column_stack(codes) if codes else np.empty((len(X), 0), np.int64),
        n_values=np.array([d.n_values for d in domains], dtype=np.int64),
        domains=domains,
        columns=[str(c) for c in X.columns],
        classes=classes.astype(np.int64),
        n_classes=len(labels),
    )


def perturb_table(table: EncodedTable, gamma: float, rng: np.random.Generator) -> np.ndarray:
    """Algorithm 1 on every attribute with a gamma-diagonal matrix, attribute by attribute.

    Uses the releases' exact integer sampler (:meth:`GammaDiagonal.draw`), so experiments
    measure the channel a release applies.
    """
    out = np.empty_like(table.codes)
    for j, n_values in enumerate(table.n_values):
        out[:, j] = GammaDiagonal(int(n_values), gamma).draw(table.codes[:, j], rng)
    return out


def reconstruct_table(
    table: EncodedTable,
    perturbed: np.ndarray,
    gamma: float,
    rng: np.random.Generator,
    *,
    mode: str = "global",
    method: str = "set-scale",
) -> np.ndarray:
    """Algorithm 2 on every attribute: estimate, round, hand out codes by rank.

    Parameters
    ----------
    table : EncodedTable
    perturbed : int array (n, d)
        Perturbed codes.
    gamma : float
    rng : numpy.random.Generator
        Breaks ties inside each perturbed value at random.
    mode : {"global", "by-class"}, default="global"
        One estimated distribution per attribute, or one per (attribute, class).
    method : str, default="set-scale"
        Estimation method of :func:`ppdm.estimate.estimate_counts`.

    Returns
    -------
    int array (n, d)
        Reconstructed codes.
    """
    check_choice(mode, "mode", MODES, error=ParameterError)
    out = np.empty_like(perturbed)
    if mode == "by-class":
        groups, n_groups = table.classes, table.n_classes
    else:
        groups, n_groups = np.zeros(perturbed.shape[0], dtype=np.int64), 1
    dists = _estimated_counts(table.n_values, perturbed, groups, n_groups, gamma, method)
    for j, dist in enumerate(dists):
        if mode == "by-class":
            out[:, j] = matrix_reconstruct(perturbed[:, j], dist, rng, classes=groups)
        else:
            out[:, j] = matrix_reconstruct(perturbed[:, j], dist[0], rng)
    return out


def _estimated_counts(n_values, perturbed, groups, n_groups, gamma, method) -> list[np.ndarray]:
    """Integer estimated counts (n_groups, N_j) of every attribute, per group of records.

    Attributes with the same N are estimated in one vectorised call (all their groups'
    histograms as columns), which matters for the iterative Bayesian update.
    """
    hists = [
        np.bincount(groups * int(k) + perturbed[:, j], minlength=n_groups * int(k)).reshape(
            n_groups, int(k)
        )
        for j, k in enumerate(n_values)
    ]
    out: list[np.ndarray] = [np.empty(0)] * len(hists)
    for k in sorted({int(v) for v in n_values}):
        same = [j for j, v in enumerate(n_values) if int(v) == k]
        stacked = np.concatenate([hists[j] for j in same]).T  # (N, n_groups * len(same))
        est = point_estimate(stacked, GammaDiagonal(k, gamma), method).T
        for i, j in enumerate(same):
            rows = est[i * n_groups : (i + 1) * n_groups]
            out[j] = np.stack([largest_remainder(e, int(h.sum())) for e, h in zip(rows, hists[j])])
    return out
