"""Golden states and grading.

A task's golden state is its initial state after its golden
``tool_interactions`` run through our tools, call by call, each call
committed (so a partial write would stay, as in the reference). Unlike the
reference, which logs and swallows a failing golden call, we refuse to
produce a golden state when any golden call fails
(:class:`~benchmark.errors.GoldenReplayError`).

A trial passes when the canonical hash of its final state equals the golden
hash (computed row by row, :mod:`benchmark.world.canon_memo`); the diff
names every differing field, record by record. A task with
required ``outputs`` (tau-bench's) also needs each of them said in one of
the agent's messages, as tau-bench checks it (:func:`outputs_said`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from benchmark.dataset.loader import load_scenario, task_set_hash
from benchmark.dataset.model import Scenario, Task
from benchmark.domains import get_domain
from benchmark.domains.base import Domain
from benchmark.errors import GoldenReplayError
from benchmark.world.build import State, open_world
from benchmark.world.canon_memo import canonical_with_hash
from judges.canonical import CanonicalState, DiffEntry, diff_states

__all__ = ["Golden", "Grade", "clear_golden_cache", "golden", "grade", "outputs_said", "replay"]


@dataclass(frozen=True, slots=True)
class Golden:
    """A task's expected end state: raw, canonical, and its hash."""

    task: str
    state: State
    canonical: CanonicalState
    hash: str
    calls: int


@dataclass(frozen=True, slots=True)
class Grade:
    """The verdict on one trial's final state."""

    passed: bool
    state_hash: str
    golden_hash: str
    diff: tuple[DiffEntry, ...] = field(default_factory=tuple)
    canonical: CanonicalState | None = field(default=None, compare=False, repr=False)
    """The final state's canonical form (for a failure's signature)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "state_hash": self.state_hash,
            "golden_hash": self.golden_hash,
            "diff": [entry.to_dict() for entry in self.diff],
        }


_Key = tuple[str, str, str, str]
_CACHE: dict[_Key, Golden] = {}
_COMPUTING: dict[_Key, asyncio.Lock] = {}


def clear_golden_cache() -> None:
    _CACHE.clear()
    _COMPUTING.clear()


@lru_cache(maxsize=16)
def _scenario(data_dir: Path, domain: str) -> Scenario:
    return load_scenario(data_dir, domain)


async def replay(
    task: Task,
    calls: list[tuple[str, Mapping[str, Any]]],
    *,
    data_dir: Path,
    domain: Domain | None = None,
    url: str | None = None,
    strict: bool = True,
) -> State:
    """The state after ``calls`` on a fresh world of ``task`` (with the scenario's policy sources).

    With ``strict`` a failing call raises :class:`GoldenReplayError`;
    otherwise it is committed as it is (partial writes stay) and replay goes on.
    """
    domain = domain or get_domain(task.domain)
    scenario = _scenario(data_dir, domain.name)
    async with open_world(domain, task, data_dir=data_dir, scenario=scenario, url=url) as world:
        for index, (tool, arguments) in enumerate(calls):
            outcome = await world.call(tool, arguments)
            if strict and outcome.error is not None:
                raise GoldenReplayError(outcome.error.message, task=task.id, call_index=index, tool=tool)
        return await world.state()


async def golden(task: Task, *, data_dir: Path, url: str | None = None, cache: bool = True) -> Golden:
    """The task's golden state, computed once per process (per data directory, domain, task and definition).

    Every trial and arm of a run reuses it (with ``--workers`` each process
    computes its tasks' goldens once); concurrent first requests wait for the
    one computing it. A world on a database URL is always replayed afresh.
    """
    if not cache or url is not None:
        return await _compute(task, data_dir=data_dir, url=url)
    key = (str(data_dir), task.domain, task.id, task_set_hash([task]))
    found = _CACHE.get(key)
    if found is not None:
        return found
    async with _COMPUTING.setdefault(key, asyncio.Lock()):
        found = _CACHE.get(key)
        if found is None:
            found = _CACHE[key] = await _compute(task, data_dir=data_dir, url=None)
    _COMPUTING.pop(key, None)
    return found


async def _compute(task: Task, *, data_dir: Path, url: str | None) -> Golden:
    domain = get_domain(task.domain)
    calls = [(call.tool, call.arguments) for call in task.golden]
    state = await replay(task, calls, data_dir=data_dir, domain=domain, url=url)
    canonical, digest = canonical_with_hash(domain.name, state, domain.specs)
    return Golden(task=task.id, state=state, canonical=canonical, hash=digest, calls=len(calls))


def grade(state: State, expected: Golden, domain: Domain) -> Grade:
    """Compare a final state with the golden one."""
    canonical, result_hash = canonical_with_hash(domain.name, state, domain.specs)
    if result_hash == expected.hash:
        return Grade(True, result_hash, expected.hash, canonical=canonical)
    diff = tuple(diff_states(canonical, expected.canonical, domain.specs))
    return Grade(False, result_hash, expected.hash, diff, canonical)


def outputs_said(outputs: Sequence[str], messages: Iterable[str]) -> list[tuple[str, bool]]:
    """Each required output and whether a message says it: lower-cased, the message's commas removed."""
    texts = [message.lower().replace(",", "") for message in messages]
    return [(output, any(output.lower() in text for text in texts)) for output in outputs]
