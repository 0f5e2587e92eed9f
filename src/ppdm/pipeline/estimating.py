"""Estimating a release's original distributions (overall and by class), with standard
errors, in one streamed pass.

References
----------
Dowd, Xu & Zhang, Sec. 4.2-4.3.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..domain import BinnedDomain
from ..estimate import Estimate, count_codes, estimate_counts
from ..exceptions import DataError, SpecError
from ..mechanism import mechanism_of
from ..random import WordStream
from ..reconstruct import coarsen_buckets, rank_bits, rank_cells
from ..release import ReleaseSpec
from ..validation import show
from .batches import read_ahead
from .opening import (
    Batches,
    Release,
    class_codes,
    class_values,
    opened,
    release_values,
    sorted_classes,
)


@dataclass(frozen=True)
class AttributeEstimate:
    """Estimated distribution of one attribute, overall and (optionally) per class.

    ``binned`` says whether ``labels`` name the bins of a binned domain or the values of
    a categorical one (a category may itself read ``"[a, b)"``).
    """

    name: str
    labels: list[str]
    overall: Estimate
    by_class: dict[str, Estimate] | None = None
    binned: bool = False
    #: For an attribute with one matrix per stratum: the stratum column and the estimate
    #: of each stratum (``overall`` is their sum).
    strata: str | None = None
    by_stratum: dict[str, Estimate] | None = None

    @property
    def value_kind(self) -> str:
        """``"bin"`` or ``"value"``: what one label names."""
        return "bin" if self.binned else "value"


def check_by_class(spec: ReleaseSpec) -> None:
    """Raise :class:`SpecError` unless ``spec`` has a class attribute it left unperturbed.

    References
    ----------
    Agrawal & Srikant (2000), Sec. 4 (by-class reconstruction).
    """
    if spec.class_attribute is None:
        raise SpecError("the release has no class attribute; by-class work needs one")
    if spec.class_perturbed:
        raise SpecError(
            "by-class estimation needs an unperturbed class; this release perturbed "
            f"{spec.class_attribute!r}: estimate or reconstruct it as a whole (without "
            "--by-class, by_class=False)"
        )


def count_pass(
    spec: ReleaseSpec,
    batches: Batches,
    by_class: bool,
    keys: Mapping[str, WordStream] | None = None,
) -> tuple[dict[str, np.ndarray], list | None]:
    """Perturbed code counts of every attribute (per class value, sorted at the end), in one pass.

    With ``keys`` (rank-key streams), count per (class, code, key bucket): arrays
    (C, N, 2**bits), ``bits = rank_bits(N, C)``, coarsened as classes appear.
    """
    attrs = spec.perturbed_attributes()
    doms = {a.name: a.get_domain() for a in attrs}
    bits = {a.name: rank_bits(doms[a.name].n_values) if keys else 0 for a in attrs}
    name = None
    if by_class:
        check_by_class(spec)
        name = spec.class_attribute
    found: dict = {}  # class value -> its row in the tables, in order of appearance
    tables = {a.name: np.zeros((1, doms[a.name].n_values << bits[a.name])) for a in attrs}
    offset = 0
    for batch in batches():
        if name is None:
            ccodes = np.zeros(len(batch), dtype=np.int64)
        else:
            local, uniques = pd.factorize(batch[name], use_na_sentinel=True)
            if (local < 0).any():
                row = int(np.flatnonzero(local < 0)[0])
                raise DataError(
                    f"class column {name!r} data row {offset + row + 1} has value "
                    f"{show(batch[name].iloc[row], 60)}, which is missing or unknown"
                )
            rows = np.array([found.setdefault(v, len(found)) for v in uniques.tolist()])
            ccodes = rows[local] if len(rows) else np.zeros(0, dtype=np.int64)
            if len(found) * max(d.n_values for d in doms.values()) < 2**31:
                ccodes = ccodes.astype(np.int32)  # 32-bit cells: half the memory traffic
        n_c = max(len(found), 1)
        for a in attrs:
            d = doms[a.name]
            if keys and rank_bits(d.n_values, n_c) < bits[a.name]:  # more classes: coarser
                fewer = rank_bits(d.n_values, n_c)
                tables[a.name] = coarsen_buckets(tables[a.name], bits[a.name], fewer)
                bits[a.name] = fewer
            width = tables[a.name].shape[1]
            if len(tables[a.name]) < n_c:
                tables[a.name] = np.pad(tables[a.name], ((0, n_c - len(tables[a.name])), (0, 0)))
            codes = d.encode(batch[a.name], column=a.name, row_offset=offset)
            cells = codes if name is None else ccodes * d.n_values + codes
            if keys:
                words = keys[a.name].uint32(len(cells))
                cells = rank_cells(cells, words, bits[a.name], n_c * d.n_values)
            tables[a.name] += count_codes(cells, n_c * width).reshape(n_c, width)
        offset += len(batch)
    if offset == 0:
        raise DataError("the release data is empty")
    if keys:
        tables = {k: t.reshape(len(t), doms[k].n_values, 1 << bits[k]) for k, t in tables.items()}
    if name is None:
        return tables, None
    classes = sorted_classes(found)
    order = [found[c] for c in classes]
    return {k: t[order] for k, t in tables.items()}, classes


def _pooled(est: Estimate, copies: int) -> Estimate:
    if copies == 1:
        return est
    return replace(est, counts=est.counts / copies, stderr=est.stderr / copies)


def estimate_release(
    release: Release | str | os.PathLike,
    method: str = "set-scale",
    *,
    by_class: bool = False,
    batch_size: int | None = None,
) -> list[AttributeEstimate]:
    """Estimate the original distribution of every perturbed attribute of a release.

    Parameters
    ----------
    release : Release or path
    method : {"inverse", "zero", "set-scale", "norm-sub", "ibu"}
        For substitution releases. An additive release is always estimated with
        Agrawal & Srikant's reconstruction (method ``"as2000"``) over its domain's bins.
    by_class : bool, default=False
        Also estimate per class (the class must be unperturbed); an attribute with one
        matrix per stratum is estimated per stratum instead.
    batch_size : int, optional
        Rows per batch; default :func:`batch_rows` of the release's columns.

    Returns
    -------
    list of AttributeEstimate
    """
    rel, batch_size = opened(release, batch_size)
    with release_values(rel.source):
        if not mechanism_of(rel.spec).has("estimators"):
            return _estimate_values(rel, by_class, batch_size)
        # an attribute with one matrix per stratum is estimated per stratum (not per class)
        stratified = [a for a in rel.spec.perturbed_attributes() if _is_stratified(a)]
        counts, classes = count_pass(
            rel.spec, lambda: read_ahead(rel.batches(batch_size)), by_class
        )
        per_stratum = (
            _stratum_counts(rel.spec, stratified, read_ahead(rel.batches(batch_size)))
            if stratified
            else None
        )
    return estimates_from_counts(rel.spec, counts, classes, method, per_stratum)


def _is_stratified(a) -> bool:
    return bool(a.matrix) and a.matrix.get("kind") == "stratified"


def _stratum_counts(spec: ReleaseSpec, attrs: list, batches) -> dict[str, dict[str, np.ndarray]]:
    """Perturbed code counts of every stratified attribute, per stratum, in one pass."""
    from ..perturbation import stratum_keys

    out: dict[str, dict[str, np.ndarray]] = {a.name: {} for a in attrs}
    doms = {a.name: a.get_domain() for a in attrs}
    offset = 0
    for batch in batches:
        for a in attrs:
            codes = doms[a.name].encode(batch[a.name], column=a.name, row_offset=offset)
            keys = stratum_keys(batch, a.matrix["strata"], offset)
            uniques, where = np.unique(keys, return_inverse=True)
            for i, key in enumerate(uniques.tolist()):
                c = np.bincount(codes[where == i], minlength=doms[a.name].n_values)
                out[a.name][key] = out[a.name].get(key, 0) + c
        offset += len(batch)
    return out


def _stratified_estimate(
    a, counts: dict[str, np.ndarray], method: str, copies: int
) -> AttributeEstimate:
    """The sum of the strata's estimates, standard errors added in quadrature."""
    m = a.get_matrix()
    stray = [k for k in counts if k not in m.matrices]
    if stray:
        raise SpecError(
            f"release data: column {m.strata!r} holds the stratum {stray[0]!r}, which has "
            f"no matrix for {a.name!r} in the spec"
        )
    n = m.n_values
    per = {
        v: _pooled(estimate_counts(counts.get(v, np.zeros(n)), mv, method), copies)
        for v, mv in m.matrices.items()
    }
    ests = list(per.values())
    overall = Estimate(
        perturbed=sum(e.perturbed for e in ests),
        counts=sum(e.counts for e in ests),
        stderr=np.sqrt(sum(e.stderr**2 for e in ests)),
        method=ests[0].method,
        stderr_kind=ests[0].stderr_kind,
    )
    dom = a.get_domain()
    return AttributeEstimate(
        a.name,
        dom.labels(),
        overall,
        None,
        isinstance(dom, BinnedDomain),
        strata=m.strata,
        by_stratum=per,
    )


