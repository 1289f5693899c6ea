"""Fixtures for the consulting rules: the guarded arm with the consulting judges, and trajectories to replay.

The edit helpers change a golden trajectory the way an agent gets it wrong
(one argument changed, a call dropped or added); ``guarded`` replays any
trajectory through the guarded arm and returns the trial's result, whose
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
from benchmark.dataset import Task, TrajectoryCall, load_scenario, load_task
from benchmark.domains import Domain, get_domain
from benchmark.results import TrialResult
from benchmark.run import TrialContext, run_trial
from guard.gate import CommitGate
from guard.runtime import configured_judges
from guard.settings import GuardSettings

CONSULTING = "sandbox_consulting"
GROUP = f"{CONSULTING}_group1.py"
CREATE, UPDATE = "zendesk_create_item", "zendesk_update_item"

Calls = list[tuple[str, dict[str, Any]]]
Edit = Callable[[Calls], Calls]
Guarded = Callable[[str, Edit | None], Coroutine[Any, Any, TrialResult]]


def task_id(test: str) -> str:
    """``csa_001`` → ``sandbox_consulting_group1.py:test_csa_001``."""
    return f"{GROUP}:test_{test}"


def _index(calls: Calls, tool: str, nth: int, action: str | None = None) -> int:
    found = [
        i
        for i, (name, arguments) in enumerate(calls)
        if name == tool and (action is None or arguments.get("action") == action)
    ]
    return found[nth]


def change(tool: str, nth: int = 0, *, action: str | None = None, **arguments: Any) -> Edit:
    """Change some arguments of the ``nth`` call of ``tool`` (of ``action``, when given; ``-1``: the last)."""

    def apply(calls: Calls) -> Calls:
        i = _index(calls, tool, nth, action)
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


def drop(tool: str, nth: int = 0, *, action: str | None = None) -> Edit:
    def apply(calls: Calls) -> Calls:
        del calls[_index(calls, tool, nth, action)]
        return calls

    return apply


def add(tool: str, arguments: Mapping[str, Any], before: str | None = None) -> Edit:
    """Add a call at the end, or before the first call of ``before``."""

    def apply(calls: Calls) -> Calls:
        at = len(calls) if before is None else _index(calls, before, 0)
        return [*calls[:at], (tool, dict(arguments)), *calls[at:]]

    return apply


def chain(*edits: Edit) -> Edit:
    def apply(calls: Calls) -> Calls:
        for one in edits:
            calls = one(calls)
        return calls

    return apply


@pytest.fixture(scope="module")
def consulting() -> Domain:
    return get_domain(CONSULTING)


@pytest.fixture(scope="module")
def gate(consulting: Domain) -> Iterator[CommitGate]:
    gate = CommitGate(configured_judges(GuardSettings(), consulting.judges), judge_timeout_s=5.0)
    yield gate
    gate.close()


@pytest.fixture(scope="module")
def trial_context(data_dir: Path, gate: CommitGate) -> TrialContext:
    return TrialContext(
        data_dir=data_dir,
        agent=ReplayAgent({}),
        settings=GuardSettings(),
        gates={CONSULTING: gate},
        scenarios={CONSULTING: load_scenario(data_dir, CONSULTING)},
    )


@pytest.fixture
def guarded(data_dir: Path, consulting: Domain, trial_context: TrialContext) -> Guarded:
    """Replay a task's golden trajectory, changed by ``edit``, through the guarded arm."""

    async def play(test: str, edit: Edit | None) -> TrialResult:
        task: Task = load_task(data_dir, task_id(test))
        calls: Calls = [(c.tool, dict(c.arguments)) for c in task.golden]
        if edit is not None:
            calls = edit(calls)
        script = Script(f"edited:{test}", tuple(TrajectoryCall(tool, args) for tool, args in calls))
        context = dataclasses.replace(trial_context, agent=ReplayAgent({task.id: [script]}))
        return await run_trial(task, consulting, "guarded", 0, 0, context, {})

    return play
