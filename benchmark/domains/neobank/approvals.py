"""Approvals: the approval workflow and the approver directory.

A request ``APR-{n+1:08d}`` (n = rows in the table) is created ``pending``
with urgency ``standard`` unless given; requester and approver must be
employees (by email), and nothing else is checked — the routing rules are
the agent's to follow. Its ``details`` are free text and not hashed; no
timestamp is stored.

The approver for a department (``it_security``, ``finance_accounting`` or
``compliance_risk``, any case) is its highest-level employee, the first in
list order on a tie. An approver on leave is reported with the email of
their manager as backup; ``departing`` counts as available.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from benchmark.domains import store
from benchmark.domains.neobank import models as m
from benchmark.domains.neobank.common import (
    employee_by_email,
    insert_counted,
    parse_datetime,
    reference_errors,
)
from benchmark.domains.neobank.schema import sql
from guard.errors import InvalidArguments, NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

_APPROVER_DEPARTMENTS = {
    "it_security": m.Department.IT_SECURITY,
    "finance_accounting": m.Department.FINANCE_ACCOUNTING,
    "compliance_risk": m.Department.COMPLIANCE_RISK,
}
_AVAILABILITY = {
    m.EmploymentStatus.ACTIVE.value: m.AvailabilityStatus.AVAILABLE,
    m.EmploymentStatus.DEPARTING.value: m.AvailabilityStatus.AVAILABLE,
    m.EmploymentStatus.ON_LEAVE.value: m.AvailabilityStatus.ON_LEAVE,
}


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, use_enum_values=True)


class CreateRequestOut(_Out):
    approval_request_id: str
    status: str


class CheckStatusOut(_Out):
    status: str
    decided_at: str | None = None
    approver_feedback: str | None = None


class ContactDetailsOut(_Out):
    name: str
    availability_status: str
    backup_approver_email: str | None = None


class ApproverContactOut(_Out):
    employee_id: str
    contact_email: str
    contact_name: str


@tools.tool(write=True)
async def approval_api_create_request(
    ctx: ToolContext,
    request_type: Annotated[m.ApprovalRequestType, Field(description="What kind of approval is asked for")],
    requester_email: Annotated[str, Field(description="Email of the employee asking for approval")],
    approver_email: Annotated[str, Field(description="Email of the designated approver")],
    details: Annotated[str, Field(description="What is being requested, and why")],
    urgency: Annotated[
        m.ApprovalUrgency | None, Field(description="standard (default), urgent or critical")
    ] = None,
    ticket_id: Annotated[str | None, Field(description="The Zendesk ticket it belongs to")] = None,
) -> CreateRequestOut:
    """Open an approval request with the designated approver (look the approver up first); status pending."""
    with reference_errors("create approval request"):
        requester = await employee_by_email(ctx, requester_email, "Requester not found: {}")
        approver = await employee_by_email(ctx, approver_email, "Approver not found: {}")
        row = await insert_counted(
            ctx,
            "approval_requests",
            "APR-{:08d}",
            m.ApprovalRequest,
            request_type=request_type,
            requester_id=requester["id"],
            approver_id=approver["id"],
            status=m.ApprovalRequestStatus.PENDING,
            urgency=urgency or m.ApprovalUrgency.STANDARD,
            details=details,
            ticket_id=ticket_id,
        )
        return CreateRequestOut(approval_request_id=row["id"], status=row["status"])


@tools.tool(write=False)
async def approval_api_check_status(
    ctx: ToolContext,
    approval_request_id: Annotated[str, Field(description="Approval request id, e.g. APR-00000001")],
) -> CheckStatusOut:
    """An approval request's status (pending, approved, rejected, cancelled), decision time and feedback."""
    with reference_errors("check approval status"):
        request = await store.first_row(ctx.conn, sql["approval_requests"], id=approval_request_id)
        if request is None:
            raise NotFound(f"Approval request not found: {approval_request_id}")
        decided = request["decided_at"]
        return CheckStatusOut(
            status=request["status"],
            decided_at=None if decided is None else parse_datetime(decided).strftime("%Y-%m-%dT%H:%M:%SZ"),
            approver_feedback=request["approver_feedback"],
        )


@tools.tool(write=False)
async def approver_lookup_api_get_contact_details(
    ctx: ToolContext, email: Annotated[str, Field(description="Email of the approver")]
) -> ContactDetailsOut:
    """Whether an approver is available, with a backup approver (their manager) when they are on leave."""
    with reference_errors("get contact details"):
        approver = await employee_by_email(ctx, email, "Approver not found: {}")
        availability = _AVAILABILITY.get(approver["employment_status"], m.AvailabilityStatus.UNAVAILABLE)
        backup: str | None = None
        if availability is m.AvailabilityStatus.ON_LEAVE and approver["manager_id"]:
            manager = await store.first_row(ctx.conn, sql["employees"], id=approver["manager_id"])
            backup = None if manager is None else manager["email"]
        return ContactDetailsOut(
            name=approver["full_name"], availability_status=availability.value, backup_approver_email=backup
        )


@tools.tool(write=False)
async def approver_lookup_api_get_approver_contact(
    ctx: ToolContext,
    required_approver: Annotated[
        str,
        Field(description="Department of the approver: it_security, finance_accounting or compliance_risk"),
    ],
) -> ApproverContactOut:
    """The approver for a department: its highest-level employee (id, email, name)."""
    with reference_errors("get approver contact"):
        department = _APPROVER_DEPARTMENTS.get(required_approver.lower())
        if department is None:
            raise InvalidArguments(
                f"Invalid required_approver: {required_approver}. "
                "Must be one of: it_security, finance_accounting, compliance_risk"
            )
        members = await store.all_rows(ctx.conn, sql["employees"], department=department.value)
        if not members:
            raise NotFound(f"No {department.value} team members found")
        top = max(member["level"] for member in members)
        approver = next(member for member in members if member["level"] == top)
        return ApproverContactOut(
            employee_id=approver["id"], contact_email=approver["email"], contact_name=approver["full_name"]
        )
