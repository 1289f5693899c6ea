"""What one booking transaction changed, and the rows the cross-record judges read about it.

:class:`Commit` indexes a commit's effects the way the policy talks about
them: the agent's customer tickets (not the hotel-escalation tracking
tickets ``hotel_partner_api_escalate_to_hotel`` writes, ids ``ZDSK-…``), the
bookings changed (cancelled, re-dated, re-roomed, given special requests),
the payments added and the customer profiles updated.

Its :func:`commit_queries` are the rows every booking judge may read, fetched
in one round by equality: the booking a ticket or payment names, and for
every changed booking its hotel, customer profile, corporate account and
group. A booking the commit did not change is read as it stands; one it
changed is read from the effect, so its state *before* the commit (the
check-in date the customer had, the status it was in) stays at hand.
A ticket's booking that the commit neither changed nor paid is known only
after that round; :func:`requester_queries` names, in a second round, the
rows that say who may request its ticket (the customer's profile, the
group's coordinator, the hotel's contacts).

A ticket *covers* a booking when it names its reference, or names (or is
about a booking of) the same group: the policy documents a group request on
one ticket carrying the first booking's reference and the group id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from benchmark.domains.booking.judges.policy import (
    Account,
    cancellation_refund,
    hours_between,
    money,
    parse_moment,
)
from judges import Effect, EffectKind, Query, StateSnapshot

__all__ = [
    "BOOKING_FIELDS",
    "PRICED",
    "BookingChange",
    "Commit",
    "CommitJudge",
    "Terms",
    "commit_queries",
    "is_escalation_ticket",
    "requester_queries",
]

TICKETS = "zendesk_tickets"
PRICED = ("check_in_date", "check_out_date", "room_type", "board_type")
"""Booking fields whose change re-prices the stay."""
GUESTS = ("adults_count", "children_count")
BOOKING_FIELDS = (*PRICED, *GUESTS, "special_requests")
"""Booking fields a modification changes."""
RESOLVING = ("pending", "hold", "solved")

Row = Mapping[str, Any]


def is_escalation_ticket(effect: Effect) -> bool:
    """A tracking ticket written by the hotel-escalation tool, not one of the agent's tickets."""
    return effect.key_text.startswith("ZDSK-")


@dataclass(frozen=True)
class BookingChange:
    """One booking the commit changed: its row before and after, and what kind of change it was."""

    effect: Effect

    @property
    def before(self) -> Row:
        return self.effect.before or {}

    @property
    def after(self) -> Row:
        return self.effect.row

    @property
    def reference(self) -> str:
        return str(self.after.get("booking_reference"))

    @property
    def group(self) -> str | None:
        value = self.after.get("group_booking_id")
        return str(value) if value else None

    @property
    def cancelled(self) -> bool:
        return (
            self.before.get("booking_status") != "cancelled"
            and self.after.get("booking_status") == "cancelled"
        )

    @property
    def fields(self) -> tuple[str, ...]:
        """The modification fields that changed (dates, room, board, guests, special requests)."""
        return tuple(f for f in BOOKING_FIELDS if f in self.effect.changed_fields)

    @property
    def modified(self) -> bool:
        """A modification of a confirmed booking that can carry a fee: dates, room, board or guests.

        (A group's cancelled rooms that the group tool moves along are not modified for the policy.)
        """
        if self.before.get("booking_status") != "confirmed":
            return False
        return any(f in self.effect.changed_fields for f in (*PRICED, *GUESTS))

    @property
    def new_requests(self) -> list[str]:
        old = self.before.get("special_requests") or []
        return [r for r in self.after.get("special_requests") or [] if isinstance(r, str) and r not in old]

    @property
    def price_difference(self) -> float:
        return money(self.after.get("booking_value")) - money(self.before.get("booking_value"))


@dataclass(frozen=True, slots=True)
class Terms:
    """What a booking's policy depends on: hours until check-in, hotel, customer and account tiers."""

    hours: float
    hotel_tier: str
    vip_tier: str
    account: Account
    value: float


