"""Fixtures for the retail rules: the guarded arm with the retail judges, and the edit helpers.

The edit helpers (from :mod:`tests.benchmark.regrade`) change a golden
trajectory the way an agent gets it wrong (one argument changed, a call
dropped or added). The wrong trajectories of :mod:`.cases` are replayed by
:mod:`tests.benchmark.test_wrong`.
"""

from __future__ import annotations

from tests.benchmark.regrade import (
    Calls,
    Edit,
    add,
    chain,
    change,
    change_item,
    drop,
    guarded_fixtures,
)

__all__ = ["RETAIL", "Calls", "Edit", "add", "chain", "change", "change_item", "drop", "task_id"]

RETAIL = "sandbox_external_retail"
GROUP = f"{RETAIL}_group1.py"


def task_id(test: str) -> str:
    return f"{GROUP}:test_case_{test}"


retail, gate, trial_context = guarded_fixtures(RETAIL, "retail", task_id)
