"""Conversion to and from pgmpy's ``DiscreteBayesianNetwork`` and ``TabularCPD``.

pgmpy (the ``bn`` extra) is imported only when a function is called; both libraries lay
a CPD out alike (last evidence variable fastest), so the arrays pass through unchanged.

References
----------
Ma & Sivakumar, Sec. 4-5 (the parameters theta_ijk being exchanged).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..exceptions import SpecError
from .network import BayesNet, Node

__all__ = ["to_pgmpy", "from_pgmpy", "read_pgmpy_file", "write_pgmpy_file"]


PGMPY_MISSING = "pgmpy is needed for this (the bn extra): pip install 'ppdm[bn]'"


def _pgmpy():
    try:
        from pgmpy import models
        from pgmpy.factors.discrete import TabularCPD
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(PGMPY_MISSING) from exc
    # pgmpy before 0.1.26 calls the class BayesianNetwork
    model_cls = getattr(models, "DiscreteBayesianNetwork", None) or models.BayesianNetwork
    return model_cls, TabularCPD


def to_pgmpy(net: BayesNet):
    """A pgmpy ``DiscreteBayesianNetwork`` with the same structure, states and CPDs.

    Examples
    --------
    >>> net = BayesNet([Node("A", ("0", "1")), Node("T", ("0", "1"), ("A",))],
    ...                {"A": [0.7, 0.3], "T": [0.1, 0.9, 0.9, 0.1]})
    >>> model = to_pgmpy(net)  # doctest: +SKIP
    >>> model.check_model()  # doctest: +SKIP
    True
    """
    model_cls, cpd_cls = _pgmpy()
    edges = [(p, v) for v in net.names for p in net.parents(v)]
    model = model_cls(edges)
    model.add_nodes_from(net.names)
    cpds = []
    for v in net.names:
        if not net.has_cpd(v):
            continue
        parents = list(net.parents(v))
        cpds.append(
            cpd_cls(
                v,
                net.cardinality(v),
                net.cpd(v),
                evidence=parents or None,
                evidence_card=[net.cardinality(p) for p in parents] or None,
                state_names={u: list(net.node(u).states) for u in (v, *parents)},
            )
        )
    if cpds:
        model.add_cpds(*cpds)
    return model


def _model_states(model, v) -> tuple[str, ...]:
    """State names of ``v`` from its own CPD, any CPD it is evidence in, or ``model.states``."""
    cpd = model.get_cpds(v)
    if cpd is None:
        cpd = next((c for c in model.get_cpds() if v in c.variables), None)
    if cpd is not None:
        names = (cpd.state_names or {}).get(v) or range(int(cpd.get_cardinality([v])[v]))
    else:
        names = (getattr(model, "states", None) or {}).get(v)
    if names:
        return tuple(str(s) for s in names)
    raise SpecError(
        f"node {str(v)!r}: the pgmpy model gives neither a CPD nor state names for it, "
        "so its number of states is unknown"
    )


def from_pgmpy(model, name: str = "bn") -> BayesNet:
    """A :class:`BayesNet` from a pgmpy discrete Bayesian network (with or without CPDs).

    A node's states come from its CPD; for a node without one, from a CPD it is
    evidence in, else from ``model.states``. A node with none of these is an error
    (its cardinality is never guessed).

    Examples
    --------
    >>> net = BayesNet([Node("A", ("0", "1")), Node("T", ("0", "1"), ("A",))],
    ...                {"A": [0.7, 0.3], "T": [0.1, 0.9, 0.9, 0.1]}, name="asia-part")
    >>> from_pgmpy(to_pgmpy(net), "asia-part") == net  # doctest: +SKIP
    True
    """
    nodes, cpds = [], {}
    for v in model.nodes():
        cpd = model.get_cpds(v)
        parents = model.get_parents(v) if cpd is None else list(cpd.variables)[1:]
        nodes.append(Node(str(v), _model_states(model, v), tuple(map(str, parents))))
        if cpd is not None:
            cpds[str(v)] = cpd.get_values()
    return BayesNet(nodes, cpds, name=name)


def read_pgmpy_file(path: str | os.PathLike, fmt: str) -> BayesNet:
    """Read a BIF (``fmt=".bif"``) or XMLBIF (``".xmlbif"``/``".xml"``) file through pgmpy."""
    _pgmpy()
    from pgmpy.readwrite import BIFReader, XMLBIFReader

    path = Path(path)
    try:
        model = (BIFReader if fmt == ".bif" else XMLBIFReader)(str(path)).get_model()
    except Exception as exc:  # noqa: BLE001 - pgmpy raises many kinds on a malformed file
        detail = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise SpecError(f"cannot read {fmt.lstrip('.').upper()} file: {detail}") from exc
    return from_pgmpy(model, name=path.stem)


#: A name a BIF file can hold as written (it has no quoting).
_BIF_NAME = re.compile(r"[A-Za-z0-9_.\-]+")


def write_pgmpy_file(net: BayesNet, path: str | os.PathLike, fmt: str) -> None:
    """Write ``net`` (with every CPD) as BIF (``fmt=".bif"``) or XMLBIF through pgmpy."""
    _pgmpy()
    from pgmpy.readwrite import BIFWriter, XMLBIFWriter

    if not net.is_complete:
        missing = [v for v in net.names if not net.has_cpd(v)]
        raise SpecError(f"writing {fmt.lstrip('.').upper()} needs every CPD; missing: {missing}")
    if fmt == ".bif":  # BIF has no quoting: a comma, quote or space would break the file
        for node in net.names:
            for name in (node, *net.node(node).states):
                if not _BIF_NAME.fullmatch(str(name)):
                    raise SpecError(
                        f"BIF cannot hold the name {str(name)!r} (of node {node!r}): only "
                        "letters, digits, '_', '-' and '.'; write .json, .yaml or .xmlbif"
                    )
    model = to_pgmpy(net)
    writer = BIFWriter(model) if fmt == ".bif" else XMLBIFWriter(model)
    before_1_1 = "write_bif" if fmt == ".bif" else "write_xmlbif"  # pgmpy before 1.1
    (getattr(writer, "write", None) or getattr(writer, before_1_1))(str(path))
    _check_read_back(net, path, fmt)


def _check_read_back(net: BayesNet, path: str | os.PathLike, fmt: str) -> None:
    """Remove the file just written and raise unless it reads back with the names of
    ``net``: pgmpy's XMLBIF writer turns a state 'x,y' (or any but letters, digits and
    spaces) into 'x_y' without a word."""
    kind = fmt.lstrip(".").upper()
    try:
        renamed = _first_renamed(net, read_pgmpy_file(path, fmt))
    except SpecError:
        why = f"the {kind} file written cannot be read back; write .json or .yaml"
    else:
        if renamed is None:
            return
        node, before, after = renamed
        why = (
            f"{kind} would write the name {str(before)!r} (of node {node!r}) as "
            f"{str(after)!r}; write .json or .yaml, which keep every name"
        )
    Path(path).unlink(missing_ok=True)
    raise SpecError(why)


def _first_renamed(net: BayesNet, back: BayesNet) -> tuple | None:
    """The first ``(node, name, name read back)`` of ``net`` that ``back`` does not keep."""
    names = {str(n): n for n in back.names}
    for node in net.names:
        if str(node) not in names:
            lost = sorted(set(names) - {str(n) for n in net.names})
            return node, node, lost[0] if lost else "nothing"
        ours, theirs = net.node(node).states, back.node(names[str(node)]).states
        for before, after in zip(ours, theirs):
            if str(before) != str(after):
                return node, before, after
        if len(theirs) != len(ours):
            return node, ours[-1], "fewer states"
    return None
