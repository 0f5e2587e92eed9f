"""The release spec: what a data miner needs to use a perturbed table, and nothing more.

A release is a data file plus ``spec.json``: every attribute's domain and matrix (or
that it is unperturbed), the class attribute and the privacy figures; never the seed,
the original data, or bounds the owner did not choose to publish. Owners may also write
a spec by hand (JSON or YAML) for ``ppdm perturb --spec``, leaving out what the data gives.

References
----------
Dowd, Xu & Zhang, Sec. 3 (what the miner must know: domains and M).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PlainSerializer,
    Tag,
    ValidationError,
    WithJsonSchema,
    WrapValidator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from .additive import AdditiveNoise
from .domain import Domain, domain_from_spec
from .exceptions import DomainError, MatrixError, SpecError
from .limits import check_copies, check_n_values, load_structured
from .matrix import (
    MATRIX_KINDS,
    PerturbationMatrix,
    check_matrix_entry,
    matrix_from_spec,
    needs_data,
)
from .mechanism import Method, mechanism_of

__all__ = [
    "AttributeSpec",
    "ReleaseSpec",
    "read_spec",
    "write_spec",
    "spec_json_schema",
    "validation_message",
    "SPEC_FORMAT",
]

SPEC_FORMAT = "ppdm-release/1"


class _Entry(BaseModel):
    """A mapping of the spec: unknown keys are refused by name."""

    model_config = ConfigDict(extra="forbid")


class CategoricalDomainSpec(_Entry):
    """A categorical domain: the list of values (codes in this order)."""

    kind: Literal["categorical"]
    values: list[Any] = Field(min_length=1)
    missing_category: bool = False
    from_data: bool = False


class BinnedDomainSpec(_Entry):
    """Equi-width bins over ``[low, high]`` (Dowd, Xu & Zhang, Sec. 3)."""

    kind: Literal["binned"]
    low: float
    high: float
    n_bins: int = Field(ge=2)
    representative: Literal["center", "left", "right", "random"] = "center"
    out_of_bounds: Literal["error", "clip"] = "error"
    missing_category: bool = False
    bounds_from_data: bool = False


DOMAIN_KINDS = ("categorical", "binned")


# --- matrices: one model per kind of :data:`ppdm.matrix.MATRIX_KINDS` ------------------

_Rows = list[list[float]]


class GammaDiagonalSpec(_Entry):
    """``gamma`` on the diagonal (Dowd, Xu & Zhang, Sec. 5.1); N from the domain."""

    kind: Literal["gamma-diagonal"]
    gamma: float
    n_values: int | None = Field(default=None, ge=2)


class IdentitySpec(_Entry):
    """No perturbation (a control)."""

    kind: Literal["identity"]
    n_values: int | None = Field(default=None, ge=2)
    matrix: _Rows | None = None


class ExplicitSpec(_Entry):
    """An explicit column-stochastic matrix ``M[h][k] = P(k -> h)``, under any label."""

    kind: str = Field(
        default="explicit",
        json_schema_extra={"not": {"enum": [k for k in MATRIX_KINDS if k != "explicit"]}},
    )
    matrix: _Rows


class SymmetricSpec(_Entry):
    """Keep w.p. ``1 - p``, else move to one of the other N - 1 values uniformly."""

    kind: Literal["symmetric"]
    p: float
    matrix: _Rows | None = None


class SymmetricBinarySpec(_Entry):
    """Flip one of 2 values w.p. ``p`` (Ma & Sivakumar, Sec. 3)."""

    kind: Literal["symmetric-binary"]
    p: float
    matrix: _Rows | None = None


class SymmetricTernarySpec(_Entry):
    """Change one of 3 values w.p. ``p`` (Ma & Sivakumar, Sec. 3)."""

    kind: Literal["symmetric-ternary"]
    p: float
    matrix: _Rows | None = None


class BinarySpec(_Entry):
    """``0 -> 1`` w.p. ``p1``, ``1 -> 0`` w.p. ``p2`` (Ma & Sivakumar, Fig. 1(a))."""

    kind: Literal["binary"]
    p1: float
    p2: float
    matrix: _Rows | None = None


class BlockDiagonalSpec(_Entry):
    """A symmetric channel of level ``p`` inside each group of codes (Ma & Sivakumar, Sec. 3)."""

    kind: Literal["block-diagonal"]
    groups: list[list[int]] | None = None
    p: float | None = None
    block_sizes: list[int] | None = None
    matrix: _Rows | None = None

    @model_validator(mode="after")
    def _either(self) -> BlockDiagonalSpec:
        if self.matrix is None and (self.groups is None or self.p is None):
            raise PydanticCustomError(
                "block_diagonal", "a block-diagonal matrix needs groups and p (or a matrix)"
            )
        return self


class InvariantPramSpec(_Entry):
    """Invariant PRAM: ``alpha`` times the base matrix forward then backward, plus
    ``1 - alpha`` times I; built from the data's marginal, which it keeps in expectation."""

    kind: Literal["invariant-pram"]
    alpha: float
    base: _Rows | None = None
    retention: float | list[float] | None = None
    n_values: int | None = Field(default=None, ge=2)
    matrix: _Rows | None = None


