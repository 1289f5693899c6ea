"""The booking domain's tables, tool registry and Zendesk variant."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel
from sqlalchemy import MetaData

from benchmark.domains.base import TableDef, envelope_error_text, sql_table
from benchmark.domains.booking import models as m
from benchmark.domains.knowledge import documents_table
from benchmark.domains.zendesk import ZendeskVariant, zendesk_toolset
from benchmark.domains.zendesk.odata import ALL_COMPARATORS
from guard.tools import ToolRegistry

__all__ = [
    "DOMAIN_NAME",
    "IGNORED_TAGS",
    "TABLE_DEFS",
    "ZENDESK",
    "documents",
    "metadata",
    "normalize_tags",
    "registry",
    "sql",
]

DOMAIN_NAME = "external_booking_v1"

metadata = MetaData()
registry = ToolRegistry(DOMAIN_NAME, error_text=envelope_error_text)

IGNORED_TAGS = frozenset({"vip-customer", "repeat-issue", "hotel-partner-escalation"})
"""Ticket tags the booking Zendesk never stores (compared case-insensitively)."""


def normalize_tags(tags: Any) -> list[str]:
    """Stored ticket tags: the given strings minus :data:`IGNORED_TAGS`, sorted case-insensitively."""
    if not isinstance(tags, list):
        return []
    kept = [t for t in tags if isinstance(t, str) and t.lower() not in IGNORED_TAGS]
    return sorted(kept, key=lambda t: (t.lower(), t))


def _prepare_created_ticket(ticket: dict[str, Any]) -> dict[str, Any]:
    refund = ticket.get("refund_amount")
    if refund is None or float(refund) == 0.0:
        ticket["refund_amount"] = 0.0
    ticket["tags"] = normalize_tags(ticket.get("tags"))
    return ticket


def _prepare_ticket_changes(changes: dict[str, Any]) -> dict[str, Any]:
    if "tags" in changes:
        changes["tags"] = normalize_tags(changes["tags"])
    return changes


ZENDESK = ZendeskVariant(
    seed_dir="external_booking/zendesk/initial_data",
    # the commit gate's judges look up the tickets of a booking by equality
    ticket_indexes=(("booking_reference",),),
    ticket_model=m.Ticket,
    ticket_create=m.TicketCreateInput,
    ticket_update=m.TicketUpdateInput,
    prepare_ticket=_prepare_created_ticket,
    prepare_ticket_update=_prepare_ticket_changes,
    reply_given_tags=True,
    odata_comparators=ALL_COMPARATORS,
)
"""Booking's Zendesk: ten custom ticket fields; a new ticket's missing or zero ``refund_amount``
becomes 0.0; stored tags drop :data:`IGNORED_TAGS` and are sorted, but replies echo the tags as
given; an update touches only the fields it gives (nulls are ignored); ``get_items`` evaluates
all six comparators; no status-violation audit."""

zendesk = zendesk_toolset(ZENDESK, metadata, registry)


def _zendesk_defs() -> tuple[TableDef, ...]:
    # The reference reads a seed file that is not a JSON list as empty; booking's articles.json is an object.
    return tuple(
        dataclasses.replace(d, seed=None) if d.benchmark_name == "zendesk_articles" else d
        for d in zendesk.defs
    )


def _table(
    name: str,
    toolset: str,
    stem: str,
    model: type[BaseModel],
    unstable: frozenset[str] = frozenset(),
    indexes: tuple[tuple[str, ...], ...] = (),
) -> TableDef:
    return TableDef(
        name=name,
        benchmark_name=f"{toolset}_{stem}",
        model=model,
        unstable=unstable,
        seed=f"external_booking/{toolset}/initial_data/{stem}.json",
        indexes=indexes,
    )


_OWN_DEFS: tuple[TableDef, ...] = (
    _table(
        "hotel_inventory",
        "booking_api",
        "hotel_inventory",
        m.HotelInventory,
        indexes=(("hotel_id", "room_type", "board_type"),),
    ),
    _table(
        "bookings",
        "booking_api",
        "bookings",
        m.Booking,
        frozenset({"special_requests"}),
        (("booking_reference",), ("group_booking_id",)),
    ),
    _table(
        "group_bookings", "booking_api", "group_bookings", m.GroupBooking, indexes=(("group_booking_id",),)
    ),
    _table(
        "corporate_accounts",
        "corporate_api",
        "corporate_accounts",
        m.CorporateAccount,
        indexes=(("corporate_account_id",),),
    ),
    _table(
        "customer_profiles",
        "crm_api",
        "customer_profiles",
        m.CustomerProfile,
        frozenset({"preferences", "special_notes"}),
        (("customer_id",),),
    ),
    _table("hotels", "hotel_partner_api", "hotels", m.Hotel, indexes=(("hotel_id",),)),
    _table(
        "transactions",
        "payment_api",
        "transactions",
        m.Transaction,
        frozenset({"reason"}),
        (("booking_reference",),),
    ),
    _table("lookup_hotels", "lookup", "hotels", m.LookupHotel),
    _table("lookup_bookings", "lookup", "bookings", m.LookupBooking),
    _table("lookup_corporate_accounts", "lookup", "corporate_accounts", m.LookupCorporateAccount),
    _table("lookup_group_bookings", "lookup", "group_bookings", m.LookupGroupBooking),
)

TABLE_DEFS: tuple[TableDef, ...] = (*_zendesk_defs(), *_OWN_DEFS)
"""The tables in creation order; ``indexes`` are the columns the commit gate's judges read by equality."""

sql = MappingProxyType(
    {
        **{f"zendesk_{name}": table for name, table in zendesk.sql.items()},
        **{d.name: sql_table(d, metadata) for d in _OWN_DEFS},
    }
)
"""SQL tables by our table name."""

documents = documents_table(metadata)
