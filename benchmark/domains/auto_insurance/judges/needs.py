"""What the policy asks of the ticket that documents an action: the fields and the values allowed.

:func:`needs_of` turns one :class:`~.actions.Action` into :class:`Need` s on
its ticket, each with the fact that calls for it (if any is worth saying):

* status and outcome (§5.3, §5.6.5): a change waiting on underwriting or SIU
  (``uw_pending``, an SIU flag) is on hold for that review; one waiting on
  the customer (an exclusion form to sign, a police report number to bring)
  is pending; any other completed change is solved, Completed. Other actions
  of the same category in the transaction may explain a hold or pending
  ticket too, so what they wait on is passed in;
* type (§5.5): a new claim is an incident, an administrative change a task;
* priority (§5.4): Major or injury claims and Pending Cancellation accounts are
  high (or urgent), and no claim or arrangement is low (the priority of
  policy servicing tickets is a rule of the pack);
* claims action type (§5.6.2) from the claim type;
* effective date of change (§5.6.3) from the change's own date;
* user type (§2.5): only a Named Insured or Co-Insured changes a policy or
  its billing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from benchmark.domains.auto_insurance.judges.actions import SERVICING, Action

__all__ = ["Need", "Waiting", "needs_of", "waiting_of"]

INTERNAL = "Pending – Internal Review"
USER = "Pending – User Action"
_NOT_LOW = ("normal", "high", "urgent")
_SERIOUS = ("high", "urgent")
_TASKS = frozenset(
    {
        "extension",
        "installment plan",
        "cancellation",
        "reinstatement",
        "vehicle added",
        "vehicle removed",
        "driver added",
        "driver removed",
        "driver change",
        "document link",
    }
)
_INSUREDS = ("Named Insured", "Co-Insured")


@dataclass(frozen=True, slots=True)
class Need:
    """A ticket field, the values the policy allows for it, and the fact that calls for them."""

    field: str
    allowed: tuple[str | None, ...]
    because: str | None = None


@dataclass(frozen=True, slots=True)
class Waiting:
    """Why an action's ticket waits: internal reviews (review type → fact) and user actions."""

    reviews: Mapping[str, str] = field(default_factory=dict)
    user: tuple[str, ...] = ()

    @property
    def any(self) -> bool:
        return bool(self.reviews or self.user)

    def joined(self, other: Waiting) -> Waiting:
        return Waiting({**self.reviews, **other.reviews}, tuple(dict.fromkeys((*self.user, *other.user))))


def waiting_of(action: Action) -> Waiting:
    """The reasons the action's ticket cannot be solved yet, read from the changed record."""
    row, kind = action.row, action.kind
    reviews: dict[str, str] = {}
    user: list[str] = []
    if kind in ("vehicle added", "driver added") and row.get("uw_pending") is True:
        reviews["Underwriting"] = "uw_pending true"
    if kind == "driver added" and row.get("exclusion_form_required") is True:
        user.append("exclusion form required")
    if kind == "claim filed":
        if row.get("siu_flag") not in (None, "None"):
            reviews["SIU"] = f"siu_flag '{row.get('siu_flag')}'"
        if row.get("police_report_required") is True and not row.get("police_report_number"):
            user.append("police report required, no number given")
    return Waiting(reviews, tuple(user))


def needs_of(action: Action, also: Waiting) -> list[Need]:
    """The needs on the ticket documenting ``action``; ``also``: what its category's other actions wait on."""
    kind, row = action.kind, action.row
    needs = _status_needs(waiting_of(action), also)
    if kind == "claim filed":
        severity, injury = row.get("severity"), row.get("has_bodily_injury") is True
        facts = f"severity '{severity}', has_bodily_injury {str(injury).lower()}"
        needs += [
            Need("type", ("incident",)),
            Need(
                "claims_action_type",
                (_claims_action(row.get("claim_type")),),
                f"claim_type '{row.get('claim_type')}'",
            ),
            Need("priority", _SERIOUS if severity == "Major" or injury else _NOT_LOW, facts),
        ]
    elif kind in _TASKS:
        needs.append(Need("type", ("task",)))
    if kind in ("extension", "installment plan"):
        status = row.get("status")
        needs += [
            Need(
                "priority",
                _SERIOUS if status == "Pending Cancellation" else _NOT_LOW,
                f"account status '{status}'",
            ),
            Need("user_type", _INSUREDS),
        ]
    if action.category == SERVICING and kind in _TASKS:
        date_field, date = _effective_date(action)
        needs += [
            Need("user_type", _INSUREDS),
            Need(
                "effective_date_of_change",
                (date,),
                f"{date_field} {date}" if date_field else "not applicable to a reinstatement",
            ),
        ]
    return needs


def _status_needs(own: Waiting, also: Waiting) -> list[Need]:
    if own.any:
        because = ", ".join([*own.reviews.values(), *own.user])
        statuses = (["hold"] if own.reviews else []) + (["pending"] if own.user else [])
        outcomes = ([INTERNAL] if own.reviews else []) + ([USER] if own.user else [])
        needs = [Need("status", tuple(statuses), because), Need("outcome_summary", tuple(outcomes), because)]
        if own.reviews:
            needs.append(Need("internal_review_type", tuple(own.reviews), because))
        return needs
    because = "nothing awaits a review or the customer"
    statuses = ["solved", *(["hold"] if also.reviews else []), *(["pending"] if also.user else [])]
    outcomes = ["Completed", *([INTERNAL] if also.reviews else []), *([USER] if also.user else [])]
    return [Need("status", tuple(statuses), because), Need("outcome_summary", tuple(outcomes), because)]


def _claims_action(claim_type: object) -> str:
    text = str(claim_type)
    if text.startswith("Collision"):
        return "FNOL – Collision"
    if text == "Comprehensive – Glass Only":
        return "FNOL – Glass Only"
    if text.startswith("Comprehensive"):
        return "FNOL – Comprehensive"
    return "FNOL – Liability Only"


def _effective_date(action: Action) -> tuple[str | None, str | None]:
    """The record's field that dates the change and its value (none for a reinstatement)."""
    kind = action.kind
    if kind == "reinstatement":
        return None, None
    name = (
        "cancellation_date"
        if kind == "cancellation"
        else ("removal_date" if kind.endswith("removed") else "effective_date")
    )
    value = action.row.get(name)
    return name, None if value is None else str(value)
