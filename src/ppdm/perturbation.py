"""Algorithm 1 (random substitution) over whole tables, batch by batch.

:func:`plan_release` chooses every attribute's domain and matrix (from the owner's
options and spec, or from the data), :func:`perturb_frame` and :func:`perturb_batches`
draw the perturbed table. Each perturbed attribute has its own AES-counter stream,
keyed by the run's root and the attribute's name (and copy), and addressed by row:
the perturbed value of row r is a function of the key, r and the original value only.
So for the same seed the output does not depend on the batch size, on the
partitioning, or on the engine, and the in-memory, streaming and partitioned paths
give the same bytes.

References
----------
Dowd, Xu & Zhang, Sec. 3 (Algorithm 1, RRP) and Sec. 3.2 (continuous attributes).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np
import pandas as pd

from .additive import AdditiveNoise, privacy_interval_width
from .domain import BinnedDomain, CategoricalDomain, Domain, DomainRule, DomainSketch
from .exceptions import DataError, OptionError, ParameterError, SpecError
from .io import TEXT_ATTR
from .limits import MAX_RECORDS
from .matrix import (
    FROM_DATA,
    GammaDiagonal,
    PerturbationMatrix,
    StratifiedMatrix,
    matrix_from_spec,
    needs_data,
)
from .options import (
    DEFAULT_GAMMA,
    DEFAULT_MAX_BINS,
    DEFAULT_NOISE_LEVEL,
    NOISE_KINDS,
    PlanOptions,
    plan_options,
)
from .privacy import (
    BUDGET_TOLERANCE,
    changes_nothing,
    copies_reveal,
    power_or_inf,
    record_privacy,
    split_budget,
)
from .random import (
    RandomState,
    WordStream,
    perturbation_generator,
    release_generator,
    resolve_seed,
    stream_generator,
    warn_seeded_release,
)
from .release import AttributeSpec, ReleaseSpec
from .validation import MAX_GAMMA, check_at_least, check_choice, check_positive

__all__ = [
    "DEFAULT_GAMMA",
    "DEFAULT_MAX_BINS",
    "DEFAULT_NOISE_LEVEL",
    "PlanOptions",
    "additive_noise_for_level",
    "plan_release",
    "plan_from_sketches",
    "planned_gammas",
    "perturb_codes",
    "perturb_frame",
    "perturb_batches",
    "realise_matrices",
    "needs_counting",
    "stratum_keys",
]


def perturb_codes(
    codes: np.ndarray, matrix: PerturbationMatrix, random_state: RandomState = None
) -> np.ndarray:
    """Algorithm 1 on an array of codes: one random word per value, O(1) per value.

    Parameters
    ----------
    codes : int array
        Original codes in ``0..N-1``.
    matrix : PerturbationMatrix
    random_state : None, int, SeedSequence or Generator
        ``None`` (a release) draws from an AES-counter stream under 256 bits of OS
        entropy; an int or SeedSequence gives a reproducible PCG64 stream
        (experiments), a Generator is used as is.

    Returns
    -------
    int32 array
        Perturbed codes.

    Examples
    --------
    >>> from ppdm.matrix import identity
    >>> perturb_codes(np.array([2, 0, 1]), identity(3), 0).tolist()
    [2, 0, 1]

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 (Algorithm 1).
    """
    codes = np.asarray(codes)
    if codes.size and (codes.min() < 0 or codes.max() >= matrix.n_values):
        raise DataError(f"codes must lie in 0..{matrix.n_values - 1}")
    return matrix.draw(codes, perturbation_generator(random_state, "perturb-codes"))


def plan_release(
    data: pd.DataFrame | Iterable[pd.DataFrame],
    options: PlanOptions | None = None,
    *,
    kinds: dict[str, str] | None = None,
    **keywords,
) -> ReleaseSpec:
    """Choose the domain and matrix (or additive noise) of every attribute.

    Parameters
    ----------
    data : DataFrame or iterable of DataFrame batches
        The original table (read once; batches keep memory bounded).
    options : PlanOptions, optional
        The owner's choices, validated when built (see :class:`ppdm.options.PlanOptions`
        for every field: ``class_attribute``, ``gamma``, ``n_bins``, ``max_bins``,
        ``bounds``, ``spec``, ``attributes``, ``perturb_class``, ``missing``,
        ``out_of_bounds``, ``representative``, ``copies``, ``method``, ``noise``,
        ``noise_scale``, ``allow_unprotected``).
    kinds : dict, optional
        Filled with every column's kind (``"int"``, ``"float"``, ``"str"``, ``"bool"``),
        decided over all batches: read the second pass with them
        (:func:`ppdm.io.iter_batches`). Batches of raw CSV text (``kinds="text"``) are
        numeric only if every batch is.
    **keywords
        Fields of :class:`~ppdm.options.PlanOptions`, given one by one
        (``plan_release(df, gamma=19, n_bins=10)``); with ``options`` they replace its
        fields. Validated before the data is read.

    Returns
    -------
    ReleaseSpec
        Without ``n_records``; filled in after perturbation.

    Examples
    --------
    >>> table = pd.DataFrame({"age": [23, 41, 35, 62], "group": ["a", "b", "a", "b"]})
    >>> spec = plan_release(table, class_attribute="group", gamma=19, bounds={"age": (20, 70)})
    >>> [(a.name, a.perturbed) for a in spec.attributes], spec.attributes[0].matrix["gamma"]
    ([('age', True), ('group', False)], 19.0)
    >>> spec == plan_release(table, PlanOptions(class_attribute="group", gamma=19,
    ...                                         bounds={"age": (20, 70)}))
    True

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 and 7 (choice of N).
    """
    opts = plan_options(options, **keywords)  # fail before reading the data
    batches = [data] if isinstance(data, pd.DataFrame) else data
    sketches: dict[str, DomainSketch] | None = None
    # the columns of a batch are sketched on two threads (Arrow and NumPy release the
    # GIL); the first column's error, in column order, is the one raised
    with ThreadPoolExecutor(2, thread_name_prefix="ppdm-sketch") as pool:
        for batch in batches:
            if sketches is None:
                columns = [str(c) for c in batch.columns]
                _check_names(columns, opts)
                sketches = {c: DomainSketch(c, cap=opts.bins_cap) for c in columns}
            text = bool(batch.attrs.get(TEXT_ATTR))
            update = partial(DomainSketch.update, text=text)
            list(pool.map(update, sketches.values(), [batch[c] for c in sketches]))
    if kinds is not None and sketches is not None:
        kinds.update({c: s.kind or "str" for c, s in sketches.items()})
    return plan_from_sketches(sketches or {}, opts)


def plan_from_sketches(
    sketches: dict[str, DomainSketch], options: PlanOptions | None = None, **keywords
) -> ReleaseSpec:
    """:func:`plan_release` from one-pass column summaries (merged across partitions).

    Parameters
    ----------
    sketches : dict of column -> DomainSketch
        One sketch per column, in column order (see :meth:`DomainSketch.merge` for
        summaries computed partition by partition), with a cap of at least
        ``options.bins_cap`` values.
    options : PlanOptions, optional
    **keywords
        As in :func:`plan_release`.

    Returns
    -------
    ReleaseSpec

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 and 7 (choice of N).
    """
    opts = plan_options(options, **keywords)
    user = {} if opts.spec is None else {a.name: a for a in opts.spec.attributes}
    columns = list(sketches)
    if not columns or sketches[columns[0]].rows == 0:
        raise DataError("the input table is empty: nothing to perturb")
    _check_names(columns, opts)
    class_attribute = opts.class_column
    to_perturb = set(opts.attributes) if opts.attributes is not None else set(columns)
    to_perturb.discard(class_attribute)
    out = []
    for c in columns:
        given = user.get(c)
        perturbed = c in to_perturb if given is None else given.perturbed
        if c == class_attribute and given is None:
            perturbed = opts.perturb_class
        if not perturbed:
            out.append(AttributeSpec(name=c, perturbed=False))
            continue
        if given is not None and given.domain is not None:
            domain: Domain = given.get_domain()
        else:
            rule = DomainRule(
                n_bins=opts.n_bins,
                max_bins=opts.max_bins,
                bounds=opts.bounds_of(c),
                representative=opts.representative,
                missing=opts.missing,
                out_of_bounds=opts.out_of_bounds,
            )
            domain = sketches[c].to_domain(rule)
        if opts.method == "additive":
            out.append(_additive_attribute(c, domain, opts))
            continue
        out.append((c, domain, given))  # its matrix once every attribute's gamma is known
    out = _substitution_attributes(out, opts)
    if not any(a.perturbed for a in out) and not opts.allow_unprotected:
        raise DataError(
            "no attribute would be perturbed: the release would be the input as is; choose "
            "attributes to perturb (--attributes), or pass --allow-unprotected "
            "(allow_unprotected=True) to publish it unprotected knowingly"
        )
    return ReleaseSpec(
        method=opts.method,
        copies=opts.copies,
        epsilon_record=opts.budget,
        epsilon_split=opts.split or None,
        class_attribute=class_attribute,
        # what the plan does to the class, whatever asked for it (a flag or the spec)
        class_perturbed=any(a.name == class_attribute and a.perturbed for a in out),
        attributes=out,
    )


def _substitution_attributes(planned: list, opts: PlanOptions) -> list[AttributeSpec]:
    """The attributes of a substitution plan, each ``(name, domain, given)`` still to be
    perturbed given its matrix: the owner's, or gamma-diagonal at ``gamma`` or at its
    share of the per-record budget (:func:`planned_gammas`)."""
    own = {}
    later = {}  # built from the data by realise_matrices
    for item in planned:
        if isinstance(item, tuple) and item[2] is not None and _from_data(item[2].matrix):
            later[item[0]] = item[2].matrix
        elif isinstance(item, tuple) and item[2] is not None and item[2].matrix is not None:
            own[item[0]] = _own_matrix(*item)
    if later and opts.budget is not None:
        raise OptionError(
            "epsilon_record",
            f"the matrices of {sorted(later)} are built from the data's marginal, so their "
            "gamma is known only then: a per-record budget cannot be split before; give "
            "no epsilon_record, or other matrix kinds",
        )
    free = [i[0] for i in planned if isinstance(i, tuple) and i[0] not in own | later]
    gammas = planned_gammas({n: m.amplification() for n, m in own.items()}, free, opts)
    out = []
    for item in planned:
        if not isinstance(item, tuple):
            out.append(item)
            continue
        name, domain, _ = item
        if name in later:
            domain, entry = _canonical_entry(domain, dict(later[name]))
            out.append(AttributeSpec(name=name, domain=domain.to_spec(), matrix=entry))
            continue
        matrix = own.get(name)
        if matrix is None:
            try:
                matrix = GammaDiagonal(domain.n_values, gammas[name])
            except ValueError as exc:
                raise SpecError(f"attribute {name!r}: {exc}") from None
        matrix = _checked_matrix(name, matrix, opts)
        domain, matrix = _canonical_order(domain, matrix)
        out.append(
            AttributeSpec(
                name=name, perturbed=True, domain=domain.to_spec(), matrix=matrix.to_spec()
            )
        )
    return out


def planned_gammas(own: dict[str, float], free: list[str], opts: PlanOptions) -> dict[str, float]:
    """The gamma of every attribute in ``free`` (without a matrix of its own), given the
    amplifications ``own`` of the others and the options' gamma and per-record budget.

    Without a budget every one gets ``gamma`` (9 by default). With one, a given gamma or
    the spec's matrices are kept if their per-record epsilon is within it and refused
    otherwise; else the budget left by ``own`` is split by :func:`ppdm.privacy.split_budget`.

    References
    ----------
    Evfimievski, Gehrke & Srikant (2003), amplification of independent operators.
    """
    budget, copies = opts.budget, opts.copies
    if budget is None:
        return dict.fromkeys(free, opts.gamma_or_default)
    split = opts.split
    if split and opts.gamma is not None:
        raise OptionError(
            "epsilon_split",
            f"epsilon_split splits the budget into gammas, but gamma {opts.gamma:g} is given; "
            "give one of them",
        )
    strays = sorted(set(split) - set(free))
    if strays:
        raise OptionError(
            "epsilon_split",
            f"epsilon_split names {strays}, which the plan does not give a share of the "
            f"budget (it splits it over {free}: the perturbed attributes without a matrix "
            "in the spec)",
        )
    if opts.gamma is not None:
        total = record_privacy({**own, **dict.fromkeys(free, opts.gamma)}, copies)["epsilon"]
        if total is None or total > budget * (1 + BUDGET_TOLERANCE):
            raise OptionError(
                "gamma",
                f"gamma {opts.gamma:g} gives a per-record epsilon of {_spent(total)} "
                f"({len(own) + len(free)} perturbed attributes x {copies} "
                f"cop{'y' if copies == 1 else 'ies'}), over the per-record budget {budget:g}",
            )
        return dict.fromkeys(free, opts.gamma)
    fixed = record_privacy(own, copies)["epsilon"]
    if fixed is None or fixed > budget * (1 + BUDGET_TOLERANCE) or (free and fixed >= budget):
        what = "over" if fixed is None or fixed > budget else f"leaving nothing for {free} of"
        raise OptionError(
            "spec",
            f"the spec's matrices give a per-record epsilon of {_spent(fixed)}, {what} the "
            f"per-record budget {budget:g}",
        )
    gammas = split_budget(budget, {n: split.get(n, 1.0) for n in free}, copies, fixed=own)
    for name, gamma in gammas.items():
        if not 1 < gamma <= MAX_GAMMA:
            fix = "a larger budget or fewer" if gamma <= 1 else "a smaller budget or more"
            raise OptionError(
                "epsilon_record",
                f"epsilon_record {budget:g} gives attribute {name!r} gamma {gamma:.6g} "
                f"({len(own) + len(free)} perturbed attributes x {copies} "
                f"cop{'y' if copies == 1 else 'ies'}), not a valid amplification; give "
                f"{fix} perturbed attributes",
            )
    return gammas


def _spent(epsilon: float | None) -> str:
    return "infinity" if epsilon is None else f"{epsilon:.4g}"


def _own_matrix(name: str, domain: Domain, given: AttributeSpec) -> PerturbationMatrix:
    """The matrix the owner's spec gives ``name``."""
    try:
        mspec = dict(given.matrix)
        if mspec.get("kind") == "gamma-diagonal":
            mspec.setdefault("n_values", domain.n_values)
        return matrix_from_spec(mspec, domain.n_values)
    except ValueError as exc:
        raise SpecError(f"attribute {name!r}: {exc}") from None


