"""What one HorizonShield transaction did, read from its effects: business actions and tickets.

An :class:`Action` is one change to a system of record that the policy asks
a ticket to document (§5.1 "every chat interaction must be documented with a
ticket"): a payment arrangement, a cancellation or reinstatement, a vehicle
or driver change, a new claim, a document link. Each belongs to the request
category (§5.6.1) its ticket carries. :func:`actions_of` lists them in
commit order; :func:`tickets_of` the tickets the transaction created or
updated, with their state at commit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from judges import Effect, EffectKind

__all__ = [
    "BILLING",
    "CLAIMS",
    "DOCUMENTS",
    "SERVICING",
    "TICKETS",
    "Action",
    "actions_of",
    "as_date",
    "tickets_of",
]

TICKETS = "zendesk_tickets"
CLAIMS = "Claims"
SERVICING = "Policy Servicing"
BILLING = "Billing & Payments"
DOCUMENTS = "Documents"

_NOUNS: Mapping[str, str] = {
    "billing_accounts": "billing account",
    "policies": "policy",
    "vehicles": "vehicle",
    "drivers": "driver",
    "claims": "claim",
    "policy_documents": "document link",
}
_EVENTS: Mapping[str, str] = {
    "extension": "extension granted",
    "installment plan": "installment plan set up",
    "account reset": "account reset to Current",
    "cancellation": "cancellation scheduled",
    "reinstatement": "policy reinstated",
    "claim filed": "claim filed",
    "document link": "document link generated",
}
_CATEGORIES: Mapping[str, str] = {
    "billing_accounts": BILLING,
    "policies": SERVICING,
    "vehicles": SERVICING,
    "drivers": SERVICING,
    "claims": CLAIMS,
    "policy_documents": DOCUMENTS,
}


@dataclass(frozen=True, slots=True)
class Action:
    """One documented change: its kind (``"extension"``, ``"vehicle added"``, ...), category and effect."""

    kind: str
    category: str
    effect: Effect

    @property
    def row(self) -> Mapping[str, Any]:
        return self.effect.row

    @property
    def record(self) -> str:
        """The record as findings name it: ``vehicle VEH-2-E80D6850``."""
        return f"{_NOUNS[self.effect.table]} {self.effect.key_text}"

    @property
    def event(self) -> str:
        """What happened, as findings say it: ``extension granted``, ``vehicle added``."""
        return _EVENTS.get(self.kind, self.kind.replace("change", "changed"))


def _kind(effect: Effect) -> str | None:
    table, after, changed = effect.table, effect.after or {}, set(effect.changed_fields)
    if effect.kind is EffectKind.DELETE:
        return f"{_NOUNS[table]} deleted"
    if table == "billing_accounts":
        if "arrangements_12_months" in changed:
            return "extension" if after.get("arrangement_type") == "Extension" else "installment plan"
        return "account reset" if "status" in changed else "billing change"
    if table == "policies":
        if "status" in changed and after.get("status") == "Pending Cancellation":
            return "cancellation"
        if "status" in changed and after.get("status") == "Active":
            return "reinstatement"
        return "policy change"
    if table in ("vehicles", "drivers"):
        noun = _NOUNS[table]
        if effect.kind is EffectKind.INSERT:
            return f"{noun} added"
        if "status" in changed and after.get("status") == "Removed":
            return f"{noun} removed"
        return f"{noun} change"
    if table == "claims":
        return "claim filed" if effect.kind is EffectKind.INSERT else "claim change"
    if table == "policy_documents":
        return "document link"
    return None


def actions_of(effects: Sequence[Effect]) -> list[Action]:
    """The transaction's documented changes, in commit order."""
    actions: list[Action] = []
    for effect in effects:
        category = _CATEGORIES.get(effect.table)
        kind = _kind(effect) if category is not None else None
        if category is not None and kind is not None:
            actions.append(Action(kind, category, effect))
    return actions


def tickets_of(effects: Sequence[Effect]) -> list[Effect]:
    """The tickets the transaction created or updated (deleted ones have no state at commit)."""
    return [e for e in effects if e.table == TICKETS and e.after is not None]


def as_date(value: Any) -> date | None:
    """A ``YYYY-MM-DD`` text (or the date part of an ISO timestamp) as a date; None if it is not one."""
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None
