"""TechHome Direct's business rules for the guard's commit gate, written from the scenario's policy.

:func:`retail_judges` builds the chain the retail domain hands the gate: the
CEL rule pack ``rules.yaml`` (one changed record and the rows it looks up),
then the Python judges for what spans records — :class:`TicketOutcomeJudge`
(a ticket's status and priority follow the work it documents),
:class:`TicketClaimsJudge` (what a ticket reports was done, was done),
:class:`CarrierJudge` (a ticket is not solved while the customer waits on the carrier),
:class:`ReturnsJudge` (RMAs, exchanges, replacement orders) and
:class:`WorkflowJudge` (refunds, charges, order changes, reships,
installation work). They see only what a production deployment has: the commit's
effects, its calls and rows of the pending state; never golden data.
"""

from __future__ import annotations

from pathlib import Path

from benchmark.domains.retail.judges.carrier import CarrierJudge
from benchmark.domains.retail.judges.claims import TicketClaimsJudge
from benchmark.domains.retail.judges.returns import ReturnsJudge
from benchmark.domains.retail.judges.tickets import TicketOutcomeJudge
from benchmark.domains.retail.judges.workflow import WorkflowJudge
from judges import Judge, RulePack, load_rule_pack

__all__ = [
    "RULES_PATH",
    "CarrierJudge",
    "ReturnsJudge",
    "TicketClaimsJudge",
    "TicketOutcomeJudge",
    "WorkflowJudge",
    "retail_judges",
    "retail_rule_pack",
]

RULES_PATH = Path(__file__).resolve().parent.parent / "rules.yaml"


def retail_rule_pack() -> RulePack:
    """The CEL rule pack, compiled (every expression and name checked) from ``rules.yaml``."""
    return load_rule_pack(RULES_PATH)


def retail_judges() -> tuple[Judge, ...]:
    """The retail judges in chain order; the time windows run from the commit time the gate gives."""
    return (
        retail_rule_pack(),
        TicketOutcomeJudge(),
        TicketClaimsJudge(),
        CarrierJudge(),
        ReturnsJudge(),
        WorkflowJudge(),
    )