def _checked_matrix(name: str, matrix: PerturbationMatrix, opts: PlanOptions) -> PerturbationMatrix:
    """``matrix``, refused if it leaves the attribute unprotected (unless allowed)."""
    if opts.allow_unprotected:
        return matrix
    amplification = matrix.amplification()
    if not np.isfinite(amplification):
        raise SpecError(
            f"attribute {name!r}: its {matrix.to_spec().get('kind', 'explicit')} matrix has "
            "infinite amplification (a zero entry lets some released values reveal the "
            "original exactly); use a matrix with positive entries, or pass "
            "--allow-unprotected (allow_unprotected=True) to release it knowingly"
        )
    if not np.isfinite(power_or_inf(amplification, opts.copies)):
        raise SpecError(
            f"attribute {name!r}: {opts.copies} copies compound its gamma {amplification:.4g} to "
            f"gamma^{opts.copies}, beyond any finite guarantee (the copies of a record, taken "
            "together, can reveal it); use fewer copies, or pass --allow-unprotected "
            "(allow_unprotected=True) to release it knowingly"
        )
    if copies_reveal(matrix, opts.copies):
        raise SpecError(
            f"attribute {name!r}: its {opts.copies} copies of a record, taken together, reveal "
            f"the record's value (they point to another value with probability below "
            f"{matrix.misread_bound(opts.copies):.2g}); use fewer copies or a smaller gamma, "
            "or pass --allow-unprotected (allow_unprotected=True) to release it knowingly"
        )
    if changes_nothing(matrix):
        raise SpecError(
            f"attribute {name!r}: its matrix releases a value as another with probability "
            f"{matrix.least_change():.2g}: even in a table of {MAX_RECORDS:,} records fewer "
            "than one value would be expected to change; use a smaller gamma, or pass "
            "--allow-unprotected (allow_unprotected=True) to release it knowingly"
        )
    return matrix


