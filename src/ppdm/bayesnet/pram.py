"""Post randomization (PRAM) schemes for the variables of a Bayesian network.

A group randomized simultaneously is one combined variable whose code is
``ravel_multi_index`` of its members' codes (last member fastest); variables in no group
are released as they are. Matrices follow :mod:`ppdm.matrix`: ``M[h, k] = P(k -> h)``,
the transpose of the paper's ``P^i``. docs/bayesnet.md shows a scheme file.

References
----------
Ma & Sivakumar, Sec. 3 (schemes, gamma, K) and Sec. 5 cases (a)-(d).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..exceptions import MatrixError, SpecError
from ..matrix import (  # noqa: F401 - the PRAM constructors are part of this module's API
    MATRIX_KINDS,
    ExplicitMatrix,
    PerturbationMatrix,
    binary_randomization,
    block_diagonal,
    grouped_symmetric,
    matrix_from_spec,
    symmetric_binary,
    symmetric_channel,
)
from ..privacy import RHO1_LEVELS, rho2_from_gamma
from ..random import RandomState, resolve_seed, stream_generator

__all__ = [
    "binary_randomization",
    "grouped_symmetric",
    "scheme_matrix",
    "marginal_matrix",
    "Randomization",
    "PramScheme",
]

_SEPARABLE_TOL = 1e-9


def scheme_matrix(spec: Mapping, n_values: int) -> PerturbationMatrix:
    """A matrix from a scheme entry: a kind of :data:`ppdm.matrix.MATRIX_KINDS` or an
    explicit ``matrix``.
    """
    if not isinstance(spec, Mapping):
        raise SpecError(f"a matrix entry must be a mapping (got {spec!r})")
    if "matrix" not in spec and spec.get("kind") not in MATRIX_KINDS:
        raise SpecError(
            f"matrix kind must be one of {', '.join(MATRIX_KINDS)}, or carry an explicit "
            f"'matrix' (got {spec.get('kind')!r})"
        )
    return matrix_from_spec(dict(spec), n_values)


def marginal_matrix(
    matrix: PerturbationMatrix, cardinalities: Sequence[int], keep: Sequence[int]
) -> ExplicitMatrix:
    """Marginal transition matrix of some members of a simultaneously randomized group.

    ``P(X~_keep | X_keep)`` for case (d): the sum of ``M`` over the dropped members'
    randomized values, defined when it does not depend on their original values.

    Parameters
    ----------
    matrix : PerturbationMatrix
        The group's matrix over combined codes (last member fastest).
    cardinalities : sequence of int
        The members' cardinalities, in group order.
    keep : sequence of int
        Positions of the members to keep.

    Returns
    -------
    ExplicitMatrix
        Over the kept members' combined codes.

    Raises
    ------
    MatrixError
        When the kept members' randomization depends on a dropped member's value: the
        miner must then use the combined variable (as :mod:`ppdm.bayesnet.estimation` does).

    Examples
    --------
    >>> from ppdm.matrix import symmetric_binary, ExplicitMatrix
    >>> m = ExplicitMatrix(np.kron(symmetric_binary(0.2).dense(), symmetric_binary(0.1).dense()))
    >>> marginal_matrix(m, [2, 2], [0]).dense().tolist()
    [[0.8, 0.2], [0.2, 0.8]]

    References
    ----------
    Ma & Sivakumar, Sec. 5, case (d).
    """
    cards = [int(c) for c in cardinalities]
    q = len(cards)
    keep = sorted(int(k) for k in keep)
    if not keep or len(set(keep)) != len(keep) or any(not 0 <= k < q for k in keep):
        raise MatrixError(f"keep must be distinct positions in 0..{q - 1} (got {keep})")
    drop = [i for i in range(q) if i not in keep]
    t = matrix.dense().reshape(cards + cards)  # (out_1..out_q, in_1..in_q)
    t = t.sum(axis=tuple(drop))  # sum over dropped randomized values
    # remaining axes: kept outputs (in order), then all q inputs
    t = np.moveaxis(t, [len(keep) + i for i in keep], list(range(len(keep), 2 * len(keep))))
    kept_size = int(np.prod([cards[i] for i in keep]))
    t = t.reshape(kept_size, kept_size, -1)
    if np.max(np.abs(t - t[:, :, :1])) > _SEPARABLE_TOL:
        raise MatrixError(
            "the kept members' randomization depends on the dropped members' values, so "
            "their marginal matrix is not defined; estimate with the combined variable"
        )
    return ExplicitMatrix(t[:, :, 0], kind="marginal")


class Randomization:
    """One randomized unit: a variable, or a group randomized simultaneously, with its
    matrix over the combined codes (size ``prod(cardinalities)``).
    """

    def __init__(
        self, variables: Sequence[str], cardinalities: Sequence[int], matrix: PerturbationMatrix
    ) -> None:
        self.variables = tuple(str(v) for v in variables)
        self.cardinalities = tuple(int(c) for c in cardinalities)
        if not self.variables or len(set(self.variables)) != len(self.variables):
            raise SpecError(f"a randomized group needs distinct variables (got {variables!r})")
        n = int(np.prod(self.cardinalities))
        if matrix.n_values != n:
            raise SpecError(
                f"the matrix of {list(self.variables)} is {matrix.n_values} x {matrix.n_values} "
                f"but the combined variable has {n} values"
            )
        self.matrix = matrix

    @property
    def n_values(self) -> int:
        return self.matrix.n_values

    @property
    def gamma(self) -> float:
        """Amplification of the (combined) variable."""
        return self.matrix.amplification()

    @property
    def anonymity(self) -> int:
        """Ma & Sivakumar's K."""
        return self.matrix.min_row_support()

    def combine(self, frame: pd.DataFrame) -> np.ndarray:
        """Combined codes of the members (last member fastest)."""
        codes = [frame[v].to_numpy(dtype=np.int64) for v in self.variables]
        return np.ravel_multi_index(codes, self.cardinalities)

    def split(self, code: np.ndarray) -> list[np.ndarray]:
        """Member codes of combined codes."""
        return list(np.unravel_index(np.asarray(code, dtype=np.int64), self.cardinalities))

    def to_spec(self) -> dict:
        return {"variables": list(self.variables), "matrix": self.matrix.to_spec()}

    def __repr__(self) -> str:
        return f"Randomization({list(self.variables)}, {self.matrix!r})"


