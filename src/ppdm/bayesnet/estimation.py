"""Sufficient statistics N_ijk and parameters theta_ijk from post-randomized data.

Each family's count tensor is inverted factor by factor (Theorem 2,
``N^ = (P^t)^-1 N~``), negative estimates are fixed per parent configuration, and
standard errors follow from ``Cov(N^) = A diag(E N~) A^T - diag(N)``, ``A = P^-t``. The
method notes are on docs/bayesnet.md.

References
----------
Ma & Sivakumar, Sec. 5 (cases (a)-(d), Theorems 1-2, ML and MAP estimates).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..estimate import ESTIMATORS, get_estimator
from ..exceptions import DataError, MatrixError, ParameterError, SpecError
from ..validation import show
from .network import BayesNet
from .pram import PramScheme, marginal_matrix

__all__ = [
    "FIXES",
    "LEARNING_FIXES",
    "FamilyEstimate",
    "ParameterEstimate",
    "family_counts",
    "estimate_family",
    "fix_negative_counts",
    "cpd_from_counts",
    "parameter_stderr",
    "estimate_parameters",
]


#: Ways of handling negative estimated counts (see docs/bayesnet.md): the estimators
#: that fix a raw estimate, and ``none`` (the raw estimate, ``inverse``).
FIXES: tuple[str, ...] = tuple(
    n for e in ESTIMATORS.values() if e.from_raw for n in (e.name, *e.aliases)
)

#: The fixes that leave no negative count, so CPDs can be learned (``bn learn --fix``).
LEARNING_FIXES: tuple[str, ...] = tuple(
    e.name for e in ESTIMATORS.values() if e.from_raw and e.nonnegative
)


@dataclass(frozen=True)
class _Axis:
    """One axis of the observed count tensor and its (possibly non-square) inverse."""

    members: tuple[str, ...]  # family members this axis yields, in output order
    out_cards: tuple[int, ...]
    observed: tuple[str, ...]  # columns whose combined randomized code indexes the axis
    in_cards: tuple[int, ...]
    inverse: np.ndarray | None  # (prod out_cards, prod in_cards); None = unrandomized


def _family_axes(family: Sequence[str], scheme: PramScheme) -> list[_Axis]:
    axes: list[_Axis] = []
    covered: set[str] = set()
    for v in family:
        if v in covered:
            continue
        if v not in scheme.cardinalities:
            raise SpecError(
                f"variable {v!r} is needed but is in no release; released: {list(scheme.variables)}"
            )
        r = scheme.randomization_of(v)
        if r is None:
            k = scheme.cardinalities[v]
            axes.append(_Axis((v,), (k,), (v,), (k,), None))
            covered.add(v)
            continue
        pos = [i for i, m in enumerate(r.variables) if m in family]
        kept = tuple(r.variables[i] for i in pos)
        kept_cards = tuple(r.cardinalities[i] for i in pos)
        covered.update(kept)
        if len(kept) == len(r.variables):  # cases (a)-(c): the whole group is in the family
            axes.append(_Axis(kept, kept_cards, kept, kept_cards, r.matrix.inverse()))
            continue
        try:  # case (d): the marginal channel of the kept members
            marg = marginal_matrix(r.matrix, r.cardinalities, pos)
            axes.append(_Axis(kept, kept_cards, kept, kept_cards, marg.inverse()))
        except MatrixError:  # no marginal channel: invert the group, then sum the others out
            inv = r.matrix.inverse().reshape(*r.cardinalities, -1)
            drop = tuple(i for i in range(len(r.variables)) if i not in pos)
            inv = inv.sum(axis=drop).reshape(int(np.prod(kept_cards)), -1)
            axes.append(_Axis(kept, kept_cards, r.variables, r.cardinalities, inv))
    return axes


def family_counts(data: pd.DataFrame, columns: Sequence[str], cards: Sequence[int]) -> np.ndarray:
    """Count tensor of the joint codes of ``columns`` (one ``bincount`` over all records)."""
    idx = np.ravel_multi_index([data[c].to_numpy(dtype=np.int64) for c in columns], cards)
    size = int(np.prod(cards, dtype=np.int64))
    return np.bincount(idx, minlength=size).astype(np.float64).reshape(tuple(cards))


def _apply(t: np.ndarray, matrix: np.ndarray, axis: int) -> np.ndarray:
    return np.moveaxis(np.tensordot(matrix, t, axes=([1], [axis])), 0, axis)


def _block_covariance(
    observed: np.ndarray, axes: list[_Axis], family: Sequence[str], raw: np.ndarray
) -> np.ndarray:
    """``Cov(N^_ij., N^_ij.)`` for every parent configuration j: shape ``(J, K, K)``."""
    child = family[0]
    t, shape, names = observed, [], []  # the child's axis yields (child, child', others...)
    for i, a in enumerate(axes):
        if child in a.members:
            inv = a.inverse if a.inverse is not None else np.eye(int(np.prod(a.in_cards)))
            c = a.members.index(child)
            k = a.out_cards[c]
            shaped = np.moveaxis(inv.reshape(*a.out_cards, -1), c, 0).reshape(k, -1, inv.shape[1])
            outer = np.einsum("kri,lri->klri", shaped, shaped).reshape(-1, inv.shape[1])
            t = _apply(t, outer, i)
            rest = [m for m in a.members if m != child]
            shape += [k, k] + [a.out_cards[a.members.index(m)] for m in rest]
            names += [child, "\0child'", *rest]
            continue
        if a.inverse is not None:
            t = _apply(t, a.inverse**2, i)
        shape += list(a.out_cards)
        names += list(a.members)
    order = [names.index(child), names.index("\0child'")] + [names.index(p) for p in family[1:]]
    cov = t.reshape(shape).transpose(order).reshape(k, k, -1)  # (K, K, J)
    cov = cov - np.einsum("kl,kj->klj", np.eye(k), raw)  # raw: (K, J)
    return np.moveaxis(cov, 2, 0)


def fix_negative_counts(counts: np.ndarray, fix: str = "norm-sub") -> np.ndarray:
    """Make estimated counts ``(K, J)`` non-negative, one parent configuration at a time.

    ``fix`` is one of :data:`FIXES`; ``norm-sub`` projects each column with a negative on
    the simplex of total ``max(N^_ij, 0)``.

    References
    ----------
    Ma & Sivakumar, Sec. 5 (N^ may be negative); Wang et al. (2020), Norm-Sub.
    """
    est = get_estimator(fix, what="fix", where=lambda e: e.from_raw)
    counts = np.asarray(counts, dtype=np.float64)
    out = counts.copy()
    bad = np.flatnonzero((counts < 0).any(axis=0))
    if bad.size:
        totals = np.clip(counts[:, bad].sum(axis=0), 0.0, None)
        out[:, bad] = est.fix(counts[:, bad], totals)  # type: ignore[misc]
    return out


def _alpha(prior, shape: tuple[int, int]) -> np.ndarray | None:
    if prior is None:
        return None
    alpha = np.broadcast_to(np.asarray(prior, dtype=np.float64), shape)
    if not np.all(np.isfinite(alpha)) or np.any(alpha <= 0):
        raise ParameterError(
            f"Dirichlet prior alpha must be > 0 (got {show(np.asarray(prior).tolist())})"
        )
    return alpha


def cpd_from_counts(counts: np.ndarray, prior=None) -> np.ndarray:
    """ML or MAP (Dirichlet) CPD from non-negative counts ``(K, J)``.

    ``theta_ijk = (alpha_ijk + N_ijk) / (alpha_ij + N_ij)`` (``alpha = 0`` for ML); a
    configuration without data gets the uniform distribution (ML) or the prior mean (MAP).

    References
    ----------
    Ma & Sivakumar, Sec. 5 (ML and MAP estimates).
    """
    counts = np.asarray(counts, dtype=np.float64)
    if np.any(counts < 0):
        raise DataError("counts must be >= 0; fix negative estimates first (fix_negative_counts)")
    alpha = _alpha(prior, counts.shape)
    num = counts if alpha is None else counts + alpha
    den = num.sum(axis=0, keepdims=True)
    k = counts.shape[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0 / k)
    return theta


def parameter_stderr(
    counts: np.ndarray, covariance: np.ndarray, prior=None, theta: np.ndarray | None = None
) -> np.ndarray:
    """Delta-method standard errors ``(K, J)`` of ``theta_ijk`` from ``Cov(N^_ij.)`` blocks.

    ``Var(theta_k) = g_k^T Sigma_j g_k`` with ``g_k = (e_k - theta) / (alpha_ij + N_ij)``;
    NaN where the configuration has no data. ``covariance`` is ``(J, K, K)``.
    """
    counts = np.asarray(counts, dtype=np.float64)
    theta = cpd_from_counts(counts, prior) if theta is None else theta
    alpha = _alpha(prior, counts.shape)
    den = counts.sum(axis=0) + (0.0 if alpha is None else alpha.sum(axis=0))
    cov = np.asarray(covariance)  # (J, K, K)
    row = cov.sum(axis=2)  # (J, K): sum_l Sigma[k, l]
    total = cov.sum(axis=(1, 2))  # (J,)
    diag = np.diagonal(cov, axis1=1, axis2=2)  # (J, K)
    th = theta.T  # (J, K)
    var = diag - 2.0 * th * row + th**2 * total[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(np.clip(var, 0.0, None)) / np.where(den > 0, den, np.nan)[:, None]
    return se.T


@dataclass(frozen=True)
class FamilyEstimate:
    """Estimated sufficient statistics of one node.

    ``raw`` is the unbiased N^_i ``(K, J)`` of Theorem 2 (may be negative), ``counts`` the
    same after the fix, ``covariance`` the plug-in ``Cov(N^_ij.)`` ``(J, K, K)``.
    """

    node: str
    family: tuple[str, ...]
    raw: np.ndarray
    counts: np.ndarray
    covariance: np.ndarray
    fix: str

    @property
    def stderr(self) -> np.ndarray:
        """Standard errors of the raw counts, ``(K, J)``."""
        d = np.diagonal(self.covariance, axis1=1, axis2=2).T
        return np.sqrt(np.clip(d, 0.0, None))


def estimate_family(
    data: pd.DataFrame,
    node: str,
    parents: Sequence[str],
    scheme: PramScheme,
    fix: str = "norm-sub",
) -> FamilyEstimate:
    """Estimate N_ijk of ``node`` from (partly) randomized state codes.

    ``parents`` are in CPD column order (last parent fastest); ``scheme`` says how every
    needed column was randomized (unrandomized columns included).

    References
    ----------
    Ma & Sivakumar, Sec. 5, Theorems 1-2.
    """
    family = (node, *parents)
    axes = _family_axes(family, scheme)
    cols, cards = [c for a in axes for c in a.observed], [k for a in axes for k in a.in_cards]
    observed = family_counts(data, cols, cards).reshape([int(np.prod(a.in_cards)) for a in axes])
    t = observed
    for i, a in enumerate(axes):
        if a.inverse is not None:
            t = _apply(t, a.inverse, i)
    names = [m for a in axes for m in a.members]  # one axis per member, ordered as family
    t = t.reshape([k for a in axes for k in a.out_cards]).transpose(
        [names.index(v) for v in family]
    )
    raw = t.reshape(t.shape[0], -1)
    cov = _block_covariance(observed, axes, family, raw)
    return FamilyEstimate(node, family, raw, fix_negative_counts(raw, fix), cov, fix)


@dataclass(frozen=True)
class ParameterEstimate:
    """A network with estimated CPDs (only ``nodes`` when a subset was asked), the
    delta-method standard errors of every theta_ijk and each node's :class:`FamilyEstimate`.
    """

    network: BayesNet
    stderr: dict[str, np.ndarray] = field(default_factory=dict)
    families: dict[str, FamilyEstimate] = field(default_factory=dict)

    def table(self) -> pd.DataFrame:
        """Tidy table: node, state k, parent configuration j, theta, stderr, counts."""
        rows = []
        for node, fam in self.families.items():
            theta, se = self.network.cpd(node), self.stderr[node]
            k, j = np.indices(theta.shape)
            columns = dict(k=k, j=j, theta=theta, stderr=se, count_raw=fam.raw, count=fam.counts)
            rows.append(pd.DataFrame({"node": node, **{c: v.ravel() for c, v in columns.items()}}))
        return pd.concat(rows, ignore_index=True)


def estimate_parameters(
    structure: BayesNet,
    data: pd.DataFrame,
    scheme: PramScheme,
    *,
    nodes: Sequence[str] | None = None,
    prior=None,
    fix: str = "norm-sub",
) -> ParameterEstimate:
    """Learn CPDs of ``structure`` from randomized data (Model II's miner, or a party in Model I).

    Parameters
    ----------
    structure : BayesNet
        The fixed, known structure G (CPDs, if any, are replaced).
    data : pandas.DataFrame
        Released state codes of every needed variable, records aligned.
    scheme : PramScheme
        How each column was randomized (unrandomized ones included).
    nodes : sequence of str, optional
        Nodes to learn (all by default).
    prior : float or mapping of str to float/array, optional
        Dirichlet ``alpha_ijk`` for MAP (scalar for all cells, or per node); ML if None.
    fix : str, default="norm-sub"
        One of :data:`LEARNING_FIXES` (a fix that leaves no negative count).

    Returns
    -------
    ParameterEstimate

    Examples
    --------
    >>> from ppdm.bayesnet.network import BayesNet, Node
    >>> from ppdm.bayesnet.sampling import forward_sample
    >>> from ppdm.matrix import symmetric_binary
    >>> net = BayesNet([Node("A", ("0", "1")), Node("B", ("0", "1"), ("A",))],
    ...                {"A": [0.3, 0.7], "B": [0.9, 0.2, 0.1, 0.8]})
    >>> data = forward_sample(net, 50_000, random_state=1)
    >>> scheme = PramScheme(net.cardinalities, [(["A"], symmetric_binary(0.2))])
    >>> fit = estimate_parameters(net, scheme.randomize(data, random_state=2), scheme)
    >>> bool(np.allclose(fit.network.cpd("B"), net.cpd("B"), atol=0.02))
    True

    References
    ----------
    Ma & Sivakumar, Sec. 4 (Model II steps 1-2; Model I steps 4-5) and Sec. 5.
    """
    learnable = lambda e: e.name in LEARNING_FIXES  # noqa: E731
    get_estimator(fix, what="fix", where=learnable, purpose="to learn parameters")
    for v in structure.names:
        if v in scheme.cardinalities and scheme.cardinalities[v] != structure.cardinality(v):
            raise SpecError(
                f"variable {v!r} has {scheme.cardinalities[v]} states in the release but "
                f"{structure.cardinality(v)} in the network"
            )
    todo = list(structure.topological_order if nodes is None else nodes)
    cpds, stderr, families = {}, {}, {}
    for node in todo:
        fam = estimate_family(data, node, structure.parents(node), scheme, fix)
        alpha = prior.get(node) if isinstance(prior, Mapping) else prior
        theta = cpd_from_counts(fam.counts, alpha)
        cpds[node] = theta
        stderr[node] = parameter_stderr(fam.counts, fam.covariance, alpha, theta)
        families[node] = fam
    net = BayesNet([structure.node(v) for v in structure.names], cpds, name=structure.name)
    return ParameterEstimate(net, stderr, families)
