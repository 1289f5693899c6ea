"""Meridian Strategy Group's support policy as the guard's commit gate checks it.

The chain the consulting domain hands the gate (its declaration puts the rule
pack first; :func:`consulting_judges` makes the judges of the second part):

1. the CEL rule pack ``rules.yaml`` — one changed record against rows looked
   up by equality on its own fields (ticket lifecycle and fields, priorities,
   the approval matrix, eligibility of every provisioning action);
2. the cross-record judges, which read an action together with the ticket
   that documents it ("Every request creates or updates a Zendesk ticket"):
   :class:`TicketDocumentsJudge` (each action is on its employee's ticket,
   which names the action's record and whose status says what the action
   left), :class:`TicketApprovalsJudge` (``approver_id`` order; a solved
   ticket has every approver's decision) and :class:`TicketRecordsJudge`
   (approval amounts, clearance levels and client-confidential folders agree
   with the records the ticket names).

The judges see what a production deployment has: the commit's effects and
rows of the pending state; never golden data. Findings are status text
naming the record, the field and the value found; the hint names what the
policy allows.
"""

from __future__ import annotations

from benchmark.domains.consulting.judges.approvals import TicketApprovalsJudge
from benchmark.domains.consulting.judges.documents import TicketDocumentsJudge
from benchmark.domains.consulting.judges.records import TicketRecordsJudge
from judges import Judge

__all__ = [
    "TicketApprovalsJudge",
    "TicketDocumentsJudge",
    "TicketRecordsJudge",
    "consulting_judges",
]


def consulting_judges() -> tuple[Judge, ...]:
    """The cross-record judges in chain order (the domain's declaration puts the rule pack before them)."""
    return (TicketDocumentsJudge(), TicketApprovalsJudge(), TicketRecordsJudge())
