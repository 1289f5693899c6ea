"""tau-bench's airline (``tau_airline``): its fourteen tools over users, reservations and flights.

The data is tau-bench's airline folder (``--data``; not a ThinkingBox
checkout): the seeds are its ``users.json``, ``reservations.json`` and
``flights.json``, the fifty tasks ``tau_airline/0`` … ``tau_airline/49`` its
``tasks.json`` (:mod:`benchmark.dataset.tau_airline`). One system,
:mod:`.airline`, holds the tools in the reference's order; there is no
Zendesk copy and no policy search tool (the policy is the agent's
instructions). Refusals read ``Error: <text>`` as in the reference
(:func:`.common.error_text`); the clock stands at 2024-05-15 15:00 EST.
"""

from __future__ import annotations

from pathlib import Path

from benchmark.domains.declare import DomainSpec
from benchmark.domains.tau_airline import airline
from benchmark.domains.tau_airline.common import SCENARIO_NOW, error_text
from benchmark.domains.tau_airline.judges import tau_airline_judges
from benchmark.domains.tau_airline.schema import TABLES

__all__ = ["DOMAIN", "SPEC"]

SPEC = DomainSpec(
    name="tau_airline",
    tables=TABLES,
    zendesk=None,
    systems=(airline,),
    rules=Path(__file__).with_name("rules.yaml"),
    judges=tau_airline_judges,
    scenario_now=SCENARIO_NOW,
    search_tool=None,
    error_text=error_text,
    dataset="tau-bench-airline",
    coverage=Path(__file__).with_name("coverage.yaml"),
)
"""The airline, declared: tables seeded from tau-bench's data folder, one system, its rules and clock."""

DOMAIN = SPEC.build()
"""The airline domain the harness uses."""