def estimates_from_counts(
    spec: ReleaseSpec,
    counts: dict[str, np.ndarray],
    classes: list | None,
    method: str = "set-scale",
    per_stratum: Mapping[str, Mapping[str, np.ndarray]] | None = None,
) -> list[AttributeEstimate]:
    """Estimates of every perturbed attribute from its perturbed counts (C, N), one row per
    class of ``classes`` (None: one overall row).

    Parameters
    ----------
    per_stratum : dict, optional
        ``per_stratum[attribute][stratum]``: the counts of the attributes with one matrix
        per stratum, estimated stratum by stratum.

    References
    ----------
    Dowd, Xu & Zhang, Eq. (1) and Sec. 4.3.
    """
    out = []
    for a in spec.perturbed_attributes():
        if _is_stratified(a):
            if per_stratum is None or a.name not in per_stratum:
                raise SpecError(
                    f"attribute {a.name!r} has one matrix per stratum: it needs its counts "
                    "per stratum (ppdm estimate on the release, one file, no --engine dask)"
                )
            out.append(_stratified_estimate(a, per_stratum[a.name], method, spec.copies))
            continue
        m = a.get_matrix()
        # m copies: pooled counts estimate m X; divide by m (stderr shrinks like 1/sqrt(m))
        table = np.asarray(counts[a.name], dtype=np.float64)
        overall = _pooled(estimate_counts(table.sum(axis=0), m, method), spec.copies)
        per = None
        if classes is not None:
            per = {
                str(c): _pooled(estimate_counts(table[i], m, method), spec.copies)
                for i, c in enumerate(classes)
            }
        dom = a.get_domain()
        out.append(
            AttributeEstimate(a.name, dom.labels(), overall, per, isinstance(dom, BinnedDomain))
        )
    return out


def _estimate_values(rel: Release, by_class: bool, batch_size: int) -> list[AttributeEstimate]:
    """Every perturbed attribute estimated from its released values by its mechanism."""
    spec = rel.spec
    mech = mechanism_of(spec)
    attrs = spec.perturbed_attributes()
    frame = pd.concat(list(rel.batches(batch_size)), ignore_index=True)
    if frame.empty:
        raise DataError("the release data is empty")
    classes = None
    if by_class:
        classes = class_values(spec, lambda: iter([frame]))
        ccodes = class_codes(frame, spec, classes, 0)
    out = []
    for a in attrs:
        dom = a.get_domain()
        w = frame[a.name].to_numpy(dtype=np.float64)
        overall = mech.estimate_values(w, a)
        per = None
        if classes is not None:
            per = {
                str(c): mech.estimate_values(w[ccodes == i], a)
                for i, c in enumerate(classes)
                if np.any(ccodes == i)
            }
        binned = isinstance(dom, BinnedDomain)
        out.append(AttributeEstimate(a.name, dom.labels(), overall, per, binned=binned))
    return out