class SdcmicroPramSpec(_Entry):
    """sdcMicro's ``pram(pd, alpha)``: retentions drawn ``U[pd, 1]``, then invariant PRAM."""

    kind: Literal["sdcmicro-pram"]
    pd: float
    alpha: float
    retention: list[float] | None = None
    n_values: int | None = Field(default=None, ge=2)
    matrix: _Rows | None = None


class StratifiedSpec(_Entry):
    """One matrix per value of the column ``strata`` (released as is): ``matrices`` maps
    each stratum value, as text, to a matrix entry of any other kind."""

    kind: Literal["stratified"]
    strata: str = Field(min_length=1)
    matrices: dict[str, dict[str, Any]] = Field(min_length=1)


_MATRIX_MODELS: dict[str, type[_Entry]] = {
    "gamma-diagonal": GammaDiagonalSpec,
    "identity": IdentitySpec,
    "explicit": ExplicitSpec,
    "symmetric": SymmetricSpec,
    "symmetric-binary": SymmetricBinarySpec,
    "symmetric-ternary": SymmetricTernarySpec,
    "binary": BinarySpec,
    "block-diagonal": BlockDiagonalSpec,
    "invariant-pram": InvariantPramSpec,
    "sdcmicro-pram": SdcmicroPramSpec,
    "stratified": StratifiedSpec,
}
assert set(_MATRIX_MODELS) == set(MATRIX_KINDS), "one model per kind of ppdm.matrix.MATRIX_KINDS"


def _matrix_tag(value: Any) -> str | None:
    kind = value.get("kind") if isinstance(value, Mapping) else getattr(value, "kind", None)
    if kind in _MATRIX_MODELS:
        return kind
    has_matrix = "matrix" in value if isinstance(value, Mapping) else hasattr(value, "matrix")
    return "explicit" if has_matrix or kind is None else None


_MATRIX_KIND_ERROR = (
    f"matrix kind must be one of {', '.join(MATRIX_KINDS)}, or any kind with an explicit "
    "'matrix' (got {kind})"
)


_DomainUnion = Annotated[
    Annotated[CategoricalDomainSpec, Tag("categorical")]
    | Annotated[BinnedDomainSpec, Tag("binned")],
    Discriminator(lambda v: v.get("kind") if isinstance(v, Mapping) else getattr(v, "kind", None)),
]
_MatrixUnion = Annotated[
    Union[tuple(Annotated[model, Tag(kind)] for kind, model in _MATRIX_MODELS.items())],  # noqa: UP007
    Discriminator(_matrix_tag),
]


def _kept(entry: str):
    """The wrap validator of a domain or matrix entry: checked, then kept as written."""

    def check(value: Any, handler: Any) -> Any:
        if not isinstance(value, Mapping):
            raise PydanticCustomError(
                "mapping",
                "must be a mapping with a 'kind' (got {value})",
                {"value": repr(value)[:80]},
            )
        kind = value.get("kind")
        if entry == "matrix" and _matrix_tag(value) is None:
            raise PydanticCustomError("matrix_kind", _MATRIX_KIND_ERROR, {"kind": repr(kind)})
        if entry == "domain" and kind not in DOMAIN_KINDS:
            raise PydanticCustomError(
                "domain_kind",
                "domain kind must be 'categorical' or 'binned' (got {kind})",
                {"kind": repr(kind)},
            )
        handler(value)  # the typed check: names unknown keys, wrong types
        return dict(value)

    return check


