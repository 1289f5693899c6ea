"""The ticket that documents a booking's work, and whether it says what the commit did.

"Every request creates or updates a Zendesk ticket", and its custom fields
record the outcome. Rules (judge ``booking_tickets``):

* ``ticket-every-request`` — a commit creates or updates at least one of the
  agent's tickets ("Every request creates or updates a Zendesk ticket");
* ``ticket-requester`` — the requester of a ticket about a booking (the one
  it names, and those it covers that the commit changed or paid) is that
  customer's Zendesk user, linked by email (for a group, the coordinator's
  too); a hotel partner's ticket is requested by the hotel's contact. The
  named booking's customer, group and hotel are read in a second round
  (``follow_up``);
* ``ticket-documents-action`` — every booking change, charge, refund,
  dispute, hotel escalation and complaint-count change is covered by a ticket
  the commit touched (see :mod:`.commit` for coverage);
* ``ticket-refund-amount`` — a ticket's refund_amount is the sum of the
  refunds on the bookings it covers ("Set to actual refund amount
  processed, or 0 if no refund was issued");
* ``ticket-outcome`` — request_type_detail and resolution_action follow the
  work: a cancellation is ``cancel-booking`` resolved refund-full (a 100%
  refund), refund-partial or, with no refund, modification-completed or
  policy-applied-no-action; a modification is the matching ``modify-…`` (or
  ``add-special-request``) resolved modification-completed; a refund alone
  is refund-partial, or refund-full when it is the whole booking value; a
  ticket resolved as an action (modification-completed, refund-…) names
  work the commit did, and one resolved with no action names none; a
  charge dispute is a ``billing-inquiry`` resolved information-provided
  (4.3.2); a task is an action item, so a task resolved
  information-provided has a dispute (or other work) behind it;
* ``ticket-created-open`` (a warning: creation cannot be redone) — "You
  must always set status to open when you create a new ticket";
* ``ticket-hotel-partner-correction`` — a booking is corrected on a hotel
  partner's report only for a confirmed system error (4.8.2: "StayBridge
  booking data is authoritative"; the ticket records ``system-error``);
* ``ticket-escalation`` — a hotel escalation leaves the customer's ticket on
  ``hold`` with the escalation's reason; a ticket given a hotel escalation
  reason has an escalation behind it ("Do NOT create a separate Zendesk
  ticket": the tool writes the tracking ticket itself).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from benchmark.domains.booking.judges.commit import (
    RESOLVING,
    BookingChange,
    Commit,
    CommitJudge,
    Row,
    requester_queries,
)
from benchmark.domains.booking.judges.findings import finding
from benchmark.domains.booking.judges.policy import CENT, money
from benchmark.domains.zendesk.judging import tickets_not_created_open
from judges import CommitContext, Effect, Finding, Query, Severity, StateSnapshot, Verdict, commit_time

__all__ = ["TicketOutcomeJudge"]

_HOTEL_REASONS = (
    "same-day-modification",
    "hotel-confirmation-required",
    "large-group-booking",
    "guest-complaint",
)
_TICKET_TOOLS = ("zendesk_create_item", "zendesk_update_item")
_ACTION_RESOLUTIONS = ("modification-completed", "refund-full", "refund-partial")
_NO_ACTION = ("information-provided", "policy-applied-no-action")


@dataclass(frozen=True, slots=True)
class _Outcome:
    """What a ticket may say after the commit's work: the request types and resolutions (``None``: any)."""

    work: str = ""
    requests: set[str] | None = None
    resolutions: set[str] | None = None


_REQUEST_FOR = {
    "check_in_date": "modify-dates",
    "check_out_date": "modify-dates",
    "room_type": "modify-room-type",
    "board_type": "modify-board-type",
    "adults_count": "modify-guests",
    "children_count": "modify-guests",
    "special_requests": "add-special-request",
}