def canonical_values(values: list) -> list:
    """Categorical values in the order a release lists them: sorted (by text if mixed)."""
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=str)


def _canonical_order(
    domain: Domain, matrix: PerturbationMatrix
) -> tuple[Domain, PerturbationMatrix]:
    """List a categorical domain's values in canonical order, permuting the matrix alike."""
    if not isinstance(domain, CategoricalDomain):
        return domain, matrix
    values = list(domain.values)
    order = canonical_values(values)
    if order == values:
        return domain, matrix
    perm = np.array([values.index(v) for v in order] + list(range(len(values), matrix.n_values)))
    spec = matrix.to_spec()
    if "matrix" in spec:
        dense = np.asarray(spec["matrix"], dtype=np.float64)[np.ix_(perm, perm)]
        matrix = matrix_from_spec({**spec, "matrix": dense.tolist()}, matrix.n_values)
    import dataclasses

    return dataclasses.replace(domain, values=tuple(order)), matrix


def _from_data(entry) -> bool:
    """Whether a plan builds (or, stratified, checks) the matrix against the data."""
    return needs_data(entry) or (entry is not None and entry.get("kind") == "stratified")


def needs_counting(spec: ReleaseSpec) -> bool:
    """Whether :func:`realise_matrices` must read the data before ``spec`` perturbs it."""
    return any(_from_data(a.matrix) for a in spec.perturbed_attributes())