DomainField = Annotated[
    _DomainUnion,
    WrapValidator(_kept("domain")),
    PlainSerializer(lambda value: value),
]
MatrixField = Annotated[
    _MatrixUnion,
    WrapValidator(_kept("matrix")),
    PlainSerializer(lambda value: value),
]


class NoiseSpec(_Entry):
    """Additive noise of an attribute (Agrawal & Srikant 2000, Sec. 2)."""

    kind: Literal["uniform", "gaussian"]
    scale: float = Field(gt=0)


def _custom(message: str) -> PydanticCustomError:
    """A validation error printed as ``message`` alone (no "Value error," prefix)."""
    return PydanticCustomError("spec", message.replace("{", "{{").replace("}", "}}"))


class AttributeSpec(BaseModel):
    """One attribute of a release: its domain and matrix, or ``perturbed: false``.

    ``domain`` is one of the domain kinds (:class:`CategoricalDomainSpec`,
    :class:`BinnedDomainSpec`) and ``matrix`` one of the matrix kinds of
    :data:`ppdm.matrix.MATRIX_KINDS`; both are kept as the mappings written, so a
    released spec reads back byte for byte.

    An attribute of an additive-noise release (``method: "additive"``) has a binned
    domain (its bounds and the intervals of the distribution reconstruction) and
    ``noise: {"kind": "uniform" | "gaussian", "scale": s}`` instead of a matrix.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    perturbed: bool = True
    domain: DomainField | None = None
    matrix: MatrixField | None = None
    noise: Annotated[dict[str, Any], WithJsonSchema(NoiseSpec.model_json_schema())] | None = None
    privacy: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _check(self) -> AttributeSpec:
        said = [k for k in ("matrix", "noise", "privacy") if getattr(self, k) is not None]
        if not self.perturbed and said:
            raise _custom(
                f"attribute {self.name!r} has perturbed: false but gives a {said[0]}; an "
                "attribute is either perturbed (with its matrix) or released as is (without one)"
            )
        if self.noise is not None:
            if self.matrix is not None:
                raise _custom(f"attribute {self.name!r}: give a matrix or noise, not both")
            try:
                self.get_noise()
            except (ValueError, TypeError) as exc:
                raise _custom(f"attribute {self.name!r}: bad noise: {exc}") from None
        n_values = None
        if self.domain is not None:
            try:
                n_values = domain_from_spec(self.domain).n_values
            except (DomainError, TypeError, KeyError, ValueError) as exc:
                raise _custom(f"attribute {self.name!r}: bad domain: {exc}") from None
        # without a domain, only a matrix the data completes: its parameters, before any data
        if self.matrix is not None and (n_values is not None or needs_data(self.matrix)):
            try:
                check_matrix_entry(self.matrix, n_values)
            except (MatrixError, TypeError, KeyError, ValueError) as exc:
                raise _custom(f"attribute {self.name!r}: bad matrix: {exc}") from None
        return self

    def get_domain(self) -> Domain:
        if self.domain is None:
            raise SpecError(f"attribute {self.name!r} has no domain in the spec")
        return domain_from_spec(self.domain)

    def get_noise(self) -> AdditiveNoise:
        """The additive noise of this attribute (additive releases)."""
        if self.noise is None:
            raise SpecError(f"attribute {self.name!r} has no noise in the spec")
        extra = set(self.noise) - {"kind", "scale"}
        if extra or "kind" not in self.noise or "scale" not in self.noise:
            raise SpecError(
                f"attribute {self.name!r}: noise must be {{kind, scale}} (got {sorted(self.noise)})"
            )
        return AdditiveNoise(self.noise["kind"], float(self.noise["scale"]))

    def get_matrix(self) -> PerturbationMatrix:
        if self.matrix is None:
            raise SpecError(f"attribute {self.name!r} has no matrix in the spec")
        return matrix_from_spec(self.matrix, self.get_domain().n_values)


class ReleaseSpec(BaseModel):
    """The public description of a release (``spec.json``).

    Examples
    --------
    >>> spec = ReleaseSpec(attributes=[AttributeSpec(name="x", perturbed=False)])
    >>> spec.attribute("x").perturbed
    False
    """

    model_config = ConfigDict(extra="forbid")

    format: Literal["ppdm-release/1"] = SPEC_FORMAT
    method: Method = "substitution"
    data_file: str | None = None
    n_records: int | None = Field(default=None, ge=0)
    class_attribute: str | None = None
    class_perturbed: bool = False
    copies: int = Field(default=1, ge=1)
    epsilon_record: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="Per-record budget E: the sum over the perturbed attributes of "
        "copies ln gamma may not exceed it (ppdm perturb --epsilon-record).",
    )
    epsilon_split: dict[str, Annotated[float, Field(gt=0, allow_inf_nan=False)]] | None = Field(
        default=None,
        description="Weights of the split of epsilon_record over the attributes (a column "
        "not named weighs 1; ppdm perturb --epsilon-split).",
    )
    attributes: list[AttributeSpec]

    @model_validator(mode="after")
    def _check(self) -> ReleaseSpec:
        names = [a.name for a in self.attributes]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise _custom(f"attributes listed twice: {sorted(dup)}")
        for a in self.attributes:
            column = a.matrix.get("strata") if a.matrix else None
            if not a.perturbed or column is None or a.matrix.get("kind") != "stratified":
                continue
            listed = next((b for b in self.attributes if b.name == column), None)
            if listed is None or listed.perturbed or column == a.name:
                raise _custom(
                    f"attribute {a.name!r} is stratified by {column!r}, which the spec must "
                    f"list with perturbed: false{'' if listed is None else ' (it does not)'}: "
                    "the miner needs each record's stratum as it is to know its matrix"
                )
        for a in self.attributes:
            if not a.perturbed:
                continue
            problem = mechanism_of(self.method).attribute_problem(a, self.data_file)
            if problem is not None:
                raise _custom(problem)
        # a hand-written spec may describe only some columns; a release lists them all, and
        # says what it did to its class, once
        if self.data_file is not None:
            if self.class_attribute is not None and self.class_attribute not in names:
                raise _custom(
                    f"class_attribute {self.class_attribute!r} is not among the attributes {names}"
                )
            if self.class_perturbed and self.class_attribute is None:
                raise _custom("class_perturbed is true but there is no class_attribute")
            if self.class_attribute is not None:
                klass = next(a for a in self.attributes if a.name == self.class_attribute)
                if klass.perturbed != self.class_perturbed:
                    raise _custom(
                        f"class_perturbed is {str(self.class_perturbed).lower()} but the class "
                        f"attribute {self.class_attribute!r} has perturbed "
                        f"{str(klass.perturbed).lower()}"
                    )
        return self

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.attributes]

    def attribute(self, name: str) -> AttributeSpec:
        for a in self.attributes:
            if a.name == name:
                return a
        raise SpecError(f"no attribute {name!r} in the spec; it has {self.names}")

    def perturbed_attributes(self) -> list[AttributeSpec]:
        return [a for a in self.attributes if a.perturbed]

    def check_columns(self, columns: list[str]) -> None:
        """Raise :class:`SpecError` unless the data has exactly the spec's attributes."""
        missing = [n for n in self.names if n not in columns]
        extra = [c for c in columns if c not in self.names]
        parts = [f"the data lacks {missing}"] if missing else []
        parts += [f"the spec does not describe {extra}"] if extra else []
        if parts:
            raise SpecError("spec does not match the data: " + "; ".join(parts))


