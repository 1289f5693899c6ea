"""TechHome Direct's business rules for the guard's commit gate, written from the scenario's policy.

:func:`retail_judges` makes the Python judges the retail domain hands the gate
after its CEL rule pack (the domain's ``rules.yaml``: one changed record and
the rows it looks up), for what spans records — :class:`TicketOutcomeJudge`
(a ticket's status and priority follow the work it documents),
:class:`TicketClaimsJudge` (what a ticket reports was done, was done),
:class:`CarrierJudge` (a ticket is not solved while the customer waits on the carrier),
:class:`ReturnsJudge` (RMAs, exchanges, replacement orders) and
:class:`WorkflowJudge` (refunds, charges, order changes, reships,
installation work). They see only what a production deployment has: the commit's
effects, its calls and rows of the pending state; never golden data.
"""

from __future__ import annotations

from benchmark.domains.retail.judges.carrier import CarrierJudge
from benchmark.domains.retail.judges.claims import TicketClaimsJudge
from benchmark.domains.retail.judges.returns import ReturnsJudge
from benchmark.domains.retail.judges.tickets import TicketOutcomeJudge
from benchmark.domains.retail.judges.workflow import WorkflowJudge
from judges import Judge

__all__ = [
    "CarrierJudge",
    "ReturnsJudge",
    "TicketClaimsJudge",
    "TicketOutcomeJudge",
    "WorkflowJudge",
    "retail_judges",
]


def retail_judges() -> tuple[Judge, ...]:
    """The Python judges in chain order; the time windows run from the commit time the gate gives."""
    return (
        TicketOutcomeJudge(),
        TicketClaimsJudge(),
        CarrierJudge(),
        ReturnsJudge(),
        WorkflowJudge(),
    )
