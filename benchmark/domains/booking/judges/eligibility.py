"""Whether a booking could be modified in this commit at all, or needed the hotel or a manager first.

Rules (judge ``booking_eligibility``), for each confirmed booking whose
dates, room, board or guests the commit changed:

* ``modification-availability`` — the requested room and board are free for
  every night of the new stay, for all the rooms moved there (4.1.2:
  "Requested room/date combination is available at hotel");
* ``modification-budget-same-day`` — a budget hotel takes no modification
  under 24 hours before check-in, whatever the customer's or account's tier
  (4.1.2, 4.1.5: "must cancel and rebook");
* ``modification-manager-approval`` — a booking of an active mid-market
  account worth $1,000 or more before the change is not modified until a
  manager approves: the ticket goes on hold first (4.1.4, 4.1.6);
* ``modification-hotel-confirmation`` — the hotel confirms first: a
  same-day change at a standard or premium hotel for a standard-tier
  customer (4.1.5, 4.9.1), and group changes by size and timing (4.7.2:
  16+ rooms always, unless premium ≥ 7 days out; 6–15 rooms under 48 h, or
  under 7 days at a budget hotel; 2–5 rooms under 48 h), and a group's
  special requests at a budget hotel within 7 days (4.5.2).

Approval or confirmation that came in an earlier conversation shows on the
ticket: it was on hold, or carried an escalation reason, before this commit.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from benchmark.domains.booking.judges.commit import (
    PRICED,
    BookingChange,
    Commit,
    CommitJudge,
    Row,
)
from benchmark.domains.booking.judges.findings import finding
from benchmark.domains.booking.judges.policy import group_needs_hotel, parse_moment, same_day_needs_hotel
from judges import CommitContext, Finding, Verdict, commit_time

__all__ = ["EligibilityJudge"]


class EligibilityJudge(CommitJudge):
    """Modifications against the hotel's, the hotel partner's and the manager's say."""

    name = "booking_eligibility"

    def __call__(self, context: CommitContext) -> Verdict:
        now = commit_time(context)
        commit = Commit(context.effects, context.state)
        findings: list[Finding] = []
        reported: set[tuple[str, str]] = set()
        findings.extend(self._availability(commit))
        for change in commit.bookings:
            if change.cancelled:
                continue
            found: list[Finding] = []
            if change.modified:
                found.extend(self._check(commit, change, now))
            if change.new_requests and change.group:
                found.extend(self._group_request(commit, change, now))
            for one in found:
                # a group's rooms share one reason: it is reported once, on the first room
                scope = (str(one.rule), change.group or change.reference)
                if scope not in reported:
                    reported.add(scope)
                    findings.append(one)
        return Verdict.of(findings)

    def _group_request(self, commit: Commit, change: BookingChange, now: datetime) -> list[Finding]:
        terms = commit.terms(change.before, now)
        if terms.hotel_tier != "budget" or terms.hours >= 168 or self._earlier_clearance(commit, change):
            return []
        return [
            self._finding(
                "modification-hotel-confirmation",
                f"booking {change.reference}: special request added {terms.hours:.0f} h before check-in, in "
                f"group {change.group} at a budget hotel",
                "allowed: no change before the hotel confirms; a hotel-confirmation-required escalation and "
                "the ticket on hold meanwhile",
                change,
            )
        ]

    def _check(self, commit: Commit, change: BookingChange, now: datetime) -> list[Finding]:
        terms = commit.terms(change.before, now)
        changed = ", ".join(f for f in change.fields if f != "special_requests")
        subject = f"booking {change.reference}: {changed} changed {terms.hours:.0f} h before check-in"
        if terms.hotel_tier == "budget" and terms.hours < 24:
            return [
                self._finding(
                    "modification-budget-same-day",
                    f"{subject} at a budget hotel",
                    "allowed: no modification under 24 h at a budget hotel (policy-applied-no-action; "
                    "cancelling and rebooking is the alternative)",
                    change,
                )
            ]
        if self._earlier_clearance(commit, change):
            return []
        if terms.account.tier == "mid_market" and terms.value >= 1000:
            return [
                self._finding(
                    "modification-manager-approval",
                    f"{subject}, a mid-market corporate booking worth {terms.value:.2f}",
                    "allowed: no change before a manager approves; the ticket on hold meanwhile",
                    change,
                )
            ]
        group_id = change.group
        if group_id:
            size = commit.group_size(group_id, 1)
            if group_needs_hotel(terms.hours, size, terms.hotel_tier):
                return [
                    self._finding(
                        "modification-hotel-confirmation",
                        f"{subject}, in group {group_id} of {size} rooms at a {terms.hotel_tier} hotel",
                        "allowed: no change before the hotel approves; a hotel escalation and the ticket "
                        "on hold meanwhile",
                        change,
                    )
                ]
        elif same_day_needs_hotel(terms.hours, terms.hotel_tier, terms.vip_tier):
            return [
                self._finding(
                    "modification-hotel-confirmation",
                    f"{subject} at a {terms.hotel_tier} hotel for a {terms.vip_tier}-tier customer",
                    "allowed: no change before the hotel confirms; a same-day-modification escalation "
                    "and the ticket on hold meanwhile",
                    change,
                )
            ]
        return []

    def _availability(self, commit: Commit) -> list[Finding]:
        """Every night of a re-dated or re-roomed stay has the room and board free, for all rooms moved."""
        moved: dict[tuple[str, str, str, date], list[BookingChange]] = {}
        for change in commit.bookings:
            if not change.modified or not set(PRICED) & set(change.fields):
                continue
            after = change.after
            for night in _nights(after):
                key = (
                    str(after.get("hotel_id")),
                    str(after.get("room_type")),
                    str(after.get("board_type")),
                    night,
                )
                moved.setdefault(key, []).append(change)
        findings: list[Finding] = []
        reported: set[str] = set()
        for (hotel, room, board, night), changes in moved.items():
            free = {
                moment.date(): int(row.get("available_count") or 0)
                for row in commit.inventory(changes[0].after)
                if (moment := parse_moment(row.get("date"))) is not None
            }.get(night, 0)
            if free >= len(changes) or changes[0].reference in reported:
                continue
            reported.add(changes[0].reference)
            findings.append(
                self._finding(
                    "modification-availability",
                    f"booking {changes[0].reference}: {room}, {board} at {hotel} on {night.isoformat()} for "
                    f"{len(changes)} room(s), {free} available",
                    "allowed: a room and board free for every night of the stay (otherwise "
                    "policy-applied-no-action)",
                    changes[0],
                )
            )
        return findings

    def _earlier_clearance(self, commit: Commit, change: BookingChange) -> bool:
        for ticket in commit.tickets_for(change.after):
            before = ticket.before or {}
            if before.get("status") == "hold" or before.get("escalation_reason"):
                return True
        return False

    def _finding(self, rule: str, message: str, hint: str, change: BookingChange) -> Finding:
        return finding(self.name, rule, message, hint, change.effect, [change.reference])


def _nights(booking: Row) -> list[date]:
    """The calendar nights of a stay, check-in date up to (not including) check-out date."""
    check_in = parse_moment(booking.get("check_in_date"))
    check_out = parse_moment(booking.get("check_out_date"))
    if check_in is None or check_out is None:
        return []
    first, last = check_in.date(), check_out.date()
    return [first + timedelta(days=n) for n in range((last - first).days)]
