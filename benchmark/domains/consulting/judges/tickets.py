"""What the cross-record judges share: the transaction's tickets, their custom fields, findings.

Custom fields that name records (``catalog_id``, ``course_id``, …) hold one
id or a comma-separated list of them; :func:`listed` reads either.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from judges import Effect, EffectKind, Finding, Query, Severity, StateSnapshot

__all__ = [
    "TICKETS",
    "became",
    "finding",
    "listed",
    "requester_email",
    "requester_queries",
    "row",
    "single",
    "text",
    "tickets_of",
]

TICKETS = "zendesk_tickets"


def row(effect: Effect) -> Mapping[str, Any]:
    """The record as the transaction leaves it (empty for a delete)."""
    return effect.after or {}


def became(effect: Effect, field: str, value: Any) -> bool:
    """Whether the transaction set ``field`` to ``value``."""
    return effect.after is not None and effect.after.get(field) == value and field in effect.changed_fields


def listed(value: Any) -> list[str]:
    """The items of a comma-separated custom field (none for null or empty)."""
    if not isinstance(value, str) or not value:
        return []
    return [item.strip() for item in value.split(",")]


def single(value: Any) -> str | None:
    """The id a custom field names when it names exactly one."""
    items = listed(value)
    return items[0] if len(items) == 1 else None


def text(value: Any) -> str:
    """A field value as findings write it (``null`` for none, as the rule pack's messages do)."""
    return "null" if value is None else str(value)


def tickets_of(effects: Sequence[Effect]) -> list[Effect]:
    """The tickets the transaction created or updated."""
    return [e for e in effects if e.table == TICKETS and e.kind is not EffectKind.DELETE and e.after]


def _requester_query(ticket: Effect) -> Query | None:
    requester = row(ticket).get("requester_id")
    return None if requester is None else Query.of("zendesk_users", 1, id=requester)


def requester_queries(tickets: Sequence[Effect]) -> Iterator[Query]:
    """The Zendesk users of the tickets' requesters (the rule pack asks the same, so they are shared)."""
    for ticket in tickets:
        query = _requester_query(ticket)
        if query is not None:
            yield query


def requester_email(state: StateSnapshot, ticket: Effect) -> str | None:
    """The email of the ticket's requester, when it is a Zendesk user."""
    query = _requester_query(ticket)
    if query is None:
        return None
    users = state.rows(query)
    return str(users[0]["email"]) if users else None


def finding(
    judge: str, message: str, hint: str, rule: str, ticket: Effect | None, **evidence: Any
) -> Finding:
    """A blocking finding; its evidence names the ticket (when there is one) and the given facts."""
    facts: dict[str, Any] = {"table": TICKETS, "key": ticket.key_text} if ticket is not None else {}
    facts.update({name: value for name, value in evidence.items() if value is not None})
    return Finding(judge, Severity.BLOCK, message, hint=hint, rule=rule, evidence=facts)
