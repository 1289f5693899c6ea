"""The auto insurance judges never block a correct trajectory: all 100 goldens commit, without findings.

Checked the way ``guard bench`` runs the guarded arm: the bench's default
chain followed by the domain's judges, every golden trajectory replayed and
committed through the guard's commit tool.
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
from judges import RulePack
from tests.benchmark.auto_insurance_rules.conftest import AUTO


class _RecordingGate(CommitGate):
    """The gate, keeping what each evaluation decided."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.results: list[GateResult] = []

    async def evaluate(self, *args: Any, **kwargs: Any) -> GateResult:
        result = await super().evaluate(*args, **kwargs)
        self.results.append(result)
        return result


def test_the_domain_hands_the_gate_its_rule_pack_and_python_judges(auto: Domain) -> None:
    assert [judge.name for judge in auto.judges] == [
        "auto_insurance",
        "auto_insurance_tickets",
        "auto_insurance_dates",
    ]
    pack = auto.judges[0]
    assert isinstance(pack, RulePack)
    assert len(pack.rules) >= 50
    assert all(rule.hint is not None and rule.hint.text.startswith("allowed") for rule in pack.rules)


async def test_all_100_goldens_commit_at_once_with_no_finding(
    data_dir: Path, auto: Domain, trial_context: TrialContext, tmp_path: Path
) -> None:
    tasks = load_tasks(data_dir, domain=AUTO)
    assert len(tasks) == 100
    gate = _RecordingGate(configured_judges(guard_settings(None), auto.judges), judge_timeout_s=5.0)
    context = dataclasses.replace(trial_context, agent=ReplayAgent.golden(tasks.tasks), gates={AUTO: gate})
    try:
        summary = await run(tasks, context, RunOptions(1, ("guarded",), 0, 4, tmp_path / "golden.jsonl"))
    finally:
        gate.close()
    assert summary.system_errors == 0
    assert summary.passed == {"guarded": 100}
    results = read_results(tmp_path / "golden.jsonl")
    assert [(r.task, f) for r in results for v in r.verdicts for f in v.findings] == []
    assert all([(v.via, v.status) for v in r.verdicts] == [("tool", "committed")] for r in results)
    assert len(gate.results) == 100
    assert all(result.effects for result in gate.results)
