"""Per-domain configuration of the shared Zendesk toolset.

Each benchmark domain ships its own copy of the Zendesk toolset in the
reference, differing in a few ways that change the graded state. Here the
toolset is written once (:mod:`.crud`, :mod:`.articles`) and a
:class:`ZendeskVariant` says how a domain differs:

* ``ticket_model`` / ``ticket_create`` / ``ticket_update``: the ticket row and
  item payload models (domains with custom ticket fields subclass the base
  ones; a domain whose tags arrive as comma-separated text gives its payload
  a ``str`` field);
* ``ticket_unstable``: ticket fields left out of the hash;
* ``null_clears``: per table, the list fields that an explicit ``null`` in an
  update clears to ``[]`` (retail); every other null in an update is ignored;
* ``prepare_ticket``: a hook that rewrites a ticket's fields before it is
  validated on create and update (tag normalisation, defaults);
* ``prepare_ticket_update``: when set, a hook that rewrites only the fields an
  update gives (the non-null ones) before they are merged into the stored
  ticket, and ``prepare_ticket`` then applies to creates only (booking
  normalises given tags and leaves a stored ticket's other fields alone);
* ``reply_given_tags``: the reply to a ticket create or update shows ``tags``
  as the caller gave them, not as stored (booking);
* ``after_ticket_create``: a hook run after a ticket row is written, on the
  same connection (the hidden status-violation audit of some domains);
* ``odata_comparators``: the ``$filter`` comparators ``zendesk_get_items``
  evaluates (retail's copy only ``eq``/``gt``/``lt``, see :mod:`.odata`);
* ``user_model``: the user row model (consulting's also accepts a numeric
  ``organization_id``);
* ``organization_create`` / ``organization_update`` and
  ``prepare_organization``: the organization item payloads and a hook that
  rewrites an organization's fields before validation (neobank's
  ``domain_names`` arrive as comma-separated text);
* the frozen timestamps and the ``ticket_comments`` id base.

:func:`zendesk_tables` builds the six tables of a variant in a domain's
``MetaData``; the tools are made from those tables (:func:`.zendesk_tools`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel
from sqlalchemy import MetaData, Table
from sqlalchemy.ext.asyncio import AsyncConnection

from benchmark.domains.base import TableDef, sql_table
from benchmark.domains.zendesk import models as m
from benchmark.domains.zendesk.odata import BASE_COMPARATORS

__all__ = ["ZendeskTables", "ZendeskVariant", "zendesk_tables"]

CREATED_AT = "2025-10-01T13:00:05Z"
"""The reference Zendesk copies' frozen creation time."""

TicketHook = Callable[[AsyncConnection, dict[str, Any]], Awaitable[None]]


def _no_change(ticket: dict[str, Any]) -> dict[str, Any]:
    return ticket


@dataclass(frozen=True, slots=True)
class ZendeskVariant:
    """How one domain's Zendesk toolset differs from the base one."""

    seed_dir: str = "zendesk/initial_data"
    ticket_model: type[m.Ticket] = m.Ticket
    ticket_create: type[BaseModel] = m.TicketCreateInput
    ticket_update: type[BaseModel] = m.TicketUpdateInput
    ticket_unstable: frozenset[str] = frozenset({"subject", "description"})
    null_clears: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    prepare_ticket: Callable[[dict[str, Any]], dict[str, Any]] = _no_change
    after_ticket_create: TicketHook | None = None
    created_at: str = CREATED_AT
    ticket_updated_at: str = "2025-10-01T13:00:10Z"
    other_updated_at: str = "2025-10-01T13:00:05Z"
    ticket_comment_base: int = 23118465221916
    odata_comparators: frozenset[str] = BASE_COMPARATORS
    user_model: type[m.User] = m.User
    organization_create: type[BaseModel] = m.OrganizationCreateInput
    organization_update: type[BaseModel] = m.OrganizationUpdateInput
    prepare_organization: Callable[[dict[str, Any]], dict[str, Any]] = _no_change
    prepare_ticket_update: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    reply_given_tags: bool = False
    ticket_indexes: tuple[tuple[str, ...], ...] = ()
    """Secondary indexes of the tickets table (column lists), for the domain's judges' lookups."""


@dataclass(frozen=True, slots=True)
class ZendeskTables:
    """The Zendesk tables of one domain: its variant, definitions, and SQL tables by Zendesk table name."""

    variant: ZendeskVariant
    defs: tuple[TableDef, ...]
    sql: Mapping[str, Table]
    models: Mapping[str, type[BaseModel]]


def zendesk_tables(variant: ZendeskVariant, metadata: MetaData) -> ZendeskTables:
    """The articles, ticket_comments, users, comments, tickets and organizations tables."""
    seed = variant.seed_dir
    stamps = frozenset({"created_at", "updated_at"})
    defs = (
        TableDef(
            "zendesk_articles", "zendesk_articles", m.Article, unstable=stamps, seed=f"{seed}/articles.json"
        ),
        TableDef(
            "zendesk_ticket_comments",
            "zendesk_ticket_comments",
            m.TicketComment,
            unstable=frozenset({"created_at"}),
            seed=f"{seed}/ticket_comments.json",
        ),
        TableDef(
            "zendesk_users",
            "zendesk_users",
            variant.user_model,
            unstable=stamps,
            seed=f"{seed}/users.json",
        ),
        TableDef(
            "zendesk_comments",
            "zendesk_comments",
            m.Comment,
            unstable=frozenset({"created_at"}),
            seed=f"{seed}/comments.json",
        ),
        TableDef(
            "zendesk_tickets",
            "zendesk_tickets",
            variant.ticket_model,
            unstable=variant.ticket_unstable,
            seed=f"{seed}/tickets.json",
            indexes=variant.ticket_indexes,
        ),
        TableDef(
            "zendesk_organizations",
            "zendesk_organizations",
            m.Organization,
            unstable=stamps,
            seed=f"{seed}/organizations.json",
        ),
    )
    sql = {d.name.removeprefix("zendesk_"): sql_table(d, metadata) for d in defs}
    models = {d.name.removeprefix("zendesk_"): d.model for d in defs}
    return ZendeskTables(variant, defs, MappingProxyType(sql), MappingProxyType(models))
