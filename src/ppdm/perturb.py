"""Algorithm 1 (random substitution) over whole tables, batch by batch.

:func:`plan_release` chooses every attribute's domain and matrix (from the owner's
options and spec, or from the data), :func:`perturb_frame` and :func:`perturb_batches`
draw the perturbed table. Each perturbed attribute has its own random stream,
consumed in record order, so the output does not depend on the batch size and the
in-memory and streaming paths give the same bytes for the same seed.

References
----------
Dowd, Xu & Zhang, Sec. 3 (Algorithm 1, RRP) and Sec. 3.2 (continuous attributes).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Literal

import numpy as np
import pandas as pd

from .domain import BinnedDomain, CategoricalDomain, Domain, DomainSketch
from .exceptions import DataError, MatrixError, SpecError
from .limits import check_copies, check_n_values
from .matrix import GammaDiagonal, PerturbationMatrix, check_gamma, matrix_from_spec
from .noise.additive import AdditiveNoise, privacy_interval_width
from .privacy import RHO1_LEVELS, anonymity_k, kang_bound, rho2_from_gamma
from .random import RandomState, WordStream, release_streams
from .release import AttributeSpec, ReleaseSpec

__all__ = [
    "DEFAULT_GAMMA",
    "DEFAULT_MAX_BINS",
    "DEFAULT_NOISE_LEVEL",
    "additive_noise_for_level",
    "additive_privacy",
    "plan_release",
    "plan_from_sketches",
    "attribute_privacy",
    "perturb_codes",
    "perturb_frame",
    "perturb_batches",
]

#: Default amplification: rho1 = 0.1 gives rho2 = 0.5.
DEFAULT_GAMMA = 9.0
#: Default additive privacy level: 95 % interval width = the attribute's range.
DEFAULT_NOISE_LEVEL = 1.0
#: Default N for continuous attributes (and the largest d kept as categorical).
DEFAULT_MAX_BINS = 20


def perturb_codes(
    codes: np.ndarray, matrix: PerturbationMatrix, random_state: RandomState = None
) -> np.ndarray:
    """Algorithm 1 on an array of codes: one uniform per value, O(1) per value.

    Parameters
    ----------
    codes : int array
        Original codes in ``0..N-1``.
    matrix : PerturbationMatrix
    random_state : None, int or Generator
        ``None`` draws from a fresh OS-seeded generator.

    Returns
    -------
    int32 array
        Perturbed codes.

    Examples
    --------
    >>> from ppdm.matrix import identity
    >>> perturb_codes(np.array([2, 0, 1]), identity(3), 0).tolist()
    [2, 0, 1]
    """
    from .random import check_random_state

    codes = np.asarray(codes)
    if codes.size and (codes.min() < 0 or codes.max() >= matrix.n_values):
        raise DataError(f"codes must lie in 0..{matrix.n_values - 1}")
    rng = check_random_state(random_state)
    return matrix.draw(codes, rng)


def attribute_privacy(matrix: PerturbationMatrix, n_records: int | None, copies: int = 1) -> dict:
    """Privacy figures of one attribute: gamma, epsilon, rho2 per rho1, entropy, N, K, Kang."""
    gamma = matrix.amplification()
    if copies > 1:
        gamma = _power(gamma, copies)
    finite = np.isfinite(gamma)
    out = {
        "N": matrix.n_values,
        "gamma": float(gamma) if finite else None,
        "epsilon": float(np.log(gamma)) if finite else None,
        "rho2": {str(r): (rho2_from_gamma(gamma, r) if finite else 1.0) for r in RHO1_LEVELS},
        "entropy_bits": matrix.entropy(),
        "max_entropy_bits": float(np.log2(matrix.n_values)),
        "condition_number": matrix.condition_number(),
        "K": anonymity_k(matrix),
    }
    realised = getattr(matrix, "realised_gamma", None)
    if realised is not None:
        # the integer sampler's exact channel: never above gamma (see GammaDiagonal.draw)
        out["gamma_realised"] = _power(realised, copies)
    if copies > 1:
        out["copies"] = copies
        out["gamma_per_copy"] = matrix.amplification()
    if n_records and finite and gamma > 1:
        out["kang_bound"] = kang_bound(matrix.amplification(), matrix.n_values, n_records * copies)
    return out


def _power(base: float, exponent: int) -> float:
    """``base ** exponent``, ``inf`` where a float overflows."""
    try:
        return float(base) ** int(exponent)
    except OverflowError:
        return math.inf


def _parse_user_spec(spec: ReleaseSpec | None) -> dict[str, AttributeSpec]:
    return {} if spec is None else {a.name: a for a in spec.attributes}


def plan_release(
    data: pd.DataFrame | Iterable[pd.DataFrame],
    *,
    class_attribute: str | None = None,
    gamma: float = DEFAULT_GAMMA,
    n_bins: int | None = None,
    max_bins: int = DEFAULT_MAX_BINS,
    bounds: dict[str, tuple[float, float]] | None = None,
    spec: ReleaseSpec | None = None,
    attributes: list[str] | None = None,
    perturb_class: bool = False,
    missing: Literal["error", "category"] = "error",
    out_of_bounds: Literal["error", "clip"] = "error",
    representative: Literal["center", "left", "right", "random"] = "center",
    copies: int = 1,
    method: Literal["substitution", "additive"] = "substitution",
    noise: Literal["uniform", "gaussian"] = "gaussian",
    noise_scale: float = DEFAULT_NOISE_LEVEL,
) -> ReleaseSpec:
    """Choose the domain and matrix (or additive noise) of every attribute.

    Parameters
    ----------
    data : DataFrame or iterable of DataFrame batches
        The original table (read once; batches keep memory bounded).
    class_attribute : str, optional
        The class column; kept unless ``perturb_class``.
    gamma : float, default=9
        Amplification of the default gamma-diagonal matrices.
    n_bins : int, optional
        N for continuous attributes (default ``max_bins``).
    max_bins : int, default=20
    bounds : dict of column -> (low, high), optional
        Owner-chosen bounds; other numeric columns take the data's min and max (warned).
    spec : ReleaseSpec, optional
        Owner's hand-written spec: per-attribute domains, matrices, ``perturbed: false``.
    attributes : list of str, optional
        Attributes to perturb (default: all but the class). Others are released as is.
    perturb_class : bool, default=False
    missing, out_of_bounds, representative
        Rules for inferred domains (see :mod:`ppdm.domain`).
    copies : int, default=1
        Independent perturbed copies of every record (substitution only).
    method : {"substitution", "additive"}, default="substitution"
        ``"additive"`` releases ``x + y`` with noise ``y`` (Agrawal & Srikant 2000)
        instead of substituted values; every perturbed attribute must be numeric.
    noise : {"uniform", "gaussian"}, default="gaussian"
        Additive noise family.
    noise_scale : float, default=1.0
        Additive privacy level: the width of the interval that holds the original with
        95 % confidence given the released value, as a fraction of the attribute's
        range (Agrawal & Srikant's privacy metric; their "100 % privacy" is 1.0). The
        noise scale is set per attribute from it (:func:`additive_noise_for_level`).

    Returns
    -------
    ReleaseSpec
        Without ``n_records``; filled in after perturbation.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 and 7 (choice of N).
    """
    check_gamma(gamma)  # fail before reading the data
    if n_bins is not None:  # additive releases are estimated with dense N x N matrices
        check_n_values(n_bins, "n_bins", dense=method == "additive", error=SpecError)
    if method not in ("substitution", "additive"):
        raise SpecError(f"method must be 'substitution' or 'additive' (got {method!r})")
    if method == "additive":
        additive_noise_for_level(noise, noise_scale, 1.0)  # validates kind and level
        if int(copies) != 1:
            raise SpecError(f"copies > 1 is for substitution releases only (got {copies})")
    batches = [data] if isinstance(data, pd.DataFrame) else data
    cap = int(n_bins) if n_bins is not None else int(max_bins)
    sketches: dict[str, DomainSketch] | None = None
    for batch in batches:
        if sketches is None:
            columns = [str(c) for c in batch.columns]
            user = _parse_user_spec(spec)
            _check_names(columns, class_attribute, attributes, dict(bounds or {}), user)
            sketches = {c: DomainSketch(c, cap=cap) for c in columns}
        for c, sketch in sketches.items():
            sketch.update(batch[c])
    return plan_from_sketches(
        sketches or {},
        class_attribute=class_attribute,
        gamma=gamma,
        n_bins=n_bins,
        max_bins=max_bins,
        bounds=bounds,
        spec=spec,
        attributes=attributes,
        perturb_class=perturb_class,
        missing=missing,
        out_of_bounds=out_of_bounds,
        representative=representative,
        copies=copies,
        method=method,
        noise=noise,
        noise_scale=noise_scale,
    )


def plan_from_sketches(
    sketches: dict[str, DomainSketch],
    *,
    class_attribute: str | None = None,
    gamma: float = DEFAULT_GAMMA,
    n_bins: int | None = None,
    max_bins: int = DEFAULT_MAX_BINS,
    bounds: dict[str, tuple[float, float]] | None = None,
    spec: ReleaseSpec | None = None,
    attributes: list[str] | None = None,
    perturb_class: bool = False,
    missing: Literal["error", "category"] = "error",
    out_of_bounds: Literal["error", "clip"] = "error",
    representative: Literal["center", "left", "right", "random"] = "center",
    copies: int = 1,
    method: Literal["substitution", "additive"] = "substitution",
    noise: Literal["uniform", "gaussian"] = "gaussian",
    noise_scale: float = DEFAULT_NOISE_LEVEL,
) -> ReleaseSpec:
    """:func:`plan_release` from one-pass column summaries (merged across partitions).

    Parameters
    ----------
    sketches : dict of column -> DomainSketch
        One sketch per column, in column order (see :meth:`DomainSketch.merge` for
        summaries computed partition by partition).
    class_attribute, gamma, n_bins, max_bins, bounds, spec, attributes, perturb_class
        As in :func:`plan_release`.
    missing, out_of_bounds, representative, copies, method, noise, noise_scale
        As in :func:`plan_release`.

    Returns
    -------
    ReleaseSpec

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 and 7 (choice of N).
    """
    gamma = check_gamma(gamma)
    if n_bins is not None:
        check_n_values(n_bins, "n_bins", dense=method == "additive", error=SpecError)
    user = _parse_user_spec(spec)
    bounds = dict(bounds or {})
    columns = list(sketches)
    if not columns or sketches[columns[0]].rows == 0:
        raise DataError("the input table is empty: nothing to perturb")
    _check_names(columns, class_attribute, attributes, bounds, user)
    if class_attribute is None and spec is not None:
        class_attribute = spec.class_attribute
    to_perturb = set(attributes) if attributes is not None else set(columns) - {class_attribute}
    if perturb_class and class_attribute is not None:
        to_perturb.add(class_attribute)
    if class_attribute is not None and not perturb_class:
        to_perturb.discard(class_attribute)
    out = []
    for c in columns:
        given = user.get(c)
        perturbed = c in to_perturb if given is None else given.perturbed
        if c == class_attribute and given is None:
            perturbed = perturb_class
        if not perturbed:
            out.append(AttributeSpec(name=c, perturbed=False))
            continue
        if given is not None and given.domain is not None:
            domain: Domain = given.get_domain()
        else:
            domain = sketches[c].to_domain(
                n_bins=n_bins,
                max_bins=max_bins,
                bounds=bounds.get(c),
                representative=representative,
                missing=missing,
                out_of_bounds=out_of_bounds,
            )
        if method == "additive":
            out.append(_additive_attribute(c, domain, noise, noise_scale, n_bins or max_bins))
            continue
        if given is not None and given.matrix is not None:
            mspec = dict(given.matrix)
            if mspec.get("kind") == "gamma-diagonal":
                mspec.setdefault("n_values", domain.n_values)
            try:
                matrix = matrix_from_spec(mspec, domain.n_values)
            except ValueError as exc:
                raise SpecError(f"attribute {c!r}: {exc}") from None
        else:
            try:
                matrix = GammaDiagonal(domain.n_values, gamma)
            except MatrixError as exc:
                raise SpecError(f"attribute {c!r}: {exc}") from None
        out.append(
            AttributeSpec(name=c, perturbed=True, domain=domain.to_spec(), matrix=matrix.to_spec())
        )
    check_copies(copies, "copies", error=DataError)
    return ReleaseSpec(
        method=method,
        copies=int(copies),
        class_attribute=class_attribute,
        class_perturbed=bool(class_attribute and perturb_class),
        attributes=out,
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
    if kind not in ("uniform", "gaussian"):
        raise SpecError(f"noise must be 'uniform' or 'gaussian' (got {kind!r})")
    if not (np.isfinite(level) and level > 0):
        raise SpecError(
            f"noise_scale (the 95 % interval width as a fraction of the range) must be > 0 "
            f"(got {level})"
        )
    unit = privacy_interval_width(kind, 1.0, 0.95)  # width per unit of scale
    return AdditiveNoise(kind, float(level) * float(value_range) / unit)


def _additive_attribute(name, domain, kind, level, bins) -> AttributeSpec:
    if isinstance(domain, CategoricalDomain):
        values = _numeric_values_of(domain)
        if values is None:
            raise DataError(
                f"column {name!r} is not numeric: additive noise needs numbers; leave it "
                "unperturbed (--attributes) or use substitution"
            )
        domain = BinnedDomain(
            float(values.min()), float(values.max()), int(bins), bounds_from_data=domain.from_data
        )
    if domain.missing_category:
        raise DataError(f"column {name!r}: additive noise cannot carry a 'missing' category")
    nz = additive_noise_for_level(kind, level, domain.high - domain.low)
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


def additive_privacy(a: AttributeSpec) -> dict:
    """Privacy figures of an additive attribute: noise, variance, 95 % interval width."""
    nz = a.get_noise()
    dom = a.get_domain()
    width = nz.interval_width(0.95)
    return {
        "noise": nz.kind,
        "scale": nz.scale,
        "variance": nz.variance,
        "interval_width_95": width,
        "relative_interval_width_95": width / (dom.high - dom.low),
    }


def _check_names(columns, class_attribute, attributes, bounds, user) -> None:
    if len(set(columns)) != len(columns):
        raise DataError(f"the input has repeated column names: {columns}")
    known = set(columns)
    for label, names in (
        ("class column", [class_attribute] if class_attribute else []),
        ("attribute to perturb", attributes or []),
        ("--bounds column", list(bounds)),
        ("spec attribute", list(user)),
    ):
        for name in names:
            if name not in known:
                raise DataError(f"unknown {label} {name!r}; the data has columns {columns}")
    for name, (lo, hi) in bounds.items():
        if not lo < hi:
            raise DataError(f"bounds for {name!r} must have low < high (got {lo}:{hi})")


def _additive_batches(batches, spec, random_state, warn) -> Iterator[pd.DataFrame]:
    attrs = spec.perturbed_attributes()
    gens = release_streams(random_state, len(attrs), warn=warn)
    plans = [(a.name, a.get_domain(), a.get_noise(), g) for a, g in zip(attrs, gens)]
    offset = 0
    for batch in batches:
        if offset == 0:
            spec.check_columns([str(c) for c in batch.columns])
        out = batch.copy()
        for name, domain, noise, gen in plans:
            domain.encode(batch[name], column=name, row_offset=offset)  # missing, bounds
            x = batch[name].to_numpy(dtype=np.float64)
            if domain.out_of_bounds == "clip":
                x = np.clip(x, domain.low, domain.high)
            out[name] = x + noise.sample(len(x), gen)
        offset += len(batch)
        yield out


def _attribute_streams(spec: ReleaseSpec, random_state: RandomState, warn: bool):
    attrs = spec.perturbed_attributes()
    k = 2 * len(attrs)
    gens = release_streams(random_state, k * spec.copies, warn=warn)
    # the substitution stream is read as raw words, kept across batches
    return [
        [
            (
                a.name,
                a.get_domain(),
                a.get_matrix(),
                WordStream(gens[c * k + 2 * i]),
                gens[c * k + 2 * i + 1],
            )
            for i, a in enumerate(attrs)
        ]
        for c in range(spec.copies)
    ]


def perturb_batches(
    batches: Iterable[pd.DataFrame],
    spec: ReleaseSpec,
    random_state: RandomState = None,
    *,
    warn: bool = True,
) -> Iterator[pd.DataFrame]:
    """Perturb a table batch by batch (Algorithm 1 on every perturbed attribute).

    Each attribute's values are encoded in its domain, substituted through its matrix
    and decoded to representative values (an additive release instead adds each
    attribute's noise to its values). Bad values raise an error naming the column
    and the row (counted over all batches). Inputs are never modified. With
    ``spec.copies = m > 1`` every batch is released m times, each copy perturbed
    independently (Kang's multiple random substitutions; the amplification is gamma^m).

    Parameters
    ----------
    batches : iterable of DataFrame
    spec : ReleaseSpec
        From :func:`plan_release`.
    random_state : None, int or SeedSequence
        ``None`` (for releases): AES-counter streams keyed from OS entropy.
    warn : bool, default=True
        Warn when a seeded release is made.

    Yields
    ------
    DataFrame
    """
    if spec.method == "additive":
        yield from _additive_batches(batches, spec, random_state, warn)
        return
    copies = _attribute_streams(spec, random_state, warn)
    offset = 0
    for batch in batches:
        if offset == 0:
            spec.check_columns([str(c) for c in batch.columns])
        outs = []
        codes_cache: dict[str, np.ndarray] = {}
        for plans in copies:
            out = batch.copy()
            for name, domain, matrix, u_gen, rep_gen in plans:
                if name not in codes_cache:
                    codes_cache[name] = domain.encode(batch[name], column=name, row_offset=offset)
                codes = codes_cache[name]
                perturbed = matrix.draw(codes, u_gen)
                out[name] = domain.decode(perturbed, random_state=rep_gen)
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
