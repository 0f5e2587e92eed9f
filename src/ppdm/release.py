"""The release spec: what a data miner needs to use a perturbed table, and nothing more.

A release is a data file plus ``spec.json``. The spec names every attribute, its domain
and its perturbation matrix (or that it is unperturbed), the class attribute and whether
it was perturbed, and the privacy figures. It never holds the seed, the original data,
or bounds the owner did not choose to publish (bounds read off the data are flagged).

Owners may also write a spec by hand, in JSON or YAML, to set per-attribute domains and
matrices for ``ppdm perturb --spec``; there the data-dependent fields may be left out.

References
----------
Dowd, Xu & Zhang, Sec. 3 (what the miner must know: domains and M).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .additive import AdditiveNoise
from .domain import Domain, domain_from_spec
from .exceptions import DomainError, MatrixError, SpecError
from .limits import check_copies, check_n_values, load_structured
from .matrix import PerturbationMatrix, matrix_from_spec

__all__ = [
    "AttributeSpec",
    "ReleaseSpec",
    "read_spec",
    "write_spec",
    "SPEC_FORMAT",
]

SPEC_FORMAT = "ppdm-release/1"


class AttributeSpec(BaseModel):
    """One attribute of a release: its domain and matrix, or ``perturbed: false``.

    An attribute of an additive-noise release (``method: "additive"``) has a binned
    domain (its bounds and the intervals of the distribution reconstruction) and
    ``noise: {"kind": "uniform" | "gaussian", "scale": s}`` instead of a matrix.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    perturbed: bool = True
    domain: dict[str, Any] | None = None
    matrix: dict[str, Any] | None = None
    noise: dict[str, Any] | None = None
    privacy: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _check(self) -> AttributeSpec:
        if self.noise is not None:
            if self.matrix is not None:
                raise ValueError(f"attribute {self.name!r}: give a matrix or noise, not both")
            try:
                self.get_noise()
            except (ValueError, TypeError) as exc:
                raise ValueError(f"attribute {self.name!r}: bad noise: {exc}") from None
        if self.domain is not None:
            try:
                dom = domain_from_spec(self.domain)
            except (DomainError, TypeError, KeyError) as exc:
                raise ValueError(f"attribute {self.name!r}: bad domain: {exc}") from None
            if self.matrix is not None:
                try:
                    matrix_from_spec(self.matrix, dom.n_values)
                except (MatrixError, TypeError, KeyError) as exc:
                    raise ValueError(f"attribute {self.name!r}: bad matrix: {exc}") from None
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
    method: Literal["substitution", "additive"] = "substitution"
    data_file: str | None = None
    n_records: int | None = Field(default=None, ge=0)
    class_attribute: str | None = None
    class_perturbed: bool = False
    copies: int = Field(default=1, ge=1)
    attributes: list[AttributeSpec]

    @model_validator(mode="after")
    def _check(self) -> ReleaseSpec:
        names = [a.name for a in self.attributes]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"attributes listed twice: {sorted(dup)}")
        for a in self.attributes:
            if not a.perturbed:
                continue
            if self.method == "additive" and (a.noise is None or a.domain is None):
                raise ValueError(
                    f"attribute {a.name!r} of an additive release needs noise and a domain"
                )
            if self.method == "additive" and a.domain.get("kind") != "binned":
                raise ValueError(
                    f"attribute {a.name!r} of an additive release needs a binned domain"
                )
            if self.method == "substitution" and a.noise is not None:
                raise ValueError(
                    f"attribute {a.name!r} has noise but the release method is 'substitution'"
                )
        # a hand-written spec may describe only some columns; a release lists them all
        if (
            self.data_file is not None
            and self.class_attribute is not None
            and self.class_attribute not in names
        ):
            raise ValueError(
                f"class_attribute {self.class_attribute!r} is not among the attributes {names}"
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
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"the data lacks {missing}")
            if extra:
                parts.append(f"the spec does not describe {extra}")
            raise SpecError("spec does not match the data: " + "; ".join(parts))


def _load_text(path: Path) -> Any:
    """Parse a spec file within the caps of :func:`ppdm.limits.load_structured`."""
    return load_structured(path, "spec", error=SpecError)


def read_spec(path: str | os.PathLike) -> ReleaseSpec:
    """Read and validate a spec from JSON or YAML (by extension).

    A directory is read as a release: its ``spec.json``.
    """
    path = Path(path)
    if path.is_dir():
        path = path / "spec.json"
    if not path.exists():
        raise FileNotFoundError(f"spec file {str(path)!r} does not exist")
    data = _load_text(path)
    if not isinstance(data, dict):
        raise SpecError(f"spec {str(path)!r} must be a mapping with an 'attributes' list")
    try:
        spec = ReleaseSpec.model_validate(data)
    except (OverflowError, TypeError, RecursionError, MemoryError) as exc:
        raise SpecError(f"spec {str(path)!r} is invalid: {type(exc).__name__}: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SpecError(
            f"spec {str(path)!r} is invalid at {where or 'top level'}: {first['msg']}"
        ) from None
    _check_sizes(spec, path)
    return spec


def _check_sizes(spec: ReleaseSpec, path: Path) -> None:
    """Copies within :data:`ppdm.limits.MAX_COPIES`, domains within :data:`~ppdm.limits.MAX_VALUES`.

    Additive releases are estimated with dense N x N transition matrices, so their
    domains get the dense cap, :data:`ppdm.limits.MAX_DENSE_VALUES`.
    """
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
            dense=spec.method == "additive" and a.perturbed,
            error=SpecError,
        )


def write_spec(spec: ReleaseSpec, path: str | os.PathLike) -> None:
    """Write ``spec`` as indented JSON."""
    Path(path).write_text(
        spec.model_dump_json(indent=2, exclude_none=True) + "\n", encoding="utf-8"
    )
