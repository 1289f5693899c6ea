"""HorizonShield's business rules for the guard's commit gate, written from the scenario's policy.

Three judges, in chain order:

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

from pathlib import Path

from benchmark.domains.auto_insurance.judges.dates import DateRulesJudge
from benchmark.domains.auto_insurance.judges.tickets import TicketAgreementJudge
from judges import Judge, RulePack, load_rule_pack

__all__ = ["RULES", "DateRulesJudge", "TicketAgreementJudge", "auto_insurance_judges", "rule_pack"]

RULES = Path(__file__).resolve().parent.parent / "rules.yaml"
"""The domain's rule pack."""


def rule_pack() -> RulePack:
    """The ``auto_insurance`` rule pack, compiled."""
    return load_rule_pack(RULES)


def auto_insurance_judges() -> tuple[Judge, ...]:
    """The domain's judges in chain order; the date rules run on the commit time the gate gives."""
    return (rule_pack(), TicketAgreementJudge(), DateRulesJudge())
