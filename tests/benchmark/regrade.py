"""Golden trajectories edited the way an agent gets them wrong, replayed and graded or guarded.

An :data:`Edit` takes a trajectory's calls and returns the edited calls.
Edits name the call they change by its position (``3``, ``-1``) or by its
tool (the ``nth`` call of ``"claims_create_fnol"``, ``-1``: the last; for
tools that take an ``action``, ``action=`` keeps only the calls of that
action): :func:`change` and :func:`change_item` change some arguments or
some fields of a Zendesk ``item`` (:data:`GONE` removes one), :func:`drop`
removes a call, :func:`add` inserts one, :func:`repeat` plays one twice,
:func:`replace` plays another call in its place, :func:`stop_before` ends
the trajectory before it, :func:`swap` exchanges two and :func:`chain`
applies several in turn. A :class:`Wrong` is one such edit of a task's golden
trajectory, with what the gate must say about it.

:func:`regrade` replays the edited golden trajectory on a fresh world and
grades its final state against the golden one. :func:`guarded_fixtures`
makes a rules conftest's fixtures: the domain, the guarded arm's gate (as
:func:`gate_fixture` makes it) and trial context, and ``guarded``, which
replays a task's golden trajectory, edited, through the guarded arm and
returns the trial's result, whose verdicts hold every commit attempt and
its findings::

    retail, gate, trial_context = guarded_fixtures(RETAIL, "retail", task_id)
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from benchmark.agents import ReplayAgent
from benchmark.agents.replay import Script
from benchmark.dataset import Task, TrajectoryCall, load_scenario
from benchmark.domains import Domain, get_domain
from benchmark.results import TrialResult
from benchmark.run import TrialContext, run_trial
from benchmark.run.setup import guard_settings
from benchmark.world import Grade, golden, grade, replay
from guard.gate.commit import CommitGate
from guard.runtime import configured_judges
from guard.settings import GuardSettings

__all__ = [
    "GONE",
    "Calls",
    "Edit",
    "GuardedFixtures",
    "add",
    "chain",
    "change",
    "change_item",
    "drop",
    "gate_fixture",
    "guarded_context",
    "guarded_fixtures",
    "play_guarded",
    "regrade",
    "repeat",
    "replace",
    "stop_before",
    "swap",
]

Calls = list[tuple[str, dict[str, Any]]]
Edit = Callable[[Calls], Calls]
At = int | str
"""A call's position, or the name of its tool (then ``nth`` says which of its calls)."""

GONE: Any = object()
"""A value for :func:`change` and :func:`change_item` that removes the argument or field."""


def _index(calls: Calls, at: At, nth: int = 0, action: str | None = None) -> int:
    if isinstance(at, int):
        return at if at >= 0 else len(calls) + at
    found = [
        i
        for i, (tool, arguments) in enumerate(calls)
        if tool == at and (action is None or arguments.get("action") == action)
    ]
    return found[nth]


