"""The booking judges never block a correct trajectory: all 104 goldens commit at once, without a finding.

Run the way ``guard bench --arms guarded`` runs them (the bench's judge chain
and the domain's judges); what the gate costs is measured by perf/judges_bench.py,
not asserted here.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from benchmark.agents import ReplayAgent
from benchmark.dataset import load_tasks
from benchmark.domains import Domain
from benchmark.results import read_results
from benchmark.run import RunOptions, TrialContext, run
from benchmark.run.setup import guard_settings
from guard.gate.commit import CommitGate, GateResult
from guard.runtime import configured_judges
from judges import RulePack, Severity
from tests.benchmark.booking_rules.conftest import BOOKING


class _TimedGate(CommitGate):
    """The gate, keeping what each evaluation decided and how long it took."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.results: list[GateResult] = []

    async def evaluate(self, *args: Any, **kwargs: Any) -> GateResult:
        result = await super().evaluate(*args, **kwargs)
        self.results.append(result)
        return result


def test_the_domain_hands_the_gate_its_rule_pack_and_python_judges(booking: Domain) -> None:
    names = [judge.name for judge in booking.judges]
    assert names == [
        "booking",
        "booking_eligibility",
        "booking_money",
        "booking_tickets",
        "booking_ticket_fields",
    ]
    pack = booking.judges[0]
    assert isinstance(pack, RulePack)
    assert len(pack.rules) >= 30
    assert all(rule.hint is not None for rule in pack.rules)
    assert {rule.id for rule in pack.rules if rule.severity is Severity.WARN} == {
        "ticket-hold-unresolved",
        "ticket-duplicate-open",
    }


async def test_all_104_goldens_commit_at_once_without_a_finding(
    data_dir: Path, booking: Domain, trial_context: TrialContext, tmp_path: Path
) -> None:
    tasks = load_tasks(data_dir, domain=BOOKING)
    assert len(tasks) == 104
    settings = guard_settings(None)
    gate = _TimedGate(configured_judges(settings, booking.judges), judge_timeout_s=5.0)
    context = dataclasses.replace(
        trial_context, agent=ReplayAgent.golden(tasks.tasks), settings=settings, gates={BOOKING: gate}
    )
    try:
        summary = await run(tasks, context, RunOptions(1, ("guarded",), 0, 4, tmp_path / "golden.jsonl"))
    finally:
        gate.close()
    assert summary.system_errors == 0
    assert summary.passed == {"guarded": 104}
    results = read_results(tmp_path / "golden.jsonl")
    assert all([v.status for v in r.verdicts] == ["committed"] for r in results)
    findings = [
        (r.task, f.get("rule"), f["message"]) for r in results for v in r.verdicts for f in v.findings
    ]
    assert findings == []
    assert len(gate.results) == 104
    assert all(result.effects for result in gate.results)
    assert all(result.duration_ms >= 0 for result in gate.results)
