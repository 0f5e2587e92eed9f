"""The (gamma, N) grids of the experiments.

References
----------
Dowd, Xu & Zhang, Sec. 6.1: integer gamma 2..21 and N in {5, 10, 15, 20, 30, ..., 100},
240 combinations.
"""

from __future__ import annotations

__all__ = ["PAPER_GAMMAS", "PAPER_NS", "QUICK_GAMMAS", "QUICK_NS", "paper_grid", "ADVISOR_GAMMAS"]

#: gamma = 2..21 (20 values).
PAPER_GAMMAS: tuple[int, ...] = tuple(range(2, 22))
#: N = 5, 10, 15, 20, 30, 40, ..., 100 (12 values).
PAPER_NS: tuple[int, ...] = (5, 10, 15, 20, *range(30, 101, 10))
#: Reduced grid of ``--quick``: the corners and the middle of the paper's grid.
QUICK_GAMMAS: tuple[int, ...] = (2, 5, 9, 21)
QUICK_NS: tuple[int, ...] = (5, 20, 60, 100)
#: The range Sec. 7 suggests for gamma.
ADVISOR_GAMMAS: tuple[int, ...] = tuple(range(5, 13))


def paper_grid(quick: bool = False) -> list[tuple[int, int]]:
    """All (gamma, N) pairs of the paper's grid (240) or of the quick grid (16).

    Examples
    --------
    >>> len(paper_grid()), len(paper_grid(quick=True))
    (240, 16)
    """
    gammas, ns = (QUICK_GAMMAS, QUICK_NS) if quick else (PAPER_GAMMAS, PAPER_NS)
    return [(g, n) for g in gammas for n in ns]
