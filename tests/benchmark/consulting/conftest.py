"""Fixtures for the consulting tests: the domain, its tasks and fresh worlds."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

from benchmark.dataset import Scenario, Task, load_scenario, load_task, load_tasks
from benchmark.domains import Domain, get_domain
from benchmark.world import World, open_world

CONSULTING = "sandbox_consulting"
ONBOARDING_TASK = "sandbox_consulting_group1.py:test_onb_011"
"""Sarah Martinez's onboarding: a laptop reserved and assigned in Chicago, four applications provisioned."""

OpenWorld = Callable[..., AbstractAsyncContextManager[World]]


@pytest.fixture(scope="session")
def consulting() -> Domain:
    return get_domain(CONSULTING)


@pytest.fixture(scope="session")
def consulting_tasks(data_dir: Path) -> list[Task]:
    return list(load_tasks(data_dir, domain=CONSULTING))


@pytest.fixture(scope="session")
def consulting_scenario(data_dir: Path) -> Scenario:
    return load_scenario(data_dir, CONSULTING)


@pytest.fixture(scope="session")
def onboarding_task(data_dir: Path) -> Task:
    return load_task(data_dir, ONBOARDING_TASK)


@pytest.fixture
def make_consulting_world(data_dir: Path, consulting: Domain, onboarding_task: Task) -> OpenWorld:
    """Open a world of a consulting task (by default the onboarding task, optionally re-patched)."""

    def factory(
        task: Task | None = None, *, patch: dict[str, list[dict[str, Any]]] | None = None, **options: Any
    ) -> AbstractAsyncContextManager[World]:
        chosen = task or onboarding_task
        if patch is not None:
            chosen = dataclasses.replace(chosen, data_patch=patch)
        return open_world(consulting, chosen, data_dir=data_dir, **options)

    return factory


@pytest.fixture
async def seeded(make_consulting_world: OpenWorld) -> AsyncIterator[World]:
    """A world holding only the domain's seed rows."""
    async with make_consulting_world(patch={}) as opened:
        yield opened
