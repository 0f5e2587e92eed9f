"""The owner's advisor: which (gamma, N, learner) to release with, scored as miners mine.

The owner holds the original table, so every design is scored the way it will be used:
for each repetition the table is split afresh into train and test, the training part is
released in memory exactly as ``ppdm perturb`` would release it (the spec of
:func:`ppdm.perturbation.plan_release` on the owner's whole table, drawn by
:func:`ppdm.perturbation.perturb_frame`), each learner a miner can choose
(:data:`ppdm.mining.CANDIDATES`, fitted by :func:`ppdm.mining.fit_candidate`) learns from
that release, and its accuracy is counted on the ORIGINAL test part. Beside them the
paper's pipeline (global Algorithm 2, then C4.5) is scored on the same releases.

The grid is screened with a few repetitions; a rule then picks a cell over the best
learner of each cell, within the owner's policy (the largest gamma allowed: cells above
it are left out and the advice says so):

- **7.1**: among the cells within one standard error of the most accurate (the s.e. of
  a cell's mean pooled over the grid), the smallest gamma (the strongest privacy), then
  the smallest N. The screening's most accurate cell is confirmed beside it on the same
  fresh splits, and recommended instead if the rule's cell falls more than one s.e. of
  the paired difference below it. (The paper's 7.1, each gamma's best N and then the
  smallest N, gives the paper pipeline's advice shown beside it.)
- **7.2** (a target accuracy): the smallest gamma whose best cell meets the target, at
  its most accurate N; if no cell meets it, the most accurate cell, flagged.

The chosen (gamma, N, learner) is then confirmed on fresh releases of fresh splits
(``confirm`` repetitions): its figure is their mean, with the standard error of that
mean and the standard deviation of one release's accuracy. The owner makes ONE release,
so the honest claim for it is ``accuracy ± 2 * release_se``, with
``release_se = sqrt(sd^2 + se^2)`` (the spread of one release plus the error of the
advisor's mean). Confirming on fresh draws also removes the optimism of picking the
best of many screened cells. The same rule applied to the paper's pipeline gives the
advice the paper's method would give, confirmed the same way, for comparison.

N may differ per attribute: for each perturbed attribute the N of the grid that carries
the most class information through its channel (the mutual information of the class
and the perturbed value, less its finite-sample bias) is tried against the common N;
it is kept only when it wins clearly (by two standard errors of the paired difference)
and the advice says which was kept.

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
