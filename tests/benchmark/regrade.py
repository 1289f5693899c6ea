"""Golden trajectories edited the way an agent gets them wrong, replayed and graded against the golden state.

An :data:`Edit` takes a trajectory's calls and returns the edited calls.
Edits name the call they change by its position (``3``, ``-1``) or by its
tool (the ``nth`` call of ``"claims_create_fnol"``): :func:`change` and
:func:`change_item` change some arguments or some fields of a Zendesk
``item``, :func:`drop` removes a call, :func:`add` inserts one, :func:`swap`
exchanges two and :func:`chain` applies several in turn. :func:`regrade`
replays the edited golden trajectory on a fresh world and grades its final
state against the golden one.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from benchmark.dataset import Task
from benchmark.domains import Domain
from benchmark.world import Grade, golden, grade, replay

__all__ = ["Calls", "Edit", "add", "chain", "change", "change_item", "drop", "regrade", "swap"]

Calls = list[tuple[str, dict[str, Any]]]
Edit = Callable[[Calls], Calls]
At = int | str
"""A call's position, or the name of its tool (then ``nth`` says which of its calls)."""


def _index(calls: Calls, at: At, nth: int = 0) -> int:
    if isinstance(at, int):
        return at
    return [i for i, (tool, _) in enumerate(calls) if tool == at][nth]


def change(at: At, nth: int = 0, **arguments: Any) -> Edit:
    """Change some arguments of a call."""

    def apply(calls: Calls) -> Calls:
        i = _index(calls, at, nth)
        calls[i] = (calls[i][0], {**calls[i][1], **arguments})
        return calls

    return apply


def change_item(at: At, nth: int = 0, **fields: Any) -> Edit:
    """Change some fields of the ``item`` of a Zendesk create or update call."""

    def apply(calls: Calls) -> Calls:
        i = _index(calls, at, nth)
        calls[i] = (calls[i][0], {**calls[i][1], "item": {**calls[i][1]["item"], **fields}})
        return calls

    return apply


def drop(at: At, nth: int = 0) -> Edit:
    """Remove a call."""

    def apply(calls: Calls) -> Calls:
        del calls[_index(calls, at, nth)]
        return calls

    return apply


def add(tool: str, arguments: Mapping[str, Any], at: At | None = None) -> Edit:
    """Insert a call at a position, before the first call of a tool, or (without ``at``) at the end."""

    def apply(calls: Calls) -> Calls:
        i = len(calls) if at is None else _index(calls, at)
        calls.insert(i, (tool, dict(arguments)))
        return calls

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
