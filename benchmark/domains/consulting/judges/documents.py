"""Every action is documented by its employee's ticket, which names it and whose status fits.

For each action of the transaction (:mod:`.actions`) the documenting ticket
is the employee's ticket (its requester) that names the action's record in
the custom field (§2.5); when the employee has exactly one ticket in the
transaction, that one, which must then name the record. Then, per ticket:

* something it documents still waits (an approval requested, clearance or
  NDA initiated, an enrollment other than the training the ticket asks
  for) → ``pending`` (§2.1, §3.9, §5.4, §8.3);
* otherwise, when it documents fulfilled work → ``solved`` (``pending``
  stays allowed while the ticket records a hardware order);
* an approval carries the ticket's engagement code (§3.10), a peripheral
  needs no hardware approval (§6.4), and access provisioned is of the
  ``access_type`` the ticket records (§2.5).

A transaction that touches no ticket at all is blocked too: every request
creates or updates one, informational ones included.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from benchmark.domains.consulting.judges.actions import Action, action_of, names
from benchmark.domains.consulting.judges.tickets import (
    finding,
    requester_email,
    requester_queries,
    row,
    text,
    tickets_of,
)
from judges import CommitContext, Effect, Finding, Query, Verdict

__all__ = ["PERIPHERALS", "TicketDocumentsJudge"]

PERIPHERALS = frozenset({"monitor", "docking_station", "headset", "peripheral"})
"""Standard peripherals are approved without additional authorization (§6.4)."""


_ACCESS_GRANTS = frozenset({"application access", "client system access"})
"""Actions whose access type the ticket's ``access_type`` records ("type of access provisioned", §2.5)."""


def _training(ticket: Effect) -> bool:
    return "training_enrollment" in (row(ticket).get("tags") or [])


def _waits(ticket: Effect, action: Action) -> bool:
    """Whether the ticket's request waits on the action: an enrollment in the course a training
    ticket asks for fulfils it, a prerequisite's enrollment waits for completion (§8.3)."""
    if action.label == "enrollment" and _training(ticket):
        return not names(ticket, action)
    return action.waiting


