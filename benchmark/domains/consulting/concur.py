"""Travel and expenses (Concur): expense reports, their rejection overrides, travel bookings.

``override_expense_rejection`` sets ``override_approved``, the approver and
the reason on the report, whatever its state, and keeps its
``rejection_reason``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.consulting import models as m
from benchmark.domains.consulting.common import iso, reference_errors, require
from benchmark.domains.consulting.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)


class ConcurAction(StrEnum):
    GET_EXPENSE_REPORT = "get_expense_report"
    OVERRIDE_EXPENSE_REJECTION = "override_expense_rejection"
    GET_TRAVEL_BOOKING = "get_travel_booking"


class ExpenseReportOut(BaseModel):
    id: str
    employee_email: str
    amount: int
    category: str
    trip_location_city: str | None = None
    trip_location_state: str | None = None
    expense_date: str
    receipt_status: str
    rejection_reason: str | None = None
    override_approved: bool
    override_approved_by: str | None = None
    override_reason: str | None = None


class TravelBookingOut(BaseModel):
    id: str
    employee_email: str
    destination: str
    departure_date: str
    return_date: str
    flight_class: str
    hotel_rate_per_night: int | None = None


class ConcurOut(BaseModel):
    expense_report: ExpenseReportOut | None = None
    success: bool | None = None
    travel_booking: TravelBookingOut | None = None


async def _report(ctx: ToolContext, report_id: str | None) -> dict[str, Any]:
    require(report_id, "expense_report_id")
    row = await store.first_row(ctx.conn, sql["concur_expense_reports"], id=report_id)
    if row is None:
        raise NotFound(f"Expense report not found: {report_id}")
    return row


@tools.tool(write=True)
async def concur_api(
    ctx: ToolContext,
    action: Annotated[
        ConcurAction,
        Field(description="get_expense_report, override_expense_rejection or get_travel_booking"),
    ],
    expense_report_id: Annotated[
        str | None, Field(description="Expense report id (get_expense_report, override_expense_rejection)")
    ] = None,
    override_reason: Annotated[
        m.OverrideReason | None,
        Field(
            description="justified_exception, system_error or receipt_exception (override_expense_rejection)"
        ),
    ] = None,
    approver_email: Annotated[
        str | None, Field(description="Who approves the override (override_expense_rejection)")
    ] = None,
    booking_id: Annotated[str | None, Field(description="Travel booking id (get_travel_booking)")] = None,
) -> ConcurOut:
    """Expense reports and travel. get_expense_report (expense_report_id): amount, category, trip,
    receipts, rejection and override; override_expense_rejection (expense_report_id, override_reason,
    approver_email): approve a rejected report; get_travel_booking (booking_id): trip, dates, flight class,
    hotel rate."""
    with reference_errors("execute Concur API action"):
        if action is ConcurAction.GET_EXPENSE_REPORT:
            report = await _report(ctx, expense_report_id)
            return ConcurOut(
                expense_report=ExpenseReportOut.model_validate(
                    {**report, "expense_date": iso(report["expense_date"])}
                )
            )
        if action is ConcurAction.OVERRIDE_EXPENSE_REJECTION:
            require(expense_report_id, "expense_report_id")
            require(override_reason, "override_reason")
            require(approver_email, "approver_email")
            report = await _report(ctx, expense_report_id)
            await store.update_row(
                ctx.conn,
                sql["concur_expense_reports"],
                {"id": report["id"]},
                {
                    "override_approved": True,
                    "override_approved_by": approver_email,
                    "override_reason": str(override_reason),
                },
            )
            return ConcurOut(success=True)
        require(booking_id, "booking_id")
        booking = await store.first_row(ctx.conn, sql["concur_travel_requests"], id=booking_id)
        if booking is None:
            raise NotFound(f"Travel booking not found: {booking_id}")
        return ConcurOut(
            travel_booking=TravelBookingOut.model_validate(
                {
                    **booking,
                    "departure_date": iso(booking["departure_date"]),
                    "return_date": iso(booking["return_date"]),
                }
            )
        )
