"""Matrices built from the data (invariant PRAM, sdcMicro's pram, strata): the counting
pass that realises them before perturbing.

References
----------
Gouweleeuw et al. (1998), post randomisation; sdcMicro's pram().
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import numpy as np
import pandas as pd

from ..domain import CategoricalDomain, Domain
from ..exceptions import DataError, SpecError
from ..matrix import FROM_DATA, matrix_from_spec, needs_data
from ..mechanism.substitution import stratum_keys
from ..options import PlanOptions, plan_options
from ..random import RandomState, release_generator
from ..release import AttributeSpec, ReleaseSpec
from .common import canonical_values, checked_matrix


def from_data(entry) -> bool:
    """Whether a plan builds (or, stratified, checks) the matrix against the data."""
    return needs_data(entry) or (entry is not None and entry.get("kind") == "stratified")


def needs_counting(spec: ReleaseSpec) -> bool:
    """Whether :func:`realise_matrices` must read the data before ``spec`` perturbs it."""
    return any(from_data(a.matrix) for a in spec.perturbed_attributes())


def canonical_entry(domain: Domain, entry: dict) -> tuple[Domain, dict]:
    """A matrix entry still to be built from the data, its per-value keys (``base``,
    a ``retention`` list) permuted as :func:`canonical_order` lists the domain."""
    if not isinstance(domain, CategoricalDomain):
        return domain, entry
    values = list(domain.values)
    order = canonical_values(values)
    perm = np.array([values.index(v) for v in order] + list(range(len(values), domain.n_values)))

    def permuted(e: dict) -> dict:
        e = dict(e)
        for key in ("base", "matrix"):
            if isinstance(e.get(key), list):
                e[key] = np.asarray(e[key], dtype=np.float64)[np.ix_(perm, perm)].tolist()
        if isinstance(e.get("retention"), list):
            e["retention"] = [e["retention"][i] for i in perm]
        if isinstance(e.get("matrices"), dict):
            e["matrices"] = {v: permuted(dict(sub)) for v, sub in e["matrices"].items()}
        return e

    entry = permuted(entry)
    return dataclasses.replace(domain, values=tuple(order)), entry


def realise_matrices(
    spec: ReleaseSpec,
    batches: Iterable[pd.DataFrame],
    options: PlanOptions | None = None,
    random_state: RandomState = None,
) -> ReleaseSpec:
    """Build the matrices a plan takes from the data (kinds of :data:`ppdm.matrix.FROM_DATA`).

    One pass over ``batches`` counts every such attribute's codes (per stratum for a
    stratified one); ``sdcmicro-pram`` first draws each value's retention from the
    release's generator. The realised matrices (and retentions) are written in the spec
    and pass the checks of any owner's matrix. ``options`` gives ``copies`` and
    ``allow_unprotected``; ``random_state`` is ``None`` for a release.

    References
    ----------
    Gouweleeuw, Kooiman, Willenborg & de Wolf (1998), invariant PRAM.
    """
    opts = plan_options(options)
    todo = {a.name: a for a in spec.perturbed_attributes() if from_data(a.matrix)}
    if not todo:
        return spec
    doms = {n: a.get_domain() for n, a in todo.items()}
    strata = {n: a.matrix.get("strata") for n, a in todo.items()}
    # counts[name][stratum] (stratum None: the whole column)
    counts: dict[str, dict] = {n: {} for n in todo}
    offset = 0
    for batch in batches:
        for name, dom in doms.items():
            codes = dom.encode(batch[name], column=name, row_offset=offset)
            keys = (
                np.zeros(len(codes), dtype=np.int64)
                if strata[name] is None
                else stratum_keys(batch, strata[name], offset)
            )
            uniques, where = np.unique(keys, return_inverse=True)
            for i, key in enumerate(uniques.tolist()):
                key = None if strata[name] is None else key
                c = np.bincount(codes[where == i], minlength=dom.n_values)
                counts[name][key] = counts[name].get(key, 0) + c
        offset += len(batch)
    attrs = []
    for a in spec.attributes:
        if a.name in todo:
            marginal = _marginals(a, doms[a.name], counts[a.name])
            rng = release_generator(random_state, warn=False, name=("pram-retention", a.name))
            try:
                m = matrix_from_spec(a.matrix, doms[a.name].n_values, marginal=marginal, rng=rng)
            except ValueError as exc:
                raise SpecError(f"attribute {a.name!r}: {exc}") from None
            m = checked_matrix(a.name, m, opts)
            a = a.model_copy(update={"matrix": m.to_spec()})
        attrs.append(a)
    return spec.model_copy(update={"attributes": attrs})


def _marginals(a: AttributeSpec, domain: Domain, counts: dict):
    """The original counts a data-built matrix is made of (per stratum for a stratified
    one), after checking that every value, and every stratum, it needs is in the data."""
    entry = a.matrix
    if entry.get("kind") != "stratified":
        _all_present(a.name, entry["kind"], domain, counts[None], "")
        return counts[None]
    column, subs = entry["strata"], entry["matrices"]
    unseen = [v for v in subs if v not in counts]
    if unseen:
        raise DataError(
            f"spec attribute {a.name!r}: stratum {unseen[0]!r} of column {column!r} never occurs "
            f"in the data (its strata there: {sorted(counts)[:10]}); a matrix for it would "
            "describe no record"
        )
    stray = [v for v in counts if v not in subs]
    if stray:
        raise DataError(
            f"spec attribute {a.name!r}: column {column!r} holds the stratum {stray[0]!r}, which "
            f"has no matrix (the spec gives {list(subs)})"
        )
    for value, sub in subs.items():
        if needs_data(sub):
            _all_present(a.name, sub["kind"], domain, counts[value], f" in stratum {value!r}")
    return counts


def _all_present(name: str, kind: str, domain: Domain, counts: np.ndarray, where: str) -> None:
    absent = np.flatnonzero(counts == 0)
    if absent.size and kind in FROM_DATA:
        raise DataError(
            f"spec attribute {name!r}: value {domain.labels()[absent[0]]!r} of its domain never "
            f"occurs in the data{where}; a {kind} matrix needs every value present (an "
            "absent one would be released only by records holding it: infinite amplification)"
        )
