"""The example networks of Ma & Sivakumar (Figs. 2 and 3) and the Table 1 randomization.

How the flattened CPD tables are read. Each figure lists one row of numbers per
node. We read a row as the node's ``(K_i, J_i)`` CPD flattened row by row: the first
``J_i`` numbers are ``P(X_i = 0 | j)`` for every parent configuration ``j``, the next
``J_i`` are ``P(X_i = 1 | j)``, and so on (pgmpy's ``TabularCPD`` layout). This is the
only reading under which every column sums to 1 for the ternary node L of Fig. 2
(``0.3, 0.7, 0.4, 0.15, 0.3, 0.15`` gives columns ``(0.3, 0.4, 0.3)`` and
``(0.7, 0.15, 0.15)``; read configuration-major, the first column would sum to 1.4),
and it agrees with Table 2, which lists exactly the first ``(K_i - 1) J_i`` numbers of
each row ("the remaining part can be calculated by one minus the given part").
Parent configurations are enumerated with the last parent fastest.

What the text does not give. The figures' graphs are images that the text does not
carry, so the edges are our reconstruction, constrained by each table's size:

- Fig. 2 (three sites) is the ASIA network (A visit to Asia, S smoking, T tuberculosis,
  L lung cancer, B bronchitis, E either, X x-ray, D dyspnoea) with L and B ternary, plus
  three binary nodes. Table sizes force T <- one binary parent, L, B <- one binary
  parent, E, D <- one binary and one ternary parent, X, F, G <- one binary parent,
  C <- two binary parents. We take ASIA's edges (A -> T, S -> L, S -> B, (T, L) -> E,
  E -> X, (E, B) -> D) and C <- (X, D), F <- C, G <- F. G's Table 2 standard deviation
  is non-zero although G is not randomized, so its parent must be randomized: F is.
  Sites: {A, S, T, L}, {B, E, X, D}, {C, F, G}.
- Fig. 3 (two sites, all binary): A, G roots; B, E, F one parent; C, D two parents.
  We take A -> B, G -> E, (B, E) -> C, (C, G) -> D, D -> F; sites {A, B, C}, {G, E, D, F}.

Table 1. ``p1 = p2 = 0.25`` is the binary symmetric channel with flip probability 0.25
(gamma 3, as printed); the ternary channel with ``p1 = p2 = 0.15`` moves to *each* other
value with probability 0.15 (stay 0.7, gamma 0.7/0.15 = 4.67, as printed); C and F use
the general binary channel ``0 -> 1`` w.p. 0.1, ``1 -> 0`` w.p. 0.25, whose amplification
is ``max(0.9/0.25, 0.75/0.1) = 7.5`` by Evfimievski et al.'s definition; the paper prints
9, which is ``0.9/0.1``, a ratio within one input's row, so we report 7.5.

References
----------
Ma & Sivakumar, Sec. 6.1 (Fig. 2, Table 1), Sec. 6.2 (Fig. 3).
"""

from __future__ import annotations

from ppdm.bayesnet.network import BayesNet, Node
from ppdm.bayesnet.pram import PramScheme, binary_randomization
from ppdm.matrix import symmetric_binary, symmetric_channel

__all__ = [
    "FIG2_SITES",
    "FIG3_SITES",
    "fig2_network",
    "fig3_network",
    "table1_scheme",
    "symmetric_scheme",
]

_B = ("0", "1")
_T = ("0", "1", "2")

#: Variables of each site of Fig. 2 (our reading; see the module docstring).
FIG2_SITES = {
    "site1": ("A", "S", "T", "L"),
    "site2": ("B", "E", "X", "D"),
    "site3": ("C", "F", "G"),
}
#: Variables of each site of Fig. 3.
FIG3_SITES = {"site1": ("A", "B", "C"), "site2": ("G", "E", "D", "F")}