def _canonical_entry(domain: Domain, entry: dict) -> tuple[Domain, dict]:
    """A matrix entry still to be built from the data, its per-value keys (``base``,
    a ``retention`` list) permuted as :func:`_canonical_order` lists the domain."""
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
    import dataclasses

    return dataclasses.replace(domain, values=tuple(order)), entry


def realise_matrices(
    spec: ReleaseSpec,
    batches: Iterable[pd.DataFrame],
    options: PlanOptions | None = None,
    random_state: RandomState = None,
) -> ReleaseSpec:
    """Build the matrices a plan takes from the data (kinds of :data:`ppdm.matrix.FROM_DATA`).

    One pass over ``batches`` counts every such attribute's codes (its original
    marginal); invariant PRAM is built from them, and ``sdcmicro-pram`` first draws
    each value's retention from the release's generator (a CSPRNG under OS entropy
    for a release; the seed's stream in experiments). The realised matrix, and the
    drawn retentions, are written in the spec: they are what the miner needs. Each
    matrix then passes the checks of any owner's matrix (finite amplification, ...).

    Parameters
    ----------
    spec : ReleaseSpec
        A plan (:func:`plan_release`).
    batches : iterable of DataFrame
        The original table, read once (only if some matrix is built from the data).
    options : PlanOptions, optional
        The plan's options (``copies``, ``allow_unprotected``).
    random_state : None, int or SeedSequence
        ``None`` for a release.

    Returns
    -------
    ReleaseSpec

    References
    ----------
    Gouweleeuw, Kooiman, Willenborg & de Wolf (1998), invariant PRAM.
    """
    opts = plan_options(options)
    todo = {a.name: a for a in spec.perturbed_attributes() if _from_data(a.matrix)}
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
            m = _checked_matrix(a.name, m, opts)
            a = a.model_copy(update={"matrix": m.to_spec()})
        attrs.append(a)
    return spec.model_copy(update={"attributes": attrs})


