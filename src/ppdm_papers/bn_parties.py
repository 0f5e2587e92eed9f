"""Ma & Sivakumar's parties in one process: the releases and both learning models.

The experiments simulate every party of a vertical partition in one process: each
:class:`Party` holds its clean columns and randomizes what it sends
(:mod:`ppdm.bayesnet.parties` writes and reads the release files the real parties
exchange, and ``ppdm bn learn`` learns from them).

- **Model II**: every party sends all its variables to a miner, sensitive ones
  randomized; the miner estimates every CPD (:func:`learn_model2`).
- **Model I**: each party sends its *cross parents*, randomized, to the parties that
  need them; each learns its own variables from its clean data plus the randomized
  parents it received (:func:`learn_model1`). The parties then share their CPDs.

References
----------
Ma & Sivakumar, Sec. 2 (Models I and II) and Sec. 4 (the steps of each party).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ppdm.bayesnet.estimation import ParameterEstimate, estimate_parameters
from ppdm.bayesnet.network import BayesNet
from ppdm.bayesnet.parties import Release, combine_releases
from ppdm.bayesnet.pram import PramScheme
from ppdm.exceptions import SpecError
from ppdm.random import RandomState, resolve_seed

__all__ = ["Party", "cross_parents", "learn_model1", "learn_model2"]


class Party:
    """A data owner holding some columns of every record.

    Parameters
    ----------
    name : str
    data : pandas.DataFrame
        Clean state codes of the party's variables.
    scheme : PramScheme
        The party's privacy requirements: which of its variables are randomized, how.

    Examples
    --------
    >>> from ppdm.matrix import symmetric_binary
    >>> frame = pd.DataFrame({"A": [0, 1, 1, 0], "S": [1, 1, 0, 0]})
    >>> p = Party("site1", frame, PramScheme({"A": 2, "S": 2}, [(["A"], symmetric_binary(0.25))]))
    >>> r = p.release(random_state=0)
    >>> list(r.data.columns), r.scheme.randomized_variables
    (['A', 'S'], ('A',))

    References
    ----------
    Ma & Sivakumar, Sec. 4 (the steps of party a_i).
    """

    def __init__(self, name: str, data: pd.DataFrame, scheme: PramScheme) -> None:
        self.name = str(name)
        scheme.check_frame(data)
        self.data = data[list(scheme.variables)]
        self.scheme = scheme

    @property
    def variables(self) -> tuple[str, ...]:
        return self.scheme.variables

    def release(
        self,
        variables: Sequence[str] | None = None,
        recipient: str | None = None,
        random_state: RandomState = None,
    ) -> Release:
        """Randomize and release ``variables`` (all by default, plus whole groups).

        ``random_state=None`` draws from CSPRNG streams, as a real release must. The
        streams are keyed by the party's name and each group's variables (see
        :meth:`PramScheme.randomize`): parties never share a stream, even under one
        seed, and the same root gives a group the same randomized values in every
        release of it.
        """
        sub = self.scheme if variables is None else self.scheme.subset(variables)
        data = sub.randomize(self.data[list(sub.variables)], random_state, party=self.name)
        return Release(self.name, data, sub, recipient)

    def own_release(self) -> Release:
        """The party's clean data as an unrandomized 'release' to itself (never sent)."""
        return Release(self.name, self.data, PramScheme.unrandomized(self.scheme.cardinalities))

    def __repr__(self) -> str:
        return f"Party({self.name!r}, variables={list(self.variables)})"


def _owner(parties: Sequence[Party]) -> dict[str, str]:
    owner: dict[str, str] = {}
    for p in parties:
        for v in p.variables:
            if v in owner:
                raise SpecError(f"variable {v!r} is held by two parties ({owner[v]} and {p.name})")
            owner[v] = p.name
    return owner


def cross_parents(
    structure: BayesNet, owner: Mapping[str, str]
) -> dict[tuple[str, str], list[str]]:
    """Variables each party must send to each other party in Model I.

    Returns
    -------
    dict of (sender, receiver) to list of str
        The sender's variables that are parents of a receiver's (cross) variable.

    Examples
    --------
    >>> from ppdm.bayesnet.network import Node
    >>> net = BayesNet([Node("A", ("0", "1")), Node("B", ("0", "1"), ("A",))])
    >>> cross_parents(net, {"A": "s1", "B": "s2"})
    {('s1', 's2'): ['A']}

    References
    ----------
    Ma & Sivakumar, Sec. 4; Chen, Sivakumar & Kargupta (cross variables and parents).
    """
    missing = [v for v in structure.names if v not in owner]
    if missing:
        raise SpecError(f"no party holds {missing}")
    out: dict[tuple[str, str], list[str]] = {}
    for v in structure.topological_order:
        for p in structure.parents(v):
            if owner[p] != owner[v]:
                lst = out.setdefault((owner[p], owner[v]), [])
                if p not in lst:
                    lst.append(p)
    return out


