"""Consulting's Zendesk: thirteen custom ticket fields and the hidden ticket-status audit.

The ticket row and both item payloads carry the custom fields
``engagement_code``, ``approval_required`` (yes/no), ``approver_id``,
``asset_id``, ``catalog_id``, ``client_id``, ``expense_report_id``,
``course_id``, ``folder_id``, ``device_type``, ``hardware_order_id``,
``access_type`` and ``license_pool``. The classes keep the reference's names
(``Ticket``, ``TicketCreateInput``, …) because validation messages show them.

A ticket created with any status but ``open`` (a missing status is ``new``)
adds a ``VIOLATION-<n+1>`` row (n = rows in the audit table) to
``zendesk_ticket_status_violations``, after the ticket is stored: when that
id is taken, the call fails with the ticket already written.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, TypeVar

from pydantic import BaseModel, field_validator

from benchmark.domains.consulting.models import AccessType, DeviceType, LicensePool
from benchmark.domains.zendesk import models as m

__all__ = [
    "ApprovalRequired",
    "Ticket",
    "TicketCreateInput",
    "TicketUpdateInput",
    "User",
]

_M = TypeVar("_M", bound=BaseModel)


class ApprovalRequired(StrEnum):
    YES = "yes"
    NO = "no"


_CUSTOM_TICKET_FIELDS: tuple[tuple[str, Any], ...] = (
    ("engagement_code", str | None),
    ("approval_required", ApprovalRequired | None),
    ("approver_id", str | None),
    ("asset_id", str | None),
    ("catalog_id", str | None),
    ("client_id", str | None),
    ("expense_report_id", str | None),
    ("course_id", str | None),
    ("folder_id", str | None),
    ("device_type", DeviceType | None),
    ("hardware_order_id", str | None),
    ("access_type", AccessType | None),
    ("license_pool", LicensePool | None),
)


def _with_custom_fields(base: type[_M]) -> type[_M]:
    """``base`` with the thirteen custom ticket fields (all optional) after its own."""
    fields = {name: (annotation, None) for name, annotation in _CUSTOM_TICKET_FIELDS}
    return m.with_custom_fields(base, base.__name__, fields, module=__name__)


Ticket = _with_custom_fields(m.Ticket)
TicketCreateInput = _with_custom_fields(m.TicketCreateInput)
TicketUpdateInput = _with_custom_fields(m.TicketUpdateInput)


class User(m.User):
    """Consulting's user row also accepts a numeric ``organization_id`` (kept as text)."""

    @field_validator("organization_id", mode="before")
    @classmethod
    def _organization_id_as_text(cls, value: Any) -> Any:
        return value if value is None or isinstance(value, str) else str(value)
