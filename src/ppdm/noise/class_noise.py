"""Class noise in the heterogeneous leaves of a decision tree (Random, Probabilistic,
All Leaves Probabilistic), with the expected number of changed classes E(N).

Random and Probabilistic change classes in the heterogeneous leaves of the original tree,
All Leaves anywhere; all three change ``E(N) = sum_k 2 m_k n_k / (m_k + n_k)`` classes in
expectation (see docs/noise.md).

References
----------
Islam, M. Z. & Brankovic, L. Noise addition for protecting privacy in data mining,
Sec. 3.1.  Estivill-Castro, V. & Brankovic, L. (1999), Data swapping: balancing
privacy against precision in mining for logic rules, DaWaK'99 (shuffling classes
in heterogeneous leaves).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..exceptions import DataError
from ..random import RandomState, release_generator
from .class_stats import (
    all_leaves_probability,
    check_technique,
    expected_changes,
    variance_of_changes,
)
from .leaves import LeafInfo, leaf_info
from .security import class_security, record_p_same

__all__ = ["ClassNoiseResult", "add_class_noise", "original_tree"]


@dataclass
class ClassNoiseResult:
    """A class-noise release and its figures.

    Attributes
    ----------
    y : ndarray
        Released class labels (same order as the input rows).
    technique : str
    tree : C45Classifier
        The tree built on the original data.
    info : LeafInfo
        Records and class counts per leaf of that tree.
    changed : ndarray of bool
        Records whose class was changed.
    expected_changes : float
        ``E(N)``.
    variance : float
        Variance of the number of changes.
    probability : float or None
        All Leaves' change probability ``p`` (None for the other techniques).
    security : DataFrame
        Per leaf: the probability that a released class equals the original one
        (see :func:`ppdm.noise.security.class_security`).
    p_same : ndarray of float
        That probability for each record.

    References
    ----------
    Islam & Brankovic, Sec. 3.1.
    """

    y: np.ndarray
    technique: str
    tree: object
    info: LeafInfo
    changed: np.ndarray
    expected_changes: float
    variance: float
    probability: float | None
    security: pd.DataFrame = field(repr=False)
    p_same: np.ndarray = field(repr=False)

    @property
    def n_changed(self) -> int:
        """Records whose class was changed, ``N``."""
        return int(self.changed.sum())

    def class_counts(self) -> dict:
        """Released count of each class."""
        labels, counts = np.unique(self.y, return_counts=True)
        return {_plain(k): int(v) for k, v in zip(labels, counts)}

    def to_dict(self) -> dict:
        """A JSON-ready summary: E(N), N, counts and the per-leaf security table."""
        info = self.info
        original = np.unique(info.classes[info.codes], return_counts=True)
        return {
            "technique": self.technique,
            "n_records": int(info.codes.size),
            "n_leaves": int(info.leaves.size),
            "n_heterogeneous_leaves": int(info.heterogeneous.sum()),
            "expected_changes": self.expected_changes,
            "sd_changes": float(np.sqrt(self.variance)),
            "n_changed": self.n_changed,
            "all_leaves_probability": self.probability,
            "class_counts_original": {_plain(k): int(v) for k, v in zip(original[0], original[1])},
            "class_counts_released": self.class_counts(),
            "mean_p_same": float(self.p_same.mean()),
            "leaves": [
                {k: _plain(v) for k, v in row.items()}
                for row in self.security.to_dict(orient="records")
            ],
        }


def _plain(v):
    """numpy scalars -> Python scalars, NaN -> None (for strict JSON)."""
    v = v.item() if isinstance(v, np.generic) else v
    return None if isinstance(v, float) and v != v else v


def original_tree(X, y, tree=None):
    """The tree built on the original data (ppdm's C4.5 with J48's defaults) and its leaves."""
    y = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y)
    if y.ndim != 1:
        raise DataError(f"y must be 1-D (one label per row); got shape {y.shape}")
    missing = np.flatnonzero(pd.isna(pd.Series(y)).to_numpy())
    if missing.size:
        raise DataError(
            f"the class column has {missing.size} missing value(s), the first at data row "
            f"{missing[0] + 1}; drop or fill them first"
        )
    values = pd.unique(pd.Series(y))
    if values.size < 2:
        found = "no rows" if values.size == 0 else f"the single value {_plain(values[0])!r}"
        raise DataError(
            f"the class column has {found}; class noise needs at least two classes "
            "(and a tree with heterogeneous leaves)"
        )
    if tree is None:
        from ..tree import C45Classifier

        tree = C45Classifier().fit(X, y)
    return tree, leaf_info(tree, X, y)


def add_class_noise(
    X,
    y,
    technique: str = "random",
    *,
    tree=None,
    random_state: RandomState = None,
) -> ClassNoiseResult:
    """Perturb the class of the records in the heterogeneous leaves of the original tree.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        The original attributes (they are not changed).
    y : array-like of shape (n_samples,)
        The original class.
    technique : {"random", "probabilistic", "all-leaves"}, default="random"
        Random shuffles the labels inside each heterogeneous leaf; Probabilistic draws
        each of its records' class from the leaf's class distribution; All Leaves
        changes every record's class with probability ``p = E(N) / N_Total``.
    tree : C45Classifier, optional
        The tree built on ``X, y``; by default ppdm's C4.5 with J48's defaults
        (``-C 0.25 -M 2``) is fitted here.  The paper used C5.
    random_state : None, int, SeedSequence or Generator, default=None
        None draws the release from a cryptographically strong generator; a seed
        (experiments and tests only) gives a :class:`~ppdm.exceptions.SeededReleaseWarning`.

    Returns
    -------
    ClassNoiseResult

    Raises
    ------
    DataError
        A class with a single value, or a tree without heterogeneous leaves
        ("nothing to perturb").

    References
    ----------
    Islam & Brankovic, Sec. 3.1 (Random, Probabilistic, All Leaves Probabilistic).

    Examples
    --------
    >>> import numpy as np, warnings
    >>> X = np.arange(12.0).reshape(-1, 1)
    >>> y = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     r = add_class_noise(X, y, "random", random_state=0)
    >>> round(r.expected_changes, 4), np.bincount(r.y).tolist()
    (1.7143, [6, 6])
    """
    technique = check_technique(technique)
    tree, info = original_tree(X, y, tree)
    het = info.heterogeneous
    if not het.any():
        raise DataError(
            "nothing to perturb: every leaf of the tree built on the original data is "
            "homogeneous (its records all have the leaf's class)"
        )
    rng = release_generator(random_state)
    codes = info.codes
    new = codes.copy()
    pos = info.row_position
    n_classes = info.classes.size
    rows = np.flatnonzero(het[pos])  # the records of heterogeneous leaves
    p = all_leaves_probability(info.counts, codes.size) if technique == "all-leaves" else None
    if technique == "random":
        by_leaf = rows[np.argsort(pos[rows], kind="stable")]
        # rows grouped by leaf in random order receive the leaf's labels in fixed order:
        # a uniform shuffle of the labels inside every leaf
        shuffled = rows[np.lexsort((rng.random(rows.size), pos[rows]))]
        new[shuffled] = codes[by_leaf]
    elif technique == "probabilistic":
        cum = np.cumsum(info.counts / info.sizes[:, None], axis=1)
        u = rng.random(rows.size)
        new[rows] = np.minimum((u[:, None] >= cum[pos[rows]]).sum(axis=1), n_classes - 1)
    else:
        flip = rng.random(codes.size) < p
        shift = rng.integers(1, n_classes, size=codes.size) if n_classes > 2 else 1
        new = np.where(flip, (codes + shift) % n_classes, codes)

    y_out = info.classes[new]
    y_in = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y)
    if y_in.dtype != object and y_out.dtype != y_in.dtype:
        y_out = y_out.astype(y_in.dtype)
    return ClassNoiseResult(
        y=y_out,
        technique=technique,
        tree=tree,
        info=info,
        changed=new != codes,
        expected_changes=expected_changes(info.counts),
        variance=variance_of_changes(info.counts, technique, codes.size),
        probability=p,
        security=class_security(info, technique),
        p_same=record_p_same(info, technique),
    )
