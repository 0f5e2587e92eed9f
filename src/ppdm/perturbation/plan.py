"""The release plan: every attribute's domain and matrix (or noise), from the owner's
options and spec or from the data.

References
----------
Dowd, Xu & Zhang, Sec. 3 and 7 (choice of N).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import pandas as pd

from ..domain import Domain, DomainRule, DomainSketch
from ..domain.sketch import ConstantColumnError
from ..exceptions import DataError, DomainError, OptionError, SpecError
from ..io import TEXT_ATTR
from ..matrix import GammaDiagonal
from ..mechanism import mechanism_of
from ..options import PlanOptions, plan_options
from ..privacy import BUDGET_TOLERANCE, record_privacy, split_budget
from ..release import AttributeSpec, ReleaseSpec
from ..validation import MAX_GAMMA
from .common import canonical_order, check_names, checked_matrix, own_matrix
from .pram import canonical_entry, from_data


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
                check_names(columns, opts)
                sketches = {c: DomainSketch(c, cap=opts.bins_cap) for c in columns}
            text = bool(batch.attrs.get(TEXT_ATTR))
            update = partial(DomainSketch.update, text=text)
            list(pool.map(update, sketches.values(), [batch[c] for c in sketches]))
    if kinds is not None and sketches is not None:
        kinds.update({c: s.kind or "str" for c, s in sketches.items()})
    return plan_from_sketches(sketches or {}, opts)


def _plan_columns(columns, sketches, user, opts, constant: list) -> list:
    """Each column's spec, or ``(name, domain, given)`` for a substitution attribute whose
    matrix waits for every gamma; a column of one value goes to ``constant``."""
    class_attribute = opts.class_column
    to_perturb = set(opts.attributes) if opts.attributes is not None else set(columns)
    to_perturb.discard(class_attribute)
    out: list = []
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
            try:
                domain = sketches[c].to_domain(rule)
            except ConstantColumnError as exc:  # said once, with every such column
                constant.append((c, exc))
                continue
            except DomainError:
                _raise_constant(constant)
                raise
        fields = mechanism_of(opts.method).plan_attribute(c, domain, opts)
        if fields is not None:
            out.append(AttributeSpec(name=c, perturbed=True, **fields))
            continue
        out.append((c, domain, given))  # its matrix once every attribute's gamma is known
    return out


def _raise_constant(constant: list) -> None:
    """Refuse the columns to perturb that hold one value: one column in its own words,
    several named together, so the owner learns them all at once."""
    if len(constant) == 1:
        raise constant[0][1]
    if constant:
        names = ", ".join(repr(c) for c, _ in constant)
        raise ConstantColumnError(
            f"columns {names} ({len(constant)}) each hold a single value (or none): nothing to "
            "perturb; name the other columns in --attributes (attributes=[...]) to release "
            "them as they are, or give their domains (--bounds, or a spec)"
        )


def plan_from_sketches(
    sketches: dict[str, DomainSketch], options: PlanOptions | None = None, **keywords
) -> ReleaseSpec:
    """:func:`plan_release` from one-pass column summaries (merged across partitions).

    ``sketches`` holds one :class:`DomainSketch` per column, in column order, with a cap
    of at least ``options.bins_cap`` values; ``**keywords`` as in :func:`plan_release`.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 and 7 (choice of N).
    """
    opts = plan_options(options, **keywords)
    user = {} if opts.spec is None else {a.name: a for a in opts.spec.attributes}
    columns = list(sketches)
    if not columns or sketches[columns[0]].rows == 0:
        raise DataError("the input table is empty: nothing to perturb")
    check_names(columns, opts)
    constant: list = []
    with warnings.catch_warnings(record=True) as caught:  # said once the plan holds
        warnings.simplefilter("always")
        out = _plan_columns(columns, sketches, user, opts, constant)
    _raise_constant(constant)
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
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
        class_attribute=opts.class_column,
        # what the plan does to the class, whatever asked for it (a flag or the spec)
        class_perturbed=any(a.name == opts.class_column and a.perturbed for a in out),
        attributes=out,
    )


def _substitution_attributes(planned: list, opts: PlanOptions) -> list[AttributeSpec]:
    """The attributes of a substitution plan, each ``(name, domain, given)`` still to be
    perturbed given its matrix: the owner's, or gamma-diagonal at ``gamma`` or at its
    share of the per-record budget (:func:`planned_gammas`)."""
    own = {}
    later = {}  # built from the data by realise_matrices
    for item in planned:
        if isinstance(item, tuple) and item[2] is not None and from_data(item[2].matrix):
            later[item[0]] = item[2].matrix
        elif isinstance(item, tuple) and item[2] is not None and item[2].matrix is not None:
            own[item[0]] = own_matrix(*item)
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
            domain, entry = canonical_entry(domain, dict(later[name]))
            out.append(AttributeSpec(name=name, domain=domain.to_spec(), matrix=entry))
            continue
        matrix = own.get(name)
        if matrix is None:
            try:
                matrix = GammaDiagonal(domain.n_values, gammas[name])
            except ValueError as exc:
                raise SpecError(f"attribute {name!r}: {exc}") from None
        matrix = checked_matrix(name, matrix, opts)
        domain, matrix = canonical_order(domain, matrix)
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
    counted = f"{len(own) + len(free)} perturbed attributes x {copies} cop"
    counted += "y" if copies == 1 else "ies"
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
                f"({counted}), over the per-record budget {budget:g}",
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
                f"({counted}), not a valid amplification; give {fix} perturbed attributes",
            )
    return gammas


def _spent(epsilon: float | None) -> str:
    return "infinity" if epsilon is None else f"{epsilon:.4g}"