@dataclass
class Commit:
    """A commit's effects grouped as the policy sees them, with the fetched rows."""

    effects: Sequence[Effect]
    state: StateSnapshot = field(default_factory=StateSnapshot)
    tickets: list[Effect] = field(default_factory=list)
    escalations: list[Effect] = field(default_factory=list)
    bookings: list[BookingChange] = field(default_factory=list)
    payments: list[Effect] = field(default_factory=list)
    profiles: list[Effect] = field(default_factory=list)

    def __post_init__(self) -> None:
        for effect in self.effects:
            if effect.table == TICKETS and effect.after is not None:
                (self.escalations if is_escalation_ticket(effect) else self.tickets).append(effect)
            elif effect.table == "bookings" and effect.kind is EffectKind.UPDATE:
                self.bookings.append(BookingChange(effect))
            elif effect.table == "transactions" and effect.kind is EffectKind.INSERT:
                self.payments.append(effect)
            elif effect.table == "customer_profiles" and effect.kind is EffectKind.UPDATE:
                self.profiles.append(effect)

    # --- rows -----------------------------------------------------------------------------------
    def booking(self, reference: Any) -> Row | None:
        """A booking as the commit leaves it (changed ones from their effect)."""
        if not reference:
            return None
        for change in self.bookings:
            if change.reference == reference:
                return change.after
        return _first(self.state, "bookings", booking_reference=str(reference))

    def booking_before(self, reference: Any) -> Row | None:
        """A booking as it was before the commit."""
        for change in self.bookings:
            if change.reference == reference:
                return change.before
        return self.booking(reference)

    def change_of(self, reference: Any) -> BookingChange | None:
        return next((c for c in self.bookings if c.reference == reference), None)

    def hotel(self, booking: Row) -> Row | None:
        return _first(self.state, "hotels", hotel_id=booking.get("hotel_id"))

    def profile(self, customer_id: Any) -> Row | None:
        return _first(self.state, "customer_profiles", customer_id=customer_id)

    def account(self, booking: Row) -> Row | None:
        return _first(
            self.state, "corporate_accounts", corporate_account_id=booking.get("corporate_account_id")
        )

    def group(self, group_id: Any) -> Row | None:
        return _first(self.state, "group_bookings", group_booking_id=group_id)

    def group_size(self, group_id: Any, default: int) -> int:
        """The group's room count (``total_rooms``, else its references), or ``default``."""
        group = self.group(group_id) or {}
        return int(group.get("total_rooms") or len(group.get("booking_references") or ()) or default)

    def group_rooms(self, group_id: Any) -> tuple[Row, ...]:
        if not group_id:
            return ()
        try:
            return self.state.rows(_query("bookings", group_booking_id=group_id))
        except KeyError:
            return ()

    def inventory(self, booking: Row) -> tuple[Row, ...]:
        """The hotel's nightly inventory of the booking's room and board type."""
        where = {k: booking.get(k) for k in ("hotel_id", "room_type", "board_type")}
        if any(value in (None, "") for value in where.values()):
            return ()
        try:
            return self.state.rows(_query("hotel_inventory", **where))
        except KeyError:
            return ()

    def requester(self, ticket: Effect) -> Row | None:
        return _first(self.state, "zendesk_users", id=ticket.row.get("requester_id"))

    def vip_tier(self, booking: Row) -> str:
        profile = self.profile(booking.get("customer_id"))
        return str(profile.get("vip_tier") or "standard") if profile else "standard"

    def terms(self, booking: Row, now: datetime) -> Terms:
        """The terms of ``booking`` (a row as it was before the commit) at ``now``."""
        check_in = parse_moment(booking.get("check_in_date"))
        hotel = self.hotel(booking) or {}
        return Terms(
            hours=hours_between(now, check_in) if check_in else 0.0,
            hotel_tier=str(hotel.get("partner_tier") or "standard"),
            vip_tier=self.vip_tier(booking),
            account=Account.of(self.account(booking)),
            value=money(booking.get("booking_value")),
        )

    def cancellation(self, change: BookingChange, now: datetime) -> tuple[float, float]:
        """The refund the policy gives for cancelling ``change``'s booking, and its share of the value."""
        terms = self.terms(change.before, now)
        return cancellation_refund(terms.value, terms.hours, terms.hotel_tier, terms.vip_tier, terms.account)

    def profile_before(self, customer_id: Any) -> Row | None:
        for effect in self.profiles:
            if effect.row.get("customer_id") == customer_id:
                return effect.before
        return self.profile(customer_id)

    # --- coverage -------------------------------------------------------------------------------
    def groups_of(self, ticket: Effect) -> set[str]:
        """The groups a ticket is about: the one it names and the one of the booking it names."""
        groups = set()
        if ticket.row.get("group_booking_id"):
            groups.add(str(ticket.row["group_booking_id"]))
        booking = self.booking(ticket.row.get("booking_reference"))
        if booking is not None and booking.get("group_booking_id"):
            groups.add(str(booking["group_booking_id"]))
        return groups

    def covers(self, ticket: Effect, booking: Row | None, reference: Any = None) -> bool:
        """Whether ``ticket`` documents work on ``booking`` (or on a reference no booking has)."""
        reference = booking.get("booking_reference") if booking is not None else reference
        if reference is not None and ticket.row.get("booking_reference") == reference:
            return True
        group = booking.get("group_booking_id") if booking is not None else None
        return bool(group) and group in self.groups_of(ticket)

    def tickets_for(self, booking: Row | None, reference: Any = None) -> list[Effect]:
        return [t for t in self.tickets if self.covers(t, booking, reference)]

    def payments_of(self, ticket: Effect, kind: str) -> list[Effect]:
        """The payments of ``kind`` (charge, refund, dispute) on bookings the ticket covers."""
        found = []
        for payment in self.payments:
            if payment.row.get("transaction_type") != kind:
                continue
            reference = payment.row.get("booking_reference")
            if self.covers(ticket, self.booking(reference), reference):
                found.append(payment)
        return found

    def changes_of(self, ticket: Effect) -> list[BookingChange]:
        return [c for c in self.bookings if self.covers(ticket, c.after)]


