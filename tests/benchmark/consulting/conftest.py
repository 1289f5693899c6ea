"""Fixtures for the consulting tests: the domain, its tasks and fresh worlds."""

from __future__ import annotations

from tests.benchmark.domain_fixtures import OpenWorld, domain_fixtures, task_fixture, world_fixture

__all__ = ["CONSULTING", "ONBOARDING_TASK", "OpenWorld"]

CONSULTING = "sandbox_consulting"
ONBOARDING_TASK = "sandbox_consulting_group1.py:test_onb_011"
"""Sarah Martinez's onboarding: a laptop reserved and assigned in Chicago, four applications provisioned."""

consulting, consulting_tasks, consulting_scenario, make_consulting_world = domain_fixtures(
    CONSULTING, "consulting", default_task="onboarding_task"
)
onboarding_task = task_fixture("onboarding_task", ONBOARDING_TASK)
seeded = world_fixture(
    "seeded", "make_consulting_world", patch={}, doc="A world holding only the domain's seed rows."
)
