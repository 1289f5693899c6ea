"""The cross-record judge: the interaction is documented by tickets that agree with what it changed.

Over the commit's effects alone (no rows are read):

* ``interaction-documented`` — the transaction creates or updates a ticket
  (§5.1 "every chat interaction must be documented with a ticket");
* ``action-documented`` — every payment arrangement, policy change, vehicle or
  driver change, new claim or document link (:mod:`.actions`) has a ticket of
  its request category in the transaction;
* ``action-ticket-agrees`` — some such ticket carries what the change calls
  for (:mod:`.needs`): status and outcome, type, priority, claims action type,
  effective date of change, user type;
* ``ticket-completed-without-change`` — a ticket that reports a task (or a
  claim) Completed has the change of its category in the transaction;
* ``ticket-review-without-change`` — a ticket on hold for an underwriting or
  SIU review has a change in the transaction that awaits that review.

Findings name the record, the ticket, the values found and what the policy
allows; the evidence names the tools that record the missing change, so an
agent can tell which of its calls a finding is about.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchmark.domains.auto_insurance.judges.actions import (
    BILLING,
    CLAIMS,
    DOCUMENTS,
    SERVICING,
    Action,
    actions_of,
    tickets_of,
)
from benchmark.domains.auto_insurance.judges.needs import Need, Waiting, needs_of, waiting_of
from judges import CommitContext, Effect, Finding, Query, Severity, Verdict

__all__ = ["TicketAgreementJudge"]

_TICKET_TOOLS = ("zendesk_create_item", "zendesk_update_item")
_TOOLS: Mapping[str, tuple[str, ...]] = {
    BILLING: ("billing_grant_extension", "billing_create_installment_plan"),
    SERVICING: (
        "policy_add_vehicle",
        "policy_update_vehicle_status",
        "policy_add_driver",
        "policy_update_driver_status",
        "policy_schedule_cancellation",
        "policy_reinstate_policy",
    ),
    CLAIMS: ("claims_create_fnol",),
    DOCUMENTS: ("policy_generate_document_link",),
}
_NO_CHANGE: Mapping[str, str] = {
    BILLING: "no payment arrangement",
    SERVICING: "no policy, vehicle or driver change",
    CLAIMS: "no new claim",
    DOCUMENTS: "no document link",
}
_REVIEWS: Mapping[tuple[str, str], tuple[str, str]] = {
    (SERVICING, "Underwriting"): ("no vehicle or driver added with uw_pending true", "policy_add_vehicle"),
    (CLAIMS, "SIU"): ("no claim filed with an SIU flag", "claims_create_fnol"),
}
_WORKED = frozenset({"status", "outcome_summary", "type", "internal_review_type"})


@dataclass(frozen=True, slots=True)
class TicketAgreementJudge:
    """Changes and the tickets that document them agree (see the module docstring)."""

    name: str = "auto_insurance_tickets"
    severity: Severity = Severity.BLOCK

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        actions = actions_of(context.effects)
        tickets = tickets_of(context.effects)
        if not tickets:
            return Verdict.of([self._undocumented(actions)])
        waiting = _waiting_by_category(actions)
        findings: list[Finding] = []
        for action in actions:
            found = self._documented(action, tickets, waiting.get(action.category, Waiting()))
            if found is not None:
                findings.append(found)
        categories = {action.category for action in actions}
        for ticket in tickets:
            found = self._backed(ticket, categories, waiting)
            if found is not None:
                findings.append(found)
        return Verdict.of(findings)

    def _undocumented(self, actions: list[Action]) -> Finding:
        changed = ", ".join(f"{action.record} ({action.event})" for action in actions)
        message = "no ticket created or updated in this transaction" + (
            f"; changed: {changed}" if changed else ""
        )
        evidence = {"tools": list(_TICKET_TOOLS), "keys": [action.effect.key_text for action in actions]}
        hint = "allowed: a ticket created or updated for each request of the interaction"
        return self._finding("interaction-documented", message, hint, evidence)

    def _documented(self, action: Action, tickets: list[Effect], also: Waiting) -> Finding | None:
        mine = [t for t in tickets if t.row.get("request_category") == action.category]
        evidence: dict[str, Any] = {"table": action.effect.table, "key": action.effect.key_text}
        if not mine:
            found = ", ".join(f"{t.key_text} ({_value(t.row.get('request_category'))})" for t in tickets)
            message = (
                f"{action.record}: {action.event} with no {action.category} ticket in this transaction"
                f" (tickets: {found})"
            )
            evidence |= {"ticket_ids": [t.key_text for t in tickets], "tools": list(_TICKET_TOOLS)}
            hint = f"allowed: request_category {action.category} on the ticket documenting the change"
            return self._finding("action-documented", message, hint, evidence)
        needs = needs_of(action, also)
        misses = [(ticket, _misses(ticket.row, needs)) for ticket in mine]
        if any(not missed for _, missed in misses):
            return None
        ticket, missed = min(misses, key=lambda item: len(item[1]))
        facts = "; ".join(dict.fromkeys(need.because for need in missed if need.because))
        found = ", ".join(f"{need.field} {_value(ticket.row.get(need.field))}" for need in missed)
        message = f"{action.record}: {action.event}{f' ({facts})' if facts else ''}; ticket {ticket.key_text}"
        message += f" has {found}"
        hint = "allowed: " + "; ".join(f"{need.field} {_allowed(need.allowed)}" for need in missed)
        evidence |= {
            "ticket_ids": [ticket.key_text],
            "fields": {need.field: list(need.allowed) for need in missed},
        }
        return self._finding("action-ticket-agrees", message, hint, evidence)

    def _backed(self, ticket: Effect, categories: set[str], waiting: dict[str, Waiting]) -> Finding | None:
        row = ticket.row
        category = row.get("request_category")
        worked = ticket.before is None or not _WORKED.isdisjoint(ticket.changed_fields)
        if not worked or not isinstance(category, str) or category not in _TOOLS:
            return None
        evidence: dict[str, Any] = {"table": ticket.table, "key": ticket.key_text}
        if _reports_done(row, category) and category not in categories:
            message = (
                f"ticket {ticket.key_text}: status 'solved', outcome_summary 'Completed' on a {category}"
                f" {row.get('type')} while this transaction recorded {_NO_CHANGE[category]}"
            )
            hint = (
                "allowed: outcome_summary Completed with the change recorded in the same transaction;"
                " Declined, Pending – User Action or Pending – Internal Review otherwise"
            )
            evidence["tools"] = list(_TOOLS[category])
            return self._finding("ticket-completed-without-change", message, hint, evidence)
        review_type = str(row.get("internal_review_type"))
        review = _REVIEWS.get((category, review_type))
        awaited = waiting.get(category, Waiting()).reviews
        if review is not None and row.get("status") == "hold" and review_type not in awaited:
            missing, tool = review
            message = (
                f"ticket {ticket.key_text}: status 'hold' for internal_review_type '{review_type}'"
                f" while this transaction has {missing}"
            )
            hint = f"allowed: hold for {review_type} review once the change awaiting it is recorded"
            evidence["tools"] = [tool]
            return self._finding("ticket-review-without-change", message, hint, evidence)
        return None

    def _finding(self, rule: str, message: str, hint: str, evidence: dict[str, Any]) -> Finding:
        return Finding(self.name, self.severity, message, hint=hint, rule=rule, evidence=evidence)


def _waiting_by_category(actions: list[Action]) -> dict[str, Waiting]:
    found: dict[str, Waiting] = {}
    for action in actions:
        own = waiting_of(action)
        if own.any:
            found[action.category] = found.get(action.category, Waiting()).joined(own)
    return found


def _reports_done(row: Mapping[str, Any], category: str) -> bool:
    if row.get("status") != "solved" or row.get("outcome_summary") != "Completed":
        return False
    if category == CLAIMS:
        return row.get("type") == "incident" and row.get("claims_action_type") is not None
    return row.get("type") == "task"


def _misses(row: Mapping[str, Any], needs: list[Need]) -> list[Need]:
    return [need for need in needs if row.get(need.field) not in need.allowed]


def _value(value: Any) -> str:
    return "null" if value is None else f"'{value}'"


def _allowed(values: tuple[str | None, ...]) -> str:
    words = ["null" if value is None else str(value) for value in values]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
