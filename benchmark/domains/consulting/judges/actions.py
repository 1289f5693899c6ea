"""The actions a ticket documents: what each changed record did for an employee.

An action is a request made or work done in another system: an approval
requested, a prerequisite initiated (clearance, NDA), training enrolled,
access, a device or a license provisioned, an expense rejection overridden.
It is *waiting* when the request cannot go on until it completes (policy
§2.1 "pending"), and names the ticket custom field that records it (§2.5).
Device status changes go with their assignment and are not actions of
their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchmark.domains.consulting.judges.tickets import became, listed, row
from judges import Effect, EffectKind

__all__ = ["Action", "action_of", "names"]


@dataclass(frozen=True, slots=True)
class Action:
    """One thing the transaction did for ``employee``, and the ticket field that records it."""

    effect: Effect
    label: str
    employee: str | None
    waiting: bool
    field: str | None = None
    value: str | None = None

    @property
    def name(self) -> str:
        return f"{self.label} {self.effect.key_text}"


_INSERTS = {
    "approval_approval_requests": ("approval", True, "approver_id", "approver_email"),
    "degreed_training_enrollments": ("enrollment", True, "course_id", "course_id"),
    "okta_application_access_logs": ("application access", False, None, None),
    "license_management_license_allocation": ("license", False, "catalog_id", "catalog_id"),
    "asset_management_device_assignments": ("device assignment", False, "asset_id", "asset_id"),
    "box_folder_access_logs": ("folder access", False, "folder_id", "folder_id"),
    "client_access_client_system_access": ("client system access", False, "client_id", "client_id"),
    "client_access_vpn_access": ("VPN access", False, "client_id", "client_id"),
}
"""Inserted records: label, waiting, the ticket field naming them, the column that field names."""


def action_of(effect: Effect) -> Action | None:
    """The action an effect records, or None for a change no ticket has to document."""
    after, table = row(effect), effect.table
    employee = after.get("employee_email")
    if effect.kind is EffectKind.INSERT and table in _INSERTS:
        label, waiting, field, column = _INSERTS[table]
        if table == "approval_approval_requests":
            employee = after.get("requester_email")
        value = None if column is None else after.get(column)
        return Action(effect, label, employee, waiting, field if value else None, value)
    if table == "client_access_nda_record" and became(effect, "status", "sent_for_signature"):
        return Action(effect, "NDA", employee, True, "client_id", after.get("client_id"))
    if table == "client_access_clearance_record" and became(effect, "status", "in_progress"):
        return Action(effect, "clearance", employee, True)
    if table == "concur_expense_reports" and became(effect, "override_approved", True):
        return Action(effect, "expense override", employee, False, "expense_report_id", effect.key_text)
    return None


def names(ticket: Effect, action: Action) -> bool:
    """Whether the ticket's custom field names the action's record."""
    return (
        action.field is not None
        and action.value is not None
        and action.value in listed(row(ticket).get(action.field))
    )
