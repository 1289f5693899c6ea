"""Meridian Strategy Group's support policy as the guard's commit gate checks it.

:func:`consulting_judges` is the chain the consulting domain hands the gate:

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

from pathlib import Path

from benchmark.domains.consulting.judges.approvals import TicketApprovalsJudge
from benchmark.domains.consulting.judges.documents import TicketDocumentsJudge
from benchmark.domains.consulting.judges.records import TicketRecordsJudge
from judges import Judge, RulePack, load_rule_pack

__all__ = [
    "RULES_PATH",
    "TicketApprovalsJudge",
    "TicketDocumentsJudge",
    "TicketRecordsJudge",
    "consulting_judges",
    "consulting_rule_pack",
]

RULES_PATH = Path(__file__).resolve().parent.parent / "rules.yaml"


def consulting_rule_pack() -> RulePack:
    """The CEL rule pack, compiled (every expression and name checked) from ``rules.yaml``."""
    return load_rule_pack(RULES_PATH)


def consulting_judges() -> tuple[Judge, ...]:
    """The consulting judges in chain order: the rule pack, then the cross-record judges."""
    return (consulting_rule_pack(), TicketDocumentsJudge(), TicketApprovalsJudge(), TicketRecordsJudge())