def _merge_estimates(structure: BayesNet, parts: Sequence[ParameterEstimate]) -> ParameterEstimate:
    cpds, stderr, families = {}, {}, {}
    for part in parts:
        for node, fam in part.families.items():
            cpds[node] = part.network.cpd(node)
            stderr[node] = part.stderr[node]
            families[node] = fam
    net = BayesNet([structure.node(v) for v in structure.names], cpds, name=structure.name)
    return ParameterEstimate(net, stderr, families)


def learn_model1(
    structure: BayesNet,
    parties: Sequence[Party],
    *,
    prior=None,
    fix: str = "norm-sub",
    random_state: RandomState = None,
) -> ParameterEstimate:
    """Model I, in process: cross-parent releases between parties, then local learning.

    Each party learns the CPDs of its own variables: local ones from clean data only,
    cross ones from its clean data and the randomized parents received. Cross parents
    are randomized according to the sender's scheme (unrandomized if not sensitive).

    Parameters
    ----------
    structure : BayesNet
    parties : sequence of Party
        Holding every variable of ``structure`` between them.
    prior, fix
        As in :func:`~ppdm.bayesnet.estimation.estimate_parameters`.
    random_state : None, int or Generator
        ``None`` for CSPRNG releases; a seed for experiments. One root is resolved
        for the whole run: a sender's group is randomized once and every receiver
        of it gets the same randomized values (two receivers who pool what they
        received learn nothing more than one).

    Returns
    -------
    ParameterEstimate
        Every party's CPDs, as shared in step (6).

    References
    ----------
    Ma & Sivakumar, Sec. 4, Model I steps (1)-(6).
    """
    owner = _owner(parties)
    needs = cross_parents(structure, owner)
    by_name = {p.name: p for p in parties}
    root = resolve_seed(random_state)
    inbox: dict[str, list[Release]] = {p.name: [] for p in parties}
    for (sender, receiver), variables in sorted(needs.items()):
        inbox[receiver].append(by_name[sender].release(variables, receiver, root))
    parts = []
    for p in parties:
        nodes = [v for v in structure.topological_order if owner[v] == p.name]
        if not nodes:
            continue
        parts.append(learn_party(structure, p.own_release(), inbox[p.name], nodes, prior, fix))
    return _merge_estimates(structure, parts)


def learn_party(
    structure: BayesNet,
    own: Release,
    received: Sequence[Release],
    nodes: Sequence[str],
    prior=None,
    fix: str = "norm-sub",
) -> ParameterEstimate:
    """One party's Model I learning: its ``nodes`` from its own data and received releases."""
    frame, scheme = combine_releases([own, *received])
    return estimate_parameters(structure, frame, scheme, nodes=nodes, prior=prior, fix=fix)


def learn_model2(
    structure: BayesNet, releases: Sequence[Release], *, prior=None, fix: str = "norm-sub"
) -> ParameterEstimate:
    """Model II: the miner learns every CPD from all parties' releases.

    Examples
    --------
    >>> from ppdm.bayesnet.network import Node
    >>> from ppdm.matrix import symmetric_binary
    >>> net = BayesNet([Node("A", ("0", "1")), Node("B", ("0", "1"), ("A",))])
    >>> a = Party("s1", pd.DataFrame({"A": [0, 1] * 50}),
    ...           PramScheme({"A": 2}, [(["A"], symmetric_binary(0.1))]))
    >>> b = Party("s2", pd.DataFrame({"B": [0, 1] * 50}), PramScheme.unrandomized({"B": 2}))
    >>> fit = learn_model2(net, [a.release(random_state=1), b.release(random_state=2)])
    >>> fit.network.is_complete
    True

    References
    ----------
    Ma & Sivakumar, Sec. 4, Model II (miner steps 1-2).
    """
    frame, scheme = combine_releases(releases)
    return estimate_parameters(structure, frame, scheme, prior=prior, fix=fix)
