"""Fixtures for the neobank rules: tasks by name, the guarded gate, trajectories replayed through it."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from benchmark.agents import ReplayAgent
from benchmark.agents.replay import Script
from benchmark.dataset import Task, TrajectoryCall, load_tasks
from benchmark.domains import Domain, get_domain
from benchmark.results import TrialResult
from benchmark.run import run_trial
from guard.gate import CommitGate
from tests.benchmark.regrade import gate_fixture, guarded_context

NEOBANK = "sandbox_neobank_support_v1"

Call = tuple[str, dict[str, Any]]
Replay = Callable[[Sequence[tuple[Task, Sequence[Call]]]], Awaitable[list[TrialResult]]]


@pytest.fixture(scope="session")
def neobank_domain() -> Domain:
    return get_domain(NEOBANK)


@pytest.fixture(scope="session")
def tasks_by_test(data_dir: Path) -> Mapping[str, Task]:
    """The neobank tasks by test name (``test_sa_028``)."""
    return {task.test: task for task in load_tasks(data_dir, domain=NEOBANK).tasks}


neobank_gate = gate_fixture("neobank_gate", "neobank_domain", bench=True)
"""The gate of the guarded arm as ``guard bench`` builds it: the bench chain, then the domain's judges."""


@pytest.fixture
def replay_guarded(data_dir: Path, neobank_domain: Domain, neobank_gate: CommitGate) -> Replay:
    """Replay ``(task, calls)`` pairs in the guarded arm, all at once; one result each, in order."""

    async def replay(runs: Sequence[tuple[Task, Sequence[Call]]]) -> list[TrialResult]:
        scripts: dict[str, list[Script]] = {}
        for index, (task, calls) in enumerate(runs):
            script = Script(f"case-{index}", tuple(TrajectoryCall(tool, dict(args)) for tool, args in calls))
            scripts.setdefault(task.id, []).append(script)
        context = guarded_context(data_dir, NEOBANK, neobank_gate, bench=True, agent=ReplayAgent(scripts))
        seen: dict[str, int] = {}
        trials = []
        for task, _ in runs:
            trials.append(seen.get(task.id, 0))
            seen[task.id] = trials[-1] + 1
        cache: dict[str, Any] = {}
        return list(
            await asyncio.gather(
                *(
                    run_trial(task, neobank_domain, "guarded", trial, 0, context, cache)
                    for (task, _), trial in zip(runs, trials, strict=True)
                )
            )
        )

    return replay


def golden_calls(task: Task) -> list[Call]:
    """A task's golden calls as editable ``(tool, arguments)`` pairs (deep copies)."""
    return [(call.tool, copy.deepcopy(dict(call.arguments))) for call in task.golden]