class TicketOutcomeJudge(CommitJudge):
    """Tickets against the work the commit did on the bookings they cover."""

    name = "booking_tickets"

    def follow_up(self, effects: Sequence[Effect], state: StateSnapshot) -> list[Query]:
        return requester_queries(effects, state)

    def __call__(self, context: CommitContext) -> Verdict:
        now = commit_time(context)
        commit = Commit(context.effects, context.state)
        findings = self._documented(commit)
        if not commit.tickets:
            findings.insert(0, _no_ticket(self.name, commit))
        for ticket in commit.tickets:
            findings.extend(self._requester(commit, ticket))
            if ticket.row.get("status") not in RESOLVING:
                continue  # ticket-status-at-resolution (rules.yaml) reports it
            findings.extend(self._refund_amount(commit, ticket))
            findings.extend(self._outcome(commit, ticket, now))
            findings.extend(self._escalation_reason(commit, ticket))
        findings.extend(self._escalations(commit))
        findings.extend(tickets_not_created_open(self.name, context.calls))
        return Verdict.of(findings)

    # --- ticket-documents-action ------------------------------------------------------------------
    def _documented(self, commit: Commit) -> list[Finding]:
        findings: list[Finding] = []

        def check(effect: Effect, what: str, booking: Row | None, reference: object) -> None:
            if commit.tickets_for(booking, reference):
                return
            touched = ", ".join(t.key_text for t in commit.tickets) or "none"
            findings.append(
                finding(
                    self.name,
                    "ticket-documents-action",
                    f"{what}: no ticket of this commit names booking {reference} or its group "
                    f"(tickets touched: {touched})",
                    "allowed: a ticket with the booking_reference (or group_booking_id) of the work",
                    effect,
                    [str(reference)],
                )
            )

        for change in commit.bookings:
            check(
                change.effect,
                f"booking {change.reference} changed ({_what(change)})",
                change.after,
                change.reference,
            )
        for payment in commit.payments:
            reference = payment.row.get("booking_reference")
            kind = payment.row.get("transaction_type")
            what = f"{kind} {payment.key_text} of {money(payment.row.get('amount')):.2f}"
            check(payment, what, commit.booking(reference), reference)
        for escalation in commit.escalations:
            reference = escalation.row.get("booking_reference")
            what = f"hotel escalation {escalation.key_text} ({escalation.row.get('escalation_reason')})"
            check(escalation, what, commit.booking(reference), reference)
        for profile in commit.profiles:
            if "complaint_count" not in profile.changed_fields:
                continue
            customer = profile.row.get("customer_id")
            covered = any(
                (commit.booking(t.row.get("booking_reference")) or {}).get("customer_id") == customer
                or t.row.get("request_type_detail") == "post-stay-issue"
                for t in commit.tickets
            )
            if not covered:
                findings.append(
                    finding(
                        self.name,
                        "ticket-documents-action",
                        f"customer {customer}: complaint_count changed, no post-stay ticket in this commit",
                        "allowed: a post-stay-issue ticket about the customer's booking",
                        profile,
                        [str(customer)],
                    )
                )
        return findings

    # --- ticket-requester -------------------------------------------------------------------------
    def _requester(self, commit: Commit, ticket: Effect) -> list[Finding]:
        """The requester is the customer of the ticket's bookings (by email), or the hotel's contact."""
        partner = "hotel-partner" in (ticket.row.get("tags") or ())
        bookings = _customer_bookings(commit, ticket)
        named = commit.booking(ticket.row.get("booking_reference"))
        if named is not None:
            bookings.append(named)
        expected: set[str] = set()
        for booking in bookings:
            expected |= _hotel_contacts(commit, booking) if partner else _customers(commit, booking)
        expected.discard("")
        user = commit.requester(ticket)
        email = str((user or {}).get("email") or "").lower()
        if not expected or user is None or email in expected:
            return []
        whose = (
            f"the contact of hotel {(named or bookings[0]).get('hotel_id')}" if partner else "the customer"
        )
        return [
            finding(
                self.name,
                "ticket-requester",
                f"ticket {ticket.key_text}: requester_id '{ticket.row.get('requester_id')}' is {email}, "
                f"not {whose} of {ticket.row.get('booking_reference')}",
                f"allowed: the Zendesk user with email {' or '.join(sorted(expected))}",
                ticket,
                [str(ticket.row.get("booking_reference"))],
            )
        ]

    # --- ticket-refund-amount ---------------------------------------------------------------------
    def _refund_amount(self, commit: Commit, ticket: Effect) -> list[Finding]:
        refunds = commit.payments_of(ticket, "refund")
        recorded = ticket.row.get("refund_amount")
        if refunds:
            total = sum(money(r.row.get("amount")) for r in refunds)
            if recorded is not None and abs(money(recorded) - total) <= CENT:
                return []
            names = ", ".join(f"{r.key_text} {money(r.row.get('amount')):.2f}" for r in refunds)
            return [
                finding(
                    self.name,
                    "ticket-refund-amount",
                    f"ticket {ticket.key_text}: refund_amount {recorded} while this commit refunded {names}",
                    f"allowed: {total:.2f}",
                    ticket,
                    [r.key_text for r in refunds],
                )
            ]
        if money(recorded) <= CENT or not _changed(ticket, "refund_amount"):
            return []
        prior = _prior_refunds(commit, ticket)
        if any(abs(money(recorded) - amount) <= CENT for amount in prior):
            return []
        return [
            finding(
                self.name,
                "ticket-refund-amount",
                f"ticket {ticket.key_text}: refund_amount {recorded} while no refund of that amount exists "
                f"for {ticket.row.get('booking_reference')}",
                "allowed: 0 (no refund was issued), or the refund actually processed",
                ticket,
                [str(ticket.row.get("booking_reference"))],
            )
        ]

    # --- ticket-outcome ---------------------------------------------------------------------------
    def _outcome(self, commit: Commit, ticket: Effect, now: datetime) -> list[Finding]:
        changes = commit.changes_of(ticket)
        expected = self._expected(commit, ticket, changes, now)
        if isinstance(expected, Finding):
            return [expected]
        request = ticket.row.get("request_type_detail")
        findings: list[Finding] = []
        if expected.requests is not None and request not in expected.requests:
            findings.append(
                self._outcome_finding(
                    ticket, f"request_type_detail '{request}' after the {expected.work}", expected.requests
                )
            )
        if ticket.row.get("status") != "solved":
            return findings
        resolution = self._resolution(commit, ticket, changes, expected)
        return findings if resolution is None else [*findings, resolution]

    def _expected(
        self, commit: Commit, ticket: Effect, changes: list[BookingChange], now: datetime
    ) -> _Outcome | Finding:
        """What the ticket may say after the commit's work, or the finding of a partner ticket that cannot."""
        cancelled = [c for c in changes if c.cancelled]
        modified = [c for c in changes if not c.cancelled and c.fields]
        refunds = commit.payments_of(ticket, "refund")
        refunded = sum(money(r.row.get("amount")) for r in refunds)
        if cancelled:
            resolutions = {"modification-completed", "policy-applied-no-action"}
            if refunded > CENT:
                resolutions = {"refund-partial"}
                if all(commit.cancellation(c, now)[1] >= 1.0 for c in cancelled):
                    resolutions.add("refund-full")
            work = "cancellation of " + ", ".join(c.reference for c in cancelled)
            return _Outcome(work, {"cancel-booking"}, resolutions)
        if modified:
            return self._modified(ticket, modified)
        if disputes := commit.payments_of(ticket, "dispute"):
            work = "dispute " + ", ".join(d.key_text for d in disputes)
            return _Outcome(work, {"billing-inquiry"}, {"information-provided"})
        if refunds:
            resolutions = {"refund-partial", "voucher-issued"}
            booking = commit.booking_before(ticket.row.get("booking_reference"))
            if booking is not None and abs(money(booking.get("booking_value")) - refunded) <= CENT:
                resolutions.add("refund-full")
            return _Outcome("refund " + ", ".join(r.key_text for r in refunds), None, resolutions)
        return _Outcome()

    def _modified(self, ticket: Effect, modified: list[BookingChange]) -> _Outcome | Finding:
        fields = {f for c in modified for f in c.fields}
        work = f"{', '.join(sorted(fields))} change of " + ", ".join(c.reference for c in modified)
        requests = {_REQUEST_FOR[f] for f in fields}
        if "special_requests" in fields:
            requests.add("add-special-request")
        if "hotel-partner" not in (ticket.row.get("tags") or ()):
            return _Outcome(work, requests, {"modification-completed"})
        if ticket.row.get("escalation_reason") != "system-error":
            return self._partner_correction(ticket, work, modified)
        return _Outcome(work, {*requests, "other"}, {"modification-completed", "information-provided"})

    def _resolution(
        self, commit: Commit, ticket: Effect, changes: list[BookingChange], expected: _Outcome
    ) -> Finding | None:
        """The finding on a solved ticket's ``resolution_action``, if it does not fit the work."""
        resolution = ticket.row.get("resolution_action")
        if expected.resolutions is not None and resolution not in expected.resolutions:
            detail = f"resolution_action '{resolution}' after the {expected.work}"
            return self._outcome_finding(ticket, detail, expected.resolutions)
        if (
            expected.resolutions is None
            and resolution in _ACTION_RESOLUTIONS
            and _changed(ticket, "resolution_action")
        ):
            detail = (
                f"resolution_action '{resolution}' while this commit changed no booking and refunded "
                f"nothing for {ticket.row.get('booking_reference')}"
            )
            return self._outcome_finding(ticket, detail, set(_NO_ACTION))
        if (
            resolution == "information-provided"
            and ticket.row.get("type") == "task"
            and expected.requests is None
        ):
            return self._outcome_finding(
                ticket,
                "type 'task' resolved 'information-provided' with no action in this commit",
                {"question (an information request)", "incident (a problem such as a payment failure)"},
            )
        charges = commit.payments_of(ticket, "charge")
        if resolution in _NO_ACTION and charges and not changes:
            detail = f"resolution_action '{resolution}' after charge " + ", ".join(
                c.key_text for c in charges
            )
            return self._outcome_finding(ticket, detail, {"modification-completed"})
        return None

    def _partner_correction(self, ticket: Effect, work: str, modified: list[BookingChange]) -> Finding:
        return finding(
            self.name,
            "ticket-hotel-partner-correction",
            f"ticket {ticket.key_text}: {work} on a hotel partner's report, escalation_reason "
            f"{ticket.row.get('escalation_reason')}",
            "allowed: StayBridge data kept as booked unless a system error is confirmed "
            "(escalation_reason system-error)",
            ticket,
            [c.reference for c in modified],
        )

    def _outcome_finding(self, ticket: Effect, detail: str, allowed: set[str]) -> Finding:
        return finding(
            self.name,
            "ticket-outcome",
            f"ticket {ticket.key_text}: {detail}",
            "allowed: " + ", ".join(sorted(allowed)),
            ticket,
            [str(ticket.row.get("booking_reference"))],
        )

    # --- ticket-escalation ------------------------------------------------------------------------
    def _escalations(self, commit: Commit) -> list[Finding]:
        findings: list[Finding] = []
        seen: dict[tuple[object, object], Effect] = {}
        for escalation in commit.escalations:
            reference = escalation.row.get("booking_reference")
            reason = escalation.row.get("escalation_reason")
            earlier = seen.get((reference, reason))
            if earlier is not None:
                findings.append(
                    finding(
                        self.name,
                        "ticket-escalation",
                        f"hotel escalation {escalation.key_text} repeats {earlier.key_text} ({reason}) "
                        f"for {reference}",
                        "allowed: one escalation per booking and reason",
                        escalation,
                        [str(reference), earlier.key_text],
                    )
                )
            seen[(reference, reason)] = escalation
            tickets = commit.tickets_for(commit.booking(reference), reference)
            if not tickets or any(
                t.row.get("status") == "hold" and t.row.get("escalation_reason") == reason for t in tickets
            ):
                continue
            ticket = tickets[0]
            findings.append(
                finding(
                    self.name,
                    "ticket-escalation",
                    f"ticket {ticket.key_text}: status '{ticket.row.get('status')}', escalation_reason "
                    f"{ticket.row.get('escalation_reason')} after hotel escalation {escalation.key_text} "
                    f"({reason})",
                    f"allowed: status hold, escalation_reason {reason}",
                    ticket,
                    [escalation.key_text, str(reference)],
                )
            )
        return findings

    def _escalation_reason(self, commit: Commit, ticket: Effect) -> list[Finding]:
        reason = ticket.row.get("escalation_reason")
        if reason not in _HOTEL_REASONS or not _changed(ticket, "escalation_reason"):
            return []
        if (ticket.before or {}).get("status") == "hold":
            return []  # escalated in an earlier conversation, recorded now
        reference = ticket.row.get("booking_reference")
        if any(
            commit.covers(
                ticket, commit.booking(e.row.get("booking_reference")), e.row.get("booking_reference")
            )
            for e in commit.escalations
        ):
            return []
        return [
            finding(
                self.name,
                "ticket-escalation",
                f"ticket {ticket.key_text}: escalation_reason '{reason}' with no hotel escalation for "
                f"{reference}",
                "allowed: a hotel escalation (hotel_partner_api_escalate_to_hotel) behind the reason, or "
                "no escalation_reason",
                ticket,
                [str(reference)],
            )
        ]


