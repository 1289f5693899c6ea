"""The booking domain (``external_booking_v1``, StayBridge): 38 tools over 17 tables.

Seven Zendesk tools (booking's variant, see :data:`.schema.ZENDESK`: ten
custom ticket fields, three tags never stored, nulls in updates ignored, no
status-violation audit) and 31 tools split by system: :mod:`.bookings`,
:mod:`.groups` and :mod:`.availability` (booking_api), :mod:`.corporate`
(corporate_api), :mod:`.crm` (crm_api), :mod:`.hotel_partner`
(hotel_partner_api, whose escalations are Zendesk tickets), :mod:`.payments`
(payment_api), :mod:`.lookup` and ``knowledge_base_search_policy`` over the
scenario's policy sources. The four ``lookup_*`` tables are read-only copies
that only the graded state sees.

Clocks (:mod:`.common`): the reference's booking tools do not run on the
scenario's "now" (2025-10-01T13:00Z): booking changes, charges, refunds and
invoices are stamped 2025-11-25T10:00Z, disputes and escalations
2025-11-30T10:00Z, CRM updates 2025-01-01. No booking tool reads the wall
clock.

Arguments: where the reference's input model ignores unknown arguments,
the tool takes one ``args`` model that ignores them too; the five tools whose
reference model forbids them (``modify_booking``, ``modify_group_booking``,
``update_customer_info``, ``escalate_to_hotel``, ``process_charge_dispute``)
take plain keyword arguments, which the registry checks strictly.

Judges: the support policy as the guard's commit gate checks it
(``rules.yaml`` and :mod:`.judges`), on the scenario clock.
"""

from __future__ import annotations

from pathlib import Path

from benchmark.domains.booking import (
    availability,
    bookings,
    corporate,
    crm,
    groups,
    hotel_partner,
    lookup,
    payments,
)
from benchmark.domains.booking.common import SCENARIO_NOW
from benchmark.domains.booking.judges import booking_judges
from benchmark.domains.booking.schema import TABLES, ZENDESK
from benchmark.domains.declare import DomainSpec

__all__ = ["DOMAIN", "SPEC"]

SPEC = DomainSpec(
    name="external_booking_v1",
    tables=TABLES,
    zendesk=ZENDESK,
    systems=(availability, bookings, corporate, crm, groups, hotel_partner, lookup, payments),
    rules=Path(__file__).with_name("rules.yaml"),
    judges=booking_judges,
    scenario_now=SCENARIO_NOW,
    search_tool="knowledge_base_search_policy",
)
"""The booking domain, declared: tables and seeds, Zendesk copy, systems (in tool-list order), rules."""

DOMAIN = SPEC.build()
