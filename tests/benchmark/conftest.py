"""Fixtures for the benchmark tests: the retail domain, its tasks and fresh worlds."""

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

RETAIL = "sandbox_external_retail"
BLOG_TASK = "sandbox_external_retail_group1.py:test_case_ST003_006"

OpenWorld = Callable[..., AbstractAsyncContextManager[World]]


@pytest.fixture(scope="session")
def retail() -> Domain:
    return get_domain(RETAIL)


@pytest.fixture(scope="session")
def retail_tasks(data_dir: Path) -> list[Task]:
    return list(load_tasks(data_dir, domain=RETAIL))


@pytest.fixture(scope="session")
def retail_scenario(data_dir: Path) -> Scenario:
    return load_scenario(data_dir, RETAIL)


@pytest.fixture(scope="session")
def blog_task(data_dir: Path) -> Task:
    return load_task(data_dir, BLOG_TASK)


@pytest.fixture
def make_world(data_dir: Path, retail: Domain, blog_task: Task, retail_scenario: Scenario) -> OpenWorld:
    """Open a world of a retail task (by default the blog task, optionally with a different patch)."""

    def factory(
        task: Task | None = None, *, patch: dict[str, list[dict[str, Any]]] | None = None, **options: Any
    ) -> AbstractAsyncContextManager[World]:
        chosen = task or blog_task
        if patch is not None:
            chosen = dataclasses.replace(chosen, data_patch=patch)
        options.setdefault("scenario", retail_scenario)
        return open_world(retail, chosen, data_dir=data_dir, **options)

    return factory


@pytest.fixture
async def world(make_world: OpenWorld) -> AsyncIterator[World]:
    async with make_world() as opened:
        yield opened
