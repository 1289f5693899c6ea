"""Fixtures for the airline's rules: the tau-bench folder (``GUARD_TAU_DATA``) from the airline's tests."""

from __future__ import annotations

from tests.benchmark.tau_airline.conftest import tau_data, tau_tasks

__all__ = ["tau_data", "tau_tasks"]