class PramScheme:
    """The variables of a data set, their cardinalities K_i and how each is randomized.

    ``randomizations`` are disjoint groups (:class:`Randomization` or ``(variables,
    matrix)`` pairs); variables in none of them are released unchanged.

    References
    ----------
    Ma & Sivakumar, Sec. 3 (uniform, non-uniform, grouped and simultaneous PRAM).
    """

    def __init__(self, cardinalities: Mapping[str, int], randomizations: Sequence = ()) -> None:
        self.cardinalities = {}
        for v, k in dict(cardinalities).items():
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
                raise SpecError(f"variable {v!r}: cardinality must be an integer >= 2 (got {k!r})")
            self.cardinalities[str(v)] = int(k)
        self.randomizations: list[Randomization] = []
        seen: dict[str, int] = {}
        for i, r in enumerate(randomizations):
            if not isinstance(r, Randomization):
                variables, matrix = r
                for v in variables:
                    if v not in self.cardinalities:
                        raise SpecError(
                            f"randomized variable {v!r} is not among the variables "
                            f"{list(self.cardinalities)}"
                        )
                r = Randomization(variables, [self.cardinalities[v] for v in variables], matrix)
            for v, k in zip(r.variables, r.cardinalities):
                if self.cardinalities.get(v) != k:
                    raise SpecError(
                        f"randomized variable {v!r} has cardinality {k} but the scheme says "
                        f"{self.cardinalities.get(v)}"
                    )
                if v in seen:
                    raise SpecError(
                        f"variable {v!r} is in two randomized groups ({seen[v]} and {i})"
                    )
                seen[v] = i
            self.randomizations.append(r)
        self._group = seen

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(self.cardinalities)

    @property
    def randomized_variables(self) -> tuple[str, ...]:
        return tuple(v for r in self.randomizations for v in r.variables)

    def is_randomized(self, variable: str) -> bool:
        return variable in self._group

    def randomization_of(self, variable: str) -> Randomization | None:
        """The group ``variable`` is randomized in, or None."""
        i = self._group.get(variable)
        return None if i is None else self.randomizations[i]

    def randomize(
        self, frame: pd.DataFrame, random_state: RandomState = None, *, party: str = ""
    ) -> pd.DataFrame:
        """Post-randomize ``frame`` (state codes), one CSPRNG stream per group.

        A group's AES-counter stream is keyed by the root (``random_state=None``: OS entropy),
        ``party`` and the group's variables, so no two parties or groups share a stream, even
        under the same seed.

        References
        ----------
        Ma & Sivakumar, Sec. 4, step (1) of both models.
        """
        self.check_frame(frame)
        out = {v: frame[v].to_numpy() for v in self.variables}
        if self.randomizations:
            root = resolve_seed(random_state)
            for r in self.randomizations:
                gen = stream_generator(root, "pram", str(party), *r.variables)
                code = r.combine(frame)
                new = r.matrix.draw(code, gen)
                for v, c in zip(r.variables, r.split(new)):
                    out[v] = c.astype(frame[v].dtype)
        return pd.DataFrame(out, index=frame.index)

    def check_frame(self, frame: pd.DataFrame) -> None:
        """Check that ``frame`` holds every variable as integer codes ``0..K-1``."""
        missing = [v for v in self.variables if v not in frame.columns]
        if missing:
            raise SpecError(f"the data has no column for {missing}; it has {list(frame.columns)}")
        for v, k in self.cardinalities.items():
            col = frame[v]
            if not pd.api.types.is_integer_dtype(col.dtype):
                raise SpecError(
                    f"column {v!r} must hold integer state codes 0..{k - 1} (got dtype {col.dtype})"
                )
            if len(col) and (col.min() < 0 or col.max() >= k):
                raise SpecError(
                    f"column {v!r} must hold codes 0..{k - 1} (got values "
                    f"{int(col.min())}..{int(col.max())})"
                )

    def subset(self, variables: Sequence[str]) -> PramScheme:
        """The scheme restricted to ``variables`` plus whole groups they are randomized in."""
        wanted = []
        for v in variables:
            if v not in self.cardinalities:
                raise SpecError(f"variable {v!r} is not in the scheme {list(self.variables)}")
            r = self.randomization_of(v)
            for m in r.variables if r is not None else (v,):
                if m not in wanted:
                    wanted.append(m)
        groups = [r for r in self.randomizations if r.variables[0] in wanted]
        return PramScheme({v: self.cardinalities[v] for v in wanted}, groups)

    @staticmethod
    def merge(schemes: Sequence[PramScheme]) -> PramScheme:
        """One scheme over the (disjoint) variables of several."""
        cards: dict[str, int] = {}
        groups: list[Randomization] = []
        for s in schemes:
            for v, k in s.cardinalities.items():
                if v in cards:
                    raise SpecError(f"variable {v!r} appears in two releases")
                cards[v] = k
            groups.extend(s.randomizations)
        return PramScheme(cards, groups)

    def privacy(self) -> pd.DataFrame:
        """Privacy per variable: gamma, rho1-to-rho2 at :data:`RHO1_LEVELS`, and K.

        A group's members report the group's figures, ``marginal_gamma`` their own marginal
        channel's (NaN when undefined); unrandomized variables have ``gamma = inf``, ``K = 1``.

        References
        ----------
        Ma & Sivakumar, Sec. 3 (gamma after Evfimievski et al., and K).
        """
        rows = []
        for v in self.variables:
            r = self.randomization_of(v)
            row: dict = {"variable": v, "randomized": r is not None}
            if r is None:
                row.update(group=v, kind="none", gamma=math.inf, marginal_gamma=math.inf, K=1)
            else:
                marg = r.gamma
                if len(r.variables) > 1:
                    try:
                        marg = marginal_matrix(
                            r.matrix, r.cardinalities, [r.variables.index(v)]
                        ).amplification()
                    except MatrixError:
                        marg = float("nan")
                row.update(
                    group="+".join(r.variables),
                    kind=r.matrix.kind,
                    gamma=r.gamma,
                    marginal_gamma=marg,
                    K=r.anonymity,
                )
            for rho1 in RHO1_LEVELS:
                row[f"rho2@{rho1:g}"] = rho2_from_gamma(row["gamma"], rho1)
            rows.append(row)
        return pd.DataFrame(rows)

    def to_spec(self) -> dict:
        """``{"variables": {name: K}, "randomize": [...]}`` with full matrices."""
        return {
            "variables": dict(self.cardinalities),
            "randomize": [r.to_spec() for r in self.randomizations],
        }

    @classmethod
    def from_spec(cls, spec: Mapping) -> PramScheme:
        """Build a scheme from its dictionary (a scheme file or a release's spec)."""
        if not isinstance(spec, Mapping) or not isinstance(spec.get("variables"), Mapping):
            raise SpecError("a scheme needs a mapping 'variables' of name -> cardinality")
        cards = dict(spec["variables"])
        groups = []
        for i, entry in enumerate(spec.get("randomize") or []):
            if not isinstance(entry, Mapping) or "variables" not in entry or "matrix" not in entry:
                raise SpecError(f"randomize[{i}] needs 'variables' and 'matrix' (got {entry!r})")
            variables = [str(v) for v in entry["variables"]]
            unknown = [v for v in variables if v not in cards]
            if unknown:
                raise SpecError(
                    f"randomize[{i}]: variables {unknown} are not in 'variables' {list(cards)}"
                )
            n = int(np.prod([cards[v] for v in variables]))
            groups.append((variables, scheme_matrix(entry["matrix"], n)))
        return cls(cards, groups)

    @classmethod
    def unrandomized(cls, cardinalities: Mapping[str, int]) -> PramScheme:
        """A scheme that releases every variable unchanged."""
        return cls(cardinalities, [])

    def __repr__(self) -> str:
        return (
            f"PramScheme(variables={list(self.variables)}, "
            f"randomized={[list(r.variables) for r in self.randomizations]})"
        )
