"""The matrix-kind table: a release spec's ``matrix`` entry (its ``kind`` and fields)
turned into a matrix, checked, or named as built from the data.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..exceptions import MatrixError
from ..limits import check_n_values
from .base import ExplicitMatrix, PerturbationMatrix
from .channels import (
    GammaDiagonal,
    binary_randomization,
    grouped_symmetric,
    identity,
    symmetric_binary,
    symmetric_channel,
)
from .pram import (
    StratifiedMatrix,
    draw_retention,
    invariant_matrix,
    pram_parameters,
    retention_matrix,
)


def _spec_n(kind: str, spec: dict, n_values: int | None) -> int:
    """N of a matrix entry: its ``n_values`` key, else the domain's, which must agree."""
    n = spec.get("n_values", n_values)
    if n is None:
        raise MatrixError(f"a {kind} matrix needs n_values (or a domain to take N from)")
    if n_values is not None and n != n_values:
        raise MatrixError(f"{kind} matrix has N = {n} but the domain has N = {n_values}")
    return n


def _need_values(kind: str, n: int, n_values: int | None) -> None:
    if n_values is not None and n_values != n:
        raise MatrixError(f"a {kind} matrix needs {n} values but the domain has N = {n_values}")


def _build_gamma_diagonal(spec: dict, n_values: int | None) -> PerturbationMatrix:
    return GammaDiagonal(_spec_n("gamma-diagonal", spec, n_values), spec["gamma"])


def _build_identity(spec: dict, n_values: int | None) -> PerturbationMatrix:
    return identity(_spec_n("identity", spec, n_values))


def _build_symmetric(spec: dict, n_values: int | None) -> PerturbationMatrix:
    return symmetric_channel(_spec_n("symmetric", spec, n_values), float(spec["p"]))


def _build_symmetric_binary(spec: dict, n_values: int | None) -> PerturbationMatrix:
    _need_values("symmetric-binary", 2, n_values)
    return symmetric_binary(float(spec["p"]))


def _build_symmetric_ternary(spec: dict, n_values: int | None) -> PerturbationMatrix:
    _need_values("symmetric-ternary", 3, n_values)
    return symmetric_channel(3, float(spec["p"]))


def _build_binary(spec: dict, n_values: int | None) -> PerturbationMatrix:
    _need_values("binary", 2, n_values)
    return binary_randomization(float(spec["p1"]), float(spec["p2"]))


def _build_block_diagonal(spec: dict, n_values: int | None) -> PerturbationMatrix:
    groups = spec["groups"]
    n = sum(len(g) for g in groups) if n_values is None else n_values
    return grouped_symmetric(n, groups, float(spec["p"]))


def _build_pram(
    spec: dict, n_values: int | None, marginal=None, rng: np.random.Generator | None = None
) -> PerturbationMatrix:
    """Invariant PRAM of a spec entry, from the original ``marginal`` (counts per value).

    For ``sdcmicro-pram`` the retention of every value is drawn from ``rng`` (sdcMicro's
    ``U[pd, 1]``; ``pd`` itself without ``rng``) and recorded as ``retention``.
    """
    if marginal is None:
        raise MatrixError(
            f"a {spec['kind']} matrix is built from the data's marginal; ppdm perturb builds "
            "it (ppdm.perturbation.realise_matrices)"
        )
    return _pram_matrix(spec, n_values, marginal, rng)


def _pram_matrix(
    spec: Mapping, n_values: int | None, marginal, rng: np.random.Generator | None
) -> ExplicitMatrix:
    """:func:`_build_pram` at any marginal (a uniform one checks an entry's parameters)."""
    kind = spec["kind"]
    n = _spec_n(kind, spec, n_values)
    base, alpha = pram_parameters(spec, n)
    meta = {k: v for k, v in spec.items() if k not in ("kind", "matrix", "n_values")}
    if base is None:
        r = np.full(n, float(spec["pd"])) if rng is None else draw_retention(spec["pd"], n, rng)
        base = retention_matrix(r)
        meta["retention"] = r.tolist()
    p = np.asarray(marginal, dtype=np.float64)
    if p.shape != (n,) or np.any(p < 0):
        raise MatrixError(f"a {kind} marginal must be {n} counts (got {p.tolist()})")
    if np.any(p == 0):
        j = int(np.flatnonzero(p == 0)[0])
        raise MatrixError(
            f"{kind} needs every value of the domain in the data; value {j + 1} of {n} has "
            "count 0 (its released value would reveal it: infinite amplification)"
        )
    return ExplicitMatrix(invariant_matrix(base, p, alpha), kind=kind, meta=meta)


