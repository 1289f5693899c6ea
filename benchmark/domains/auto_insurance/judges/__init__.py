"""HorizonShield's business rules for the guard's commit gate, written from the scenario's policy.

Three judges, in chain order (the domain's declaration puts the rule pack first,
:func:`auto_insurance_judges` makes the other two):

* the rule pack ``auto_insurance`` (``rules.yaml`` beside this package): CEL over one changed
  record and the rows it looks up by equality — ticket lifecycle and fields, arrangement
  eligibility and limits, cancellation and reinstatement eligibility, vehicle and driver
  eligibility, claim classification;
* :class:`TicketAgreementJudge` (``auto_insurance_tickets``): a change and the ticket that
  documents it agree, across records;
* :class:`DateRulesJudge` (``auto_insurance_dates``): the rules relative to today, the day of
  the commit time the gate gives.

None of them reads golden data: they see the transaction's effects and the pending state, as
a production deployment does.
"""

from __future__ import annotations

from benchmark.domains.auto_insurance.judges.dates import DateRulesJudge
from benchmark.domains.auto_insurance.judges.tickets import TicketAgreementJudge
from judges import Judge

__all__ = ["DateRulesJudge", "TicketAgreementJudge", "auto_insurance_judges"]


def auto_insurance_judges() -> tuple[Judge, ...]:
    """The Python judges, after the rule pack; the date rules run on the commit time the gate gives."""
    return (TicketAgreementJudge(), DateRulesJudge())
