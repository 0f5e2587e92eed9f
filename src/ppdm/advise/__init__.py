"""The owner's advisor: which (gamma, N, learner) to release with, scored as miners mine.

For each repetition the owner's table is split afresh, the training part released in
memory exactly as ``ppdm perturb`` would release it, each learner a miner can choose
(:data:`ppdm.mining.CANDIDATES`) learns from that release, and its accuracy is counted on
the ORIGINAL test part; the paper's pipeline (global Algorithm 2, then C4.5) is scored
beside them. A rule (7.1, or 7.2 with a target accuracy) picks a cell within the owner's
policy, and the pick is confirmed on fresh releases: ``accuracy ± 2 * release_se`` is the
honest claim for the ONE release the owner makes. docs/advisor.md tells the rules, the
per-attribute N and the error bars in full.

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
