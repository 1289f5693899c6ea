"""A ticket's approvers: listed in order, asked, and all decided before a ticket that needed them is solved.

``approver_id`` holds the approvers' emails in alphabetical order,
comma-separated without spaces (§2.5), when approval is needed to solve
the request (``approval_required`` yes). So:

* an approver the transaction lists has an approval request of the
  requester (§3), unless the transaction started a prerequisite the
  approvals wait for (clearance, NDA, training: "prerequisites must be
  completed before approval requests are created", §3.4, §5.4, §8.3);
* a ``solved`` ticket that needed approval has a decided (approved or
  rejected) request of its requester to every listed approver, none still
  pending (§3.9).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from benchmark.domains.consulting.judges.actions import action_of
from benchmark.domains.consulting.judges.tickets import (
    finding,
    listed,
    requester_email,
    requester_queries,
    row,
    text,
    tickets_of,
)
from judges import CommitContext, Effect, Finding, Query, Row, StateSnapshot, Verdict

__all__ = ["TicketApprovalsJudge"]

_APPROVALS = "approval_approval_requests"
_PREREQUISITES = frozenset({"clearance", "NDA", "enrollment"})


def _needs_decisions(ticket: Effect) -> bool:
    fields = row(ticket)
    return fields.get("status") == "solved" and fields.get("approval_required") == "yes"


def _lists_approvers(ticket: Effect) -> bool:
    fields = row(ticket)
    return fields.get("approval_required") == "yes" and "approver_id" in ticket.changed_fields


def _to(approver: str) -> Query:
    return Query.of(_APPROVALS, None, approver_email=approver)


def _prerequisite_started(effects: Sequence[Effect]) -> bool:
    return any(a is not None and a.label in _PREREQUISITES for a in map(action_of, effects))


@dataclass(frozen=True, slots=True)
class TicketApprovalsJudge:
    """approver_id is sorted and asked; a solved ticket that needed approval has each approver's decision."""

    name: str = "consulting_ticket_approvals"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        tickets = [t for t in tickets_of(effects) if _needs_decisions(t) or _lists_approvers(t)]
        wanted = list(requester_queries(tickets))
        for ticket in tickets:
            wanted.extend(_to(approver) for approver in listed(row(ticket).get("approver_id")))
        return list(dict.fromkeys(wanted))

    def __call__(self, context: CommitContext) -> Verdict:
        findings: list[Finding] = []
        waiting_on_prerequisite = _prerequisite_started(context.effects)
        for ticket in tickets_of(context.effects):
            approvers = listed(row(ticket).get("approver_id"))
            if "approver_id" in ticket.changed_fields:
                findings.extend(self._order(ticket, approvers))
            if not (_needs_decisions(ticket) or _lists_approvers(ticket)):
                continue
            requester = requester_email(context.state, ticket)
            if requester is None:
                continue
            for approver in approvers:
                theirs = self._requests(context.state, approver, requester)
                if _needs_decisions(ticket):
                    findings.extend(self._undecided(ticket, approver, requester, theirs))
                elif not theirs and not waiting_on_prerequisite:
                    findings.append(self._unasked(ticket, approver, requester))
        return Verdict.of(findings)

    @staticmethod
    def _requests(state: StateSnapshot, approver: str, requester: str) -> list[Row]:
        return [r for r in state.rows(_to(approver)) if r.get("requester_email") == requester]

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

    def _unasked(self, ticket: Effect, approver: str, requester: str) -> Finding:
        return finding(
            self.name,
            f"ticket {ticket.key_text}: approver_id lists {approver}, who has no approval request of"
            f" {requester}",
            "allowed: approver_id lists the approvers asked (approval_create_request), once any prerequisite"
            " is complete",
            "ticket-approver-not-asked",
            ticket,
            field="approver_id",
            value=row(ticket).get("approver_id"),
            approver=approver,
        )

    def _undecided(
        self, ticket: Effect, approver: str, requester: str, theirs: list[Row]
    ) -> Iterator[Finding]:
        if any(r.get("status") in ("approved", "rejected") for r in theirs):
            return
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
