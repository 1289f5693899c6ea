"""Fixtures for the auto insurance tests: the domain, its tasks and fresh worlds."""

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

AUTO = "sandbox_auto_insurance"
EXTENSION_TASK = "sandbox_auto_insurance_group1.py:test_bil_001"
"""Maria Rodriguez's payment extension: policy POL-3847291856, customer CUST-847291."""

OpenWorld = Callable[..., AbstractAsyncContextManager[World]]


@pytest.fixture(scope="session")
def auto() -> Domain:
    return get_domain(AUTO)


@pytest.fixture(scope="session")
def auto_tasks(data_dir: Path) -> list[Task]:
    return list(load_tasks(data_dir, domain=AUTO))


@pytest.fixture(scope="session")
def auto_scenario(data_dir: Path) -> Scenario:
    return load_scenario(data_dir, AUTO)


@pytest.fixture(scope="session")
def extension_task(data_dir: Path) -> Task:
    return load_task(data_dir, EXTENSION_TASK)


@pytest.fixture
def make_auto_world(data_dir: Path, auto: Domain, extension_task: Task) -> OpenWorld:
    """Open a world of an auto insurance task (by default the extension task, optionally re-patched)."""

    def factory(
        task: Task | None = None, *, patch: dict[str, list[dict[str, Any]]] | None = None, **options: Any
    ) -> AbstractAsyncContextManager[World]:
        chosen = task or extension_task
        if patch is not None:
            chosen = dataclasses.replace(chosen, data_patch=patch)
        return open_world(auto, chosen, data_dir=data_dir, **options)

    return factory


@pytest.fixture
async def seeded(make_auto_world: OpenWorld) -> AsyncIterator[World]:
    """A world holding only the domain's seed rows."""
    async with make_auto_world(patch={}) as opened:
        yield opened


@pytest.fixture
async def maria(make_auto_world: OpenWorld) -> AsyncIterator[World]:
    """The extension task's initial state: the seed rows and Maria Rodriguez's policy."""
    async with make_auto_world() as opened:
        yield opened