def _build_stratified(
    spec: dict, n_values: int | None, marginal=None, rng: np.random.Generator | None = None
) -> StratifiedMatrix:
    """One matrix per stratum value; ``marginal`` maps a stratum to its original counts
    (for the strata whose matrix is built from the data), ``rng`` draws their retentions."""
    entries = spec["matrices"]
    if not isinstance(entries, Mapping) or not entries:
        raise MatrixError(
            f"stratified matrices must map each stratum value to a matrix (got {entries!r})"
        )
    built = {}
    for value, entry in entries.items():
        if isinstance(entry, Mapping) and entry.get("kind") == "stratified":
            raise MatrixError(f"stratum {value!r}: a stratified matrix cannot be nested")
        sub = None if marginal is None else marginal.get(str(value))
        try:
            built[str(value)] = matrix_from_spec(entry, n_values, marginal=sub, rng=rng)
        except MatrixError as exc:
            raise MatrixError(f"stratum {value!r}: {exc}") from None
    return StratifiedMatrix(spec["strata"], built)


#: Kinds whose matrix is built from the data's marginal when the entry has no ``matrix``
#: (:func:`ppdm.perturbation.realise_matrices`); the release states the marginal as a leak.
FROM_DATA = frozenset({"invariant-pram", "sdcmicro-pram"})


def needs_data(entry: Mapping | None) -> bool:
    """Whether a matrix entry still has to be built from the data (or, for a stratified
    one, checked against the strata the data holds): a released entry has every matrix."""
    if not isinstance(entry, Mapping):
        return False
    if entry.get("kind") == "stratified":
        subs = entry.get("matrices")
        return not isinstance(subs, Mapping) or any(
            not isinstance(e, Mapping) or "matrix" not in e for e in subs.values()
        )
    return entry.get("kind") in FROM_DATA and "matrix" not in entry


def check_matrix_entry(entry: Mapping, n_values: int | None = None) -> None:
    """Raise :class:`MatrixError` unless a spec entry is well formed; an entry built
    from the data has its parameters checked (against a uniform marginal)."""
    if needs_data(entry) and entry.get("kind") == "stratified":
        subs = entry.get("matrices")
        if not isinstance(entry.get("strata"), str) or not entry.get("strata"):
            raise MatrixError(f"stratified strata must name a column (got {entry.get('strata')!r})")
        if not isinstance(subs, Mapping) or not subs:
            raise MatrixError(
                f"stratified matrices must map each stratum value to a matrix (got {subs!r})"
            )
        for value, sub in subs.items():
            if isinstance(sub, Mapping) and sub.get("kind") == "stratified":
                raise MatrixError(f"stratum {value!r}: a stratified matrix cannot be nested")
            if n_values is None and not needs_data(sub):
                continue  # its size is known only with the domain
            try:
                check_matrix_entry(sub, n_values)
            except MatrixError as exc:
                raise MatrixError(f"stratum {value!r}: {exc}") from None
        return
    if needs_data(entry):
        if n_values is None:  # without a domain: the parameters, at the size they imply
            sized = next((entry[k] for k in ("base", "retention") if k in entry), None)
            n_values = len(sized) if isinstance(sized, list) and len(sized) >= 2 else 2
            n_values = entry.get("n_values", n_values)
        try:
            _pram_matrix(entry, n_values, np.ones(n_values), None)
        except KeyError as exc:
            raise MatrixError(
                f"matrix kind {entry['kind']!r} needs the key {exc.args[0]!r} (got {sorted(entry)})"
            ) from None
        return
    matrix_from_spec(entry, n_values)


