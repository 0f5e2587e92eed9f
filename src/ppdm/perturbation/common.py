"""What planning and drawing share: the canonical order of values, the checks of a
matrix against the owner's options, of column names and of class values.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..domain import CategoricalDomain, Domain
from ..domain.sketch import canonical_values
from ..exceptions import DataError, SpecError
from ..limits import MAX_RECORDS
from ..matrix import PerturbationMatrix, matrix_from_spec
from ..options import PlanOptions
from ..privacy import changes_nothing, copies_reveal, power_or_inf
from ..release import AttributeSpec


def own_matrix(name: str, domain: Domain, given: AttributeSpec) -> PerturbationMatrix:
    """The matrix the owner's spec gives ``name``."""
    try:
        return matrix_from_spec(given.matrix, domain.n_values)
    except ValueError as exc:
        raise SpecError(f"attribute {name!r}: {exc}") from None


def checked_matrix(name: str, matrix: PerturbationMatrix, opts: PlanOptions) -> PerturbationMatrix:
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


def canonical_order(
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
    return dataclasses.replace(domain, values=tuple(order)), matrix


def check_names(columns: list[str], opts: PlanOptions) -> None:
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