def _customers(commit: Commit, booking: Row) -> set[str]:
    """Who may request a ticket about ``booking``: its customer, and its group's coordinator."""
    emails = set()
    if booking.get("group_booking_id"):
        group = commit.group(booking.get("group_booking_id"))
        if group is not None:
            emails.add(str(group.get("coordinator_email") or "").lower())
    profile = commit.profile(booking.get("customer_id"))
    if profile is not None:
        emails.add(str(profile.get("email") or "").lower())
    return emails


def _hotel_contacts(commit: Commit, booking: Row) -> set[str]:
    """Who may request a hotel partner's ticket about ``booking``: the hotel's contacts."""
    hotel = commit.hotel(booking) or {}
    contacts = (hotel.get("contact_email"), hotel.get("escalation_contact"))
    return {str(c).strip().lower() for c in contacts if isinstance(c, str) and "@" in c}


def _customer_bookings(commit: Commit, ticket: Effect) -> list[Row]:
    """Bookings the ticket covers whose customer this commit reads: changed ones and paid ones."""
    bookings = [c.after for c in commit.changes_of(ticket)]
    for payment in commit.payments:
        booking = commit.booking(payment.row.get("booking_reference"))
        if booking is not None and commit.covers(ticket, booking):
            bookings.append(booking)
    return bookings


