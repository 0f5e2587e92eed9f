"""Parties, releases, and the two learning models of Ma & Sivakumar.

A *release* is what crosses a trust boundary: a data file of state codes (randomized
columns randomized) plus ``release.json``, the public description of every column's
cardinality and of the matrices used. It never holds the seed or clean data of a
randomized column. Records are aligned by position (the parties share record order,
as a vertical partition assumes).

- **Model II**: every party sends all its variables to a miner, sensitive ones
  randomized; the miner estimates every CPD (:func:`learn_model2`).
- **Model I**: each party sends its *cross parents* (its variables that are parents of
  another party's variables), randomized, to the parties that need them; each party
  learns its local variables from its own clean data and its cross variables from its
  clean data plus the randomized parents it received (:func:`learn_model1`). The
  parties then share their CPDs.

A randomized group (simultaneous randomization) is released whole, since its members'
randomized values are only interpretable together.

References
----------
Ma & Sivakumar, Sec. 2 (Models I and II) and Sec. 4 (the steps of each party).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..exceptions import ParameterError, SpecError
from ..io import read_table, table_format, write_table
from ..limits import load_structured
from ..publish import register_input, release_member
from ..random import RandomState, resolve_seed
from ..validation import check_choice
from .estimation import ParameterEstimate, estimate_parameters
from .network import BayesNet
from .pram import PramScheme

__all__ = [
    "RELEASE_FORMAT",
    "Release",
    "Party",
    "write_release",
    "read_release",
    "combine_releases",
    "cross_parents",
    "learn_model1",
    "learn_model2",
]

RELEASE_FORMAT = "ppdm-bn-release/1"
_SPEC_NAME = "release.json"


@dataclass(frozen=True)
class Release:
    """Released columns of one party and how they were randomized.

    Attributes
    ----------
    party : str
    data : pandas.DataFrame
        State codes, one column per variable of ``scheme``.
    scheme : PramScheme
        Every released column's cardinality and the matrices of the randomized ones.
    recipient : str or None
        The party (Model I) or miner (Model II) the release is for.
    """

    party: str
    data: pd.DataFrame
    scheme: PramScheme
    recipient: str | None = None

    def spec(self, data_file: str | None = None) -> dict:
        """The public ``release.json`` dictionary (with per-variable privacy figures)."""
        privacy = self.scheme.privacy()
        privacy = privacy.astype(object).where(privacy.notna(), None)
        return {
            "format": RELEASE_FORMAT,
            "party": self.party,
            "recipient": self.recipient,
            "data_file": data_file,
            "n_records": len(self.data),
            **self.scheme.to_spec(),
            "privacy": [
                {
                    k: (None if isinstance(v, float) and v == float("inf") else v)
                    for k, v in r.items()
                }
                for r in privacy.to_dict(orient="records")
            ],
        }


def write_release(release: Release, directory: str | os.PathLike, fmt: str = "parquet") -> Path:
    """Write ``release`` into ``directory``: ``data.<fmt>`` and ``release.json``.

    Parameters
    ----------
    release : Release
    directory : path-like
        Created if missing; callers wanting atomicity pass a temporary directory.
    fmt : {"parquet", "csv"}, default="parquet"

    Returns
    -------
    Path
        The directory.
    """
    check_choice(fmt, "fmt", ("parquet", "csv"), error=ParameterError)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    name = f"data.{fmt}"
    write_table(release.data, directory / name, fmt=fmt)
    (directory / _SPEC_NAME).write_text(json.dumps(release.spec(name), indent=2) + "\n")
    return directory


def read_release(directory: str | os.PathLike) -> Release:
    """Read a release directory written by :func:`write_release` (or ``ppdm bn randomize``)."""
    directory = Path(directory)
    register_input(directory)
    spec_path = directory / _SPEC_NAME
    if not spec_path.exists():
        raise FileNotFoundError(
            f"{str(directory)!r} is not a release directory: it has no {_SPEC_NAME}"
        )
    if spec_path.is_symlink():
        raise SpecError(f"{str(spec_path)!r} is a symbolic link; ppdm reads no links in a release")
    spec = load_structured(spec_path, "release", error=SpecError, fmt="json")
    if not isinstance(spec, dict):
        raise SpecError(
            f"release {str(spec_path)!r} must be a JSON object "
            f"(got {'null' if spec is None else type(spec).__name__})"
        )
    if spec.get("format") != RELEASE_FORMAT:
        raise SpecError(
            f"{str(spec_path)!r}: format must be {RELEASE_FORMAT!r} (got {spec.get('format')!r})"
        )
    scheme = PramScheme.from_spec(spec)
    data_path = release_member(directory, spec.get("data_file"), spec_name=_SPEC_NAME)
    table_format(data_path)
    data = read_table(data_path)
    scheme.check_frame(data)
    n = spec.get("n_records")
    if n is not None and n != len(data):
        raise SpecError(f"release {str(directory)!r} says {n} records but its data has {len(data)}")
    return Release(
        str(spec.get("party", directory.name)),
        data[list(scheme.variables)],
        scheme,
        spec.get("recipient"),
    )


def combine_releases(releases: Sequence[Release]) -> tuple[pd.DataFrame, PramScheme]:
    """Join releases column-wise (records aligned by position) into one frame and scheme."""
    if not releases:
        raise ParameterError("at least one release is needed")
    n = {len(r.data) for r in releases}
    if len(n) != 1:
        sizes = {r.party: len(r.data) for r in releases}
        raise SpecError(f"releases must hold the same records; their sizes differ: {sizes}")
    scheme = PramScheme.merge([r.scheme for r in releases])
    frame = pd.concat([r.data.reset_index(drop=True) for r in releases], axis=1)
    return frame, scheme


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
