"""People (Workday): employee profiles, and approver contacts read from the same table.

``approver_lookup_get_contact`` is its own system in the reference but reads
Workday's employees: name, availability and backup approver.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.consulting.common import iso, reference_errors, require
from benchmark.domains.consulting.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)


class WorkdayAction(StrEnum):
    GET_EMPLOYEE = "get_employee"


class EmployeeDataOut(BaseModel):
    email: str
    name: str
    level: str
    office_location: str
    start_date: str
    manager_email: str | None = None
    partner_email: str | None = None
    onboarding_phase: str | None = None
    availability_status: str
    backup_approver_email: str | None = None


class WorkdayOut(BaseModel):
    employee_data: EmployeeDataOut | None = None


class ApproverContactOut(BaseModel):
    email: str
    name: str
    availability_status: str
    backup_approver_email: str | None


@tools.tool(write=False)
async def workday_api(
    ctx: ToolContext,
    action: Annotated[WorkdayAction, Field(description="get_employee")],
    email: Annotated[str | None, Field(description="Employee email (get_employee)")] = None,
) -> WorkdayOut:
    """Employee profiles. get_employee (email): name, level, office, start date, manager and partner,
    onboarding phase, availability and backup approver."""
    with reference_errors("execute Workday API action"):
        require(email, "email")
        row = await store.first_row(ctx.conn, sql["workday_employees"], email=email)
        if row is None:
            raise NotFound(f"Employee not found: {email}")
        return WorkdayOut(
            employee_data=EmployeeDataOut.model_validate({**row, "start_date": iso(row["start_date"])})
        )


@tools.tool(write=False)
async def approver_lookup_get_contact(
    ctx: ToolContext, email: Annotated[str, Field(description="Approver email")]
) -> ApproverContactOut:
    """An approver's name, availability (available or on_leave) and backup approver (may be null)."""
    with reference_errors("retrieve approver contact"):
        row = await store.first_row(ctx.conn, sql["workday_employees"], email=email)
        if row is None:
            raise NotFound(f"Approver not found: {email}")
        return ApproverContactOut.model_validate(row)
