"""The owner's advisor: which (gamma, N, learner) to release with, scored as miners mine;
docs/advisor.md tells the scoring, the rules, the per-attribute N and the error bars.

References
----------
Dowd, Xu & Zhang, Sec. 6 (the release, Algorithm 2 and C4.5) and Sec. 7 (the rules).
"""

from .advice import Advice, advise, format_advice
from .grid import ADVISOR_GAMMAS, ADVISOR_NS, DEFAULT_LEARNERS, PAPER_PIPELINE, POLICY_GAMMA
from .rules import (
    best_per_cell,
    clearly_above_majority,
    rule_best_n_per_gamma,
    rule_min_accuracy,
    rule_within_one_se,
)
from .scoring import evaluate_designs

__all__ = [
    "ADVISOR_GAMMAS",
    "ADVISOR_NS",
    "Advice",
    "DEFAULT_LEARNERS",
    "PAPER_PIPELINE",
    "POLICY_GAMMA",
    "advise",
    "best_per_cell",
    "clearly_above_majority",
    "evaluate_designs",
    "format_advice",
    "rule_best_n_per_gamma",
    "rule_min_accuracy",
    "rule_within_one_se",
]
