"""Fixtures for the neobank tests: the domain, its tasks and fresh worlds."""

from __future__ import annotations

from tests.benchmark.domain_fixtures import OpenWorld, domain_fixtures, task_fixture, world_fixture

__all__ = ["INCIDENT_TASK", "MAIN", "NEOBANK", "OpenWorld"]

NEOBANK = "sandbox_neobank_support_v1"
INCIDENT_TASK = f"{NEOBANK}_group1.py:test_ie_001"
"""Daniel Park's SEV1 incident: temporary production database access, two alert emails, a solved ticket."""

MAIN = "sandbox_neobank_support_main_models_"
"""The benchmark's prefix of the neobank's own (non-Zendesk) tables."""

neobank, neobank_tasks, neobank_scenario, make_neobank_world = domain_fixtures(
    NEOBANK, "neobank", default_task="incident_task"
)
incident_task = task_fixture("incident_task", INCIDENT_TASK)
seeded = world_fixture(
    "seeded", "make_neobank_world", patch={}, doc="A world holding only the domain's seed rows."
)
