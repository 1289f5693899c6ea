"""The fixtures every domain's tests have, written once: its domain, tasks, scenario and fresh worlds.

A domain's conftest names its fixtures and binds them to module names, so
that pytest finds them there::

    auto, auto_tasks, auto_scenario, make_auto_world = domain_fixtures(
        AUTO, "auto", default_task="extension_task"
    )
    extension_task = task_fixture("extension_task", EXTENSION_TASK)
    seeded = world_fixture("seeded", "make_auto_world", patch={})

``make_<name>_world`` opens a world of a task: by default the fixture named
by ``default_task``, or, without one, the domain's first task with an empty
patch (the seed rows only); ``patch=`` replaces the task's patch and other
options go to :func:`~benchmark.world.open_world` (``with_scenario`` makes
the domain's scenario, whose policy sources the search tool reads, the default).

:func:`replay_guarded_fixture` makes the fixture that replays a task's golden
trajectory, edited, through the guarded arm of any domain; a module binds it::

    replay_guarded = replay_guarded_fixture()

    async def test_it(replay_guarded: ReplayGuarded) -> None:
        result = await replay_guarded(arm, "test_bil_001", edit)

``arm`` names the domain and how its gate is built (:class:`GuardedArm`);
the result's verdicts hold every commit attempt and its findings. Each
domain's gate is built at its first replay and closed with the fixture. The
tau-bench airline replays from its own folder (``GUARD_TAU_DATA``, as
:mod:`tests.benchmark.tau_airline.conftest` finds it), the others from ``data_dir``.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import pytest

from benchmark.dataset import Scenario, Task, load_scenario, load_task, load_tasks
from benchmark.dataset.tau_airline import DOMAIN as TAU_DOMAIN
from benchmark.dataset.tau_airline import is_tau_airline
from benchmark.domains import Domain, get_domain
from benchmark.results import TrialResult
from benchmark.run import TrialContext
from benchmark.run.setup import guard_settings
from benchmark.world import World, open_world
from guard.gate.commit import CommitGate
from guard.runtime import configured_judges
from guard.settings import GuardSettings
from tests.benchmark.regrade import Calls, Edit, guarded_context, play_guarded
from tests.conftest import ROOT, _missing

__all__ = [
    "DomainFixtures",
    "GuardedArm",
    "OpenWorld",
    "ReplayGuarded",
    "domain_fixtures",
    "replay_guarded_fixture",
    "task_fixture",
    "world_fixture",
]

OpenWorld = Callable[..., AbstractAsyncContextManager[World]]
Patch = dict[str, list[dict[str, Any]]]


class DomainFixtures(NamedTuple):
    """A domain's fixtures, to bind to the module names pytest finds them under."""

    domain: Any
    tasks: Any
    scenario: Any
    make_world: Any


def domain_fixtures(
    domain: str,
    name: str,
    *,
    default_task: str | None = None,
    make_world: str | None = None,
    with_scenario: bool = False,
) -> DomainFixtures:
    """The fixtures ``name``, ``name_tasks``, ``name_scenario`` and ``make_world`` (``make_<name>_world``)."""
    tasks_name, scenario_name = f"{name}_tasks", f"{name}_scenario"

    @pytest.fixture(scope="session", name=name)
    def domain_fixture() -> Domain:
        return get_domain(domain)

    @pytest.fixture(scope="session", name=tasks_name)
    def tasks_fixture(data_dir: Path) -> list[Task]:
        return list(load_tasks(data_dir, domain=domain))

    @pytest.fixture(scope="session", name=scenario_name)
    def scenario_fixture(data_dir: Path) -> Scenario:
        return load_scenario(data_dir, domain)

    @pytest.fixture(name=make_world or f"make_{name}_world")
    def make_world_fixture(data_dir: Path, request: pytest.FixtureRequest) -> OpenWorld:
        opened_domain: Domain = request.getfixturevalue(name)
        if default_task is None:
            first: Task = request.getfixturevalue(tasks_name)[0]
            default = dataclasses.replace(first, data_patch={})
        else:
            default = request.getfixturevalue(default_task)
        scenario: Scenario | None = request.getfixturevalue(scenario_name) if with_scenario else None

        def factory(
            task: Task | None = None, *, patch: Patch | None = None, **options: Any
        ) -> AbstractAsyncContextManager[World]:
            chosen = task or default
            if patch is not None:
                chosen = dataclasses.replace(chosen, data_patch=patch)
            if scenario is not None:
                options.setdefault("scenario", scenario)
            return open_world(opened_domain, chosen, data_dir=data_dir, **options)

        return factory

    make_world_fixture.__doc__ = f"Open a world of a {name} task (patched as given; see :mod:`{__name__}`)."
    return DomainFixtures(domain_fixture, tasks_fixture, scenario_fixture, make_world_fixture)


