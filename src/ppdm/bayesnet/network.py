"""Discrete Bayesian networks: structure, CPDs and their ``ppdm-bn/1`` file format.

``cpd[k, j] = P(X_i = k | Pa_i = j)``, a ``(K_i, J_i)`` array whose columns enumerate the
parent configurations with the last parent fastest (pgmpy's ``TabularCPD`` layout);
docs/bayesnet.md shows the file format.

References
----------
Ma & Sivakumar, Sec. 4-5 (N_ijk, theta_ijk with j a parent configuration).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import DataError, SpecError
from ..limits import check_n_values, load_structured
from ..validation import show

__all__ = [
    "NETWORK_FORMAT",
    "Node",
    "BayesNet",
    "read_mapping",
    "encode_states",
    "decode_states",
]

NETWORK_FORMAT = "ppdm-bn/1"
_SUM_TOL = 1e-6


@dataclass(frozen=True)
class Node:
    """One discrete variable of a network: its name, state labels and parents."""

    name: str
    states: tuple[str, ...]
    parents: tuple[str, ...] = ()

    @property
    def cardinality(self) -> int:
        """K_i, the number of states."""
        return len(self.states)


def code_dtype(cardinality: int) -> np.dtype:
    """Smallest signed integer type that holds codes ``0..cardinality-1``."""
    return np.dtype(np.int8 if cardinality <= 127 else np.int32)


def _states(value, name: str) -> tuple[str, ...]:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if value < 2:
            raise SpecError(f"node {name!r}: states must be >= 2 (got {value})")
        n = check_n_values(value, f"node {name!r}: states", dense=True, error=SpecError)
        return tuple(str(i) for i in range(n))
    if isinstance(value, (list, tuple)) and len(value) >= 2:
        check_n_values(len(value), f"node {name!r}: states", dense=True, error=SpecError)
        labels = tuple(str(v) for v in value)
        if len(set(labels)) != len(labels):
            raise SpecError(f"node {name!r}: state labels must be distinct (got {list(labels)})")
        return labels
    raise SpecError(
        f"node {name!r}: states must be a cardinality >= 2 or a list of >= 2 labels (got {value!r})"
    )


class BayesNet:
    """A discrete Bayesian network: a DAG of :class:`Node` and, optionally, its CPDs.

    ``cpds`` maps nodes to ``(K_i, J_i)`` arrays or their flat row-major lists, every
    column summing to 1; nodes without a CPD are allowed (structure only).

    References
    ----------
    Ma & Sivakumar, Sec. 5 (theta_ijk = P(X_i = k | Pa_i = j)).
    """

    def __init__(
        self,
        nodes: Sequence[Node],
        cpds: Mapping[str, object] | None = None,
        name: str = "bn",
    ) -> None:
        self.name = str(name)
        self._nodes: dict[str, Node] = {}
        for node in nodes:
            if not isinstance(node, Node):
                raise SpecError(f"nodes must be Node objects (got {type(node).__name__})")
            if node.name in self._nodes:
                raise SpecError(f"node {node.name!r} is listed twice")
            self._nodes[node.name] = node
        for node in self._nodes.values():
            for p in node.parents:
                if p not in self._nodes:
                    raise SpecError(
                        f"node {node.name!r}: parent {p!r} is not a node; nodes are {list(self._nodes)}"
                    )
            if node.name in node.parents or len(set(node.parents)) != len(node.parents):
                raise SpecError(
                    f"node {node.name!r}: parents must be distinct other nodes (got {list(node.parents)})"
                )
        self._order = self._toposort()
        self._cpds: dict[str, np.ndarray] = {}
        for key, value in (cpds or {}).items():
            if key not in self._nodes:
                raise SpecError(
                    f"CPD given for unknown node {key!r}; nodes are {list(self._nodes)}"
                )
            self._cpds[key] = self._check_cpd(key, value)

    def _toposort(self) -> tuple[str, ...]:
        indeg = {n: len(node.parents) for n, node in self._nodes.items()}
        children: dict[str, list[str]] = {n: [] for n in self._nodes}
        for n, node in self._nodes.items():
            for p in node.parents:
                children[p].append(n)
        ready = [n for n in self._nodes if indeg[n] == 0]
        order = []
        while ready:
            n = ready.pop(0)
            order.append(n)
            for c in children[n]:
                indeg[c] -= 1
                if indeg[c] == 0:
                    ready.append(c)
        if len(order) != len(self._nodes):
            cyclic = sorted(n for n in self._nodes if n not in order)
            raise SpecError(f"the graph has a directed cycle through {cyclic}")
        return tuple(order)

    def _check_cpd(self, name: str, value) -> np.ndarray:
        k, j = self.cardinality(name), self.n_configurations(name)
        arr = np.array(value, dtype=np.float64)
        if arr.size != k * j:
            raise SpecError(
                f"node {name!r}: CPD must have K x J = {k} x {j} = {k * j} entries (got {arr.size})"
            )
        arr = arr.reshape(k, j)
        if not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise SpecError(f"node {name!r}: CPD entries must be finite and >= 0")
        sums = arr.sum(axis=0)
        bad = np.flatnonzero(np.abs(sums - 1.0) > _SUM_TOL)
        if bad.size:
            raise SpecError(
                f"node {name!r}: CPD column {bad[0]} (parent configuration) sums to "
                f"{sums[bad[0]]:.6g}, not 1; rows are the node's states, columns its parent "
                "configurations (last parent fastest)"
            )
        return arr

    @property
    def names(self) -> tuple[str, ...]:
        """Node names in the order they were given."""
        return tuple(self._nodes)

    @property
    def topological_order(self) -> tuple[str, ...]:
        """Node names, every parent before its children."""
        return self._order

    def node(self, name: str) -> Node:
        """The :class:`Node` called ``name``."""
        try:
            return self._nodes[name]
        except KeyError:
            raise SpecError(f"no node {name!r}; nodes are {list(self._nodes)}") from None

    def parents(self, name: str) -> tuple[str, ...]:
        """Pa_i, in CPD column order."""
        return self.node(name).parents

    def cardinality(self, name: str) -> int:
        """K_i."""
        return self.node(name).cardinality

    @property
    def cardinalities(self) -> dict[str, int]:
        """K_i of every node."""
        return {n: node.cardinality for n, node in self._nodes.items()}

    def n_configurations(self, name: str) -> int:
        """J_i = prod of the parents' cardinalities."""
        return int(np.prod([self.cardinality(p) for p in self.parents(name)], dtype=np.int64))

    def family(self, name: str) -> tuple[str, ...]:
        """``(X_i, Pa_i(1), ..., Pa_i(Q))``: the axes of N_ijk."""
        return (name, *self.parents(name))

    def has_cpd(self, name: str) -> bool:
        return name in self._cpds

    @property
    def is_complete(self) -> bool:
        """True when every node has a CPD."""
        return len(self._cpds) == len(self._nodes)

    def cpd(self, name: str) -> np.ndarray:
        """The ``(K_i, J_i)`` CPD of ``name`` (a copy)."""
        self.node(name)
        if name not in self._cpds:
            raise SpecError(f"node {name!r} has no CPD in network {self.name!r}")
        return self._cpds[name].copy()

    @property
    def cpds(self) -> dict[str, np.ndarray]:
        """All CPDs present, by node (copies)."""
        return {n: c.copy() for n, c in self._cpds.items()}

    def with_cpds(self, cpds: Mapping[str, object], name: str | None = None) -> BayesNet:
        """A new network with the same structure and these CPDs replacing or adding to ours."""
        merged = {**self._cpds, **dict(cpds)}
        return BayesNet(list(self._nodes.values()), merged, name=name or self.name)

    def structure(self) -> BayesNet:
        """The same network without any CPD."""
        return BayesNet(list(self._nodes.values()), name=self.name)

    def encode(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` with every node column as integer state codes (see :func:`encode_states`)."""
        return encode_states(frame, {n: node.states for n, node in self._nodes.items()})

    def decode(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` with every node column's codes replaced by the node's state names."""
        return decode_states(frame, {n: node.states for n, node in self._nodes.items()})

    def to_dict(self) -> dict:
        """The ``ppdm-bn/1`` dictionary (JSON/YAML-ready)."""
        nodes = []
        for n, node in self._nodes.items():
            entry: dict = {"name": n, "states": list(node.states), "parents": list(node.parents)}
            if n in self._cpds:
                entry["cpd"] = self._cpds[n].tolist()
            nodes.append(entry)
        return {"format": NETWORK_FORMAT, "name": self.name, "nodes": nodes}

    @classmethod
    def from_dict(cls, spec: Mapping) -> BayesNet:
        """Build a network from a ``ppdm-bn/1`` dictionary."""
        if not isinstance(spec, Mapping):
            raise SpecError(f"a network spec must be a mapping (got {type(spec).__name__})")
        fmt = spec.get("format", NETWORK_FORMAT)
        if fmt != NETWORK_FORMAT:
            raise SpecError(f"network format must be {NETWORK_FORMAT!r} (got {fmt!r})")
        entries = spec.get("nodes")
        if not isinstance(entries, list) or not entries:
            raise SpecError("a network spec needs a non-empty list 'nodes'")
        nodes, cpds = [], {}
        for i, entry in enumerate(entries):
            if not isinstance(entry, Mapping) or "name" not in entry:
                raise SpecError(f"nodes[{i}] must be a mapping with a 'name' (got {entry!r})")
            unknown = set(entry) - {"name", "states", "parents", "cpd"}
            if unknown:
                raise SpecError(
                    f"node {entry['name']!r}: unknown keys {sorted(unknown)}; "
                    "allowed: name, states, parents, cpd"
                )
            name = str(entry["name"])
            parents = entry.get("parents") or []
            if not isinstance(parents, list):
                raise SpecError(f"node {name!r}: parents must be a list (got {parents!r})")
            nodes.append(Node(name, _states(entry.get("states"), name), tuple(map(str, parents))))
            if entry.get("cpd") is not None:
                cpds[name] = entry["cpd"]
        return cls(nodes, cpds, name=str(spec.get("name", "bn")))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BayesNet):
            return NotImplemented
        return (
            self._nodes == other._nodes
            and self._cpds.keys() == other._cpds.keys()
            and all(np.array_equal(self._cpds[k], other._cpds[k]) for k in self._cpds)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"BayesNet(name={self.name!r}, nodes={len(self._nodes)}, "
            f"cpds={len(self._cpds)}/{len(self._nodes)})"
        )


def read_mapping(path: str | os.PathLike) -> dict:
    """Parse a JSON or YAML file (by extension) within the caps of
    :func:`ppdm.limits.load_structured`; every failure is one :class:`SpecError` line.
    """
    path = Path(path)
    if path.suffix.lower() not in (".yaml", ".yml", ".json"):
        raise SpecError(f"cannot tell the format of {str(path)!r}: use .json, .yaml or .yml")
    return load_structured(path, "file", error=SpecError)


def _shown(value) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "an empty value"
    return show(value, width=63)


def _as_int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def _encode_column(col: pd.Series, name: str, labels: tuple[str, ...]) -> pd.Series:
    k = len(labels)
    numeric_names = all(_as_int(s) is not None for s in labels)
    if col.dtype.kind in "iu" and (not numeric_names or labels == tuple(str(i) for i in range(k))):
        values = col.to_numpy()
        bad = np.flatnonzero((values < 0) | (values >= k))
        if bad.size:
            raise DataError(
                f"column {name!r}, row {int(bad[0]) + 1}: {int(values[bad[0]])} is not a state "
                f"code 0..{k - 1} of {name!r} (states {list(labels)[:10]})"
            )
        return col
    index = {s: i for i, s in enumerate(labels)}
    inverse, uniques = pd.factorize(col.astype(object), use_na_sentinel=True)
    table = np.empty(len(uniques) + 1, dtype=np.int64)
    table[-1] = -1  # the sentinel -1 of missing values indexes this slot
    for u, value in enumerate(uniques):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        key = str(value)
        code = index.get(key)
        if code is None:
            literal = _as_int(key)
            code = literal if literal is not None and 0 <= literal < k else -1
        table[u] = code
    codes = table[inverse]
    bad = np.flatnonzero(codes < 0)
    if bad.size:
        row = int(bad[0])
        raise DataError(
            f"column {name!r}, row {row + 1}: {_shown(col.iloc[row])} is neither a state of "
            f"{name!r} {_shown(list(labels))} nor a code 0..{k - 1}"
        )
    return pd.Series(codes.astype(code_dtype(k)), index=col.index, name=col.name)


def encode_states(frame: pd.DataFrame, states: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """A copy of ``frame`` whose columns named in ``states`` hold integer state codes.

    A value may be a state name or a code ``0..K-1`` (a name wins when it is both); integer
    columns are codes unless every state name is an integer literal other than its own code
    (such names read back from CSV as integers). A value that is neither raises
    :class:`DataError` naming the column, the 1-based row and the value.
    """
    out = frame.copy()
    for name, labels in states.items():
        if name in frame.columns:
            out[name] = _encode_column(frame[name], name, tuple(str(s) for s in labels))
    return out


def decode_states(frame: pd.DataFrame, states: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """A copy of ``frame`` whose code columns named in ``states`` are categorical state names."""
    out = frame.copy()
    for name, labels in states.items():
        if name in frame.columns:
            out[name] = pd.Categorical.from_codes(
                frame[name].to_numpy(), categories=[str(s) for s in labels]
            )
    return out
