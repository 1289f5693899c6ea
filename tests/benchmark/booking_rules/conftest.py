"""Fixtures for the booking rules: the guarded arm with the booking judges, and trajectories to replay.

The edit helpers change a golden trajectory the way an agent gets it wrong
(one argument changed or removed, a call dropped, repeated or added);
``guarded`` replays any trajectory through the guarded arm and returns the
trial's result, whose verdicts hold every commit attempt and its findings.
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

BOOKING = "external_booking_v1"
GROUP = f"{BOOKING}_group1.py"
CREATE, UPDATE = "zendesk_create_item", "zendesk_update_item"
MODIFY, CHARGE, REFUND = (
    "booking_api_modify_booking",
    "payment_api_process_charge",
    "payment_api_process_refund",
)
ESCALATE, CRM = "hotel_partner_api_escalate_to_hotel", "crm_api_update_customer_info"

Calls = list[tuple[str, dict[str, Any]]]
Edit = Callable[[Calls], Calls]
Guarded = Callable[[str, Edit | None], Coroutine[Any, Any, TrialResult]]

_GONE = object()


def task_id(test: str) -> str:
    """``crf_003`` → ``external_booking_v1_group1.py:test_crf_003``."""
    return f"{GROUP}:test_{test}"


def _index(calls: Calls, tool: str, nth: int) -> int:
    return [i for i, (name, _) in enumerate(calls) if name == tool][nth]


def _merge(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    merged = {**base, **changes}
    return {k: v for k, v in merged.items() if v is not _GONE}


GONE: Any = _GONE
"""A value for :func:`change` and :func:`change_item` that removes the argument."""


def change(tool: str, nth: int = 0, **arguments: Any) -> Edit:
    """Change some arguments of the ``nth`` call of ``tool`` (``-1``: the last; :data:`GONE` removes)."""

    def apply(calls: Calls) -> Calls:
        i = _index(calls, tool, nth)
        calls[i] = (tool, _merge(calls[i][1], arguments))
        return calls

    return apply


def change_item(tool: str, nth: int = 0, **fields: Any) -> Edit:
    """Change some fields of the ``item`` of the ``nth`` Zendesk create or update call."""

    def apply(calls: Calls) -> Calls:
        i = _index(calls, tool, nth)
        calls[i] = (tool, {**calls[i][1], "item": _merge(calls[i][1]["item"], fields)})
        return calls

    return apply


def drop(tool: str, nth: int = 0) -> Edit:
    def apply(calls: Calls) -> Calls:
        del calls[_index(calls, tool, nth)]
        return calls

    return apply


def repeat(tool: str, nth: int = 0) -> Edit:
    """Play the ``nth`` call of ``tool`` twice in a row (a double submit)."""

    def apply(calls: Calls) -> Calls:
        i = _index(calls, tool, nth)
        return [*calls[: i + 1], (tool, dict(calls[i][1])), *calls[i + 1 :]]

    return apply


def add(tool: str, arguments: Mapping[str, Any], before: str | None = None, nth: int = 0) -> Edit:
    """Add a call at the end, or before the ``nth`` call of ``before``."""

    def apply(calls: Calls) -> Calls:
        at = len(calls) if before is None else _index(calls, before, nth)
        return [*calls[:at], (tool, dict(arguments)), *calls[at:]]

    return apply


def stop_before(tool: str, nth: int = 0) -> Edit:
    """Stop the trajectory before the ``nth`` call of ``tool`` (the agent says it is done)."""

    def apply(calls: Calls) -> Calls:
        return calls[: _index(calls, tool, nth)]

    return apply


def chain(*edits: Edit) -> Edit:
    def apply(calls: Calls) -> Calls:
        for one in edits:
            calls = one(calls)
        return calls

    return apply


@pytest.fixture(scope="module")
def booking() -> Domain:
    return get_domain(BOOKING)


@pytest.fixture(scope="module")
def gate(booking: Domain) -> Iterator[CommitGate]:
    gate = CommitGate(configured_judges(GuardSettings(), booking.judges), judge_timeout_s=5.0)
    yield gate
    gate.close()


@pytest.fixture(scope="module")
def trial_context(data_dir: Path, gate: CommitGate) -> TrialContext:
    return TrialContext(
        data_dir=data_dir,
        agent=ReplayAgent({}),
        settings=GuardSettings(),
        gates={BOOKING: gate},
        scenarios={BOOKING: load_scenario(data_dir, BOOKING)},
    )


@pytest.fixture
def guarded(data_dir: Path, booking: Domain, trial_context: TrialContext) -> Guarded:
    """Replay a task's golden trajectory, changed by ``edit``, through the guarded arm."""

    async def play(test: str, edit: Edit | None) -> TrialResult:
        task: Task = load_task(data_dir, task_id(test))
        calls: Calls = [(c.tool, dict(c.arguments)) for c in task.golden]
        if edit is not None:
            calls = edit(calls)
        script = Script(f"edited:{test}", tuple(TrajectoryCall(tool, args) for tool, args in calls))
        context = dataclasses.replace(trial_context, agent=ReplayAgent({task.id: [script]}))
        return await run_trial(task, booking, "guarded", 0, 0, context, {})

    return play