def stratum_keys(batch: pd.DataFrame, column: str, offset: int) -> np.ndarray:
    """Every record's stratum as text (how a stratified matrix names its strata)."""
    values = batch[column]
    missing = values.isna().to_numpy()
    if missing.any():
        row = offset + int(np.flatnonzero(missing)[0]) + 1
        raise DataError(
            f"stratum column {column!r} data row {row} has no value: every record needs "
            "its stratum (it chooses the record's matrix)"
        )
    return values.astype(str).to_numpy(dtype=object)


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


def additive_noise_for_level(kind: str, level: float, value_range: float) -> AdditiveNoise:
    """Noise whose 95 % interval width is ``level`` times ``value_range``.

    Uniform on ``[-a, a]``: width ``0.95 * 2a``; Gaussian: width ``2 * 1.96 sigma``
    (Agrawal & Srikant 2000, Sec. 2.1).

    Examples
    --------
    >>> round(additive_noise_for_level("gaussian", 1.0, 3.92).scale, 3)
    1.0
    """
    check_choice(kind, "noise", NOISE_KINDS, error=SpecError)
    level = check_positive(level, "noise_scale", error=SpecError)
    unit = privacy_interval_width(kind, 1.0, 0.95)  # width per unit of scale
    return AdditiveNoise(kind, float(level) * float(value_range) / unit)


