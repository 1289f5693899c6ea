"""Money the policy fixes: what a commit charges and refunds for the bookings it touches.

Per *case* (one booking, or every booking of one group, since group charges
land on the group's first booking) the judge compares the payments the
commit adds with what the policy makes them (``booking-money-…`` rules):

* ``booking-money-net`` — for a case whose bookings the commit changed:
  charges − refunds = the price difference of the modified bookings
  + the modification fee (4.1.3–4.1.4 for a booking; 4.7.3 per room for a
  group) + the special-accommodation fees of new requests (4.5.2)
  − the cancellation refunds (4.2.1–4.2.3, per cancelled booking; the whole
  value under the System Error Exception when the ticket records
  ``system-error``; none yet when the refund failed and the ticket holds it
  on ``hold`` with ``system-error``, 4.2.4);
* ``booking-money-unexplained`` — a charge on a booking the commit did not
  change, or a refund with no cancellation, modification or post-stay
  complaint behind it unless its ticket records a ``system-error`` (the
  only other refunds the policy has: billing corrections, 4.3.2 and 4.3.5);
* ``booking-compensation`` — post-stay compensation (4.4): a checked-out
  booking, within the complaint window, a share of the value the table
  allows (all nights or some of them), the customer's complaint_count under
  3 before (3 or more complaints go to the hotel) and raised by one;
* ``booking-refund-cap`` — refunds on one booking never exceed its value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from benchmark.domains.booking.judges.commit import BookingChange, Commit, CommitJudge, Row
from benchmark.domains.booking.judges.findings import finding
from benchmark.domains.booking.judges.policy import (
    CENT,
    compensation_rates,
    group_fee,
    hours_between,
    modification_fee,
    money,
    parse_moment,
    round_cents,
    special_request_fees,
)
from judges import CommitContext, Effect, Finding, Verdict, commit_time

__all__ = ["MoneyJudge"]


@dataclass
class _Case:
    """The bookings of one booking or group, the payments on them, and the policy's expectation."""

    key: str
    changes: list[BookingChange] = field(default_factory=list)
    charges: list[Effect] = field(default_factory=list)
    refunds: list[Effect] = field(default_factory=list)

    @property
    def net(self) -> float:
        return sum(money(p.row.get("amount")) for p in self.charges) - sum(
            money(p.row.get("amount")) for p in self.refunds
        )

    def payment_text(self) -> str:
        parts = [f"charge {p.key_text} {money(p.row.get('amount')):.2f}" for p in self.charges]
        parts += [f"refund {p.key_text} {money(p.row.get('amount')):.2f}" for p in self.refunds]
        return ", ".join(parts) or "no charge or refund"


