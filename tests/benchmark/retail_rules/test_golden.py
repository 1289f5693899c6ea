"""The retail judges never block a correct trajectory: all 98 goldens commit at once, without findings."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
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
from judges import RulePack
from tests.benchmark.retail_rules.conftest import RETAIL


class _TimedGate(CommitGate):
    """The gate, keeping what each evaluation decided and how long it took."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.results: list[GateResult] = []

    async def evaluate(self, *args: Any, **kwargs: Any) -> GateResult:
        result = await super().evaluate(*args, **kwargs)
        self.results.append(result)
        return result


def test_the_domain_hands_the_gate_its_rule_pack_and_python_judges(retail: Domain) -> None:
    names = [judge.name for judge in retail.judges]
    assert names == [
        "retail",
        "retail_tickets",
        "retail_ticket_claims",
        "retail_carrier",
        "retail_returns",
        "retail_workflow",
    ]
    pack = retail.judges[0]
    assert isinstance(pack, RulePack)
    assert len(pack.rules) >= 30


async def test_all_98_goldens_commit_at_once_with_no_finding(
    data_dir: Path, retail: Domain, trial_context: TrialContext, tmp_path: Path
) -> None:
    tasks = load_tasks(data_dir, domain=RETAIL)
    assert len(tasks) == 98
    gate = _TimedGate(configured_judges(GuardSettings(), retail.judges), judge_timeout_s=5.0)
    context = dataclasses.replace(trial_context, agent=ReplayAgent.golden(tasks.tasks), gates={RETAIL: gate})
    try:
        summary = await run(tasks, context, RunOptions(1, ("guarded",), 0, 4, tmp_path / "golden.jsonl"))
    finally:
        gate.close()
    assert summary.system_errors == 0
    assert summary.passed == {"guarded": 98}
    results = read_results(tmp_path / "golden.jsonl")
    findings: Sequence[Any] = [(r.task, f) for r in results for v in r.verdicts for f in v.findings]
    assert findings == []
    assert all([v.status for v in r.verdicts] == ["committed"] for r in results)
    assert len(gate.results) == 98
    assert all(result.effects for result in gate.results)
