"""The bench runner: arms, fault injection, resuming, system errors."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from benchmark.agents import AgentOutcome, AgentTask, ReplayAgent, ToolChannel
from benchmark.dataset import Task, TaskSet, load_scenario, load_tasks
from benchmark.results import read_results
from benchmark.run import FaultPlan, RunOptions, TrialContext, errors_path, run
from benchmark.run.setup import guard_settings
from guard.gate.commit import CommitGate
from tests.benchmark.conftest import RETAIL


def context(
    data_dir: Path, tasks: TaskSet, gate: CommitGate, agent: Any = None, **options: Any
) -> TrialContext:
    return TrialContext(
        data_dir=data_dir,
        agent=agent or ReplayAgent.golden(tasks.tasks),
        settings=guard_settings(None),
        gates={RETAIL: gate},
        scenarios={RETAIL: load_scenario(data_dir, RETAIL)},
        data_ref=str(tasks.provenance),
        task_set_hash=tasks.content_hash,
        **options,
    )


def stripped(path: Path) -> list[dict[str, Any]]:
    """The results file's records without their measured seconds."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for record in records:
        record.pop("seconds")
    return records


async def test_every_retail_golden_passes_in_both_arms(
    data_dir: Path, gate: CommitGate, tmp_path: Path
) -> None:
    """The guard never blocks a correct trajectory: 98/98 in both arms."""
    tasks = load_tasks(data_dir, domain=RETAIL)
    out = tmp_path / "r.jsonl"
    summary = await run(
        tasks, context(data_dir, tasks, gate), RunOptions(1, ("baseline", "guarded"), 0, 4, out)
    )
    assert summary.system_errors == 0
    assert summary.passed == {"baseline": 98, "guarded": 98}
    results = read_results(out)
    guarded = [r for r in results if r.arm == "guarded"]
    assert all(r.verdicts and r.verdicts[-1].status == "committed" for r in guarded)
    assert all(r.verdicts[0].via == "tool" for r in guarded)
    assert {r.data_ref for r in results} == {str(tasks.provenance)}


async def test_faults_are_the_same_in_both_arms_and_the_guard_recovers_them(
    data_dir: Path, gate: CommitGate, tmp_path: Path
) -> None:
    tasks = load_tasks(data_dir, domain=RETAIL, limit=12)
    out = tmp_path / "f.jsonl"
    await run(
        tasks,
        context(data_dir, tasks, gate, fault_rate=0.3),
        RunOptions(2, ("baseline", "guarded"), 7, 4, out),
    )
    results = {(r.task, r.trial, r.arm): r for r in read_results(out)}
    surfaced_baseline = 0
    for task in tasks.tasks:
        for trial in range(2):
            base, guarded = results[(task.id, trial, "baseline")], results[(task.id, trial, "guarded")]
            assert base.seed == guarded.seed
            surfaced_baseline += base.faults.surfaced
            assert base.faults.surfaced == base.faults.injected
            assert guarded.faults.surfaced == 0
            assert guarded.retries == guarded.faults.injected
            assert guarded.passed
    assert surfaced_baseline > 0
    assert any(not r.passed for r in results.values() if r.arm == "baseline")


def test_fault_draws_depend_on_call_and_attempt_only() -> None:
    first, second = FaultPlan(0.5, 42), FaultPlan(0.5, 42)
    draws = []
    for plan in (first, second):
        sequence = []
        for _ in range(20):
            plan.next_call()
            sequence.append((plan.draw(), plan.draw()))
        draws.append(sequence)
    assert draws[0] == draws[1]
    assert any(kind is not None for pair in draws[0] for kind in pair)
    assert FaultPlan(0.0, 42).draw() is None


async def test_an_interrupted_run_resumes_to_the_same_file(
    data_dir: Path, gate: CommitGate, tmp_path: Path
) -> None:
    tasks = load_tasks(data_dir, domain=RETAIL, limit=6)
    options = {"fault_rate": 0.2}
    whole = tmp_path / "whole.jsonl"
    await run(
        tasks, context(data_dir, tasks, gate, **options), RunOptions(2, ("baseline", "guarded"), 3, 2, whole)
    )
    resumed = tmp_path / "resumed.jsonl"
    lines = whole.read_text().splitlines()
    random.Random(1).shuffle(lines)
    resumed.write_text("\n".join(lines[:9]) + "\n")
    summary = await run(
        tasks,
        context(data_dir, tasks, gate, **options),
        RunOptions(2, ("baseline", "guarded"), 3, 2, resumed),
    )
    assert summary.skipped == 9
    assert summary.ran == len(lines) - 9
    assert stripped(resumed) == stripped(whole)


async def test_a_results_file_of_another_run_is_refused(
    data_dir: Path, gate: CommitGate, tmp_path: Path
) -> None:
    from benchmark.errors import BenchmarkError

    tasks = load_tasks(data_dir, domain=RETAIL, limit=1)
    out = tmp_path / "r.jsonl"
    await run(tasks, context(data_dir, tasks, gate), RunOptions(1, ("baseline",), 0, 1, out))
    with pytest.raises(BenchmarkError, match="holds trials of another run"):
        await run(tasks, context(data_dir, tasks, gate), RunOptions(1, ("baseline",), 99, 1, out))


class Flaky:
    """Fails with a harness error on its first run of each trial, then replays golden."""

    name = "flaky"

    def __init__(self, tasks: list[Task]) -> None:
        self.replay = ReplayAgent.golden(tasks)
        self.failed: set[tuple[str, str, int]] = set()

    async def run(self, task: AgentTask, channel: ToolChannel, rng: random.Random) -> AgentOutcome:
        key = (task.id, task.arm, task.trial)
        if key not in self.failed:
            self.failed.add(key)
            raise ConnectionError("model endpoint unreachable")
        return await self.replay.run(task, channel, rng)


async def test_system_errors_are_apart_and_rerun(data_dir: Path, gate: CommitGate, tmp_path: Path) -> None:
    tasks = load_tasks(data_dir, domain=RETAIL, limit=2)
    agent = Flaky(list(tasks.tasks))
    out = tmp_path / "s.jsonl"
    first = await run(
        tasks, context(data_dir, tasks, gate, agent), RunOptions(1, ("baseline", "guarded"), 0, 2, out)
    )
    assert first.system_errors == 4
    assert first.finished == {}
    errors = [json.loads(line) for line in errors_path(out).read_text().splitlines()]
    assert len(errors) == 4
    assert all("ConnectionError: model endpoint unreachable" in e["system_error"] for e in errors)
    second = await run(
        tasks, context(data_dir, tasks, gate, agent), RunOptions(1, ("baseline", "guarded"), 0, 2, out)
    )
    assert second.ran == 4
    assert second.system_errors == 0
    final = read_results(out)
    assert [(r.passed, r.system_error) for r in final] == [(True, None)] * 4, final
