"""A ticket's approvers: listed in order, and all decided before a ticket that needed them is solved.

``approver_id`` holds the approvers' emails in alphabetical order,
comma-separated without spaces (§2.5). ``approval_required`` yes means the
request needs those approvals to be solved; a ``solved`` ticket that says so
has a decided (approved or rejected) request of its requester to every
listed approver, none still pending (§3.9).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from benchmark.domains.consulting.judges.tickets import (
    finding,
    listed,
    requester_email,
    requester_queries,
    row,
    text,
    tickets_of,
)
from judges import CommitContext, Effect, Finding, Query, StateSnapshot, Verdict

__all__ = ["TicketApprovalsJudge"]

_APPROVALS = "approval_approval_requests"


def _needs_decisions(ticket: Effect) -> bool:
    fields = row(ticket)
    return fields.get("status") == "solved" and fields.get("approval_required") == "yes"


def _to(approver: str) -> Query:
    return Query.of(_APPROVALS, None, approver_email=approver)


@dataclass(frozen=True, slots=True)
class TicketApprovalsJudge:
    """approver_id is sorted; a solved ticket that needed approval has each approver's decision."""

    name: str = "consulting_ticket_approvals"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        tickets = [t for t in tickets_of(effects) if _needs_decisions(t)]
        wanted = list(requester_queries(tickets))
        for ticket in tickets:
            wanted.extend(_to(approver) for approver in listed(row(ticket).get("approver_id")))
        return list(dict.fromkeys(wanted))

    def __call__(self, context: CommitContext) -> Verdict:
        findings: list[Finding] = []
        for ticket in tickets_of(context.effects):
            approvers = listed(row(ticket).get("approver_id"))
            if "approver_id" in ticket.changed_fields:
                findings.extend(self._order(ticket, approvers))
            if _needs_decisions(ticket):
                findings.extend(self._undecided(context.state, ticket, approvers))
        return Verdict.of(findings)

    def _order(self, ticket: Effect, approvers: list[str]) -> Iterator[Finding]:
        ordered = sorted(set(approvers), key=str.lower)
        if approvers == ordered:
            return
        found = row(ticket).get("approver_id")
        yield finding(
            self.name,
            f"ticket {ticket.key_text}: approver_id '{text(found)}' is not in alphabetical order"
            " without repeats",
            f"allowed: {','.join(ordered)}",
            "ticket-approver-order",
            ticket,
            field="approver_id",
            value=found,
        )

    def _undecided(self, state: StateSnapshot, ticket: Effect, approvers: list[str]) -> Iterator[Finding]:
        requester = requester_email(state, ticket)
        if requester is None:
            return
        for approver in approvers:
            theirs = [r for r in state.rows(_to(approver)) if r.get("requester_email") == requester]
            if any(r.get("status") in ("approved", "rejected") for r in theirs):
                continue
            pending = [str(r["id"]) for r in theirs if r.get("status") == "pending"]
            situation = (
                f"approval {', '.join(pending)} by {approver} is pending"
                if pending
                else f"{approver} has no approval request of {requester}"
            )
            yield finding(
                self.name,
                f"ticket {ticket.key_text}: status 'solved' with approval_required 'yes' while {situation}",
                "allowed: pending until every listed approver has decided",
                "ticket-solved-undecided-approval",
                ticket,
                field="status",
                value="solved",
                approver=approver,
                approval_ids=pending or None,
            )
