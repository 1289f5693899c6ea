"""Tickets solved while the customer still waits on the carrier.

Two rules (policy "Tracking Status Workflows" and "Status Assignment Rules"),
on the tickets this transaction leaves ``solved`` (judge ``retail_carrier``):

* ``ticket-hold-for-carrier-exception`` — an order of the ticket's customer
  whose carrier tracking shows ``exception``: "Customer must wait for carrier
  resolution", so the ticket waits on ``hold``, unless this transaction
  compensates the delay (a ``late_delivery_compensation`` refund on that
  order, due once the exception is over 7 days past the estimated delivery).
  The orders looked at are those the commit's records name and those the
  ticket's subject or description names (``ORD-…``; the retail ticket has no
  order field); each counts only when the order's customer is the ticket's
  requester, and the tracking record decides, not the ticket's words.
* ``ticket-hold-for-carrier-investigation`` — a ticket whose subject or
  description reports a package marked delivered but not received (no record
  holds that report: the carrier says delivered), of a customer outside the
  courtesy-replacement segment (not VIP, score under 70), with no replacement
  order or refund in this transaction: the policy's answer is a carrier
  investigation, and the ticket waits on ``hold``. A ticket that says the
  package was found, or the investigation concluded, reports nothing open; a
  ticket already on hold whose text this transaction did not write is an
  investigation concluded in a later conversation.

The customer is the requester's profile, found by the requester's email. The
reads take two rounds: the requesters, the orders and their shipments by key;
then the requesters' profiles and the shipments' carrier tracking.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchmark.domains.retail.judges.changes import (
    Changes,
    finding,
    requester_profiles,
    requester_queries,
)
from judges import CommitContext, Effect, Finding, Query, StateSnapshot, Verdict

__all__ = ["CarrierJudge"]

Row = Mapping[str, Any]

_ORDER_ID = re.compile(r"\bORD-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
_SENTENCE = re.compile(r"[^.;!?\n]+")
_NOT_RECEIVED = re.compile(
    r"\b(not|never) (been )?(received|arrived|got)|\b(didn't|did not|hasn't|has not) (receive|arrive|get)",
    re.I,
)
_MISSING = re.compile(r"\bnon-?receipt\b|\bmissing (package|parcel|shipment)\b", re.I)
_FOUND = re.compile(
    r"\b(found|located|recovered|turned up)\b|\binvestigation\b[^.]*\b(concluded|completed|closed)\b", re.I
)
_COURTESY_SCORE = 70
"""Regular customers (score 70 and up) and VIPs get a courtesy replacement; others a carrier investigation."""


def _text(ticket: Effect) -> str:
    return ". ".join(str(ticket.row.get(name) or "") for name in ("subject", "description"))


def _named_orders(ticket: Effect) -> list[str]:
    return list(dict.fromkeys(_ORDER_ID.findall(_text(ticket))))


def _reports_non_receipt(ticket: Effect) -> bool:
    before = ticket.before
    written = before is None or {"subject", "description"} & set(ticket.changed_fields)
    if before is not None and before.get("status") == "hold" and not written:
        return False
    sentences = [part.group(0) for part in _SENTENCE.finditer(_text(ticket))]
    if any(_FOUND.search(sentence) for sentence in sentences):
        return False
    return any(
        _MISSING.search(sentence) or ("deliver" in sentence.lower() and _NOT_RECEIVED.search(sentence))
        for sentence in sentences
    )


@dataclass(frozen=True, slots=True)
class CarrierJudge:
    """Solved tickets against open carrier exceptions and unreceived packages (see the module docstring)."""

    name: str = "retail_carrier"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        changes = Changes(effects)
        solved = _solved(changes)
        if not solved:
            return []
        wanted: dict[Query, None] = {}
        for ticket in solved:
            requester = ticket.row.get("requester_id")
            if requester is not None:
                wanted[Query.one("zendesk_users", id=str(requester))] = None
        for order_id in _orders(changes, solved):
            wanted[Query.one("orders", id=order_id)] = None
            wanted[Query.of("shipments", None, order_id=order_id)] = None
        return list(wanted)

    def follow_up(self, effects: Sequence[Effect], state: StateSnapshot) -> Sequence[Query]:
        changes = Changes(effects)
        solved = _solved(changes)
        if not solved:
            return []
        wanted = dict.fromkeys(requester_queries(Changes(solved), state))
        for order_id in _orders(changes, solved):
            for shipment in state.find("shipments", order_id=order_id):
                wanted[Query.one("carrier_tracking", tracking_number=shipment.get("tracking_number"))] = None
        return list(wanted)

    def __call__(self, context: CommitContext) -> Verdict:
        changes = Changes(context.effects)
        state = context.state
        findings: list[Finding] = []
        compensated = {
            r.row.get("order_id")
            for r in changes.inserted("refunds")
            if r.row.get("refund_reason") == "late_delivery_compensation"
        }
        from_records = _record_orders(changes)
        for ticket in _solved(changes):
            profiles = requester_profiles(ticket, state)
            customers = {p.get("id") for p in profiles}
            for order_id in dict.fromkeys([*from_records, *_named_orders(ticket)]):
                order = state.one("orders", id=order_id)
                if order is None or order.get("customer_id") not in customers or order_id in compensated:
                    continue
                findings.extend(self._exception(ticket, order_id, state))
            findings.extend(self._investigation(ticket, profiles, changes))
        return Verdict.of(findings)

    def _exception(self, ticket: Effect, order_id: str, state: StateSnapshot) -> list[Finding]:
        for shipment in state.find("shipments", order_id=order_id):
            number = shipment.get("tracking_number")
            tracking = state.one("carrier_tracking", tracking_number=number)
            if tracking is None or tracking.get("status") != "exception":
                continue
            message = (
                f"ticket {ticket.key_text}: status 'solved' while shipment {shipment.get('id')} of order "
                f"{order_id} ({tracking.get('carrier')} {number}) is in carrier status 'exception' "
                f"(last update {tracking.get('last_update')}, estimated delivery "
                f"{shipment.get('estimated_delivery_date')})"
            )
            hint = (
                "allowed: hold while the customer waits for the carrier's resolution; solved with a "
                "late_delivery_compensation refund for an exception over 7 days past the estimated delivery"
            )
            return [
                finding(
                    self.name, "ticket-hold-for-carrier-exception", ticket, message, hint, order_id, number
                )
            ]
        return []

    def _investigation(self, ticket: Effect, profiles: Sequence[Row], changes: Changes) -> list[Finding]:
        if not profiles or changes.inserted("orders") or changes.inserted("refunds"):
            return []
        if any(_courtesy(profile) for profile in profiles) or not _reports_non_receipt(ticket):
            return []
        customers = ", ".join(
            f"{p.get('id')} ({p.get('customer_tier')}, customer_score {p.get('customer_score')})"
            for p in profiles
        )
        message = (
            f"ticket {ticket.key_text}: status 'solved' while it reports a package marked delivered but not "
            f"received, for customer {customers}, with no replacement order or refund"
        )
        hint = (
            "allowed: hold (a carrier investigation, 3-5 days, for a customer who is neither VIP nor scored "
            "70 or more)"
        )
        return [
            finding(
                self.name,
                "ticket-hold-for-carrier-investigation",
                ticket,
                message,
                hint,
                *(p.get("id") for p in profiles),
            )
        ]


def _courtesy(profile: Row) -> bool:
    score = profile.get("customer_score")
    return profile.get("customer_tier") == "vip" or (isinstance(score, int) and score >= _COURTESY_SCORE)


def _solved(changes: Changes) -> list[Effect]:
    return [t for t in changes.tickets() if t.row.get("status") == "solved"]


def _record_orders(changes: Changes) -> list[str]:
    """The orders this commit's records name (their order_id, or the order itself)."""
    found: dict[str, None] = {}
    for effect in changes.effects:
        value = effect.key_text if effect.table == "orders" else effect.row.get("order_id")
        if isinstance(value, str) and value and effect.table != "zendesk_tickets":
            found.setdefault(value, None)
    return list(found)


def _orders(changes: Changes, solved: Sequence[Effect]) -> list[str]:
    named = [order_id for ticket in solved for order_id in _named_orders(ticket)]
    return list(dict.fromkeys([*_record_orders(changes), *named]))