@dataclass(frozen=True, slots=True)
class TicketDocumentsJudge:
    """Each action is on a ticket of its employee that names its record and whose status fits."""

    name: str = "consulting_ticket_documents"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return list(dict.fromkeys(requester_queries(tickets_of(effects))))

    def __call__(self, context: CommitContext) -> Verdict:
        tickets = tickets_of(context.effects)
        actions = [a for a in (action_of(e) for e in context.effects) if a is not None]
        findings: list[Finding] = []
        if not tickets:
            findings.extend(self._undocumented(action) for action in actions)
            return Verdict.of(findings or [self._no_ticket()])
        emails = {t.key_text: requester_email(context.state, t) for t in tickets}
        documented: dict[str, list[Action]] = {t.key_text: [] for t in tickets}
        for action in actions:
            for ticket in self._owners(action, tickets, emails, findings):
                documented[ticket.key_text].append(action)
        for ticket in tickets:
            findings.extend(self._status(ticket, documented[ticket.key_text]))
            findings.extend(self._approvals(ticket, documented[ticket.key_text]))
            findings.extend(self._access_types(ticket, documented[ticket.key_text]))
        return Verdict.of(findings)

    def _no_ticket(self) -> Finding:
        return finding(
            self.name,
            "no ticket created or updated in this transaction",
            "allowed: every request is recorded on a Zendesk ticket (zendesk_create_item or"
            " zendesk_update_item), with its status at the end of the conversation",
            "request-without-ticket",
            None,
        )

    def _undocumented(self, action: Action) -> Finding:
        return finding(
            self.name,
            f"{action.name} (for {action.employee}) is recorded on no ticket in this transaction",
            "allowed: every request is recorded on a Zendesk ticket (zendesk_create_item or"
            " zendesk_update_item) naming the record",
            "action-without-ticket",
            None,
            record=action.effect.key_text,
            record_table=action.effect.table,
        )

    def _owners(
        self, action: Action, tickets: list[Effect], emails: Mapping[str, str | None], out: list[Finding]
    ) -> list[Effect]:
        """The tickets documenting ``action``; a finding when none can, or the only one misses the field."""
        theirs = [t for t in tickets if emails[t.key_text] in (None, action.employee)]
        named = [t for t in theirs if names(t, action)]
        if named:
            return named
        if not theirs:
            requesters = ", ".join(sorted({e for e in emails.values() if e})) or "none"
            out.append(
                finding(
                    self.name,
                    f"{action.name} (for {action.employee}) is recorded on no ticket of that employee"
                    f" (ticket requesters: {requesters})",
                    "allowed: the ticket of the employee the work is for (its requester_id)",
                    "action-ticket-requester",
                    None,
                    record=action.effect.key_text,
                    record_table=action.effect.table,
                )
            )
            return []
        if len(theirs) > 1:
            # Several tickets of the employee: only one naming the record can be said to document it.
            if action.field is not None:
                keys = ", ".join(t.key_text for t in theirs)
                out.append(
                    finding(
                        self.name,
                        f"{action.name}: none of tickets {keys} of {action.employee} has {action.field}"
                        f" naming {action.value}",
                        f"allowed: the ticket of this request with {action.field} naming {action.value}",
                        "action-ticket-field",
                        None,
                        record=action.effect.key_text,
                        record_table=action.effect.table,
                    )
                )
            return []
        ticket = theirs[0]
        if action.field is not None and (action.label != "enrollment" or _training(ticket)):
            found = row(ticket).get(action.field)
            out.append(
                finding(
                    self.name,
                    f"ticket {ticket.key_text}: {action.field} '{text(found)}' while {action.name} is for"
                    f" {action.value}",
                    f"allowed: {action.field} naming {action.value}",
                    "action-ticket-field",
                    ticket,
                    field=action.field,
                    value=found,
                    record=action.effect.key_text,
                )
            )
        return [ticket]

    def _status(self, ticket: Effect, actions: list[Action]) -> Iterator[Finding]:
        if not actions:
            return
        status = row(ticket).get("status")
        waiting = [a for a in actions if _waits(ticket, a)]
        if waiting:
            if status != "pending":
                yield finding(
                    self.name,
                    f"ticket {ticket.key_text}: status '{text(status)}' while {_some(waiting)} started"
                    " in this transaction and the request waits on it",
                    "allowed: pending",
                    "ticket-status-waiting",
                    ticket,
                    field="status",
                    value=status,
                    records=[a.effect.key_text for a in waiting],
                )
            return
        if status != "solved" and not (row(ticket).get("hardware_order_id") and status == "pending"):
            yield finding(
                self.name,
                f"ticket {ticket.key_text}: status '{text(status)}' while {_some(actions)} fulfilled the"
                " request in this transaction and nothing it started is waiting",
                "allowed: solved",
                "ticket-status-fulfilled",
                ticket,
                field="status",
                value=status,
                records=[a.effect.key_text for a in actions],
            )

    def _approvals(self, ticket: Effect, actions: list[Action]) -> Iterator[Finding]:
        fields = row(ticket)
        for action in actions:
            if action.label != "approval":
                continue
            approval = row(action.effect)
            kind, code = approval.get("request_type"), approval.get("engagement_code")
            if kind != "training_engagement_coordination" and code != fields.get("engagement_code"):
                yield finding(
                    self.name,
                    f"{action.name}: engagement_code '{text(code)}' while ticket {ticket.key_text} records"
                    f" engagement_code '{text(fields.get('engagement_code'))}'",
                    "allowed: the ticket's engagement code (both null when none is stored)",
                    "approval-ticket-engagement-code",
                    ticket,
                    field="engagement_code",
                    value=code,
                    record=action.effect.key_text,
                )
            if kind == "hardware_replacement" and fields.get("device_type") in PERIPHERALS:
                yield finding(
                    self.name,
                    f"{action.name}: hardware approval requested for a {fields.get('device_type')}"
                    f" (ticket {ticket.key_text})",
                    "allowed: no approval; standard peripherals are approved without authorization",
                    "approval-peripheral",
                    ticket,
                    field="device_type",
                    value=fields.get("device_type"),
                    record=action.effect.key_text,
                )

    def _access_types(self, ticket: Effect, actions: list[Action]) -> Iterator[Finding]:
        recorded = row(ticket).get("access_type")
        if recorded is None:
            return
        for action in actions:
            given = row(action.effect).get("access_type")
            if action.label in _ACCESS_GRANTS and given is not None and given != recorded:
                yield finding(
                    self.name,
                    f"{action.name}: access_type '{given}' while ticket {ticket.key_text} records"
                    f" access_type '{recorded}'",
                    f"allowed: {recorded}, the access the ticket records",
                    "access-type-of-ticket",
                    ticket,
                    field="access_type",
                    value=given,
                    record=action.effect.key_text,
                )


def _some(actions: list[Action]) -> str:
    shown = ", ".join(a.name for a in actions[:3])
    return shown + (f" and {len(actions) - 3} more" if len(actions) > 3 else "")