class MoneyJudge(CommitJudge):
    """Charges and refunds against the fee, refund and compensation tables."""

    name = "booking_money"

    def __call__(self, context: CommitContext) -> Verdict:
        now = commit_time(context)
        commit = Commit(context.effects, context.state)
        findings: list[Finding] = []
        for case in self._cases(commit):
            if case.changes:
                findings.extend(self._changed(commit, case, now))
            else:
                findings.extend(self._unchanged(commit, case, now))
        findings.extend(self._caps(commit))
        return Verdict.of(findings)

    def _cases(self, commit: Commit) -> list[_Case]:
        cases: dict[str, _Case] = {}

        def case_of(booking: Row | None, reference: Any) -> _Case:
            group = booking.get("group_booking_id") if booking is not None else None
            key = f"group {group}" if group else f"booking {reference}"
            return cases.setdefault(key, _Case(key))

        for change in commit.bookings:
            case_of(change.after, change.reference).changes.append(change)
        for payment in commit.payments:
            reference = payment.row.get("booking_reference")
            kind = payment.row.get("transaction_type")
            if kind == "charge":
                case_of(commit.booking(reference), reference).charges.append(payment)
            elif kind == "refund":
                case_of(commit.booking(reference), reference).refunds.append(payment)
        return list(cases.values())

    # --- cases whose bookings changed -----------------------------------------------------------
    def _changed(self, commit: Commit, case: _Case, now: datetime) -> list[Finding]:
        tickets = [t for c in case.changes for t in commit.tickets_for(c.after)]
        system_error = any(t.row.get("escalation_reason") == "system-error" for t in tickets)
        failed = not case.charges and not case.refunds and any(c.cancelled for c in case.changes)
        if failed and system_error and any(t.row.get("status") == "hold" for t in tickets):
            return []  # the refund failed; the ticket holds it as owed (4.2.4)
        parts: list[str] = []
        base = 0.0
        exception = 0.0
        for change in case.changes:
            if change.cancelled:
                refund, _ = commit.cancellation(change, now)
                base -= refund
                exception += refund - money(change.before.get("booking_value"))
                parts.append(f"cancellation refund {refund:.2f} for {change.reference}")
            elif change.modified and change.price_difference:
                base += change.price_difference
                parts.append(f"price difference {change.price_difference:+.2f} for {change.reference}")
        fee, fee_text = self._fee(commit, case, now)
        if fee:
            base += fee
        if fee_text:
            parts.append(fee_text)
        allowed = self._special_totals(commit, case, now, parts)
        bases = [base, base + exception] if system_error and exception else [base]
        if len(bases) > 1:
            parts.append("or, for a confirmed system error, the whole booking value")
        nets = sorted({round_cents(b + extra) for b in bases for extra in allowed})
        if any(abs(case.net - net) <= CENT for net in nets):
            return []
        references = sorted({c.reference for c in case.changes})
        detail = "; ".join(parts) or "no fee"
        return [
            finding(
                self.name,
                "booking-money-net",
                f"{case.key}: {case.payment_text()} (net {case.net:.2f}) after "
                f"{', '.join(_change_text(c) for c in case.changes)}",
                f"allowed: net {' or '.join(f'{n:.2f}' for n in nets)} ({detail})",
                case.changes[0].effect,
                references + [p.key_text for p in case.charges + case.refunds],
            )
        ]

    def _fee(self, commit: Commit, case: _Case, now: datetime) -> tuple[float, str]:
        modified = [c for c in case.changes if c.modified and not c.cancelled]
        if not modified:
            return 0.0, ""
        first = modified[0].before
        group_id = first.get("group_booking_id")
        if group_id:
            terms = commit.terms(first, now)
            fee = group_fee(
                terms.hours, len(modified), commit.group_size(group_id, len(modified)), terms.hotel_tier
            )
            return fee.amount, f"group modification fee {fee.amount:.2f} ({fee.why})"
        total = 0.0
        texts = []
        for change in modified:
            terms = commit.terms(change.before, now)
            single = modification_fee(
                terms.hours,
                terms.hotel_tier,
                len(change.before.get("modification_history") or ()),
                terms.vip_tier,
                terms.account,
                terms.value,
            )
            total += single.amount
            texts.append(f"modification fee {single.amount:.2f} ({single.why})")
        return total, "; ".join(texts)

    def _special_totals(self, commit: Commit, case: _Case, now: datetime, parts: list[str]) -> list[float]:
        totals = [0.0]
        for change in case.changes:
            requests = change.new_requests
            if not requests:
                continue
            before = change.before
            check_in = parse_moment(before.get("check_in_date"))
            check_out = parse_moment(before.get("check_out_date"))
            hours = hours_between(now, check_in) if check_in else 0.0
            nights = (check_out.date() - check_in.date()).days if check_in and check_out else 0
            options, items = special_request_fees(
                requests, hours, commit.vip_tier(before), money(before.get("booking_value")), nights
            )
            if items:
                parts.append(f"special requests of {change.reference}: {', '.join(items)}")
                totals = [round_cents(t + o) for t in totals for o in options]
        return totals

    # --- cases whose bookings did not change ----------------------------------------------------
    def _unchanged(self, commit: Commit, case: _Case, now: datetime) -> list[Finding]:
        findings: list[Finding] = []
        for charge in case.charges:
            reference = charge.row.get("booking_reference")
            findings.append(
                finding(
                    self.name,
                    "booking-money-unexplained",
                    f"charge {charge.key_text}: {money(charge.row.get('amount')):.2f} on {reference}, "
                    "a booking this commit did not modify",
                    "allowed: charges for a modification or special request of the booking",
                    charge,
                    [str(reference)],
                )
            )
        if not case.refunds:
            return findings
        reference = case.refunds[0].row.get("booking_reference")
        booking = commit.booking(reference)
        tickets = commit.tickets_for(booking, reference)
        if not tickets:
            return findings  # booking_tickets reports the undocumented refund
        total = sum(money(r.row.get("amount")) for r in case.refunds)
        if any(t.row.get("request_type_detail") == "post-stay-issue" for t in tickets):
            findings.extend(self._compensation(commit, case, booking, total, now))
        elif not any(t.row.get("escalation_reason") == "system-error" for t in tickets):
            ticket = tickets[0]
            findings.append(
                finding(
                    self.name,
                    "booking-money-unexplained",
                    f"{case.key}: {case.payment_text()} with no cancellation, modification or post-stay "
                    f"complaint, and ticket {ticket.key_text} records escalation_reason "
                    f"{ticket.row.get('escalation_reason')}",
                    "allowed: a billing correction recorded with escalation_reason system-error",
                    case.refunds[0],
                    [str(reference), ticket.key_text],
                )
            )
        return findings

    def _compensation(
        self, commit: Commit, case: _Case, booking: Row | None, total: float, now: datetime
    ) -> list[Finding]:
        refund = case.refunds[0]
        reference = str(refund.row.get("booking_reference"))
        if booking is None:
            return []
        status = booking.get("booking_status")
        if status != "checked_out":
            return [
                finding(
                    self.name,
                    "booking-compensation",
                    f"{case.key}: post-stay compensation {total:.2f} while the booking is '{status}'",
                    "allowed: compensation for a checked_out booking only",
                    refund,
                    [reference],
                )
            ]
        findings: list[Finding] = []
        customer = booking.get("customer_id")
        before = commit.profile_before(customer) or {}
        vip = str(before.get("vip_tier") or "standard")
        complaints = int(before.get("complaint_count") or 0)
        if complaints >= 3:
            findings.append(
                finding(
                    self.name,
                    "booking-compensation",
                    f"{case.key}: post-stay compensation {total:.2f} for customer {customer} with "
                    f"complaint_count {complaints}",
                    "allowed: escalation to the hotel (guest-complaint, hold) for 3 or more complaints",
                    refund,
                    [reference, str(customer)],
                )
            )
        check_in = parse_moment(booking.get("check_in_date"))
        check_out = parse_moment(booking.get("check_out_date"))
        since = hours_between(check_out, now) if check_out else -1.0
        nights = max((check_out.date() - check_in.date()).days, 1) if check_in and check_out else 1
        value = money(booking.get("booking_value"))
        rates = compensation_rates(vip, since)
        amounts = sorted(
            {round_cents(value * rate * k / nights) for rate in rates for k in range(1, nights + 1)}
        )
        if not any(abs(total - a) <= CENT for a in amounts):
            whole = ", ".join(f"{value * r:.2f}" for r in rates) or "none"
            findings.append(
                finding(
                    self.name,
                    "booking-compensation",
                    f"{case.key}: post-stay compensation {total:.2f} of booking value {value:.2f}, "
                    f"{since / 24:.1f} days after check-out for a {vip} customer",
                    f"allowed: {whole} for all {nights} night(s)"
                    + (
                        " (or the same share of the affected nights)"
                        if rates
                        else "; hold for manager approval"
                    ),
                    refund,
                    [reference],
                )
            )
        raised = any(
            p.row.get("customer_id") == customer and int(p.row.get("complaint_count") or 0) == complaints + 1
            for p in commit.profiles
        )
        if not raised:
            findings.append(
                finding(
                    self.name,
                    "booking-compensation",
                    f"customer {customer}: complaint_count {complaints} left unchanged after post-stay "
                    f"compensation on {reference}",
                    f"allowed: complaint_count {complaints + 1}",
                    refund,
                    [reference, str(customer)],
                )
            )
        return findings

    def _caps(self, commit: Commit) -> list[Finding]:
        totals: dict[str, list[Effect]] = {}
        for payment in commit.payments:
            if payment.row.get("transaction_type") == "refund":
                totals.setdefault(str(payment.row.get("booking_reference")), []).append(payment)
        findings = []
        for reference, refunds in totals.items():
            booking = commit.booking_before(reference)
            if booking is None:
                continue
            total = sum(money(r.row.get("amount")) for r in refunds)
            value = money(booking.get("booking_value"))
            if total - value > CENT:
                findings.append(
                    finding(
                        self.name,
                        "booking-refund-cap",
                        f"booking {reference}: refunds {total:.2f} exceed its booking_value {value:.2f}",
                        f"allowed: at most {value:.2f}",
                        refunds[0],
                        [reference] + [r.key_text for r in refunds],
                    )
                )
        return findings


def _change_text(change: BookingChange) -> str:
    if change.cancelled:
        return f"cancellation of {change.reference}"
    changed = ", ".join(change.fields) or "no field"
    return f"{changed} of {change.reference}"