def _additive_attribute(name: str, domain: Domain, opts: PlanOptions) -> AttributeSpec:
    if isinstance(domain, CategoricalDomain):
        values = _numeric_values_of(domain)
        if values is None:
            raise DataError(
                f"column {name!r} is not numeric: additive noise needs numbers; leave it "
                "unperturbed (--attributes) or use substitution"
            )
        domain = BinnedDomain(
            float(values.min()),
            float(values.max()),
            opts.bins_cap,
            bounds_from_data=domain.from_data,
        )
    if domain.missing_category:
        raise DataError(f"column {name!r}: additive noise cannot carry a 'missing' category")
    nz = additive_noise_for_level(opts.noise, opts.noise_scale, domain.high - domain.low)
    return AttributeSpec(
        name=name,
        perturbed=True,
        domain=domain.to_spec(),
        noise={"kind": nz.kind, "scale": nz.scale},
    )


def _numeric_values_of(domain: CategoricalDomain) -> np.ndarray | None:
    vals = domain.values
    if domain.missing_category or not all(
        isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in vals
    ):
        return None
    return np.asarray(vals, dtype=np.float64)


def _check_names(columns: list[str], opts: PlanOptions) -> None:
    """Every column the options name must be in the data, once."""
    if len(set(columns)) != len(columns):
        raise DataError(f"the input has repeated column names: {columns}")
    known = set(columns)
    for label, names in (
        ("class column", [opts.class_column] if opts.class_column else []),
        ("attribute to perturb", opts.attributes or []),
        ("--bounds column", [name for name, _ in opts.bounds]),
        ("spec attribute", [a.name for a in opts.spec.attributes] if opts.spec else []),
    ):
        for name in names:
            if name not in known:
                raise DataError(f"unknown {label} {name!r}; the data has columns {columns}")


#: Names of a release's streams: (purpose, attribute[, copy]) under the run's root.
SUBSTITUTE, REPRESENTATIVE, ADDITIVE = "substitute", "representative", "additive-noise"


def _release_root(random_state: RandomState, warn: bool) -> np.random.SeedSequence:
    root = resolve_seed(random_state)
    if random_state is not None and warn:
        warn_seeded_release(stacklevel=3)
    return root


def _unit_uniforms(stream: WordStream, k: int) -> np.ndarray:
    """``k`` uniforms in (0, 1), one 64-bit word ``w`` each: ``((w >> 11) + 1/2) / 2^53``."""
    words = stream.uint64(k) >> np.uint64(11)
    return (words.astype(np.float64) + 0.5) * 2.0**-53


def _additive_noise(noise, u: np.ndarray) -> np.ndarray:
    """Noise by inversion of its distribution function at uniforms ``u`` in (0, 1)."""
    if noise.kind == "uniform":
        return noise.scale * (2.0 * u - 1.0)
    from scipy.special import ndtri

    return noise.scale * ndtri(u)


