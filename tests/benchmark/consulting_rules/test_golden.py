"""The consulting judges never block a correct trajectory: all 101 goldens commit at once.

The one finding the goldens raise is a warning: ``test_exp_018`` routes an
expense override to a manager who is on leave (the policy routes it to the
backup approver), which the gate reports without blocking.
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
from guard.gate.commit import CommitGate, GateResult
from guard.runtime import configured_judges
from guard.settings import GuardSettings
from judges import RulePack, Severity
from tests.benchmark.consulting_rules.conftest import CONSULTING


class _TimedGate(CommitGate):
    """The gate, keeping what each evaluation decided and how long it took."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.results: list[GateResult] = []

    async def evaluate(self, *args: Any, **kwargs: Any) -> GateResult:
        result = await super().evaluate(*args, **kwargs)
        self.results.append(result)
        return result


def test_the_domain_hands_the_gate_its_rule_pack_and_python_judges(consulting: Domain) -> None:
    names = [judge.name for judge in consulting.judges]
    assert names == [
        "consulting",
        "consulting_ticket_documents",
        "consulting_ticket_approvals",
        "consulting_ticket_records",
    ]
    pack = consulting.judges[0]
    assert isinstance(pack, RulePack)
    assert len(pack.rules) >= 60
    assert all(rule.hint is not None for rule in pack.rules)
    warnings = {rule.id for rule in pack.rules if rule.severity is Severity.WARN}
    assert warnings == {"ticket-created-open", "approval-approver-available"}


async def test_all_101_goldens_commit_at_once_with_one_warning(
    data_dir: Path, consulting: Domain, trial_context: TrialContext, tmp_path: Path
) -> None:
    tasks = load_tasks(data_dir, domain=CONSULTING)
    assert len(tasks) == 101
    gate = _TimedGate(configured_judges(GuardSettings(), consulting.judges), judge_timeout_s=5.0)
    context = dataclasses.replace(
        trial_context, agent=ReplayAgent.golden(tasks.tasks), gates={CONSULTING: gate}
    )
    try:
        summary = await run(tasks, context, RunOptions(1, ("guarded",), 0, 4, tmp_path / "golden.jsonl"))
    finally:
        gate.close()
    assert summary.system_errors == 0
    assert summary.passed == {"guarded": 101}
    results = read_results(tmp_path / "golden.jsonl")
    assert all([v.status for v in r.verdicts] == ["committed"] for r in results)
    findings = [
        (r.task.split(":")[1], f["severity"], f.get("rule"))
        for r in results
        for v in r.verdicts
        for f in v.findings
    ]
    assert findings == [("test_exp_018", "warn", "approval-approver-available")]
    assert len(gate.results) == 101
    assert all(result.effects for result in gate.results)
