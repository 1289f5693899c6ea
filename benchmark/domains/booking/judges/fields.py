"""Ticket fields that follow the booking and the clock: priority, check-in tag, dates, group value.

Rules (judge ``booking_ticket_fields``), for every ticket the commit moves to
pending, hold or solved whose booking_reference names a booking:

* ``ticket-priority`` — "Priority Assignment", highest applicable: check-in
  today urgent, under 48 h high, later normal; post-stay and in-stay
  requests normal; a payment issue blocking travel may be high; a question
  may be low (an invoice, a verification, general information); a hotel
  partner's request is low, urgent for a same-day arrival. A question about
  a booking that does not exist is low;
* ``ticket-check-in-tag`` — "Required Tags": a customer's ticket about a
  confirmed upcoming stay carries its one check-in tag (today, within 24 h,
  upcoming); no check-in tag otherwise (a hotel partner's is optional);
* ``ticket-check-in-date`` — a ticket's check_in_date is the booking's, as
  the commit leaves it (a date change waiting on hold may name the requested
  date);
* ``ticket-group-value`` — a group ticket's booking_value is the value of
  some of the group's rooms ("total group booking value", "affected rooms
  only", "remaining rooms"), room values taken before or after the commit.

The booking is read as it was before the commit (its check-in and status
when the customer called).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from benchmark.domains.booking.judges.commit import RESOLVING, Commit, CommitJudge, Row
from benchmark.domains.booking.judges.findings import finding
from benchmark.domains.booking.judges.policy import (
    CENT,
    check_in_priority,
    check_in_tag,
    higher,
    money,
    parse_moment,
)
from judges import CommitContext, Effect, Finding, Verdict, commit_time

__all__ = ["TicketFieldsJudge"]

_TIMING_TAGS = ("check-in-today", "check-in-24h", "check-in-upcoming")
_ORDER = ("urgent", "high", "normal", "low")


class TicketFieldsJudge(CommitJudge):
    """Ticket priority, check-in tag, check-in date and group value against the booking."""

    name = "booking_ticket_fields"

    def __call__(self, context: CommitContext) -> Verdict:
        now = commit_time(context)
        commit = Commit(context.effects, context.state)
        findings: list[Finding] = []
        for ticket in commit.tickets:
            if ticket.row.get("status") not in RESOLVING:
                continue
            reference = ticket.row.get("booking_reference")
            booking = commit.booking_before(reference)
            findings.extend(self._priority(ticket, booking, now))
            if booking is None:
                continue
            findings.extend(self._tag(ticket, booking, now))
            findings.extend(self._check_in_date(commit, ticket))
            findings.extend(self._group_value(commit, ticket, booking))
        return Verdict.of(findings)

    def _priority(self, ticket: Effect, booking: Row | None, now: datetime) -> list[Finding]:
        row = ticket.row
        priority = row.get("priority")
        question = row.get("type") == "question"
        partner = "hotel-partner" in (row.get("tags") or ())
        check_in = parse_moment(booking.get("check_in_date")) if booking else None
        status = booking.get("booking_status") if booking else None
        why: str
        if booking is None:
            if not question or not row.get("booking_reference"):
                return []
            allowed, why = {"low"}, f"a question about {row.get('booking_reference')}, which is no booking"
        elif check_in is None:
            return []
        elif partner:
            today = check_in.date() == now.date()
            allowed = {"low", "urgent"} if today else {"low"}
            why = f"a hotel partner's request, check-in {check_in.date().isoformat()}"
        elif status in ("checked_out", "checked_in") or (check_in < now and check_in.date() != now.date()):
            allowed = {"normal", "low"} if question else {"normal"}
            why = f"a {status} booking (post-stay or in-stay)"
        else:
            proximity = check_in_priority(check_in, now)
            hours = (check_in - now).total_seconds() / 3600
            allowed = {proximity}
            if row.get("request_type_detail") == "billing-inquiry":
                allowed.add(higher(proximity, "high"))
            if question or status == "cancelled":
                allowed.add("low")
            why = f"check-in {check_in.isoformat()} ({hours:.0f} h away)"
        if priority in allowed:
            return []
        return [
            finding(
                self.name,
                "ticket-priority",
                f"ticket {ticket.key_text}: priority '{priority}' for {why}",
                "allowed: " + ", ".join(p for p in _ORDER if p in allowed),
                ticket,
                [str(row.get("booking_reference"))],
            )
        ]

    def _tag(self, ticket: Effect, booking: Row, now: datetime) -> list[Finding]:
        tags = [t for t in ticket.row.get("tags") or () if t in _TIMING_TAGS]
        check_in = parse_moment(booking.get("check_in_date"))
        upcoming = (
            booking.get("booking_status") == "confirmed"
            and check_in is not None
            and (check_in >= now or check_in.date() == now.date())
        )
        expected = check_in_tag(check_in, now) if upcoming and check_in is not None else None
        partner = "hotel-partner" in (ticket.row.get("tags") or ())
        if expected is not None and (tags == [expected] or (partner and not tags)):
            return []
        if expected is None and not tags:
            return []
        reference = ticket.row.get("booking_reference")
        if expected is None:
            status = booking.get("booking_status")
            why = f"booking {reference} is '{status}', check-in {booking.get('check_in_date')}"
            hint = "allowed: no check-in tag"
        else:
            why = f"booking {reference} checks in {booking.get('check_in_date')}"
            hint = f"allowed: {expected}"
        return [
            finding(
                self.name,
                "ticket-check-in-tag",
                f"ticket {ticket.key_text}: check-in tags {_compact(tags)} while {why}",
                hint,
                ticket,
                [str(reference)],
            )
        ]

    def _check_in_date(self, commit: Commit, ticket: Effect) -> list[Finding]:
        row = ticket.row
        recorded = parse_moment(row.get("check_in_date"))
        waiting_date_change = (
            row.get("status") != "solved" and row.get("request_type_detail") == "modify-dates"
        )
        if waiting_date_change or recorded is None:
            return []
        booking = commit.booking(row.get("booking_reference")) or {}
        actual = parse_moment(booking.get("check_in_date"))
        if actual is None or actual.date() == recorded.date():
            return []
        return [
            finding(
                self.name,
                "ticket-check-in-date",
                f"ticket {ticket.key_text}: check_in_date {row.get('check_in_date')} while booking "
                f"{row.get('booking_reference')} checks in {booking.get('check_in_date')}",
                f"allowed: {booking.get('check_in_date')}",
                ticket,
                [str(row.get("booking_reference"))],
            )
        ]

    def _group_value(self, commit: Commit, ticket: Effect, booking: Row) -> list[Finding]:
        row = ticket.row
        group = booking.get("group_booking_id")
        if not group or row.get("booking_value") is None or row.get("group_booking_id") != group:
            return []
        value = money(row.get("booking_value"))
        rooms: list[tuple[float, float, Any]] = []
        for room in commit.group_rooms(group):
            before = commit.booking_before(room.get("booking_reference")) or room
            rooms.append((money(before.get("booking_value")), money(room.get("booking_value")), room))
        if not rooms or _is_room_total(value, rooms, commit.group_size(group, len(rooms))):
            return []
        return [
            finding(
                self.name,
                "ticket-group-value",
                f"ticket {ticket.key_text}: booking_value {value:.2f} for group {group} of "
                f"{commit.group_size(group, len(rooms))} rooms "
                f"worth {sorted({v for pair in rooms for v in pair[:2]})} each",
                "allowed: the value of the group's rooms concerned (all, affected or remaining)",
                ticket,
                [str(group)],
            )
        ]


def _compact(values: list[str]) -> str:
    """A list as compact JSON, as the rule pack's messages write lists."""
    return json.dumps(values, separators=(",", ":"))


def _is_room_total(value: float, rooms: list[tuple[float, float, Any]], count: int) -> bool:
    """Whether ``value`` is k rooms' worth (k ≤ the group's ``count`` of rooms) or a sum the policy names."""
    for per_room in {v for pair in rooms for v in pair[:2] if v > 0}:
        k = round(value / per_room)
        if 1 <= k <= count and abs(value - k * per_room) <= CENT:
            return True
    sums = [
        sum(before for before, _, _ in rooms),
        sum(after for _, after, _ in rooms),
        sum(after for _, after, room in rooms if room.get("booking_status") != "cancelled"),
    ]
    return any(abs(value - total) <= CENT for total in sums)
