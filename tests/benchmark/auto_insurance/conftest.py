"""Fixtures for the auto insurance tests: the domain, its tasks and fresh worlds."""

from __future__ import annotations

from tests.benchmark.domain_fixtures import OpenWorld, domain_fixtures, task_fixture, world_fixture

__all__ = ["AUTO", "EXTENSION_TASK", "OpenWorld"]

AUTO = "sandbox_auto_insurance"
EXTENSION_TASK = "sandbox_auto_insurance_group1.py:test_bil_001"
"""Maria Rodriguez's payment extension: policy POL-3847291856, customer CUS-847291."""

auto, auto_tasks, auto_scenario, make_auto_world = domain_fixtures(
    AUTO, "auto", default_task="extension_task"
)
extension_task = task_fixture("extension_task", EXTENSION_TASK)
seeded = world_fixture(
    "seeded", "make_auto_world", patch={}, doc="A world holding only the domain's seed rows."
)
maria = world_fixture(
    "maria",
    "make_auto_world",
    doc="The extension task's initial state: the seed rows and Maria Rodriguez's policy.",
)
