"""Fixtures for the neobank tests: the domain, its tasks and fresh worlds."""

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

NEOBANK = "sandbox_neobank_support_v1"
INCIDENT_TASK = f"{NEOBANK}_group1.py:test_ie_001"
"""Daniel Park's SEV1 incident: temporary production database access, two alert emails, a solved ticket."""

MAIN = "sandbox_neobank_support_main_models_"
"""The benchmark's prefix of the neobank's own (non-Zendesk) tables."""

OpenWorld = Callable[..., AbstractAsyncContextManager[World]]


@pytest.fixture(scope="session")
def neobank() -> Domain:
    return get_domain(NEOBANK)


@pytest.fixture(scope="session")
def neobank_tasks(data_dir: Path) -> list[Task]:
    return list(load_tasks(data_dir, domain=NEOBANK))


@pytest.fixture(scope="session")
def neobank_scenario(data_dir: Path) -> Scenario:
    return load_scenario(data_dir, NEOBANK)


@pytest.fixture(scope="session")
def incident_task(data_dir: Path) -> Task:
    return load_task(data_dir, INCIDENT_TASK)


@pytest.fixture
def make_neobank_world(data_dir: Path, neobank: Domain, incident_task: Task) -> OpenWorld:
    """Open a world of a neobank task (by default the incident task, optionally re-patched)."""

    def factory(
        task: Task | None = None, *, patch: dict[str, list[dict[str, Any]]] | None = None, **options: Any
    ) -> AbstractAsyncContextManager[World]:
        chosen = task or incident_task
        if patch is not None:
            chosen = dataclasses.replace(chosen, data_patch=patch)
        return open_world(neobank, chosen, data_dir=data_dir, **options)

    return factory


@pytest.fixture
async def seeded(make_neobank_world: OpenWorld) -> AsyncIterator[World]:
    """A world holding only the domain's seed rows."""
    async with make_neobank_world(patch={}) as opened:
        yield opened
