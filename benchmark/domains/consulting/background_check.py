"""Background checks (Sterling): clearance status, starting a check, processing time.

``initiate`` upserts the employee's clearance record (keyed by email):
level as given, status in_progress, whatever the previous status. An
employee without a record reads as standard / not_initiated.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.consulting import models as m
from benchmark.domains.consulting.common import reference_errors, require, row_of
from benchmark.domains.consulting.schema import sql
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

_DAYS = {m.ClearanceLevel.STANDARD: 14, m.ClearanceLevel.HIGH_SECURITY: 28}


class BackgroundCheckApiAction(StrEnum):
    GET_STATUS = "get_status"
    INITIATE = "initiate"
    GET_TIMELINE = "get_timeline"


class ClearanceDataOut(BaseModel):
    clearance_level: str
    status: str


class BackgroundCheckOut(BaseModel):
    clearance_data: ClearanceDataOut | None = None
    success: bool | None = None
    estimated_days: int | None = None


@tools.tool(write=True)
async def background_check_api(
    ctx: ToolContext,
    action: Annotated[BackgroundCheckApiAction, Field(description="get_status, initiate or get_timeline")],
    email: Annotated[str | None, Field(description="Employee email (get_status, initiate)")] = None,
    clearance_level: Annotated[
        m.ClearanceLevel | None, Field(description="standard or high_security (initiate, get_timeline)")
    ] = None,
) -> BackgroundCheckOut:
    """Security clearances. get_status (email): clearance level and status; initiate (email,
    clearance_level): start a background check; get_timeline (clearance_level): estimated days."""
    with reference_errors("execute Background Check API action"):
        table = sql["client_access_clearance_record"]
        if action is BackgroundCheckApiAction.GET_TIMELINE:
            return BackgroundCheckOut(estimated_days=_DAYS[require(clearance_level, "clearance_level")])
        require(email, "email")
        record = await store.first_row(ctx.conn, table, employee_email=email)
        if action is BackgroundCheckApiAction.GET_STATUS:
            if record is None:
                return BackgroundCheckOut(
                    clearance_data=ClearanceDataOut(
                        clearance_level=m.ClearanceLevel.STANDARD.value,
                        status=m.ClearanceStatus.NOT_INITIATED.value,
                    )
                )
            return BackgroundCheckOut(clearance_data=ClearanceDataOut.model_validate(record))
        require(clearance_level, "clearance_level")
        status = m.ClearanceStatus.IN_PROGRESS.value
        if record is None:
            row = row_of(
                m.ClearanceRecord, employee_email=email, clearance_level=clearance_level, status=status
            )
            await store.insert_row(ctx.conn, table, row)
        else:
            await store.update_row(
                ctx.conn,
                table,
                {"employee_email": record["employee_email"]},
                {"clearance_level": str(clearance_level), "status": status},
            )
        return BackgroundCheckOut(success=True)
