"""One clock: every domain's judges take no clock and read the commit time from the context the gate gives.

In the benchmark that time is the guard's clock, frozen at the scenario's
"now"; without one, a judge with a time window blocks instead of guessing.
"""

from __future__ import annotations

from collections.abc import Callable

from benchmark.domains import get_domain
from benchmark.domains.auto_insurance.judges import auto_insurance_judges
from benchmark.domains.booking.judges import booking_judges
from benchmark.domains.consulting.judges import consulting_judges
from benchmark.domains.neobank.judges import neobank_judges
from benchmark.domains.retail.judges import retail_judges
from judges import CommitContext, Judge, JudgeChain

FACTORIES: dict[str, Callable[[], tuple[Judge, ...]]] = {
    "sandbox_external_retail": retail_judges,
    "external_booking_v1": booking_judges,
    "sandbox_neobank_support_v1": neobank_judges,
    "sandbox_auto_insurance": auto_insurance_judges,
    "sandbox_consulting": consulting_judges,
}
NO_TIME = "CommitTimeUnknown: the commit time is not known (the gate was given no clock)"


def test_the_judges_that_need_the_commit_time_block_without_one_and_read_it_from_the_context() -> None:
    """Requirement G5: a domain judge that needs the commit time and is given none blocks, naming
    it; given one, none of them blocks for want of it."""
    blocked: dict[str, list[str]] = {}
    for name, factory in FACTORIES.items():
        domain = get_domain(name)
        chain = JudgeChain(factory())
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
