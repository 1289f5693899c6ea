"""Velocity Digital Bank's IT-support policy for the guard's commit gate, written from the scenario's policy.

:func:`neobank_judges` makes the Python judges the neobank domain hands the
gate after its CEL rule pack (the domain's ``rules.yaml``: one changed record
and the rows it looks up), for what spans records, needs the policy's
tables or the business clock: :class:`TicketWorkJudge` (a ticket against
the work it documents, its approval list), :class:`AccessPolicyJudge` (Okta
grants and dashboard groups against the access matrix, approvals and
incidents) and :class:`DeviceJudge` (replacements, hardware approvals, lead
times); :class:`ConversationJudge` (one requester per conversation,
questions in one ticket) and :class:`SecurityOpsJudge` (the steps of the
lost-MFA, compromised-password and bypass procedures). They see only
what a production deployment has: the commit's effects, its calls and
rows of the pending state; never golden data.
"""

from __future__ import annotations

from benchmark.domains.neobank.judges.access import AccessPolicyJudge
from benchmark.domains.neobank.judges.conversation import ConversationJudge
from benchmark.domains.neobank.judges.devices import DeviceJudge
from benchmark.domains.neobank.judges.security import SecurityOpsJudge
from benchmark.domains.neobank.judges.work import TicketWorkJudge
from judges import Judge

__all__ = [
    "AccessPolicyJudge",
    "ConversationJudge",
    "DeviceJudge",
    "SecurityOpsJudge",
    "TicketWorkJudge",
    "neobank_judges",
]


def neobank_judges() -> tuple[Judge, ...]:
    """The Python judges in chain order; the time rules run from the commit time the gate gives."""
    return (
        ConversationJudge(),
        TicketWorkJudge(),
        AccessPolicyJudge(),
        DeviceJudge(),
        SecurityOpsJudge(),
    )