def read_spec(path: str | os.PathLike) -> ReleaseSpec:
    """Read and validate a spec from JSON or YAML (by extension).

    A directory is read as a release: its ``spec.json``.
    """
    path = Path(path)
    if path.is_dir():  # a release: its own spec.json, never a link to another file
        path = path / "spec.json"
        if path.is_symlink():
            raise SpecError(f"{str(path)!r} is a symbolic link; ppdm reads no links in a release")
    if not path.exists():
        raise FileNotFoundError(f"spec file {str(path)!r} does not exist")
    data = load_structured(path, "spec", error=SpecError)  # within the caps of ppdm.limits
    if not isinstance(data, dict):
        raise SpecError(f"spec {str(path)!r} must be a mapping with an 'attributes' list")
    if "attributes" not in data and {"rule", "recommended", "gamma", "N"} <= set(data):
        raise SpecError(
            f"{str(path)!r} is the advice of ppdm advise, not a release spec; write one with "
            "ppdm advise ... --spec-out spec.json"
        )
    try:
        # strict: a count written "178" or 178.0, a flag written "false", is refused
        spec = ReleaseSpec.model_validate(data, strict=True)
    except (OverflowError, TypeError, RecursionError, MemoryError) as exc:
        raise SpecError(f"spec {str(path)!r} is invalid: {type(exc).__name__}: {exc}") from None
    except ValidationError as exc:
        raise SpecError(f"spec {str(path)!r} is {validation_message(exc)}") from None
    _check_sizes(spec, path)
    return spec


