"""StayBridge's business rules for the guard's commit gate, written from the scenario's policy.

:func:`booking_judges` builds the chain the booking domain hands the gate:
the CEL rule pack ``rules.yaml`` (one changed record and the rows it looks
up), then the Python judges for what spans records or needs the clock —
:class:`EligibilityJudge` (could the booking be modified now),
:class:`MoneyJudge` (charges and refunds against the fee, refund and
compensation tables), :class:`TicketOutcomeJudge` (the ticket documents the
work and says what it was) and :class:`TicketFieldsJudge` (priority,
check-in tag, dates and group value). They see only what a production
deployment has: the commit's effects and rows of the pending state, never
golden data.
"""

from __future__ import annotations

from pathlib import Path

from benchmark.domains.booking.judges.eligibility import EligibilityJudge
from benchmark.domains.booking.judges.fields import TicketFieldsJudge
from benchmark.domains.booking.judges.money import MoneyJudge
from benchmark.domains.booking.judges.tickets import TicketOutcomeJudge
from judges import Judge, RulePack, load_rule_pack

__all__ = [
    "RULES_PATH",
    "EligibilityJudge",
    "MoneyJudge",
    "TicketFieldsJudge",
    "TicketOutcomeJudge",
    "booking_judges",
    "booking_rule_pack",
]

RULES_PATH = Path(__file__).resolve().parent.parent / "rules.yaml"


def booking_rule_pack() -> RulePack:
    """The CEL rule pack, compiled (every expression and name checked) from ``rules.yaml``."""
    return load_rule_pack(RULES_PATH)


def booking_judges() -> tuple[Judge, ...]:
    """The booking judges in chain order; the time windows run from the commit time the gate gives."""
    return (
        booking_rule_pack(),
        EligibilityJudge(),
        MoneyJudge(),
        TicketOutcomeJudge(),
        TicketFieldsJudge(),
    )
