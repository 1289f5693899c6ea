"""The tau-bench airline folder the tests read (``GUARD_TAU_DATA``, else ``../shared/tau-bench-airline``).

Without it the tests skip with the reason, unless ``GUARD_REQUIRE_DATA=1``.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from benchmark.dataset import Task
from benchmark.dataset.tau_airline import is_tau_airline, load_tau_tasks
from benchmark.domains.tau_airline import DOMAIN
from benchmark.world import World, open_world
from tests.conftest import ROOT, _missing

DEFAULT_TAU_DATA = ROOT.parent / "shared" / "tau-bench-airline"


@pytest.fixture(scope="session")
def tau_data() -> Path:
    path = Path(os.environ.get("GUARD_TAU_DATA", DEFAULT_TAU_DATA))
    if not is_tau_airline(path):
        _missing(
            "tau-bench's airline folder",
            f"no tasks.json, flights.json, users.json in {path}",
            "GUARD_REQUIRE_DATA",
        )
    return path


@pytest.fixture(scope="session")
def tau_tasks(tau_data: Path) -> tuple[Task, ...]:
    return load_tau_tasks(tau_data)


@pytest.fixture
async def world(tau_data: Path, tau_tasks: tuple[Task, ...]) -> AsyncIterator[World]:
    """A fresh airline world (in-memory SQLite) holding the initial database."""
    async with open_world(DOMAIN, tau_tasks[0], data_dir=tau_data) as opened:
        yield opened
