"""The advisor's grid and policy: the gammas and Ns it tries, the learners it scores,
the paper's pipeline it shows beside them.

References
----------
Dowd, Xu & Zhang, Sec. 7 (the parameter guide).
"""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import ParameterError
from ..mining import Candidate
from ..privacy import gamma_from_rho
from ..validation import show

#: The range Sec. 7 suggests for gamma.
ADVISOR_GAMMAS: tuple[int, ...] = tuple(range(5, 13))

#: N of the default grid: coarse to fine (the paper's 12 values cost 3x the time and
#: add cells between these that rarely win).
ADVISOR_NS: tuple[int, ...] = (5, 10, 20, 40)

#: The default policy: the audit's rho1 = 0.1 -> rho2 = 0.5, gamma 9.
POLICY_GAMMA: float = gamma_from_rho(0.1, 0.5)

#: The learners scored by default (labels of :data:`ppdm.mining.CANDIDATES`); on a
#: 20,000-record table the release tree's other depths and leaf sizes matched depth 8.
DEFAULT_LEARNERS: tuple[str, ...] = (
    "release-forest",
    "release-tree depth 8, leaf 0.02",
    "c45 on the by-class reconstruction",
)

#: The paper's pipeline: Algorithm 2 on the whole table, then C4.5 (Sec. 6).
PAPER_PIPELINE = Candidate("c45 on the global reconstruction (the paper's)", "c45", (), "global")

#: A cell is recommended only if its accuracy beats the majority-class rate by this many
#: binomial standard errors of an accuracy measured on the test part.
CLEAR_MARGIN_SE = 2.0


def check_grid(gammas, ns) -> tuple[tuple[float, ...], tuple[int, ...]]:
    gs = tuple(float(g) for g in gammas)
    if not gs or any(not math.isfinite(g) or g <= 1 for g in gs):
        raise ParameterError(f"gammas must be a non-empty list of numbers > 1 (got {list(gammas)})")
    bad = [n for n in ns if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2]
    if not ns or bad:
        raise ParameterError(f"ns must be a non-empty list of integers >= 2 (got {list(ns)})")
    return tuple(sorted(set(gs))), tuple(sorted({int(n) for n in ns}))


def check_accuracy(a: float | None) -> float | None:
    if a is None:
        return None
    if not (isinstance(a, (int, float)) and 0.0 < float(a) <= 1.0):
        raise ParameterError(f"min_accuracy must be a fraction in (0, 1] (got {show(a)})")
    return float(a)
