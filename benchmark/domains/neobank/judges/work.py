"""The ticket that documents the work: its outcome, its approval list and its requester, from what was done.

Per ticket the transaction touched, and per piece of work it did (see
:mod:`.links`):

* ``work-documented`` — access, a dashboard, a seat or a device handed to an
  employee is documented on a ticket of theirs that the transaction created
  or updated (§1.2 "every request creates or updates a ticket");
* ``work-ticket-requester`` — an approval request, order or security
  operation names the ticket of the employee it is for;
* ``ticket-provisioned-outcome`` — when something was handed over, a ticket
  of the employee is solved as provisioned (§2.4, §2.9): not pending or on
  hold, not denied or answered;
* ``ticket-provisioned-claims-work`` — a ticket solved as provisioned in
  this transaction has something handed over (or a security operation) behind it;
* ``ticket-approval-list`` — approval_request_ids lists existing requests
  of this ticket, and approver_id their approvers in the same order, IT
  Security last (§2.3 "Director/Manager first, then IT Security");
* ``ticket-offboarding-tag`` and ``ticket-executive-priority`` — a departing
  employee's ticket is tagged offboarding (§2.8); an Executive & Leadership
  request is high or urgent (§2.6), when the commit's rows name the employee.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmark.domains.neobank.judges.links import Commit, Links, Work, link_queries, shown
from judges import CommitContext, Effect, Finding, Query, Severity, Verdict

__all__ = ["TicketWorkJudge", "split_list"]


def split_list(text: Any) -> list[str]:
    """A comma-separated field as its items (``"A,B"`` → ``["A", "B"]``; null → ``[]``)."""
    if not isinstance(text, str) or not text.strip():
        return []
    return [part.strip() for part in text.split(",")]


def _changed(ticket: Effect, *fields: str) -> bool:
    return ticket.before is None or any(f in ticket.changed_fields for f in fields)


@dataclass(frozen=True, slots=True)
class TicketWorkJudge:
    """Tickets against the work the transaction did (see the module docstring)."""

    name: str = "neobank_tickets"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        commit = Commit(effects)
        queries = link_queries(commit)
        for ticket in commit.tickets:
            if not _changed(ticket, "approval_request_ids", "approver_id"):
                continue
            row = ticket.after or {}
            queries += [
                Query.one("approval_requests", id=i) for i in split_list(row.get("approval_request_ids"))
            ]
            queries += [Query.one("employees", id=i) for i in split_list(row.get("approver_id"))]
        return list(dict.fromkeys(queries))

    def __call__(self, context: CommitContext) -> Verdict:
        commit = Commit(context.effects)
        links = Links(commit, context.state)
        findings: list[Finding] = []
        for work in commit.work:
            findings.extend(self._documented(work, links))
        for ticket in commit.tickets:
            findings.extend(self._outcome(ticket, links))
            findings.extend(self._approval_list(ticket, context))
            findings.extend(self._requester_rules(ticket, links))
        return Verdict.of(findings)

    def _finding(self, rule: str, message: str, hint: str, **evidence: Any) -> Finding:
        return Finding(self.name, Severity.BLOCK, message, hint=hint, rule=rule, evidence=evidence)

    def _documented(self, work: Work, links: Links) -> list[Finding]:
        employee = links.employee(work.employee_id)
        email = employee.get("email") if employee else None
        if work.ticket_id is None:
            if not work.provisions or links.tickets_of(work.employee_id):
                return []
            message = (
                f"{work.label}: {work.kind} for {work.employee_id} ({email}) while no ticket requested by "
                "that employee was created or updated"
            )
            hint = (
                "allowed: a ticket of the employee's request (requester found by email), created or updated"
            )
            return [
                self._finding(
                    "work-documented", message, hint, key=work.effect.key_text, employee_id=work.employee_id
                )
            ]
        ticket = links.commit.ticket(work.ticket_id)
        if ticket is None or email is None:
            return []
        requester = links.requester_email(ticket)
        if requester is None or requester == str(email).casefold():
            return []
        message = (
            f"{work.label}: for {work.employee_id} ({email}) on ticket {ticket.key_text}, whose requester is "
            f"{requester}"
        )
        hint = f"allowed: the ticket requested by {email}"
        return [
            self._finding(
                "work-ticket-requester", message, hint, key=work.effect.key_text, ticket_id=ticket.key_text
            )
        ]

    def _outcome(self, ticket: Effect, links: Links) -> list[Finding]:
        row = ticket.after or {}
        status, resolution = row.get("status"), row.get("resolution_category")
        work = links.work_for(ticket)
        handed = [w for w in work if w.provisions]
        requester = links.requester_of(ticket)
        findings: list[Finding] = []
        if handed:
            others = links.tickets_of(str(requester["id"])) if requester else (ticket,)
            done = any(
                (t.after or {}).get("status") == "solved"
                and (t.after or {}).get("resolution_category") == "provisioned"
                for t in others
            )
            if not done:
                records = ", ".join(w.label for w in handed)
                findings.append(
                    self._finding(
                        "ticket-provisioned-outcome",
                        f"ticket {ticket.key_text}: status '{shown(status)}' with resolution_category "
                        f"'{shown(resolution)}' while {records} handed over in this transaction",
                        "allowed: solved with resolution_category provisioned",
                        key=ticket.key_text,
                        records=[w.effect.key_text for w in handed],
                    )
                )
        claims = (
            status == "solved"
            and resolution == "provisioned"
            and _changed(ticket, "status", "resolution_category")
        )
        if claims and not handed and not any(w.kind == "security" for w in work):
            findings.append(
                self._finding(
                    "ticket-provisioned-claims-work",
                    f"ticket {ticket.key_text}: solved as provisioned while this transaction granted, "
                    "assigned or allocated nothing to its requester",
                    "allowed: provisioned once access, a dashboard, a license or a device is handed over or "
                    "an account issue resolved; otherwise the resolution reached (denied, ...)",
                    key=ticket.key_text,
                )
            )
        return findings

    def _approval_list(self, ticket: Effect, context: CommitContext) -> list[Finding]:
        row = ticket.after or {}
        if not _changed(ticket, "approval_request_ids", "approver_id"):
            return []
        ids, approvers = split_list(row.get("approval_request_ids")), split_list(row.get("approver_id"))
        if not ids and not approvers:
            return []
        problems: list[str] = []
        if len(ids) != len(approvers):
            problems.append(f"{len(ids)} approval_request_ids for {len(approvers)} approver_id")
        expected: list[str] = []
        for request_id in ids:
            request = context.state.one("approval_requests", id=request_id)
            if request is None:
                problems.append(f"{request_id} is no approval request")
                continue
            expected.append(str(request["approver_id"]))
            if str(request.get("ticket_id")) != ticket.key_text:
                problems.append(f"{request_id} belongs to ticket {shown(request.get('ticket_id'))}")
        if not problems and expected != approvers:
            problems.append(f"the requests' approvers in order are {','.join(expected)}")
        departments = [(context.state.one("employees", id=a) or {}).get("department") for a in approvers]
        if "it_security" in departments:
            first = departments.index("it_security")
            if any(d != "it_security" for d in departments[first:]):
                problems.append("IT Security is listed before the manager or director")
        if not problems:
            return []
        message = (
            f"ticket {ticket.key_text}: approval_request_ids '{shown(row.get('approval_request_ids'))}' and "
            f"approver_id '{shown(row.get('approver_id'))}': {'; '.join(problems)}"
        )
        hint = (
            "allowed: this ticket's approval request ids and their approvers in the same order, "
            "comma-separated without spaces, Director/Manager first, then IT Security"
        )
        return [self._finding("ticket-approval-list", message, hint, key=ticket.key_text)]

    def _requester_rules(self, ticket: Effect, links: Links) -> list[Finding]:
        row = ticket.after or {}
        requester = links.requester_of(ticket)
        if requester is None or row.get("status") == "open":
            return []
        findings: list[Finding] = []
        tags = row.get("tags") or []
        if requester.get("employment_status") == "departing" and "offboarding" not in tags:
            findings.append(
                self._finding(
                    "ticket-offboarding-tag",
                    f"ticket {ticket.key_text}: tags {tags} for departing employee {requester['id']}",
                    "allowed: tag offboarding added",
                    key=ticket.key_text,
                )
            )
        executive = requester.get("department") == "executive_leadership"
        if executive and row.get("type") != "question" and row.get("priority") not in ("high", "urgent"):
            findings.append(
                self._finding(
                    "ticket-executive-priority",
                    f"ticket {ticket.key_text}: priority '{row.get('priority')}' for Executive & Leadership "
                    f"employee {requester['id']}",
                    "allowed: high (urgent for SEV1/SEV2 and security incidents)",
                    key=ticket.key_text,
                )
            )
        return findings
