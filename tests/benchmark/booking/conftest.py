"""Fixtures for the booking domain tests: the domain, its tasks and fresh worlds.

``make_booking_world`` opens, by default, a world of the seed rows only.
"""

from __future__ import annotations

import pytest

from benchmark.dataset import Task
from tests.benchmark.domain_fixtures import OpenWorld, domain_fixtures, world_fixture

__all__ = ["BOOKING", "STAY", "OpenBookingWorld"]

BOOKING = "external_booking_v1"

STAY = {
    "check_in_date": "2025-12-15T15:00:00Z",
    "check_out_date": "2025-12-18T11:00:00Z",
    "room_type": "deluxe_room",
    "board_type": "with_breakfast",
    "adults_count": 2,
    "children_count": 0,
}
"""A stay's dates, room, board and guests, as the availability and search tools take them."""

OpenBookingWorld = OpenWorld

booking, booking_tasks, booking_scenario, make_booking_world = domain_fixtures(
    BOOKING, "booking", with_scenario=True
)
seeded = world_fixture(
    "seeded", "make_booking_world", doc="A world holding only the booking domain's seed rows."
)


@pytest.fixture(scope="session")
def tasks_by_name(booking_tasks: list[Task]) -> dict[str, Task]:
    """Tasks by their test function's name (``test_bmd_001``)."""
    return {task.id.split(":")[1]: task for task in booking_tasks}