def _merge(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    merged = {**base, **changes}
    return {key: value for key, value in merged.items() if value is not GONE}


def change(at: At, nth: int = 0, *, action: str | None = None, **arguments: Any) -> Edit:
    """Change some arguments of a call (of ``action``, when given)."""

    def apply(calls: Calls) -> Calls:
        i = _index(calls, at, nth, action)
        calls[i] = (calls[i][0], _merge(calls[i][1], arguments))
        return calls

    return apply


def change_item(at: At, nth: int = 0, **fields: Any) -> Edit:
    """Change some fields of the ``item`` of a Zendesk create or update call."""

    def apply(calls: Calls) -> Calls:
        i = _index(calls, at, nth)
        calls[i] = (calls[i][0], {**calls[i][1], "item": _merge(calls[i][1]["item"], fields)})
        return calls

    return apply


def drop(at: At, nth: int = 0, *, action: str | None = None) -> Edit:
    """Remove a call (of ``action``, when given)."""

    def apply(calls: Calls) -> Calls:
        del calls[_index(calls, at, nth, action)]
        return calls

    return apply


def add(
    tool: str, arguments: Mapping[str, Any], at: At | None = None, nth: int = 0, *, before: str | None = None
) -> Edit:
    """Insert a call at a position, before a tool's ``nth`` call (``at`` or ``before``), or at the end."""
    where = at if before is None else before

    def apply(calls: Calls) -> Calls:
        i = len(calls) if where is None else _index(calls, where, nth)
        calls.insert(i, (tool, dict(arguments)))
        return calls

    return apply


def repeat(at: At, nth: int = 0) -> Edit:
    """Play a call twice in a row (a double submit)."""

    def apply(calls: Calls) -> Calls:
        i = _index(calls, at, nth)
        calls.insert(i + 1, (calls[i][0], dict(calls[i][1])))
        return calls

    return apply


def replace(at: At, tool: str, arguments: Mapping[str, Any], nth: int = 0) -> Edit:
    """Play ``tool`` with ``arguments`` instead of a call."""

    def apply(calls: Calls) -> Calls:
        calls[_index(calls, at, nth)] = (tool, dict(arguments))
        return calls

    return apply


def stop_before(at: At, nth: int = 0) -> Edit:
    """End the trajectory before a call (the agent says it is done)."""

    def apply(calls: Calls) -> Calls:
        return calls[: _index(calls, at, nth)]

    return apply


def swap(first: int, second: int) -> Edit:
    """Exchange two calls."""

    def apply(calls: Calls) -> Calls:
        calls[first], calls[second] = calls[second], calls[first]
        return calls

    return apply


def chain(*edits: Edit) -> Edit:
    """Apply ``edits`` in turn."""

    def apply(calls: Calls) -> Calls:
        for edit in edits:
            calls = edit(calls)
        return calls

    return apply


async def regrade(task: Task, edit: Edit, *, data_dir: Path, domain: Domain, strict: bool = True) -> Grade:
    """The grade of ``task``'s golden trajectory after ``edit`` (a failing call raises, if ``strict``)."""
    expected = await golden(task, data_dir=data_dir)
    calls = edit([(call.tool, copy.deepcopy(dict(call.arguments))) for call in task.golden])
    edited: list[tuple[str, Mapping[str, Any]]] = list(calls)
    result = grade(await replay(task, edited, data_dir=data_dir, strict=strict), expected, domain)
    assert result.passed is (not result.diff)
    return result


async def play_guarded(
    task: Task, calls: Calls, domain: Domain, context: TrialContext, script: str
) -> TrialResult:
    """Replay ``calls`` as the agent of one trial of ``task`` in the guarded arm of ``context``."""
    played = Script(script, tuple(TrajectoryCall(tool, args) for tool, args in calls))
    replayed = dataclasses.replace(context, agent=ReplayAgent({task.id: [played]}))
    return await run_trial(task, domain, "guarded", 0, 0, replayed, {})


def _settings(bench: bool) -> GuardSettings:
    """The bench's settings (its judge chain, as ``guard bench`` runs), or the defaults."""
    return guard_settings(None) if bench else GuardSettings()


def guarded_context(
    data_dir: Path, domain: str, gate: CommitGate, *, bench: bool = False, agent: ReplayAgent | None = None
) -> TrialContext:
    """A context for trials of ``domain`` in the guarded arm, through ``gate``, played by ``agent``."""
    return TrialContext(
        data_dir=data_dir,
        agent=ReplayAgent({}) if agent is None else agent,
        settings=_settings(bench),
        gates={domain: gate},
        scenarios={domain: load_scenario(data_dir, domain)},
    )


def gate_fixture(name: str, domain: str, *, bench: bool = False, judge_timeout_s: float | None = None) -> Any:
    """A module fixture ``name``: the guarded arm's gate, the chain then the judges of the fixture ``domain``.

    ``bench`` builds it the way ``guard bench`` does (the bench's chain); without
    ``judge_timeout_s`` a judge has the gate's default time.
    """
    options: dict[str, Any] = {} if judge_timeout_s is None else {"judge_timeout_s": judge_timeout_s}

    @pytest.fixture(scope="module", name=name)
    def fixture(request: pytest.FixtureRequest) -> Iterator[CommitGate]:
        judged: Domain = request.getfixturevalue(domain)
        gate = CommitGate(configured_judges(_settings(bench), judged.judges), **options)
        yield gate
        gate.close()

    return fixture


class GuardedFixtures(NamedTuple):
    """A domain's guarded-arm fixtures, to bind to the module names pytest finds them under."""

    domain: Any
    gate: Any
    trial_context: Any


def guarded_fixtures(
    domain: str, name: str, task_id: Callable[[str], str], *, bench: bool = False
) -> GuardedFixtures:
    """The fixtures ``name`` (the domain), ``gate`` and ``trial_context``; ``bench`` gives the gate
    and the trials the settings ``guard bench`` uses. :mod:`tests.benchmark.domain_fixtures` replays
    edited trajectories through them."""

    @pytest.fixture(scope="module", name=name)
    def domain_fixture() -> Domain:
        return get_domain(domain)

    @pytest.fixture(scope="module", name="trial_context")
    def trial_context_fixture(data_dir: Path, gate: CommitGate) -> TrialContext:
        return guarded_context(data_dir, domain, gate, bench=bench)

    return GuardedFixtures(
        domain_fixture,
        gate_fixture("gate", name, bench=bench, judge_timeout_s=5.0),
        trial_context_fixture,
    )
