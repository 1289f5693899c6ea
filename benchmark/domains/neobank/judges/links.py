"""Who a commit's work is for, and which tickets document it: the links the Python judges share.

A ticket names its requester by Zendesk user id; Okta, assets, licenses,
approvals and orders name employees by Workday id. The only thing the two
share is the email address, one lookup away on each side, so the links are
made from rows fetched in one round: the Zendesk users of the tickets the
transaction touched, and the employees its rows name. A piece of work is
linked to a ticket either by the ``ticket_id`` its row carries or, for rows
without one (grants, group adds, seats, device assignments), by the email
of the employee it is for.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from judges import Effect, EffectKind, Query, StateSnapshot

__all__ = [
    "PROVISIONING",
    "Commit",
    "Links",
    "Work",
    "WorkKind",
    "link_queries",
    "shown",
]

Row = Mapping[str, Any]
WorkKind = Literal["access", "dashboard", "license", "device", "order", "security", "approval"]

_WORK: dict[str, tuple[WorkKind, str]] = {
    "okta_app_access": ("access", "employee_id"),
    "okta_group_membership": ("dashboard", "employee_id"),
    "license_allocations": ("license", "employee_id"),
    "asset_assignments": ("device", "employee_id"),
    "procurement_orders": ("order", "requester_id"),
    "okta_security_audit": ("security", "employee_id"),
    "approval_requests": ("approval", "requester_id"),
}
_PEOPLE: dict[str, tuple[str, ...]] = {
    "okta_app_access": ("employee_id",),
    "okta_group_membership": ("employee_id",),
    "license_allocations": ("employee_id",),
    "asset_assignments": ("employee_id",),
    "procurement_orders": ("requester_id",),
    "okta_security_audit": ("employee_id",),
    "approval_requests": ("requester_id", "approver_id"),
    "email_notifications": ("recipient_id",),
}
PROVISIONING: frozenset[WorkKind] = frozenset({"access", "dashboard", "license", "device"})


@dataclass(frozen=True, slots=True)
class Work:
    """One record the transaction created for an employee: a grant, a seat, a device, an order, ..."""

    kind: WorkKind
    effect: Effect
    employee_id: str
    ticket_id: str | None

    @property
    def provisions(self) -> bool:
        """Access, a dashboard, a license or a device handed over (resolution ``provisioned``)."""
        return self.kind in PROVISIONING

    @property
    def label(self) -> str:
        return f"{self.effect.table} {self.effect.key_text}"


class Commit:
    """The effects of one commit, grouped the way the judges read them."""

    def __init__(self, effects: Sequence[Effect]) -> None:
        self.effects = tuple(effects)
        self.tickets = tuple(
            e for e in self.effects if e.table == "zendesk_tickets" and e.kind is not EffectKind.DELETE
        )
        self.work = tuple(self._work())

    def inserted(self, table: str) -> tuple[Effect, ...]:
        return tuple(e for e in self.effects if e.table == table and e.kind is EffectKind.INSERT)

    def updated(self, table: str) -> tuple[Effect, ...]:
        return tuple(e for e in self.effects if e.table == table and e.kind is EffectKind.UPDATE)

    def ticket(self, ticket_id: str) -> Effect | None:
        return next((t for t in self.tickets if t.key_text == ticket_id), None)

    def employee_ids(self) -> set[str]:
        """Every employee id the changed rows name (before and after)."""
        found: set[str] = set()
        for effect in self.effects:
            for column in _PEOPLE.get(effect.table, ()):
                for row in (effect.before, effect.after):
                    if row is not None and row.get(column):
                        found.add(str(row[column]))
        return found

    def _work(self) -> Iterator[Work]:
        for effect in self.effects:
            spec = _WORK.get(effect.table)
            if spec is None or effect.kind is not EffectKind.INSERT or effect.after is None:
                continue
            kind, column = spec
            employee = effect.after.get(column)
            if employee:
                ticket = effect.after.get("ticket_id")
                yield Work(kind, effect, str(employee), None if ticket in (None, "") else str(ticket))


def link_queries(commit: Commit) -> list[Query]:
    """The employees the rows name and the Zendesk users of the touched tickets, by id."""
    queries = [Query.one("employees", id=employee) for employee in sorted(commit.employee_ids())]
    users = {str(t.after["requester_id"]) for t in commit.tickets if t.after and t.after.get("requester_id")}
    queries += [Query.one("zendesk_users", id=user) for user in sorted(users)]
    return queries


def shown(value: Any) -> str:
    """A field's value as finding text: null for a missing value, as the rule pack writes it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _email(row: Row | None) -> str | None:
    email = None if row is None else row.get("email")
    return email.strip().casefold() if isinstance(email, str) and email.strip() else None


class Links:
    """Employees and ticket requesters of one commit, matched by email."""

    def __init__(self, commit: Commit, state: StateSnapshot) -> None:
        self.commit = commit
        self.employees: dict[str, Row] = {}
        for employee in commit.employee_ids():
            row = state.one("employees", id=employee)
            if row is not None:
                self.employees[employee] = row
        self._requesters: dict[str, str | None] = {}
        for ticket in commit.tickets:
            user_id = (ticket.after or {}).get("requester_id")
            user = state.one("zendesk_users", id=str(user_id)) if user_id else None
            self._requesters[ticket.key_text] = _email(user)

    def employee(self, employee_id: str) -> Row | None:
        return self.employees.get(employee_id)

    def requester_email(self, ticket: Effect) -> str | None:
        return self._requesters.get(ticket.key_text)

    def tickets_of(self, employee_id: str) -> tuple[Effect, ...]:
        """The touched tickets whose requester is the employee (same email)."""
        email = _email(self.employees.get(employee_id))
        if email is None:
            return ()
        return tuple(t for t in self.commit.tickets if self._requesters.get(t.key_text) == email)

    def requester_of(self, ticket: Effect) -> Row | None:
        """The employee a touched ticket is for, when the commit's rows name them."""
        email = self._requesters.get(ticket.key_text)
        if email is None:
            return None
        return next((e for e in self.employees.values() if _email(e) == email), None)

    def work_for(self, ticket: Effect) -> tuple[Work, ...]:
        """The work linked to a ticket: rows naming it, or rows for its requester that name no ticket."""
        requester = self.requester_of(ticket)
        linked = []
        for work in self.commit.work:
            if work.ticket_id is not None:
                if work.ticket_id == ticket.key_text:
                    linked.append(work)
            elif requester is not None and work.employee_id == requester.get("id"):
                linked.append(work)
        return tuple(linked)
