"""Approval workflow: creating approval requests and reading their status.

``approval_create_request`` appends ``APR-2-nnnnnn`` (first unused from
000000), status pending, with the amount and engagement code as given.
``approval_get_status`` filters by type and requester (and engagement code,
approver when given); with no match it answers one placeholder result
``NOT_FOUND`` / ``not_found`` rather than an error.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.consulting import models as m
from benchmark.domains.consulting.common import append_row, reference_errors
from benchmark.domains.consulting.schema import sql
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

RequestKind = Annotated[m.RequestType, Field(description="What is to be approved")]
Requester = Annotated[str, Field(description="Requester email")]


class CreatedOut(BaseModel):
    approval_id: str


class StatusResultOut(BaseModel):
    approval_id: str
    status: str
    request_type: str
    approver_email: str
    engagement_code: str | None = None


class StatusOut(BaseModel):
    results: list[StatusResultOut] = Field(default_factory=list)


@tools.tool(write=True)
async def approval_create_request(
    ctx: ToolContext,
    request_type: RequestKind,
    requester_email: Requester,
    approver_email: Annotated[str, Field(description="Approver email, chosen by policy")],
    amount: Annotated[int | None, Field(description="Amount in USD, for cost-related requests")] = None,
    engagement_code: Annotated[str | None, Field(description="Engagement code, when there is one")] = None,
) -> CreatedOut:
    """Open an approval request (status pending) routed to the approver; returns its id."""
    with reference_errors("create approval request"):
        row = await append_row(
            ctx,
            "approval_approval_requests",
            "APR-2",
            m.ApprovalRequest,
            request_type=request_type,
            requester_email=requester_email,
            approver_email=approver_email,
            amount=amount,
            engagement_code=engagement_code,
            status=m.ApprovalRequestStatus.PENDING,
        )
        return CreatedOut(approval_id=row["id"])


@tools.tool(write=False)
async def approval_get_status(
    ctx: ToolContext,
    request_type: RequestKind,
    requester_email: Requester,
    engagement_code: Annotated[str | None, Field(description="Only requests for this engagement")] = None,
    approver_email: Annotated[str | None, Field(description="Only requests to this approver")] = None,
) -> StatusOut:
    """The approval requests of a type by a requester, with their status (pending, approved, rejected)."""
    with reference_errors("retrieve approval status"):
        match: dict[str, str] = {"request_type": request_type.value, "requester_email": requester_email}
        if engagement_code is not None:
            match["engagement_code"] = engagement_code
        if approver_email is not None:
            match["approver_email"] = approver_email
        found = await store.all_rows(ctx.conn, sql["approval_approval_requests"], **match)
        if not found:
            return StatusOut(
                results=[
                    StatusResultOut(
                        approval_id="NOT_FOUND",
                        status=m.ApprovalRequestStatus.NOT_FOUND.value,
                        request_type=request_type.value,
                        approver_email=approver_email or "",
                        engagement_code=engagement_code,
                    )
                ]
            )
        return StatusOut(
            results=[
                StatusResultOut(
                    approval_id=row["id"],
                    status=row["status"],
                    request_type=row["request_type"],
                    approver_email=row["approver_email"],
                    engagement_code=row["engagement_code"],
                )
                for row in found
            ]
        )
