"""Fixtures for the neobank rules: the domain, its tasks by test name, and the guarded arm's gate."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from benchmark.dataset import Task, load_tasks
from benchmark.domains import Domain, get_domain
from tests.benchmark.regrade import gate_fixture

NEOBANK = "sandbox_neobank_support_v1"


@pytest.fixture(scope="session")
def neobank_domain() -> Domain:
    return get_domain(NEOBANK)


@pytest.fixture(scope="session")
def tasks_by_test(data_dir: Path) -> Mapping[str, Task]:
    """The neobank tasks by test name (``test_sa_028``)."""
    return {task.test: task for task in load_tasks(data_dir, domain=NEOBANK).tasks}


neobank_gate = gate_fixture("neobank_gate", "neobank_domain", bench=True)
"""The gate of the guarded arm as ``guard bench`` builds it: the bench chain, then the domain's judges."""
