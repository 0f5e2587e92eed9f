"""Two-way tables of perturbed attributes, estimated from a release.

Two attributes perturbed independently are one attribute perturbed with
``M_a kron M_b``: ``E[Y] = M_a X M_b^T`` for the original two-way table ``X``, estimated
factor by factor beside the product of the one-way estimates (see docs/pairs.md).

References
----------
Ma & Sivakumar, Sec. 4 (Kronecker structure of joint randomization); Dowd, Xu & Zhang,
Eq. (1); Agrawal & Srikant (2000) for the iterative Bayesian update.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from .estimate import (
    BOOTSTRAP_REPLICATES,
    estimate_joint_counts,
    get_estimator,
    joint_stderr,
    point_estimate,
)
from .exceptions import ParameterError
from .matrix import KroneckerMatrix
from .mechanism import mechanism_of
from .pipeline import Release, load_release, read_ahead, release_values

__all__ = [
    "MAX_PAIR_CELLS",
    "PairEstimate",
    "check_pairs",
    "estimate_pairs",
    "independence_p",
]

#: Most cells (N_a x N_b) of one two-way table: its bootstrap holds B tables of them.
MAX_PAIR_CELLS = 16_384


@dataclass(frozen=True)
class PairEstimate:
    """The estimated two-way table of two perturbed attributes (rows: ``names[0]``).

    ``counts`` (per record: pooled copies divided out) and their bootstrap ``stderr``,
    beside ``independent``, the product of the one-way estimates divided by n;
    ``independence_p`` is the chi-square test's p-value on the *released* table.
    """

    names: tuple[str, str]
    labels: tuple[list[str], list[str]]
    perturbed: np.ndarray
    counts: np.ndarray
    stderr: np.ndarray
    independent: np.ndarray
    method: str
    stderr_kind: str
    independence_p: float


def independence_p(table: np.ndarray) -> float:
    """p-value of the chi-square test of independence of a two-way count table (rows
    and columns without records left out; 1.0 when fewer than two of either remain)."""
    from scipy.stats import chi2_contingency

    kept = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    if min(kept.shape) < 2:
        return 1.0
    return float(chi2_contingency(kept, correction=False)[1])


def check_pairs(rel: Release, pairs: list[tuple[str, str]], flag: str = "pairs") -> None:
    """Raise unless every pair names two different perturbed attributes of ``rel`` whose
    table has at most :data:`MAX_PAIR_CELLS` cells (errors name ``flag``)."""
    spec = rel.spec
    mechanism_of(spec).require("pairs", flag)
    perturbed = {a.name for a in spec.perturbed_attributes()}
    for pair in pairs:
        if len(pair) != 2 or pair[0] == pair[1]:
            raise ParameterError(f"{flag}: give two different attributes (got {list(pair)})")
        for name in pair:
            if name not in spec.names:
                raise ParameterError(
                    f"{flag}: the release has no attribute {name!r}; it has {spec.names}"
                )
            if name not in perturbed:
                raise ParameterError(
                    f"{flag}: attribute {name!r} is released as is; a two-way table is "
                    "estimated for two perturbed attributes (tabulate released columns "
                    "directly)"
                )
        cells = spec.attribute(pair[0]).get_domain().n_values
        cells *= spec.attribute(pair[1]).get_domain().n_values
        if cells > MAX_PAIR_CELLS:
            raise ParameterError(
                f"{flag}: {pair[0]!r} x {pair[1]!r} has {cells} cells (at most "
                f"{MAX_PAIR_CELLS}); use attributes with fewer values or bins"
            )


def _count(rel: Release, pairs: list[tuple[str, str]], batch_size: int) -> dict:
    """Released pair counts of every pair, in one pass over the release."""
    spec = rel.spec
    names = sorted({n for p in pairs for n in p})
    doms = {n: spec.attribute(n).get_domain() for n in names}
    tables = {p: np.zeros(doms[p[0]].n_values * doms[p[1]].n_values) for p in pairs}
    offset = 0
    with release_values(rel.data_path):
        for batch in read_ahead(rel.batches(batch_size)):
            codes = {
                n: doms[n].encode(batch[n], column=n, row_offset=offset).astype(np.int64)
                for n in names
            }
            for a, b in pairs:
                cells = codes[a] * doms[b].n_values + codes[b]
                tables[(a, b)] += np.bincount(cells, minlength=len(tables[(a, b)]))
            offset += len(batch)
    return {p: t.reshape(doms[p[0]].n_values, doms[p[1]].n_values) for p, t in tables.items()}


def estimate_pairs(
    release: Release | str | os.PathLike,
    pairs: list[tuple[str, str]],
    method: str = "ibu",
    *,
    replicates: int = BOOTSTRAP_REPLICATES,
    batch_size: int = 65_536,
    flag: str = "pairs",
) -> list[PairEstimate]:
    """Estimate the original two-way table of each pair of perturbed attributes.

    Parameters
    ----------
    release : Release or path
    pairs : list of (str, str)
        Perturbed attributes: rows, then columns.
    method : str, default="ibu"
        Any estimator of :data:`ppdm.estimate.ESTIMATORS` (``ibu``, ``norm-sub``,
        ``set-scale``, ``zero``, ``inverse``).
    replicates : int, default=200
        Bootstrap replicates B of the standard errors.
    batch_size : int, default=65536
        Rows read at a time.
    flag : str, default="pairs"
        How errors name the pairs (the command line gives ``--pairs``).

    Returns
    -------
    list of PairEstimate

    Examples
    --------
    >>> import tempfile, warnings
    >>> from ppdm.examples import agrawal_release
    >>> from ppdm.pipeline import make_release
    >>> df, spec, _ = agrawal_release()
    >>> out = tempfile.mkdtemp() + "/r"
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     _ = make_release(df, out, spec=spec, random_state=0)
    >>> (est,) = estimate_pairs(out, [("age", "salary")], replicates=20)
    >>> est.counts.shape == est.perturbed.shape and round(float(est.counts.sum())) == len(df)
    True

    References
    ----------
    Ma & Sivakumar, Sec. 4; Agrawal & Srikant (2000).
    """
    rel = load_release(release)
    check_pairs(rel, pairs, flag)
    copies = rel.spec.copies
    out = []
    for (a, b), y in _count(rel, pairs, batch_size).items():
        ma, mb = (rel.spec.attribute(n).get_matrix() for n in (a, b))
        kron = KroneckerMatrix([ma, mb])
        counts = estimate_joint_counts(y, kron, method)
        stderr = joint_stderr(y, kron, method, counts, replicates=replicates)
        xa = point_estimate(y.sum(axis=1), ma, method)
        xb = point_estimate(y.sum(axis=0), mb, method)
        n = float(y.sum())
        independent = np.outer(xa, xb) / n if n > 0 else np.zeros(y.shape)
        labels = tuple(rel.spec.attribute(n).get_domain().labels() for n in (a, b))
        out.append(
            PairEstimate(
                (a, b),
                labels,  # type: ignore[arg-type]
                y,
                counts / copies,
                stderr / copies,
                independent / copies,
                get_estimator(method).name,
                f"bootstrap (B={replicates})",
                independence_p(y),
            )
        )
    return out
