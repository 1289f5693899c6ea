"""The CRM (Salesforce): engagements, and whether an employee is assigned to one.

``salesforce_crm_check_employee_assignment`` reads the resource-management
assignments (Mavenlink's table), taking the first row for the employee and
engagement whatever its status; no row is ``assigned: false``, not an error.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.consulting.common import iso, reference_errors
from benchmark.domains.consulting.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

EngagementCode = Annotated[str, Field(description="Engagement code, e.g. ENG-0012345")]


class EngagementOut(BaseModel):
    engagement_code: str
    client_id: str
    engagement_manager_email: str
    status: str
    start_date: str
    end_date: str | None = None


class AssignmentCheckOut(BaseModel):
    assigned: bool
    assignment_status: str | None = None
    start_date: str | None = None
    end_date: str | None = None


@tools.tool(write=False)
async def salesforce_crm_get_engagement(ctx: ToolContext, engagement_code: EngagementCode) -> EngagementOut:
    """An engagement's client, engagement manager, status and dates."""
    with reference_errors("retrieve engagement details"):
        row = await store.first_row(
            ctx.conn, sql["salesforce_crm_sf_engagements"], engagement_code=engagement_code
        )
        if row is None:
            raise NotFound(f"Engagement not found: {engagement_code}")
        return EngagementOut(
            engagement_code=row["engagement_code"],
            client_id=row["client_id"],
            engagement_manager_email=row["engagement_manager_email"],
            status=row["status"],
            start_date=str(iso(row["start_date"])),
            end_date=iso(row["end_date"]),
        )


@tools.tool(write=False)
async def salesforce_crm_check_employee_assignment(
    ctx: ToolContext,
    email: Annotated[str, Field(description="Employee email")],
    engagement_code: EngagementCode,
) -> AssignmentCheckOut:
    """Whether an employee is assigned to an engagement, with the assignment's status and dates."""
    with reference_errors("check employee assignment"):
        row = await store.first_row(
            ctx.conn,
            sql["mavenlink_employee_assignments"],
            employee_email=email,
            engagement_code=engagement_code,
        )
        if row is None:
            return AssignmentCheckOut(assigned=False)
        return AssignmentCheckOut(
            assigned=True,
            assignment_status=row["assignment_status"],
            start_date=iso(row["start_date"]),
            end_date=iso(row["end_date"]),
        )
