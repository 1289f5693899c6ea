"""Fixtures for the consulting rules: the guarded arm with the consulting judges, and trajectories to replay.

The edit helpers (from :mod:`tests.benchmark.regrade`) change a golden
trajectory the way an agent gets it wrong (one argument changed, a call
dropped or added; ``action=`` picks the calls of one action of a tool);
``guarded`` replays any trajectory through the guarded arm and returns the
trial's result, whose verdicts hold every commit attempt and its findings.
"""

from __future__ import annotations

from tests.benchmark.regrade import (
    Calls,
    Edit,
    Guarded,
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
    "Guarded",
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


consulting, gate, trial_context, guarded = guarded_fixtures(CONSULTING, "consulting", task_id)
