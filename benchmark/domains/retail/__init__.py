"""The retail domain (``sandbox_external_retail``, TechHome Direct): 33 tools over 22 tables.

Seven Zendesk tools (the base variant: plain ticket model, ``null`` clears
``tags``/``domain_names`` in an update, no status-violation audit) and 26
retail tools split by system: :mod:`.oms` (orders, shipments, tracking),
:mod:`.stripe` (charges, refunds, payment status), :mod:`.extend`
(warranties), :mod:`.jobber` (installations), :mod:`.returns` (RMAs),
:mod:`.catalog` (inventory, products), :mod:`.promo` (discounts,
promotions), :mod:`.salesforce` (customers, membership, points) and
``search_policy`` over the scenario's policy sources.

Clocks: every write is stamped 2025-10-01T13:00:05Z, as in the reference.
Two reference tools read the wall clock — ``check_warranty_coverage`` and
``get_promotion_details``; here they use the scenario's clock,
2025-10-01T13:00Z (the prompts' "now"), so their answers do not drift with
the calendar. This deviates from the live reference harness on purpose:
run today, the reference already answers ``has_coverage: false`` for
contracts that were valid on the scenario date (e.g. ``ST009_005``).

Judges: the support policy as the guard's commit gate checks it
(:mod:`.judges`, ``rules.yaml``), on the same scenario clock.
"""

from __future__ import annotations

from pathlib import Path

from benchmark.domains.declare import DomainSpec
from benchmark.domains.retail import catalog, extend, jobber, oms, promo, returns, salesforce, stripe
from benchmark.domains.retail.common import SCENARIO_NOW
from benchmark.domains.retail.judges import retail_judges
from benchmark.domains.retail.schema import TABLES, ZENDESK

__all__ = ["DOMAIN", "SPEC"]

SPEC = DomainSpec(
    name="sandbox_external_retail",
    tables=TABLES,
    zendesk=ZENDESK,
    systems=(catalog, extend, jobber, oms, promo, returns, salesforce, stripe),
    rules=Path(__file__).with_name("rules.yaml"),
    judges=retail_judges,
    scenario_now=SCENARIO_NOW,
    search_tool="search_policy",
)
"""The retail domain, declared: tables and seeds, Zendesk copy, systems (in tool-list order), rules."""

DOMAIN = SPEC.build()
