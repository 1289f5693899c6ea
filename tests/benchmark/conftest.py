"""Fixtures for the benchmark tests: the retail domain, its tasks and fresh worlds.

The domain directories' conftests define the same fixtures for their domains
(and override ``seeded`` there).
"""

from __future__ import annotations

from tests.benchmark.domain_fixtures import OpenWorld, domain_fixtures, task_fixture, world_fixture

__all__ = ["BLOG_TASK", "RETAIL", "OpenWorld"]

RETAIL = "sandbox_external_retail"
BLOG_TASK = "sandbox_external_retail_group1.py:test_case_ST003_006"

retail, retail_tasks, retail_scenario, make_world = domain_fixtures(
    RETAIL, "retail", default_task="blog_task", make_world="make_world", with_scenario=True
)
blog_task = task_fixture("blog_task", BLOG_TASK)
world = world_fixture("world", "make_world", doc="The blog task's initial state.")
seeded = world_fixture("seeded", "make_world", patch={}, doc="A world holding only the retail seed rows.")
