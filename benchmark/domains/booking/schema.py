"""The booking domain's tables (its seeds, its Zendesk variant's tables) and their SQL tables."""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlalchemy import MetaData

from benchmark.domains.base import TableDef, TableNaming
from benchmark.domains.booking import models as m
from benchmark.domains.declare import Tables
from benchmark.domains.zendesk import ALL_COMPARATORS, ZendeskVariant, zendesk_tables

__all__ = ["IGNORED_TAGS", "TABLES", "ZENDESK", "normalize_tags", "sql"]

metadata = MetaData()

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


ZENDESK = zendesk_tables(
    ZendeskVariant(
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
    ),
    metadata,
)
"""Booking's Zendesk: ten custom ticket fields; a new ticket's missing or zero ``refund_amount``
becomes 0.0; stored tags drop :data:`IGNORED_TAGS` and are sorted, but replies echo the tags as
given; an update touches only the fields it gives (nulls are ignored); ``get_items`` evaluates
all six comparators; no status-violation audit."""


def _zendesk_defs() -> tuple[TableDef, ...]:
    # The reference reads a seed file that is not a JSON list as empty; booking's articles.json is an object.
    return tuple(
        dataclasses.replace(d, seed=None) if d.benchmark_name == "zendesk_articles" else d
        for d in ZENDESK.defs
    )


_table = TableNaming("external_booking")

TABLES = Tables.of(
    metadata,
    (
        *_zendesk_defs(),
        _table(
            "booking_api",
            "hotel_inventory",
            m.HotelInventory,
            indexes=(("hotel_id", "room_type", "board_type"),),
        ),
        _table(
            "booking_api",
            "bookings",
            m.Booking,
            unstable=frozenset({"special_requests"}),
            indexes=(("booking_reference",), ("group_booking_id",)),
        ),
        _table("booking_api", "group_bookings", m.GroupBooking, indexes=(("group_booking_id",),)),
        _table(
            "corporate_api", "corporate_accounts", m.CorporateAccount, indexes=(("corporate_account_id",),)
        ),
        _table(
            "crm_api",
            "customer_profiles",
            m.CustomerProfile,
            unstable=frozenset({"preferences", "special_notes"}),
            indexes=(("customer_id",),),
        ),
        _table("hotel_partner_api", "hotels", m.Hotel, indexes=(("hotel_id",),)),
        _table(
            "payment_api",
            "transactions",
            m.Transaction,
            unstable=frozenset({"reason"}),
            indexes=(("booking_reference",),),
        ),
        _table("lookup", "hotels", m.LookupHotel, name="lookup_hotels"),
        _table("lookup", "bookings", m.LookupBooking, name="lookup_bookings"),
        _table("lookup", "corporate_accounts", m.LookupCorporateAccount, name="lookup_corporate_accounts"),
        _table("lookup", "group_bookings", m.LookupGroupBooking, name="lookup_group_bookings"),
    ),
)
"""The tables in creation order; ``indexes`` are the columns the commit gate's judges read by equality."""

sql = TABLES.sql
"""SQL tables by our table name."""
