"""Resource management (Mavenlink): engagements and employee assignments (read-only).

``validate_engagement_code`` only asks whether the engagement exists,
whatever its status; ``get_employee_assignments`` lists an employee's
active and booked assignments.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.consulting import models as m
from benchmark.domains.consulting.common import iso, reference_errors, require
from benchmark.domains.consulting.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

_LISTED = frozenset({m.AssignmentStatus.ACTIVE.value, m.AssignmentStatus.BOOKED.value})


class MavenlinkAction(StrEnum):
    GET_ENGAGEMENT = "get_engagement"
    GET_EMPLOYEE_ASSIGNMENTS = "get_employee_assignments"
    VALIDATE_ENGAGEMENT_CODE = "validate_engagement_code"


class EngagementDataOut(BaseModel):
    engagement_code: str
    status: str
    start_date: str
    end_date: str | None = None
    senior_manager_email: str


class AssignmentOut(BaseModel):
    engagement_code: str
    assignment_status: str
    start_date: str
    end_date: str | None = None
    senior_manager_email: str


class MavenlinkOut(BaseModel):
    engagement_data: EngagementDataOut | None = None
    assignments: list[AssignmentOut] | None = None
    valid: bool | None = None


@tools.tool(write=False)
async def mavenlink_api(
    ctx: ToolContext,
    action: Annotated[
        MavenlinkAction,
        Field(description="get_engagement, get_employee_assignments or validate_engagement_code"),
    ],
    engagement_code: Annotated[
        str | None, Field(description="Engagement code (get_engagement, validate_engagement_code)")
    ] = None,
    email: Annotated[str | None, Field(description="Employee email (get_employee_assignments)")] = None,
) -> MavenlinkOut:
    """Engagements and staffing. get_engagement (engagement_code): status, dates, senior manager;
    get_employee_assignments (email): the employee's active and booked assignments;
    validate_engagement_code (engagement_code): whether the engagement exists."""
    with reference_errors("execute Mavenlink API action"):
        engagements = sql["mavenlink_mv_engagements"]
        if action is MavenlinkAction.GET_EMPLOYEE_ASSIGNMENTS:
            require(email, "email")
            rows = await store.all_rows(ctx.conn, sql["mavenlink_employee_assignments"], employee_email=email)
            return MavenlinkOut(
                assignments=[
                    AssignmentOut.model_validate(
                        {**row, "start_date": iso(row["start_date"]), "end_date": iso(row["end_date"])}
                    )
                    for row in rows
                    if row["assignment_status"] in _LISTED
                ]
            )
        require(engagement_code, "engagement_code")
        row = await store.first_row(ctx.conn, engagements, engagement_code=engagement_code)
        if action is MavenlinkAction.VALIDATE_ENGAGEMENT_CODE:
            return MavenlinkOut(valid=row is not None)
        if row is None:
            raise NotFound(f"Engagement not found: {engagement_code}")
        return MavenlinkOut(
            engagement_data=EngagementDataOut.model_validate(
                {**row, "start_date": iso(row["start_date"]), "end_date": iso(row["end_date"])}
            )
        )