#: The one table of matrix kinds of a spec: kind -> (builder, keys it needs, what it is).
#: Used by :func:`matrix_from_spec` (release specs) and
#: :func:`ppdm.bayesnet.pram.scheme_matrix` (PRAM schemes), so both accept the same kinds.
#: Any kind may instead carry an explicit ``matrix`` (as released specs do).
MATRIX_KINDS: dict[str, tuple[Any, tuple[str, ...], str]] = {
    "gamma-diagonal": (
        _build_gamma_diagonal,
        ("gamma",),
        "gamma on the diagonal, 1 elsewhere, scaled (Dowd, Xu & Zhang, Sec. 3)",
    ),
    "identity": (_build_identity, (), "no perturbation (a control; infinite amplification)"),
    "explicit": (None, ("matrix",), "an explicit column-stochastic matrix M[h][k] = P(k -> h)"),
    "symmetric": (
        _build_symmetric,
        ("p",),
        "keep the value w.p. 1 - p, else move to one of the other N - 1 uniformly",
    ),
    "symmetric-binary": (_build_symmetric_binary, ("p",), "flip one of 2 values w.p. p"),
    "symmetric-ternary": (
        _build_symmetric_ternary,
        ("p",),
        "change one of 3 values w.p. p, to each other value w.p. p/2",
    ),
    "binary": (_build_binary, ("p1", "p2"), "0 -> 1 w.p. p1, 1 -> 0 w.p. p2"),
    "block-diagonal": (
        _build_block_diagonal,
        ("groups", "p"),
        "a symmetric channel of level p inside each group of codes",
    ),
    "invariant-pram": (
        _build_pram,
        ("alpha",),
        "invariant PRAM: alpha (base forward, then backward) + (1 - alpha) I, keeping the "
        "data's marginal in expectation; base or retention (per value) gives the base",
    ),
    "sdcmicro-pram": (
        _build_pram,
        ("pd", "alpha"),
        "sdcMicro's pram(): retention of each value drawn U[pd, 1], then invariant PRAM",
    ),
    "stratified": (
        _build_stratified,
        ("strata", "matrices"),
        "one matrix (of any other kind) per value of the stratum column, released as is",
    ),
}


def matrix_from_spec(
    spec: dict,
    n_values: int | None = None,
    *,
    marginal: np.ndarray | None = None,
    rng: np.random.Generator | None = None,
) -> PerturbationMatrix:
    """Build a matrix from a spec entry: a ``to_spec()`` dictionary or a shorthand kind.

    Parameters
    ----------
    spec : dict
        ``{"kind": ..., ...}`` with a kind of :data:`MATRIX_KINDS` and its keys, or any
        kind with an explicit ``"matrix"`` (as written in a release spec).
    n_values : int, optional
        N of the attribute's domain; the matrix must have it.
    marginal : array of shape (N,), optional
        Original counts per value, for a kind of :data:`FROM_DATA` without a ``matrix``.
    rng : numpy.random.Generator, optional
        The release's generator, for the random retentions of ``sdcmicro-pram``.

    Raises
    ------
    MatrixError
        On an unknown kind, a missing key, or a matrix of the wrong size.

    Examples
    --------
    >>> matrix_from_spec({"kind": "symmetric-binary", "p": 0.25}).amplification()
    3.0

    References
    ----------
    Ma & Sivakumar, Sec. 3 (binary, ternary and grouped channels); Dowd, Xu & Zhang, Sec. 3.
    """
    if not isinstance(spec, Mapping):
        raise MatrixError(f"a matrix entry must be a mapping (got {spec!r})")
    kind = spec.get("kind")
    if kind in ("gamma-diagonal", "identity") or ("matrix" not in spec and kind in MATRIX_KINDS):
        build = MATRIX_KINDS[kind][0]
        try:
            if kind in FROM_DATA or kind == "stratified":
                return build(dict(spec), n_values, marginal, rng)
            return build(dict(spec), n_values)
        except KeyError as exc:
            raise MatrixError(
                f"matrix kind {kind!r} needs the key {exc.args[0]!r} (got {sorted(spec)})"
            ) from None
        except TypeError as exc:
            raise MatrixError(f"matrix kind {kind!r}: {exc}") from None
    if "matrix" in spec:
        rows = spec["matrix"]
        if isinstance(rows, (list, tuple)):
            check_n_values(len(rows), "N (matrix rows)", dense=True, error=MatrixError)
        meta = {k: v for k, v in spec.items() if k not in ("kind", "matrix")}
        m = ExplicitMatrix(spec["matrix"], kind=kind or "explicit", meta=meta)
        if n_values is not None and m.n_values != n_values:
            raise MatrixError(
                f"matrix is {m.n_values} x {m.n_values} but the domain has N = {n_values}"
            )
        return m
    raise MatrixError(
        f"matrix kind must be one of {', '.join(MATRIX_KINDS)}, or any kind with an "
        f"explicit 'matrix' (got {kind!r})"
    )
