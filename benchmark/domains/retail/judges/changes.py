"""What one retail transaction changed, grouped for the cross-record judges, and who it was for.

:class:`Changes` indexes a commit's effects by table. :func:`customer_links`
ties the customers whose records changed to the tickets the transaction
touched, the way the policy links the two systems: a ticket's requester is a
Zendesk user, a customer profile has an email, and "both systems link via
email address". Both sides are looked up by key in one round
(:func:`link_queries`): the Zendesk user of every touched ticket, the profile
of every customer named by a changed record.

A ticket that no changed record links to (a follow-up where only the ticket
changes) reaches its customer the other way round, in a second round
(:func:`requester_queries`, read by :func:`requester_profiles`): its
requester's email, then the profiles with that email. Emails are matched
exactly there (an equality read), case-insensitively between the two sides
of a :class:`CustomerLink`.

The tier a ticket's priority follows is the customer's tier when they
contacted support, so a profile this transaction changed (a membership
upgrade or cancellation) counts with its tier from before the change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from judges import Effect, EffectKind, Finding, Query, Severity, StateSnapshot

__all__ = [
    "CUSTOMER_COLUMN",
    "Changes",
    "CustomerLink",
    "customer_links",
    "finding",
    "link_queries",
    "money",
    "requester_profiles",
    "requester_queries",
    "timestamp",
]

CUSTOMER_COLUMN: Mapping[str, str] = {
    "rma_records": "customer_id",
    "warranty_claims": "customer_id",
    "installation_jobs": "customer_id",
    "orders": "customer_id",
    "payment_transactions": "customer_id",
    "membership_records": "customer_id",
    "customer_profiles": "id",
}
"""Tables whose rows name the customer they belong to, and the column that does."""

TICKETS = "zendesk_tickets"


@dataclass(frozen=True)
class Changes:
    """A commit's effects by table, in commit order."""

    effects: Sequence[Effect]
    _by_table: dict[str, list[Effect]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        by_table: dict[str, list[Effect]] = {}
        for effect in self.effects:
            by_table.setdefault(effect.table, []).append(effect)
        object.__setattr__(self, "_by_table", by_table)

    def of(self, table: str) -> list[Effect]:
        return self._by_table.get(table, [])

    def inserted(self, table: str) -> list[Effect]:
        return [e for e in self.of(table) if e.kind is EffectKind.INSERT]

    def updated(self, table: str, *fields: str) -> list[Effect]:
        """Updates of ``table``; with ``fields``, only those that changed one of them."""
        return [
            e
            for e in self.of(table)
            if e.kind is EffectKind.UPDATE and (not fields or set(fields) & set(e.changed_fields))
        ]

    def tickets(self) -> list[Effect]:
        return [e for e in self.of(TICKETS) if e.after is not None]

    def customer_ids(self) -> list[str]:
        seen: dict[str, None] = {}
        for table, column in CUSTOMER_COLUMN.items():
            for effect in self.of(table):
                value = effect.row.get(column)
                if isinstance(value, str) and value:
                    seen.setdefault(value, None)
        return list(seen)

    def for_customer(self, table: str, customer_id: str) -> list[Effect]:
        column = CUSTOMER_COLUMN[table]
        return [e for e in self.of(table) if e.row.get(column) == customer_id]


@dataclass(frozen=True)
class CustomerLink:
    """A customer whose records changed: their profile and the touched tickets they requested."""

    customer_id: str
    profile: Mapping[str, Any] | None
    tier: str | None
    tickets: tuple[Effect, ...]

    @property
    def email(self) -> str | None:
        email = None if self.profile is None else self.profile.get("email")
        return email if isinstance(email, str) else None

    @property
    def score(self) -> int | None:
        score = None if self.profile is None else self.profile.get("customer_score")
        return score if isinstance(score, int) and not isinstance(score, bool) else None


def link_queries(changes: Changes) -> list[Query]:
    """The rows :func:`customer_links` reads: requesters of touched tickets, profiles of customers."""
    queries: dict[Query, None] = {}
    for ticket in changes.tickets():
        requester = ticket.row.get("requester_id")
        if requester is not None:
            queries.setdefault(Query.one("zendesk_users", id=str(requester)), None)
    for customer_id in changes.customer_ids():
        queries.setdefault(Query.one("customer_profiles", id=customer_id), None)
    return list(queries)


def _requester_email(ticket: Effect, state: StateSnapshot) -> str | None:
    requester = ticket.row.get("requester_id")
    if requester is None:
        return None
    user = state.one("zendesk_users", id=str(requester))
    email = None if user is None else user.get("email")
    return email if isinstance(email, str) and email else None


def _profiles_by_email(email: str) -> Query:
    return Query.of("customer_profiles", None, email=email)


def requester_queries(changes: Changes, state: StateSnapshot) -> list[Query]:
    """After :func:`link_queries`' round: the profiles with the email of a touched ticket's requester."""
    queries: dict[Query, None] = {}
    for ticket in changes.tickets():
        email = _requester_email(ticket, state)
        if email is not None:
            queries.setdefault(_profiles_by_email(email), None)
    return list(queries)


def requester_profiles(ticket: Effect, state: StateSnapshot) -> tuple[Mapping[str, Any], ...]:
    """The profiles of a ticket's requester, by email (usually one; none when the user has no profile)."""
    email = _requester_email(ticket, state)
    return () if email is None else state.rows(_profiles_by_email(email))


def customer_links(changes: Changes, state: StateSnapshot) -> list[CustomerLink]:
    """Every customer named by a changed record, with the touched tickets whose requester has their email."""
    emails: dict[str, list[Effect]] = {}
    for ticket in changes.tickets():
        requester = ticket.row.get("requester_id")
        if requester is None:
            continue
        user = state.one("zendesk_users", id=str(requester))
        email = None if user is None else user.get("email")
        if isinstance(email, str):
            emails.setdefault(email.strip().lower(), []).append(ticket)
    links: list[CustomerLink] = []
    for customer_id in changes.customer_ids():
        profile = state.one("customer_profiles", id=customer_id)
        tier = None if profile is None else profile.get("customer_tier")
        for effect in changes.of("customer_profiles"):
            if effect.key_text == customer_id and effect.before is not None:
                tier = effect.before.get("customer_tier")
        email = None if profile is None else profile.get("email")
        tickets = emails.get(email.strip().lower(), []) if isinstance(email, str) else []
        known = tier if isinstance(tier, str) else None
        links.append(CustomerLink(customer_id, profile, known, tuple(tickets)))
    return links


def finding(judge: str, rule: str, effect: Effect, message: str, hint: str, *records: Any) -> Finding:
    """A blocking finding about ``effect``, naming in its evidence the records it was judged against."""
    evidence: dict[str, Any] = {"table": effect.table, "key": effect.key_text}
    named = [str(record) for record in records if record is not None]
    if named:
        evidence["records"] = named
    return Finding(judge, Severity.BLOCK, message, hint=hint, rule=rule, evidence=evidence)


def money(value: Any) -> float:
    """A stored amount as a float (amounts are kept as floats or their text)."""
    return float(value) if value is not None else 0.0


# Not shared: takes datetimes and str() of non-text, for which parse_moment/parse_instant give None.
def timestamp(value: Any) -> datetime | None:
    """A stored ISO timestamp as an aware datetime (naive values are UTC), or None."""
    if value is None:
        return None
    if isinstance(value, datetime):
        moment = value
    else:
        try:
            moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError:
            return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
