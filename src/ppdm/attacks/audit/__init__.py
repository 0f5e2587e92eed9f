"""The owner's audit of a substitution release: run every attack, compare with the bounds.

With the original at hand every attack's success is counted, shown with its exact
interval and tested against the policy's ``rho2(gamma, q*)`` and the spec's own bound,
as are the worst posteriors (the tests, intervals and verdicts are on docs/attacks.md).
:mod:`.results` holds the typed report and its JSON, :mod:`.compute` runs it and
:mod:`.formatting` prints it.
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
