"""Workday (HR): employee profiles, manager chains and direct reports, looked up by email.

Read-only. An email matches exactly (case-sensitive), and the first matching
employee in list order wins. Unknown fields in the arguments are ignored, as
the reference's input models do.

One deliberate difference: the reference follows ``manager_id`` links until
they end, so a cycle in the data makes it loop forever (the session times
out); here the chain stops before the first manager it would repeat.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from benchmark.domains import store
from benchmark.domains.neobank.common import employee_by_email, reference_errors
from benchmark.domains.neobank.schema import sql
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

_Record = TypeVar("_Record", bound=BaseModel)


def _record(model: type[_Record], row: dict[str, Any]) -> _Record:
    return model.model_validate(
        {"employee_id": row["id"], **{k: row[k] for k in model.model_fields if k in row}}
    )


class EmailArgs(BaseModel):
    email: str = Field(description="Corporate email address, e.g. john.smith@vdb.com")


class ManagerEmailArgs(BaseModel):
    manager_email: str = Field(description="The manager's corporate email address")


class ManagerRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    employee_id: str
    email: str
    full_name: str
    level: int
    department: str
    role: str


class ManagerChainOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    manager_chain: list[ManagerRecord]


class DirectReportRecord(ManagerRecord):
    office_location: str
    employment_status: str


class EmployeeOut(ManagerRecord):
    office_location: str
    start_date: str
    manager_id: str | None = None
    employment_status: str
    is_contractor: bool
    remote_delivery_address: str | None = None
    contract_end_date: str | None = None


class OrgStructureOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    direct_reports: list[DirectReportRecord]


@tools.tool(write=False)
async def workday_api_get_employee(ctx: ToolContext, args: EmailArgs) -> EmployeeOut:
    """An employee's profile by email: id, level, department, role, office, manager id, status, contract."""
    with reference_errors():
        employee = await employee_by_email(ctx, args.email, "No employee found with the provided email: {}")
        return _record(EmployeeOut, employee)


@tools.tool(write=False)
async def workday_api_get_manager_chain(ctx: ToolContext, args: EmailArgs) -> ManagerChainOut:
    """An employee's managers, from the direct manager up to the top of the organisation."""
    with reference_errors():
        employee = await employee_by_email(ctx, args.email, "Employee not found: {}")
        chain: list[ManagerRecord] = []
        seen: set[str] = set()
        manager_id = employee["manager_id"]
        while manager_id and manager_id not in seen:
            seen.add(manager_id)
            manager = await store.first_row(ctx.conn, sql["employees"], id=manager_id)
            if manager is None:
                break
            chain.append(_record(ManagerRecord, manager))
            manager_id = manager["manager_id"]
        return ManagerChainOut(manager_chain=chain)


@tools.tool(write=False)
async def workday_api_get_org_structure(ctx: ToolContext, args: ManagerEmailArgs) -> OrgStructureOut:
    """The employees who report directly to a manager."""
    with reference_errors():
        manager = await employee_by_email(ctx, args.manager_email, "Manager not found: {}")
        reports = await store.all_rows(ctx.conn, sql["employees"], manager_id=manager["id"])
        return OrgStructureOut(direct_reports=[_record(DirectReportRecord, report) for report in reports])