def task_fixture(name: str, task_id: str) -> Any:
    """A session fixture ``name``: the task ``task_id``."""

    @pytest.fixture(scope="session", name=name)
    def fixture(data_dir: Path) -> Task:
        return load_task(data_dir, task_id)

    return fixture


def world_fixture(name: str, make_world: str, *, patch: Patch | None = None, doc: str = "") -> Any:
    """A fixture ``name``: an open world of ``make_world``'s default task, with ``patch`` if given."""

    async def fixture(request: pytest.FixtureRequest) -> AsyncIterator[World]:
        opener: OpenWorld = request.getfixturevalue(make_world)
        async with opener(patch=patch) as opened:
            yield opened

    fixture.__doc__ = doc or None
    return pytest.fixture(name=name)(fixture)


class GuardedArm(Protocol):
    """A domain's guarded arm: ``bench`` builds the gate and trials as ``guard bench`` does (its judge chain
    before the domain's judges); a judge has ``judge_timeout_s``."""

    @property
    def domain(self) -> str: ...

    @property
    def bench(self) -> bool: ...

    @property
    def judge_timeout_s(self) -> float: ...


ReplayGuarded = Callable[[GuardedArm, str, Edit | None], Awaitable[TrialResult]]
"""``(arm, test, edit)``: the trial of the domain's task ``test``'s golden calls, changed by ``edit``."""


@dataclasses.dataclass(frozen=True)
class _Opened:
    domain: Domain
    context: TrialContext
    tasks: dict[str, Task]


class _GuardedArms:
    """Each domain's guarded arm, opened at its first replay: domain, gate, trial context and tasks."""

    def __init__(self, data_dir: Path) -> None:
        self._data_dir = data_dir
        self._tau_dir = Path(os.environ.get("GUARD_TAU_DATA", ROOT.parent / "shared" / "tau-bench-airline"))
        self._opened: dict[tuple[str, bool, float], _Opened] = {}
        self._gates: list[CommitGate] = []

    def _open(self, arm: GuardedArm) -> _Opened:
        key = (arm.domain, arm.bench, arm.judge_timeout_s)
        if key not in self._opened:
            domain = get_domain(arm.domain)
            settings = guard_settings(None) if arm.bench else GuardSettings()
            gate = CommitGate(configured_judges(settings, domain.judges), judge_timeout_s=arm.judge_timeout_s)
            self._gates.append(gate)
            data_dir = self._data_for(arm.domain)
            tasks = {task.test: task for task in load_tasks(data_dir, domain=arm.domain).tasks}
            context = guarded_context(data_dir, arm.domain, gate, bench=arm.bench)
            self._opened[key] = _Opened(domain, context, tasks)
        return self._opened[key]

    def _data_for(self, domain: str) -> Path:
        if domain != TAU_DOMAIN:
            return self._data_dir
        if not is_tau_airline(self._tau_dir):
            _missing("tau-bench's airline folder", f"nothing in {self._tau_dir}", "GUARD_REQUIRE_DATA")
        return self._tau_dir

    async def replay(self, arm: GuardedArm, test: str, edit: Edit | None) -> TrialResult:
        opened = self._open(arm)
        task = opened.tasks[test]
        calls: Calls = [(call.tool, copy.deepcopy(dict(call.arguments))) for call in task.golden]
        if edit is not None:
            calls = edit(calls)
        return await play_guarded(task, calls, opened.domain, opened.context, f"edited:{test}")

    def close(self) -> None:
        for gate in self._gates:
            gate.close()


def replay_guarded_fixture(name: str = "replay_guarded") -> Any:
    """A module fixture ``name``: a :data:`ReplayGuarded` over the guarded arm of any domain."""

    @pytest.fixture(scope="module", name=name)
    def fixture(data_dir: Path) -> Iterator[ReplayGuarded]:
        arms = _GuardedArms(data_dir)
        yield arms.replay
        arms.close()

    return fixture