_ONE = frozenset(
    {"bookings", "hotels", "customer_profiles", "corporate_accounts", "group_bookings", "zendesk_users"}
)
"""Tables read one row at a time by their natural key (limit 1, as the rule pack's ``one:`` lookups)."""


def _query(table: str, **where: Any) -> Query:
    single = table in _ONE and not ({"group_booking_id"} == set(where) and table == "bookings")
    return Query.of(table, 1 if single else None, **{k: str(v) for k, v in where.items()})


def _first(state: StateSnapshot, table: str, **where: Any) -> Row | None:
    if any(value in (None, "") for value in where.values()):
        return None
    try:
        return state.first(_query(table, **where))
    except KeyError:
        return None


class CommitJudge:
    """What the booking judges share: the rows they read (their windows run from the commit time)."""

    name: str

    def queries(self, effects: Sequence[Effect]) -> list[Query]:
        return commit_queries(effects)


def commit_queries(effects: Iterable[Effect]) -> list[Query]:
    """Every row the booking judges read for these effects (deduplicated, by equality)."""
    wanted: dict[Query, None] = {}

    def want(table: str, **where: Any) -> None:
        if all(value not in (None, "") for value in where.values()):
            wanted.setdefault(_query(table, **where), None)

    for effect in effects:
        row = effect.row
        if effect.table == TICKETS and not is_escalation_ticket(effect):
            want("zendesk_users", id=row.get("requester_id"))
            want("bookings", booking_reference=row.get("booking_reference"))
            want("bookings", group_booking_id=row.get("group_booking_id"))
            want("group_bookings", group_booking_id=row.get("group_booking_id"))
            if money(row.get("refund_amount")) > 0 and (
                effect.before is None or "refund_amount" in effect.changed_fields
            ):
                want("transactions", booking_reference=row.get("booking_reference"))
        elif effect.table == TICKETS:
            want("bookings", booking_reference=row.get("booking_reference"))
        elif effect.table == "bookings":
            want("hotels", hotel_id=row.get("hotel_id"))
            want("customer_profiles", customer_id=row.get("customer_id"))
            want("corporate_accounts", corporate_account_id=row.get("corporate_account_id"))
            want("group_bookings", group_booking_id=row.get("group_booking_id"))
            want("bookings", group_booking_id=row.get("group_booking_id"))
            if set(PRICED) & set(effect.changed_fields):
                want(
                    "hotel_inventory",
                    hotel_id=row.get("hotel_id"),
                    room_type=row.get("room_type"),
                    board_type=row.get("board_type"),
                )
        elif effect.table == "transactions":
            want("bookings", booking_reference=row.get("booking_reference"))
            want("customer_profiles", customer_id=row.get("customer_id"))
    return list(wanted)


def requester_queries(effects: Iterable[Effect], state: StateSnapshot) -> list[Query]:
    """After :func:`commit_queries`' round: who may request each customer ticket's booking.

    For the booking a ticket names: its customer's profile and its group (a
    group's coordinator requests for the group) and, for a hotel partner's
    ticket, its hotel (whose contact requests).
    """
    wanted: dict[Query, None] = {}
    for effect in effects:
        if effect.table != TICKETS or effect.after is None or is_escalation_ticket(effect):
            continue
        booking = _first(state, "bookings", booking_reference=effect.row.get("booking_reference"))
        if booking is None:
            continue
        for table, column in (("customer_profiles", "customer_id"), ("group_bookings", "group_booking_id")):
            if booking.get(column) not in (None, ""):
                wanted.setdefault(_query(table, **{column: booking.get(column)}), None)
        if "hotel-partner" in (effect.row.get("tags") or ()) and booking.get("hotel_id") not in (None, ""):
            wanted.setdefault(_query("hotels", hotel_id=booking.get("hotel_id")), None)
    return list(wanted)
