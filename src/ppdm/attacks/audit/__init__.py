"""The owner's audit of a substitution release: run every attack, compare with the bounds.

The owner holds the original table, so every attack's success can be counted, not
only bounded. For each perturbed attribute the audit reports

- the share of records each attack recovers (the same value; for numbers, within a
  tolerance, one bin width by default), and the best of them;
- the share a guess from the prior alone recovers (the most frequent value of the
  distribution estimated from the release), and ``q*``, the best any fixed guess could
  do, counted from the original;
- the most any attack may recover under the owner's privacy policy,
  ``rho2(gamma, q*)`` (:mod:`ppdm.attacks.bayes_optimal`), with ``gamma`` the policy's
  amplification for attacks that read one attribute and its power over the attributes
  read for the record-level attacks;
- the realised worst posterior of properties with prior at most rho1, from the model
  and counted from the data (:mod:`ppdm.attacks.breach`), against ``rho2(gamma, rho1)``.

The policy is a rho1-to-rho2 pair (default 0.1 to 0.5, ppdm's default gamma of 9). A
release whose spec promises a larger gamma is flagged once the attacks show it. Counted
figures carry sampling noise of the perturbation; each is shown with its exact
(Clopper-Pearson) interval, whose two limits are one-sided confidence limits at level
``1 - alpha / K``, the false-alarm rate ``alpha`` shared (Bonferroni) over the ``K``
figures tested: half over the recovery rates (each against the policy's and the spec's
bound), half over the posterior searches. A figure fails only when its lower limit
exceeds its bound ("exceeds"); a figure above its bound whose interval still holds the
bound is "not significant" and does not fail the audit.

The attacks run are the entries of :data:`ppdm.attacks.registry.ATTACKS`. The package:
:mod:`.results` (the typed report, :class:`AuditReport` of :class:`AttributeAudit`, and
its JSON), :mod:`.compute` (running it) and :mod:`.formatting` (the text).
"""

from .compute import FALSE_REFUSAL, audit_release, check_auditable, check_original
from .formatting import format_audit
from .results import (
    AttributeAudit,
    AuditReport,
    PosteriorTest,
    RecoveryTest,
    not_significant,
    plain_verdict,
)

__all__ = [
    "AttributeAudit",
    "AuditReport",
    "FALSE_REFUSAL",
    "PosteriorTest",
    "RecoveryTest",
    "audit_release",
    "check_auditable",
    "check_original",
    "format_audit",
    "not_significant",
    "plain_verdict",
]
