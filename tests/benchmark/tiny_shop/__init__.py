"""Tiny Shop (``tiny_shop``): a domain defined in the tests by following ``benchmark/domains/README.md``.

Four tools over three tables, one system each — :mod:`.crm` (customers),
:mod:`.orders` (orders, cancellations), :mod:`.payments` (refunds) — and
``search_policy`` over the scenario's policy sources; no Zendesk copy. The
rule pack ``rules.yaml`` holds one rule (a refund is at most the order's
total); :mod:`.judges` one Python judge that reads the commit time (an order
is cancelled within 14 days of being placed). Its seed files ship beside it
(``seeds/``), not in the data checkout; its tasks are in :mod:`.tasks`.

Clocks: every write is stamped 2025-10-01T13:00:05Z; the scenario's "now" is
2025-10-01T13:00Z.
"""

from __future__ import annotations

from pathlib import Path

from benchmark.domains.declare import DomainSpec
from tests.benchmark.tiny_shop import crm, orders, payments
from tests.benchmark.tiny_shop.common import SCENARIO_NOW
from tests.benchmark.tiny_shop.judges import tiny_shop_judges
from tests.benchmark.tiny_shop.schema import TABLES

__all__ = ["DOMAIN", "SPEC"]

SPEC = DomainSpec(
    name="tiny_shop",
    tables=TABLES,
    zendesk=None,
    systems=(crm, orders, payments),
    rules=Path(__file__).with_name("rules.yaml"),
    judges=tiny_shop_judges,
    scenario_now=SCENARIO_NOW,
    search_tool="search_policy",
)
"""Tiny Shop, declared: its tables and seeds, systems (in tool-list order), rules, judges and clock."""

DOMAIN = SPEC.build()
