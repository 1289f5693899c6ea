"""Fixtures for the consulting rules: the guarded arm with the consulting judges, and the edit helpers.

The edit helpers (from :mod:`tests.benchmark.regrade`) change a golden
trajectory the way an agent gets it wrong (one argument changed, a call
dropped or added; ``action=`` picks the calls of one action of a tool).
The wrong trajectories of :mod:`.cases` are replayed by
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

__all__ = [
    "CONSULTING",
    "CREATE",
    "UPDATE",
    "Calls",
    "Edit",
    "add",
    "chain",
    "change",
    "change_item",
    "drop",
    "task_id",
]

CONSULTING = "sandbox_consulting"
GROUP = f"{CONSULTING}_group1.py"
CREATE, UPDATE = "zendesk_create_item", "zendesk_update_item"


def task_id(test: str) -> str:
    """``csa_001`` → ``sandbox_consulting_group1.py:test_csa_001``."""
    return f"{GROUP}:test_{test}"


consulting, gate, trial_context = guarded_fixtures(CONSULTING, "consulting", task_id)