def _check_sizes(spec: ReleaseSpec, path: Path) -> None:
    """Copies and domain sizes within the caps of :mod:`ppdm.limits`."""
    check_copies(spec.copies, f"spec {str(path)!r} copies", error=SpecError)
    for i, a in enumerate(spec.attributes, start=1):
        if a.domain is None:
            continue
        try:
            n = a.get_domain().n_values
        except (DomainError, TypeError, KeyError, OverflowError) as exc:
            raise SpecError(f"spec {str(path)!r} attribute {a.name!r}: bad domain: {exc}") from None
        check_n_values(
            n,
            f"spec {str(path)!r} attribute {i} ({a.name!r}): N",
            dense=mechanism_of(spec.method).dense and a.perturbed,
            error=SpecError,
        )


def write_spec(spec: ReleaseSpec, path: str | os.PathLike) -> None:
    """Write ``spec`` as indented JSON."""
    Path(path).write_text(
        spec.model_dump_json(indent=2, exclude_none=True) + "\n", encoding="utf-8"
    )


def validation_message(exc: ValidationError) -> str:
    """The first error of ``exc`` as one line in the spec's words (the path of keys, without
    pydantic's union tags; an unknown key named with the keys allowed).
    """
    first = exc.errors(include_url=False)[0]
    loc = [str(p) for p in first.get("loc", ())]
    # drop the tags of the discriminated unions and the wrap validators' function names
    tags = set(DOMAIN_KINDS) | set(_MATRIX_MODELS) | {"function-wrap[check()]"}
    loc = [p for p in loc if p not in tags and not p.startswith("function-")]
    where = ".".join(loc) or "top level"
    kind = first.get("type")
    msg = first.get("msg", str(exc))
    if kind == "extra_forbidden" and loc:
        msg = f"unknown key {loc[-1]!r}"
        allowed = _allowed_keys(first, exc)
        if allowed:
            msg += f" (allowed: {', '.join(allowed)})"
    elif kind == "missing" and loc:
        msg = f"the key {loc[-1]!r} is missing"
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    return f"invalid at {where}: {msg}"


def _allowed_keys(error: dict, exc: ValidationError) -> list[str]:
    loc = [str(p) for p in error.get("loc", ())][:-1]
    model: type[BaseModel] | None = {
        "ReleaseSpec": ReleaseSpec,
        "AttributeSpec": AttributeSpec,
    }.get(exc.title)
    if model is None:
        return []
    inner = {
        **_MATRIX_MODELS,
        "categorical": CategoricalDomainSpec,
        "binned": BinnedDomainSpec,
        "attributes": AttributeSpec,
        "noise": NoiseSpec,
    }
    for part in loc:
        model = inner.get(part, model)
    return list(model.model_fields)


def spec_json_schema() -> dict[str, Any]:
    """The JSON Schema of a release spec (``spec.json``, or a hand-written spec), as
    ``ppdm spec schema`` prints it.
    """
    schema = ReleaseSpec.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "ppdm release spec"
    return schema
