"""The ticket a customer's work is documented on: its status and priority, from what the work was.

The policy ("Status Assignment Rules", "Priority Assignment") ties a ticket's
status and priority to what was done for the customer. Per customer whose
records this transaction changed (see :mod:`.changes`):

* ``ticket-documents-conversation``, ``ticket-documents-work`` — the
  transaction touches a ticket, and one requested by each customer whose
  records changed ("You MUST document all customer interactions through
  tickets"); a commit is the resolution of a conversation;
* ``ticket-hold-for-pending-work`` — an RMA just created (not an exchange), a
  warranty claim filed or a corrective installation scheduled leaves the
  customer waiting: a ticket of theirs is on ``hold``;
* ``ticket-status-for-outcome`` — an exchange is ``hold`` or ``solved``; an
  order cancellation and nothing else is ``solved``;
* ``ticket-priority`` — VIP customers are ``urgent``, Plus members ``high`` or
  ``urgent``; a wrong or transit-damaged item and a missing package are
  ``urgent``, installation workmanship ``high`` (or urgent); other work is
  the tier's own priority, ``high`` for Plus members and ``normal`` for
  standard customers (a defective item may be urgent).

Outcome and issue rules apply when the customer has one touched ticket (with
several, each request has its own ticket and outcome); the tier rule applies
to every ticket of the customer. A touched ticket that no changed record links
to (a follow-up where only the ticket changes) gets the tier rule alone, its
customer found through the requester's email in a second round of reads
(``follow_up``): VIP customers ``urgent``, Plus members ``high`` or ``urgent``.
And from the trace, ``ticket-created-open`` (a warning: creation cannot be
redone) — tickets begin with status ``open``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmark.domains.retail.judges.changes import (
    Changes,
    CustomerLink,
    customer_links,
    link_queries,
    requester_profiles,
    requester_queries,
)
from benchmark.domains.zendesk.judging import tickets_not_created_open
from judges import CommitContext, Effect, Finding, Query, Severity, StateSnapshot, Verdict

__all__ = ["TicketOutcomeJudge"]

_PRIORITIES = ("urgent", "high", "normal", "low")
_BY_TIER = {"vip": {"urgent"}, "plus_member": {"high", "urgent"}, "standard": set(_PRIORITIES)}
_DEFAULT = {"vip": "urgent", "plus_member": "high", "standard": "normal"}
_ELEVATING_RETURNS = ("wrong_item_received", "damaged_in_transit")


@dataclass
class _Work:
    """What the transaction did for one customer, by the outcome it implies."""

    waiting: list[tuple[str, list[str]]] = field(default_factory=list)
    urgent: list[tuple[str, list[str]]] = field(default_factory=list)
    workmanship: list[str] = field(default_factory=list)
    exchange: list[str] = field(default_factory=list)
    cancelled_orders: list[str] = field(default_factory=list)
    defective: bool = False
    other: bool = False
    records: list[str] = field(default_factory=list)


def _work(changes: Changes, customer_id: str) -> _Work:
    work = _Work()
    rmas = [e for e in changes.inserted("rma_records") if e.row.get("customer_id") == customer_id]
    replacements = [e for e in changes.inserted("orders") if e.row.get("customer_id") == customer_id]
    _returns(work, rmas, replacements)
    for claim in changes.for_customer("warranty_claims", customer_id):
        work.waiting.append((f"warranty claim {claim.key_text} was just filed", [claim.key_text]))
    cancelled_jobs = _installations(work, changes.for_customer("installation_jobs", customer_id))
    for order in changes.for_customer("orders", customer_id):
        if order.before is not None and order.row.get("status") == "cancelled":
            work.cancelled_orders.append(order.key_text)
        elif order.before is not None:
            work.other = True
    if any(job.row.get("order_id") not in work.cancelled_orders for job in cancelled_jobs):
        work.other = True
    for table in ("payment_transactions", "membership_records", "customer_profiles"):
        if changes.for_customer(table, customer_id):
            work.other = True
    work.records = [
        e.key_text
        for table in ("rma_records", "warranty_claims", "installation_jobs", "orders", "payment_transactions")
        for e in changes.for_customer(table, customer_id)
    ] + [e.key_text for e in changes.for_customer("membership_records", customer_id)]
    return work


def _returns(work: _Work, rmas: list[Effect], replacements: list[Effect]) -> None:
    """RMAs and replacement orders: an exchange, a customer waiting on a return, urgent issues."""
    if rmas and replacements:
        work.exchange = [e.key_text for e in rmas + replacements]
    for rma in rmas:
        order = rma.row.get("order_id")
        if not replacements:
            work.waiting.append((f"{rma.key_text} for {order} was just created", [rma.key_text, str(order)]))
        if rma.row.get("return_reason") in _ELEVATING_RETURNS:
            reason = rma.row.get("return_reason")
            work.urgent.append((f"a {reason} return ({rma.key_text})", [rma.key_text]))
        work.defective = work.defective or bool(rma.row.get("is_defective"))
    if not rmas:
        for order in replacements:
            text = f"the courtesy replacement {order.key_text} for a package not received"
            work.urgent.append((text, [order.key_text]))
            work.other = True


def _installations(work: _Work, jobs: Sequence[Effect]) -> list[Effect]:
    """Installation jobs: a corrective service leaves the customer waiting; returns the cancelled jobs."""
    cancelled: list[Effect] = []
    for job in jobs:
        before = job.before or {}
        if before.get("status") == "completed" and job.row.get("status") == "scheduled":
            work.waiting.append(
                (f"corrective installation service {job.key_text} was scheduled", [job.key_text])
            )
            work.workmanship.append(job.key_text)
        elif job.row.get("status") == "cancelled":
            cancelled.append(job)
        else:
            work.other = True
    return cancelled


@dataclass(frozen=True, slots=True)
class TicketOutcomeJudge:
    """Status and priority of the tickets that document a customer's work (see the module docstring)."""

    name: str = "retail_tickets"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return link_queries(Changes(effects))

    def follow_up(self, effects: Sequence[Effect], state: StateSnapshot) -> Sequence[Query]:
        return requester_queries(Changes(effects), state)

    def __call__(self, context: CommitContext) -> Verdict:
        changes = Changes(context.effects)
        findings: list[Finding] = []
        if not changes.tickets():
            findings.append(self._no_ticket(changes))
        linked: set[str] = set()
        for link in customer_links(changes, context.state):
            linked.update(ticket.key_text for ticket in link.tickets)
            if link.profile is None:
                continue
            work = _work(changes, link.customer_id)
            if not link.tickets:
                if changes.tickets():
                    findings.append(self._undocumented(link, work))
                continue
            findings.extend(self._status(link, work))
            findings.extend(self._priority(link, work))
        for ticket in changes.tickets():
            if ticket.key_text not in linked:
                findings.extend(self._requester_tier(ticket, requester_profiles(ticket, context.state)))
        findings.extend(tickets_not_created_open(self.name, context.calls))
        return Verdict.of(findings)

    def _finding(self, rule: str, message: str, hint: str, evidence: dict[str, Any]) -> Finding:
        return Finding(self.name, Severity.BLOCK, message, hint=hint, rule=rule, evidence=evidence)

    def _no_ticket(self, changes: Changes) -> Finding:
        changed = sorted({effect.table for effect in changes.effects})
        message = "no ticket was created or updated" + (
            f" while {', '.join(changed)} changed" if changed else " and nothing changed"
        )
        hint = (
            "allowed: every conversation documented on a ticket, new (zendesk_create_item) or reused "
            "(zendesk_update_item), with status pending, hold or solved"
        )
        evidence = {"table": "zendesk_tickets", "changed": changed}
        return self._finding("ticket-documents-conversation", message, hint, evidence)

    def _undocumented(self, link: CustomerLink, work: _Work) -> Finding:
        records = ", ".join(work.records) or "records"
        message = (
            f"customer {link.customer_id}: {records} changed, while no ticket requested by "
            f"{link.email} was created or updated"
        )
        hint = "allowed: a new or reused ticket whose requester is the customer's Zendesk user"
        evidence = {"table": "customer_profiles", "key": link.customer_id, "records": work.records}
        return self._finding("ticket-documents-work", message, hint, evidence)

    def _status(self, link: CustomerLink, work: _Work) -> list[Finding]:
        statuses = [str(t.row.get("status")) for t in link.tickets]
        if work.waiting:
            if "hold" in statuses:
                return []
            reason, records = work.waiting[0]
            return [
                self._ticket_finding(
                    "ticket-hold-for-pending-work",
                    ticket,
                    f"status '{ticket.row.get('status')}' while {reason}",
                    "allowed: hold",
                    records,
                )
                for ticket in link.tickets
            ]
        if len(link.tickets) != 1:
            return []
        ticket = link.tickets[0]
        status = ticket.row.get("status")
        if work.exchange and status not in ("hold", "solved"):
            return [
                self._ticket_finding(
                    "ticket-status-for-outcome",
                    ticket,
                    f"status '{status}' after the exchange {' / '.join(work.exchange)}",
                    "allowed: hold, solved",
                    work.exchange,
                )
            ]
        only_cancelled = work.cancelled_orders and not (work.other or work.exchange)
        if only_cancelled and status != "solved":
            orders = ", ".join(work.cancelled_orders)
            return [
                self._ticket_finding(
                    "ticket-status-for-outcome",
                    ticket,
                    f"status '{status}' after order {orders} was cancelled",
                    "allowed: solved",
                    work.cancelled_orders,
                )
            ]
        return []

    def _priority(self, link: CustomerLink, work: _Work) -> list[Finding]:
        tier = link.tier or "unknown"
        findings: list[Finding] = []
        for ticket in link.tickets:
            allowed = set(_BY_TIER.get(tier, _PRIORITIES))
            why = f"a {tier} customer ({link.customer_id})"
            records: list[str] = []
            if len(link.tickets) == 1:
                if work.urgent:
                    issue, records = work.urgent[0]
                    allowed &= {"urgent"}
                    why = f"{issue}, {why}"
                elif work.workmanship:
                    allowed &= {"high", "urgent"}
                    records = work.workmanship
                    why = f"installation workmanship ({', '.join(records)}), {why}"
                elif tier in _DEFAULT:
                    allowed &= {_DEFAULT[tier], "urgent"} if work.defective else {_DEFAULT[tier]}
            priority = ticket.row.get("priority")
            if priority in allowed or not allowed:
                continue
            hint = "allowed: " + ", ".join(p for p in _PRIORITIES if p in allowed)
            findings.append(
                self._ticket_finding(
                    "ticket-priority", ticket, f"priority '{priority}' for {why}", hint, records
                )
            )
        return findings

    def _requester_tier(self, ticket: Effect, profiles: Sequence[Mapping[str, Any]]) -> list[Finding]:
        """The tier rule for a ticket no changed record links to; several profiles allow what any allows."""
        allowed: set[str] = set()
        for profile in profiles:
            allowed |= _BY_TIER.get(str(profile.get("customer_tier")), set(_PRIORITIES))
        priority = ticket.row.get("priority")
        if not profiles or priority in allowed:
            return []
        customers = [str(p.get("id")) for p in profiles]
        tiers = " or ".join(dict.fromkeys(str(p.get("customer_tier")) for p in profiles))
        hint = "allowed: " + ", ".join(p for p in _PRIORITIES if p in allowed)
        why = f"a {tiers} customer ({', '.join(customers)}, the requester's profile by email)"
        return [
            self._ticket_finding(
                "ticket-priority", ticket, f"priority '{priority}' for {why}", hint, customers
            )
        ]

    def _ticket_finding(
        self, rule: str, ticket: Effect, detail: str, hint: str, records: Sequence[str]
    ) -> Finding:
        evidence: dict[str, Any] = {"table": ticket.table, "key": ticket.key_text}
        if records:
            evidence["records"] = list(records)
        return self._finding(rule, f"ticket {ticket.key_text}: {detail}", hint, evidence)
