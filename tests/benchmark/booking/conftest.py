"""Fixtures for the booking domain tests: the domain, its tasks and fresh worlds."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

from benchmark.dataset import Scenario, Task, load_scenario, load_tasks
from benchmark.domains import Domain, get_domain
from benchmark.world import World, open_world

BOOKING = "external_booking_v1"

OpenBookingWorld = Callable[..., AbstractAsyncContextManager[World]]


@pytest.fixture(scope="session")
def booking() -> Domain:
    return get_domain(BOOKING)


@pytest.fixture(scope="session")
def booking_tasks(data_dir: Path) -> list[Task]:
    return list(load_tasks(data_dir, domain=BOOKING))


@pytest.fixture(scope="session")
def booking_scenario(data_dir: Path) -> Scenario:
    return load_scenario(data_dir, BOOKING)


@pytest.fixture(scope="session")
def tasks_by_name(booking_tasks: list[Task]) -> dict[str, Task]:
    """Tasks by their test function's name (``test_bmd_001``)."""
    return {task.id.split(":")[1]: task for task in booking_tasks}


@pytest.fixture
def make_booking_world(
    data_dir: Path, booking: Domain, booking_tasks: list[Task], booking_scenario: Scenario
) -> OpenBookingWorld:
    """Open a world of a booking task (by default the seed rows only, or the given patch)."""

    def factory(
        task: Task | None = None, *, patch: dict[str, list[dict[str, Any]]] | None = None, **options: Any
    ) -> AbstractAsyncContextManager[World]:
        chosen = task or dataclasses.replace(booking_tasks[0], data_patch={})
        if patch is not None:
            chosen = dataclasses.replace(chosen, data_patch=patch)
        options.setdefault("scenario", booking_scenario)
        return open_world(booking, chosen, data_dir=data_dir, **options)

    return factory


@pytest.fixture
async def seeded(make_booking_world: OpenBookingWorld) -> AsyncIterator[World]:
    """A world holding only the booking domain's seed rows."""
    async with make_booking_world() as opened:
        yield opened
