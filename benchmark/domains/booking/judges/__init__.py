"""StayBridge's business rules for the guard's commit gate, written from the scenario's policy.

:func:`booking_judges` makes the Python judges the booking domain hands the
gate after its CEL rule pack (the domain's ``rules.yaml``: one changed record
and the rows it looks up), for what spans records or needs the clock —
:class:`EligibilityJudge` (could the booking be modified now),
:class:`MoneyJudge` (charges and refunds against the fee, refund and
compensation tables), :class:`TicketOutcomeJudge` (the ticket documents the
work and says what it was) and :class:`TicketFieldsJudge` (priority,
check-in tag, dates and group value). They see only what a production
deployment has: the commit's effects and rows of the pending state, never
golden data.
"""

from __future__ import annotations

from benchmark.domains.booking.judges.eligibility import EligibilityJudge
from benchmark.domains.booking.judges.fields import TicketFieldsJudge
from benchmark.domains.booking.judges.money import MoneyJudge
from benchmark.domains.booking.judges.tickets import TicketOutcomeJudge
from judges import Judge

__all__ = [
    "EligibilityJudge",
    "MoneyJudge",
    "TicketFieldsJudge",
    "TicketOutcomeJudge",
    "booking_judges",
]


def booking_judges() -> tuple[Judge, ...]:
    """The Python judges in chain order; the time windows run from the commit time the gate gives."""
    return (
        EligibilityJudge(),
        MoneyJudge(),
        TicketOutcomeJudge(),
        TicketFieldsJudge(),
    )
