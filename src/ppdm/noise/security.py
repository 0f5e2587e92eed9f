"""Security figures of the Islam & Brankovic noise: how likely a released class is the
original one, and how likely an intruder is to re-identify a record after attribute noise.

References
----------
Islam, M. Z. & Brankovic, L. Noise addition for protecting privacy in data mining,
Sec. 3.1 (security of class noise), Sec. 3.2 (``p(X -> Y)``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..exceptions import ParameterError
from .class_stats import all_leaves_probability, check_technique, leaf_changes
from .leaves import LeafInfo

__all__ = [
    "ReidentificationReport",
    "class_security",
    "record_p_same",
    "reidentification",
]


def record_p_same(info: LeafInfo, technique: str) -> np.ndarray:
    """Per record: the probability that its released class equals its original class.

    Random and Probabilistic: ``n_c / N_k`` for a record of class ``c`` in leaf ``k``;
    All Leaves: ``1 - p`` for every record.

    Parameters
    ----------
    info : LeafInfo
        Leaves of the original tree (:func:`ppdm.noise.leaf_info`).
    technique : {"random", "probabilistic", "all-leaves"}

    Returns
    -------
    ndarray of float, shape (n_samples,)

    References
    ----------
    Islam & Brankovic, Sec. 3.1 (security as the probability that a released class
    is the original one).

    Examples
    --------
    The first leaf holds three records of class 0 and one of class 1:

    >>> from ppdm.noise.leaves import leaf_info
    >>> from ppdm.tree import C45Classifier
    >>> X, y = [[1.0], [1.0], [2.0], [3.0], [10.0]], [0, 1, 0, 0, 1]
    >>> info = leaf_info(C45Classifier(min_leaf=1).fit(X, y), X, y)
    >>> record_p_same(info, "random").tolist()
    [0.75, 0.25, 0.75, 0.75, 1.0]
    """
    technique = check_technique(technique)
    if technique == "all-leaves":
        p = all_leaves_probability(info.counts, info.codes.size)
        return np.full(info.codes.size, 1.0 - p)
    return (info.counts / info.sizes[:, None])[info.row_position, info.codes]


def class_security(info: LeafInfo, technique: str) -> pd.DataFrame:
    """Per leaf: the probability that a released class equals the original class.

    Parameters
    ----------
    info : LeafInfo
    technique : {"random", "probabilistic", "all-leaves"}

    Returns
    -------
    DataFrame
        One row per leaf: ``leaf``, ``depth``, ``n``, ``leaf_class``, ``n_majority``
        (``m_k``), ``n_minority`` (``n_k``), ``heterogeneous``, ``expected_changes``
        (the leaf's share of ``E(N)``), ``p_same_majority`` and ``p_same_minority``
        (for a record whose original class is the leaf's class, or another class),
        ``p_same_mean`` (averaged over the leaf's records) and ``p_majority``, the
        intruder's best estimate that a released record of the leaf originally had
        the leaf class (``m_k / (m_k + n_k)`` whatever the released class, for Random
        and Probabilistic; ``1 - p`` or ``p`` for All Leaves).

    References
    ----------
    Islam & Brankovic, Sec. 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdm.noise.leaves import LeafInfo
    >>> info = LeafInfo(np.array([1, 1, 1, 1, 2]), np.array([0, 0, 0, 1, 1]),
    ...                 np.array([0, 1]), np.array([1, 2]), np.array([[3, 1], [0, 1]]),
    ...                 np.array([0, 1]), np.array([1, 1]))
    >>> class_security(info, "random")[["leaf", "p_same_majority", "p_same_minority"]].values.tolist()
    [[1.0, 0.75, 0.25], [2.0, 1.0, nan]]
    """
    technique = check_technique(technique)
    frame = info.to_frame()
    c = info.counts.astype(float)
    size = c.sum(axis=1)
    m = info.n_majority.astype(float)
    n = size - m
    if technique == "all-leaves":
        p = all_leaves_probability(info.counts, info.codes.size)
        keep = np.full(size.shape, 1.0 - p)
        figures = (size * p, keep, np.where(n > 0, keep, np.nan), keep, keep)
    else:
        sq = (c**2).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            minority = np.where(n > 0, (sq - m**2) / (size * n), np.nan)
        figures = (leaf_changes(c), m / size, minority, sq / size**2, m / size)
    names = "expected_changes p_same_majority p_same_minority p_same_mean p_majority"
    return frame.assign(**dict(zip(names.split(), figures)))


@dataclass
class ReidentificationReport:
    """How well an intruder who knows a record's original innocent values can find it.

    Attributes
    ----------
    per_target : DataFrame
        One row per target record ``X``: ``row``, ``p_true`` (``p(X -> X*)``, the
        probability of its own released record), ``posterior_true`` (that divided by
        ``sum_Y p(X -> Y)``), ``n_candidates`` (released records with
        ``p(X -> Y) >= threshold``), ``n_possible`` (records with ``p > 0``) and
        ``class_posterior`` (the intruder's probability for the record's true class:
        the ``p``-weighted share of candidates with that released class).
    threshold : float
    attributes : list of str
        The attributes the intruder knows (those that received noise).

    References
    ----------
    Islam & Brankovic, Sec. 3.2.
    """

    per_target: pd.DataFrame
    threshold: float
    attributes: list

    def summary(self) -> dict:
        """Means and medians over the targets (JSON-ready)."""
        t = self.per_target
        return {
            "n_targets": int(len(t)),
            "attributes": list(self.attributes),
            "threshold": self.threshold,
            "mean_posterior_true": float(t["posterior_true"].mean()),
            "share_unique": float((t["posterior_true"] >= 1.0 - 1e-12).mean()),
            "median_candidates": float(t["n_candidates"].median()),
            "mean_candidates": float(t["n_candidates"].mean()),
            "median_possible": float(t["n_possible"].median()),
            "mean_possible": float(t["n_possible"].mean()),
            "mean_class_posterior": float(t["class_posterior"].mean()),
        }


def reidentification(
    result,
    *,
    threshold: float = 0.01,
    targets=None,
    chunk_cells: int = 4_000_000,
) -> ReidentificationReport:
    """Re-identification probabilities ``p(X -> Y) = prod_i p_i(A_i* - A_i)`` after attribute noise.

    The intruder knows ``X``'s original values on every attribute that received noise
    somewhere, the tree and the noise law; ``p_i`` is the exact law of the released value
    where ``Y``'s leaf perturbed ``A_i``, else ``1[Y_i = X_i]`` (see docs/noise.md).

    Parameters
    ----------
    result : AttributeNoiseResult
        From :func:`ppdm.noise.add_attribute_noise`.
    threshold : float, default=0.01
        A released record is a candidate for ``X`` when ``p(X -> Y) >= threshold``.
    targets : array-like of int, optional
        Row positions of the target records (all rows by default).
    chunk_cells : int, default=4_000_000
        Target x candidate cells computed at once (bounds memory).

    Returns
    -------
    ReidentificationReport

    References
    ----------
    Islam & Brankovic, Sec. 3.2 (``p(X -> Y)``; dense data sets give many candidates).

    Examples
    --------
    >>> import warnings
    >>> from ppdm.datasets import load_wisconsin
    >>> from ppdm.noise import add_attribute_noise
    >>> d = load_wisconsin()
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     r = add_attribute_noise(d.X, d.y, "tia", random_state=0)
    >>> rep = reidentification(r, targets=range(50))
    >>> rep.summary()["median_candidates"] > 1
    True
    """
    if not (np.isfinite(threshold) and 0 < threshold <= 1):
        raise ParameterError(f"threshold must be a probability in (0, 1] (got {threshold})")
    attributes = [a for a in result.columns if result.eligible[:, result.columns.index(a)].any()]
    original, released = result.original, result.X
    n = len(released)
    rows = np.arange(n) if targets is None else np.asarray(list(targets), dtype=np.int64)
    if rows.size and (rows.min() < 0 or rows.max() >= n):
        raise ParameterError(f"targets must be row positions in 0..{n - 1}")
    # per attribute: codes of the targets' original and candidates' released values,
    # and the transition table P(released value | original value)
    tables = []
    for name in attributes:
        j = result.columns.index(name)
        ux, ix = np.unique(original[name].to_numpy(dtype=float)[rows], return_inverse=True)
        uy, iy = np.unique(released[name].to_numpy(dtype=float), return_inverse=True)
        trans = result.transition(name, ux, uy)
        same = (ux[:, None] == uy[None, :]).astype(float)
        tables.append((ix, iy, trans, same, result.eligible[:, j]))
    y_codes = pd.factorize(pd.Series(result.y))[0]
    step = max(1, int(chunk_cells // max(n, 1)))
    names = "p_true posterior_true n_candidates n_possible class_posterior".split()
    out = {k: np.empty(rows.size) for k in names}
    for start in range(0, rows.size, step):
        sl = slice(start, start + step)
        p = np.ones((rows[sl].size, n))
        for ix, iy, trans, same, elig in tables:
            p *= np.where(elig[None, :], trans[ix[sl]][:, iy], same[ix[sl]][:, iy])
        total = p.sum(axis=1)
        p_true = p[np.arange(rows[sl].size), rows[sl]]
        same_class = y_codes[None, :] == y_codes[rows[sl]][:, None]
        safe = np.where(total > 0, total, 1.0)
        out["p_true"][sl] = p_true
        out["posterior_true"][sl] = p_true / safe
        out["n_candidates"][sl] = (p >= threshold).sum(axis=1)
        out["n_possible"][sl] = (p > 0).sum(axis=1)
        out["class_posterior"][sl] = (p * same_class).sum(axis=1) / safe
    counts = {k: out[k].astype(np.int64) for k in ("n_candidates", "n_possible")}
    per_target = pd.DataFrame({"row": rows, **out, **counts})
    return ReidentificationReport(per_target, float(threshold), attributes)
