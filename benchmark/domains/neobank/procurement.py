"""Hardware procurement: orders placed with the vendor when the warehouse has no device.

An order ``HW-ORDER-{n+1:07d}`` (n = rows in the table) is stored
``pending`` without a creation time; the requester must be an employee (by
email). The expected delivery date is the first ten characters of the
argument read as ``YYYY-MM-DD``. Nothing checks stock, quantity or the
address.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from benchmark.domains.neobank import models as m
from benchmark.domains.neobank.common import employee_by_email, insert_counted, reference_errors
from guard.errors import InvalidArguments
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)


class OrderOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    order_id: str
    status: str


@tools.tool(write=True)
async def hardware_procurement_api_create_order(
    ctx: ToolContext,
    device_type: Annotated[m.DeviceType, Field(description="Device type, e.g. laptop_premium")],
    device_model: Annotated[str, Field(description="Device model, e.g. MacBook Pro 14")],
    quantity: Annotated[int, Field(description="How many devices")],
    expected_delivery_date: Annotated[
        str, Field(description="Expected delivery date from the vendor's lead time, YYYY-MM-DD")
    ],
    ship_to_location: Annotated[str, Field(description="Shipping address")],
    requester_email: Annotated[str, Field(description="Email of the employee the order is for")],
    ticket_id: Annotated[str | None, Field(description="The Zendesk ticket it belongs to")] = None,
) -> OrderOut:
    """Order hardware from the vendor (when inventory has none); returns the order id, status pending."""
    with reference_errors():
        requester = await employee_by_email(ctx, requester_email, "Requester not found: {}")
        try:
            delivery = date.fromisoformat(expected_delivery_date[:10])
        except ValueError as exc:
            raise InvalidArguments(
                f"Invalid expected_delivery_date format: {expected_delivery_date}. "
                "Expected YYYY-MM-DD format."
            ) from exc
        row = await insert_counted(
            ctx,
            "procurement_orders",
            "HW-ORDER-{:07d}",
            m.ProcurementOrder,
            device_type=device_type.value,
            device_model=device_model,
            quantity=quantity,
            ship_to_location=ship_to_location,
            requester_id=requester["id"],
            ticket_id=ticket_id,
            status=m.ProcurementOrderStatus.PENDING,
            expected_delivery_date=delivery,
        )
        return OrderOut(order_id=row["id"], status="pending")
