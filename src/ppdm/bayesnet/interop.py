"""Conversion to and from pgmpy's ``DiscreteBayesianNetwork`` and ``TabularCPD``.

pgmpy is an optional extra (``pip install ppdm[bn]``); it is imported only when one of
these functions is called. Both libraries lay a CPD out the same way: rows are the
node's states, columns the parent configurations with the last evidence variable
fastest, so the arrays pass through unchanged.

References
----------
Ma & Sivakumar, Sec. 4-5 (the parameters theta_ijk being exchanged).
"""

from __future__ import annotations

from .network import BayesNet, Node

__all__ = ["to_pgmpy", "from_pgmpy"]


def _pgmpy():
    try:
        from pgmpy.factors.discrete import TabularCPD
        from pgmpy.models import DiscreteBayesianNetwork
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("pgmpy is needed for this conversion: pip install 'ppdm[bn]'") from exc
    return DiscreteBayesianNetwork, TabularCPD


def to_pgmpy(net: BayesNet):
    """A pgmpy ``DiscreteBayesianNetwork`` with the same structure, states and CPDs.

    Examples
    --------
    >>> from ppdm.bayesnet.networks import fig3_network
    >>> model = to_pgmpy(fig3_network())  # doctest: +SKIP
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


def from_pgmpy(model, name: str = "bn") -> BayesNet:
    """A :class:`BayesNet` from a pgmpy discrete Bayesian network (with or without CPDs).

    Examples
    --------
    >>> from ppdm.bayesnet.networks import fig3_network
    >>> from_pgmpy(to_pgmpy(fig3_network()), "ma-sivakumar-fig3") == fig3_network()  # doctest: +SKIP
    True
    """
    nodes, cpds = [], {}
    for v in model.nodes():
        cpd = model.get_cpds(v)
        if cpd is None:
            parents = tuple(model.get_parents(v))
            nodes.append(Node(str(v), tuple(str(i) for i in range(2)), tuple(map(str, parents))))
            continue
        variables = list(cpd.variables)
        states = tuple(str(s) for s in cpd.state_names[v])
        nodes.append(Node(str(v), states, tuple(str(p) for p in variables[1:])))
        cpds[str(v)] = cpd.get_values()
    return BayesNet(nodes, cpds, name=name)