def _additive_batches(batches, spec, root, row_offset) -> Iterator[pd.DataFrame]:
    # one 64-bit word per value, addressed by row, under the key (ADDITIVE, attribute)
    plans = [
        (
            a.name,
            a.get_domain(),
            a.get_noise(),
            WordStream(stream_generator(root, ADDITIVE, a.name), row=row_offset),
        )
        for a in spec.perturbed_attributes()
    ]
    offset = 0
    for batch in batches:
        if offset == 0:
            spec.check_columns([str(c) for c in batch.columns])
        _check_class_known(batch, spec, offset)
        out = batch.copy()
        for name, domain, noise, stream in plans:
            # missing values and bounds
            domain.encode(batch[name], column=name, row_offset=offset)
            x = batch[name].to_numpy(dtype=np.float64)
            if domain.out_of_bounds == "clip":
                x = np.clip(x, domain.low, domain.high)
            out[name] = x + _additive_noise(noise, _unit_uniforms(stream, len(x)))
        offset += len(batch)
        yield out


def _check_class_known(batch: pd.DataFrame, spec: ReleaseSpec, offset: int) -> None:
    """Every record of a release has its class: by-class estimation, reconstruction and
    mining count each class's records apart, and a record without one would make the
    release unusable for them (a perturbed class's own domain refuses it as it encodes)."""
    name = spec.class_attribute
    if name is None or name not in batch.columns:
        return
    missing = batch[name].isna().to_numpy()
    if missing.any():
        row = offset + int(np.flatnonzero(missing)[0]) + 1
        raise DataError(
            f"class column {name!r} data row {row} has no value: every record of a release "
            "needs its class (by-class estimates, reconstruction and mining count records per "
            "class); drop the rows without one"
        )


def _attribute_streams(spec: ReleaseSpec, root: np.random.SeedSequence, row_offset: int):
    """Per copy, per perturbed attribute: name, domain, matrix and its two word streams.

    The substitution stream of attribute ``a`` in copy ``c`` is keyed by
    ``(SUBSTITUTE, a, c)``, the random-representative stream by
    ``(REPRESENTATIVE, a, c)``: keyed by name, never by position. Both start at row
    ``row_offset`` and are then read in record order across batches.
    """
    return [
        [
            (
                a.name,
                a.get_domain(),
                a.get_matrix(),
                WordStream(stream_generator(root, SUBSTITUTE, a.name, c), row=row_offset),
                WordStream(stream_generator(root, REPRESENTATIVE, a.name, c), row=row_offset),
            )
            for a in spec.perturbed_attributes()
        ]
        for c in range(spec.copies)
    ]