def _no_ticket(judge: str, commit: Commit) -> Finding:
    changed = sorted({f"{e.table} {e.key_text}" for e in commit.effects})
    return Finding(
        judge,
        Severity.BLOCK,
        "no ticket was created or updated in this commit"
        + (f" (changed: {', '.join(changed)})" if changed else " (nothing changed)"),
        hint=(
            "allowed: every request creates (zendesk_create_item) or updates (zendesk_update_item) a "
            "Zendesk ticket, left pending, hold or solved"
        ),
        rule="ticket-every-request",
        evidence={"table": "zendesk_tickets", "changed": changed, "tools": list(_TICKET_TOOLS)},
    )


def _changed(ticket: Effect, name: str) -> bool:
    return ticket.before is None or name in ticket.changed_fields


def _what(change: BookingChange) -> str:
    return "cancelled" if change.cancelled else ", ".join(change.fields) or "other fields"


def _prior_refunds(commit: Commit, ticket: Effect) -> list[float]:
    reference = ticket.row.get("booking_reference")
    if not reference:
        return []
    try:
        rows = commit.state.find("transactions", booking_reference=str(reference))
    except KeyError:
        return []
    amounts = [money(r.get("amount")) for r in rows if r.get("transaction_type") == "refund"]
    return amounts + ([sum(amounts)] if len(amounts) > 1 else [])
