"""Fixtures for the auto insurance rules: the guarded arm as the benchmark runs it, and the edit helpers.

The gate is built the way ``guard bench`` builds it (the bench's default
chain, then the domain's judges). The edit helpers (from
:mod:`tests.benchmark.regrade`) change a golden trajectory the way an agent
gets it wrong: one argument changed, a call dropped, added or swapped.
The wrong trajectories of :mod:`.cases` are replayed by
:mod:`tests.benchmark.test_wrong`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.benchmark.regrade import (
    Calls,
    Edit,
    add,
    chain,
    change,
    change_item,
    drop,
    guarded_fixtures,
    replace,
)

__all__ = [
    "AUTO",
    "Calls",
    "Edit",
    "add",
    "chain",
    "change",
    "change_item",
    "drop",
    "swap",
    "task_id",
]

AUTO = "sandbox_auto_insurance"
GROUP = f"{AUTO}_group1.py"


def task_id(test: str) -> str:
    """``bil_001`` → ``sandbox_auto_insurance_group1.py:test_bil_001``."""
    return f"{GROUP}:test_{test}"


def swap(tool: str, other: str, arguments: Mapping[str, Any]) -> Edit:
    """Play ``other`` with ``arguments`` instead of the first call of ``tool``."""
    return replace(tool, other, arguments)


auto, gate, trial_context = guarded_fixtures(AUTO, "auto", task_id, bench=True)