def perturb_batches(
    batches: Iterable[pd.DataFrame],
    spec: ReleaseSpec,
    random_state: RandomState = None,
    *,
    warn: bool = True,
    row_offset: int = 0,
    transitions: dict[str, np.ndarray] | None = None,
) -> Iterator[pd.DataFrame]:
    """Perturb a table batch by batch (Algorithm 1 on every perturbed attribute).

    Each attribute's values are encoded in its domain, substituted through its matrix
    and decoded to representative values (an additive release instead adds each
    attribute's noise to its values). Bad values raise an error naming the column
    and the row (counted over all batches; ``row_offset`` does not enter). Inputs are
    never modified. With ``spec.copies = m > 1`` every batch is released m times, each copy
    perturbed independently (Kang's multiple random substitutions; the amplification
    is gamma^m).

    Randomness: every attribute (and copy) has its own AES-counter streams, keyed by
    a BLAKE2b digest of the run's root and the stream's name (purpose, attribute,
    copy), and addressed by row: record ``r`` of attribute ``a`` uses word ``r`` of
    ``a``'s streams. The output is therefore a function of the root, the data and
    the spec only: not of the batch sizes, the partitioning or the engine, nor of the
    other columns; copy ``c`` of an m-copy release equals copy ``c`` of any other
    release with the same seed and spec (every yielded frame holds its batch's copies
    in turn, so with m > 1 the row order follows the batches).

    Parameters
    ----------
    batches : iterable of DataFrame
    spec : ReleaseSpec
        From :func:`plan_release`.
    random_state : None, int, SeedSequence or Generator
        ``None`` (for releases): a root of 256 bits of OS entropy
        (:func:`ppdm.random.resolve_seed`). An int or SeedSequence: a reproducible
        root (experiments and tests only; warned).
    warn : bool, default=True
        Warn when a seeded release is made.
    row_offset : int, default=0
        Row address of the first record of the first batch in the random streams (a
        partition's first row in the whole table).
    transitions : dict, optional
        Filled with every perturbed attribute's transition counts (the owner's view,
        never part of a release): ``transitions[name][o, h]`` records of original code
        ``o`` released as ``h``, over all copies.

    Yields
    ------
    DataFrame

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 (Algorithm 1) and Sec. 3.2; Kang, Sec. 2 (copies).
    """
    check_at_least(row_offset, "row_offset", 0, error=ParameterError)
    unbuilt = [a.name for a in spec.perturbed_attributes() if needs_data(a.matrix)]
    if unbuilt:
        raise SpecError(
            f"attribute {unbuilt[0]!r}: its {spec.attribute(unbuilt[0]).matrix['kind']} matrix "
            "is built from the data (its marginal, its strata) in a counting pass that only "
            "ppdm perturb of one input file makes (not a directory or glob of parts, nor "
            "--engine dask); in Python, ppdm.perturbation.realise_matrices"
        )
    root = _release_root(random_state, warn)
    if spec.method == "additive":
        yield from _additive_batches(batches, spec, root, int(row_offset))
        return
    copies = _attribute_streams(spec, root, int(row_offset))
    offset = 0
    for batch in batches:
        if offset == 0:
            spec.check_columns([str(c) for c in batch.columns])
        _check_class_known(batch, spec, offset)
        outs = []
        codes_cache: dict[str, np.ndarray] = {}
        for plans in copies:
            out = batch.copy()
            for name, domain, matrix, words, reps in plans:
                if name not in codes_cache:
                    codes_cache[name] = domain.encode(batch[name], column=name, row_offset=offset)
                codes = codes_cache[name]
                if isinstance(matrix, StratifiedMatrix):
                    keys = stratum_keys(batch, matrix.strata, offset)
                    rows = pd.Categorical(keys, categories=matrix.values).codes.astype(np.int64)
                    if (rows < 0).any():
                        row = int(np.flatnonzero(rows < 0)[0])
                        raise DataError(
                            f"stratum column {matrix.strata!r} data row {offset + row + 1} has "
                            f"{keys[row]!r}, a stratum without a matrix in the spec of {name!r}"
                        )
                    perturbed = matrix.draw_rows(codes, rows, words)
                else:
                    perturbed = matrix.draw(codes, words)
                if transitions is not None:
                    n = matrix.n_values
                    pairs = np.bincount(codes.astype(np.int64) * n + perturbed, minlength=n * n)
                    counts = transitions.setdefault(name, np.zeros((n, n), dtype=np.int64))
                    counts += pairs.reshape(n, n)
                out[name] = domain.decode(perturbed, random_state=reps.generator)
            outs.append(out)
        offset += len(batch)
        yield outs[0] if len(outs) == 1 else pd.concat(outs, ignore_index=True)


def perturb_frame(
    frame: pd.DataFrame,
    spec: ReleaseSpec,
    random_state: RandomState = None,
    *,
    warn: bool = True,
) -> pd.DataFrame:
    """Perturb a whole in-memory table (see :func:`perturb_batches`).

    Examples
    --------
    >>> import warnings
    >>> df = pd.DataFrame({"x": [1, 2, 3, 1], "y": ["a", "b", "a", "b"]})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     spec = plan_release(df, class_attribute="y")
    ...     out = perturb_frame(df, spec, random_state=0)
    >>> out.shape, out["y"].tolist()
    ((4, 2), ['a', 'b', 'a', 'b'])
    """
    if len(frame) == 0:
        raise DataError("the input table is empty: nothing to perturb")
    return next(iter(perturb_batches([frame], spec, random_state, warn=warn)))
