"""Fixtures for the auto insurance rules: the guarded arm as the benchmark runs it, and edited trajectories.

The gate is built the way ``guard bench`` builds it (the bench's default
chain, then the domain's judges). The edit helpers change a golden
trajectory the way an agent gets it wrong: one argument changed, a call
dropped, added or swapped. ``guarded`` replays a task's golden trajectory,
edited, through the guarded arm and returns the trial's result, whose
verdicts hold every commit attempt and its findings.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Coroutine, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from benchmark.agents import ReplayAgent
from benchmark.agents.replay import Script
from benchmark.dataset import Scenario, Task, TrajectoryCall, load_task
from benchmark.domains import Domain
from benchmark.results import TrialResult
from benchmark.run import TrialContext, run_trial
from benchmark.run.setup import guard_settings
from guard.gate import CommitGate
from guard.runtime import configured_judges
from tests.benchmark.domain_fixtures import domain_fixtures

AUTO = "sandbox_auto_insurance"
GROUP = f"{AUTO}_group1.py"

Calls = list[tuple[str, dict[str, Any]]]
Edit = Callable[[Calls], Calls]
Guarded = Callable[[str, Edit | None], Coroutine[Any, Any, TrialResult]]


def task_id(test: str) -> str:
    """``bil_001`` → ``sandbox_auto_insurance_group1.py:test_bil_001``."""
    return f"{GROUP}:test_{test}"


def _index(calls: Calls, tool: str, nth: int) -> int:
    return [i for i, (name, _) in enumerate(calls) if name == tool][nth]


def change(tool: str, nth: int = 0, **arguments: Any) -> Edit:
    """Change some arguments of the ``nth`` call of ``tool``."""

    def apply(calls: Calls) -> Calls:
        i = _index(calls, tool, nth)
        calls[i] = (tool, {**calls[i][1], **arguments})
        return calls

    return apply


def change_item(tool: str, nth: int = 0, **fields: Any) -> Edit:
    """Change some fields of the ``item`` of the ``nth`` Zendesk create or update call."""

    def apply(calls: Calls) -> Calls:
        i = _index(calls, tool, nth)
        calls[i] = (tool, {**calls[i][1], "item": {**calls[i][1]["item"], **fields}})
        return calls

    return apply


def drop(tool: str, nth: int = 0) -> Edit:
    def apply(calls: Calls) -> Calls:
        del calls[_index(calls, tool, nth)]
        return calls

    return apply


def add(tool: str, arguments: Mapping[str, Any]) -> Edit:
    """Add a call at the end."""

    def apply(calls: Calls) -> Calls:
        return [*calls, (tool, dict(arguments))]

    return apply


def swap(tool: str, other: str, arguments: Mapping[str, Any]) -> Edit:
    """Play ``other`` with ``arguments`` instead of the first call of ``tool``."""

    def apply(calls: Calls) -> Calls:
        calls[_index(calls, tool, 0)] = (other, dict(arguments))
        return calls

    return apply


def chain(*edits: Edit) -> Edit:
    def apply(calls: Calls) -> Calls:
        for one in edits:
            calls = one(calls)
        return calls

    return apply


auto, auto_tasks, auto_scenario, make_auto_world = domain_fixtures(AUTO, "auto")


@pytest.fixture(scope="module")
def gate(auto: Domain) -> Iterator[CommitGate]:
    gate = CommitGate(configured_judges(guard_settings(None), auto.judges), judge_timeout_s=5.0)
    yield gate
    gate.close()


@pytest.fixture(scope="module")
def trial_context(data_dir: Path, gate: CommitGate, auto_scenario: Scenario) -> TrialContext:
    return TrialContext(
        data_dir=data_dir,
        agent=ReplayAgent({}),
        settings=guard_settings(None),
        gates={AUTO: gate},
        scenarios={AUTO: auto_scenario},
    )


@pytest.fixture
def guarded(data_dir: Path, auto: Domain, trial_context: TrialContext) -> Guarded:
    """Replay a task's golden trajectory, changed by ``edit``, through the guarded arm."""

    async def play(test: str, edit: Edit | None) -> TrialResult:
        task: Task = load_task(data_dir, task_id(test))
        calls: Calls = [(c.tool, dict(c.arguments)) for c in task.golden]
        if edit is not None:
            calls = edit(calls)
        script = Script(f"edited:{test}", tuple(TrajectoryCall(tool, args) for tool, args in calls))
        context = dataclasses.replace(trial_context, agent=ReplayAgent({task.id: [script]}))
        return await run_trial(task, auto, "guarded", 0, 0, context, {})

    return play