def fig2_network() -> BayesNet:
    """The Fig. 2 network (ASIA with ternary L and B, plus C, F, G).

    Examples
    --------
    >>> net = fig2_network()
    >>> net.cpd("L").sum(axis=0).tolist()
    [1.0, 1.0]

    References
    ----------
    Ma & Sivakumar, Sec. 6.1, Fig. 2.
    """
    nodes = [
        Node("A", _B),
        Node("S", _B),
        Node("T", _B, ("A",)),
        Node("L", _T, ("S",)),
        Node("B", _T, ("S",)),
        Node("E", _B, ("T", "L")),
        Node("X", _B, ("E",)),
        Node("D", _B, ("E", "B")),
        Node("C", _B, ("X", "D")),
        Node("F", _B, ("C",)),
        Node("G", _B, ("F",)),
    ]
    flat = {
        "A": [0.7, 0.3],
        "T": [0.1, 0.9, 0.9, 0.1],
        "S": [0.5, 0.5],
        "L": [0.3, 0.7, 0.4, 0.15, 0.3, 0.15],
        "X": [0.2, 0.6, 0.8, 0.4],
        "F": [0.25, 0.9, 0.75, 0.1],
        "E": [0.25, 0.8, 0.15, 0.5, 0.3, 0.4, 0.75, 0.2, 0.85, 0.5, 0.7, 0.6],
        "D": [0.7, 0.65, 0.1, 0.4, 0.8, 0.35, 0.3, 0.35, 0.9, 0.6, 0.2, 0.65],
        "C": [0.9, 0.4, 0.6, 0.25, 0.1, 0.6, 0.4, 0.75],
        "B": [0.8, 0.15, 0.1, 0.5, 0.1, 0.35],
        "G": [0.2, 0.4, 0.8, 0.6],
    }
    return BayesNet(nodes, flat, name="ma-sivakumar-fig2")


def fig3_network() -> BayesNet:
    """The Fig. 3 network (seven binary nodes, two sites).

    Examples
    --------
    >>> fig3_network().cpd("D").tolist()
    [[0.95, 0.15, 0.75, 0.1], [0.05, 0.85, 0.25, 0.9]]

    References
    ----------
    Ma & Sivakumar, Sec. 6.2, Fig. 3.
    """
    nodes = [
        Node("A", _B),
        Node("G", _B),
        Node("B", _B, ("A",)),
        Node("E", _B, ("G",)),
        Node("C", _B, ("B", "E")),
        Node("D", _B, ("C", "G")),
        Node("F", _B, ("D",)),
    ]
    flat = {
        "A": [0.5, 0.5],
        "G": [0.3, 0.7],
        "B": [0.8, 0.2, 0.2, 0.8],
        "E": [0.8, 0.2, 0.2, 0.8],
        "C": [0.5, 0.9, 0.7, 0.35, 0.5, 0.1, 0.3, 0.65],
        "D": [0.95, 0.15, 0.75, 0.1, 0.05, 0.85, 0.25, 0.9],
        "F": [0.8, 0.2, 0.2, 0.8],
    }
    return BayesNet(nodes, flat, name="ma-sivakumar-fig3")


def table1_scheme(variables=None) -> PramScheme:
    """The non-uniform randomization of Table 1 (T, S, G not randomized).

    Parameters
    ----------
    variables : iterable of str, optional
        Restrict to these variables of Fig. 2 (e.g. one site's).

    Examples
    --------
    >>> table1_scheme().privacy().set_index("variable")["gamma"].round(2).to_dict()["L"]
    4.67

    References
    ----------
    Ma & Sivakumar, Sec. 6.1, Table 1.
    """
    net = fig2_network()
    keep = set(net.names if variables is None else variables)
    mats = {
        "A": symmetric_binary(0.25),
        "D": symmetric_binary(0.25),
        "L": symmetric_channel(3, 0.3),
        "B": symmetric_channel(3, 0.3),
        "E": symmetric_binary(0.2),
        "X": symmetric_binary(0.2),
        "C": binary_randomization(0.1, 0.25),
        "F": binary_randomization(0.1, 0.25),
    }
    cards = {v: k for v, k in net.cardinalities.items() if v in keep}
    return PramScheme(cards, [([v], m) for v, m in mats.items() if v in keep])


def symmetric_scheme(net: BayesNet, p: float, variables=None) -> PramScheme:
    """Every (binary) variable through the binary symmetric channel of level ``p`` (Sec. 6.2).

    References
    ----------
    Ma & Sivakumar, Sec. 6.2-6.3.
    """
    keep = list(net.names if variables is None else variables)
    cards = {v: net.cardinality(v) for v in keep}
    if p == 0:
        return PramScheme.unrandomized(cards)
    return PramScheme(cards, [([v], symmetric_channel(cards[v], p)) for v in keep])
