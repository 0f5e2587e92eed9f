"""The (gamma, N) grids of the experiments.

References
----------
Dowd, Xu & Zhang, Sec. 6.1: integer gamma 2..21 and N in {5, 10, 15, 20, 30, ..., 100},
240 combinations.
"""

from __future__ import annotations

from ppdm.advise import ADVISOR_GAMMAS  # the range Sec. 7 suggests for gamma

__all__ = [
    "PAPER_GAMMAS",
    "PAPER_NS",
    "QUICK_GAMMAS",
    "QUICK_NS",
    "QUICK_TREE_GAMMAS",
    "QUICK_TREE_NS",
    "paper_grid",
    "tree_grid",
    "ADVISOR_GAMMAS",
]

#: gamma = 2..21 (20 values).
PAPER_GAMMAS: tuple[int, ...] = tuple(range(2, 22))
#: N = 5, 10, 15, 20, 30, 40, ..., 100 (12 values).
PAPER_NS: tuple[int, ...] = (5, 10, 15, 20, *range(30, 101, 10))
#: Reduced grid of ``--quick``: the corners and the middle of the paper's grid.
QUICK_GAMMAS: tuple[int, ...] = (2, 5, 9, 21)
QUICK_NS: tuple[int, ...] = (5, 20, 60, 100)
#: Reduced grid of ``--quick`` for the tree experiments (each cell trains two trees per
#: data set): low and high gamma, small and large N.
QUICK_TREE_GAMMAS: tuple[int, ...] = (3, 15)
QUICK_TREE_NS: tuple[int, ...] = (10, 60)


def paper_grid(quick: bool = False) -> list[tuple[int, int]]:
    """All (gamma, N) pairs of the paper's grid (240) or of the quick grid (16).

    Examples
    --------
    >>> len(paper_grid()), len(paper_grid(quick=True))
    (240, 16)
    """
    gammas, ns = (QUICK_GAMMAS, QUICK_NS) if quick else (PAPER_GAMMAS, PAPER_NS)
    return [(g, n) for g in gammas for n in ns]


def tree_grid(quick: bool = False) -> list[tuple[int, int]]:
    """The (gamma, N) pairs of the accuracy experiments: the paper's 240, or 4 when quick.

    Examples
    --------
    >>> len(tree_grid()), tree_grid(quick=True)
    (240, [(3, 10), (3, 60), (15, 10), (15, 60)])
    """
    if not quick:
        return paper_grid()
    return [(g, n) for g in QUICK_TREE_GAMMAS for n in QUICK_TREE_NS]
