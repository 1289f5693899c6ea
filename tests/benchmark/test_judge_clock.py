"""One clock: every domain's judges take no clock and read the commit time from the context the gate gives.

In the benchmark that time is the guard's clock, frozen at the scenario's
"now"; without one, a judge with a time window blocks instead of guessing.
"""

from __future__ import annotations

from benchmark.domains import auto_insurance, booking, consulting, get_domain, neobank, retail
from benchmark.domains.declare import DomainSpec
from judges import CommitContext, JudgeChain

SPECS: dict[str, DomainSpec] = {
    "sandbox_external_retail": retail.SPEC,
    "external_booking_v1": booking.SPEC,
    "sandbox_neobank_support_v1": neobank.SPEC,
    "sandbox_auto_insurance": auto_insurance.SPEC,
    "sandbox_consulting": consulting.SPEC,
}
NO_TIME = "CommitTimeUnknown: the commit time is not known (the gate was given no clock)"


def test_the_judges_that_need_the_commit_time_block_without_one_and_read_it_from_the_context() -> None:
    """Requirement G5: a domain judge that needs the commit time and is given none blocks, naming
    it; given one, none of them blocks for want of it."""
    blocked: dict[str, list[str]] = {}
    for name, spec in SPECS.items():
        domain = get_domain(name)
        chain = JudgeChain((spec.rule_pack(), *spec.judges()))
        assert [judge.name for judge in chain.judges] == [judge.name for judge in domain.judges]
        timeless = chain(CommitContext("t", ())).findings
        blocked[name] = [f.judge for f in timeless if f.message == f"judge {f.judge} failed: {NO_TIME}"]
        timed = chain(CommitContext("t", (), now=domain.scenario_now)).findings
        assert [f for f in timed if NO_TIME in f.message] == []
    assert blocked == {
        "sandbox_external_retail": ["retail_workflow"],
        "external_booking_v1": [
            "booking_eligibility",
            "booking_money",
            "booking_tickets",
            "booking_ticket_fields",
        ],
        "sandbox_neobank_support_v1": ["neobank_access", "neobank_devices"],
        "sandbox_auto_insurance": ["auto_insurance_dates"],
        "sandbox_consulting": [],
    }
