"""Order management (OMS): orders, line items, shipments and carrier tracking.

Business rules are the reference's, including what it does not check:
``cancel_order`` cancels whatever the status (``refund_initiated`` only when
the order was ``processing``); address and shipping-speed changes have no
time-window check; ``create_replacement_order`` decrements stock *before* it
checks that the product exists, so a failed call can leave that decrement
behind (a partial write the baseline arm keeps).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.retail import models as m
from benchmark.domains.retail.common import FIXED_NOW, iso, reference_errors, row_of
from benchmark.domains.retail.schema import sql
from guard.errors import NotFound, PreconditionFailed
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

OrderId = Annotated[str, Field(description="Order id, e.g. ORD-10000020")]
_SHIPPING_COST = {"standard": 0.00, "expedited": 15.00, "next_day": 29.99}


class LineItemOut(BaseModel):
    id: str
    sku: str
    product_name: str
    quantity: int
    base_price: float
    discount_amount: float
    final_price: float


class OrderOut(BaseModel):
    id: str
    customer_id: str
    order_date: str
    status: str
    subtotal_amount: float
    discount_amount: float
    points_used: int
    points_value: float
    shipping_cost: float
    total_amount: float
    shipping_address_line1: str
    shipping_address_city: str
    shipping_address_state: str
    shipping_address_zip: str
    shipping_speed: str
    fulfillment_type: str
    installation_service_id: str | None = None
    line_items: list[LineItemOut]


class CancelOrderOut(BaseModel):
    order_id: str
    status: str
    refund_initiated: bool


class ReplacementOrderOut(BaseModel):
    replacement_order_id: str
    status: str
    total_amount: float


class TrackingOut(BaseModel):
    shipment_id: str
    order_id: str
    carrier: str
    tracking_number: str
    ship_date: str
    estimated_delivery_date: str
    actual_delivery_date: str | None = None
    tracking_status: m.TrackingStatus
    current_location: str | None = None


class ReshipOut(BaseModel):
    order_id: str
    new_shipment_id: str
    new_tracking_number: str
    reship_cost: float
    reship_initiated: bool


class AddressOut(BaseModel):
    order_id: str
    address_updated: bool
    new_shipping_address_line1: str
    new_shipping_address_city: str
    new_shipping_address_state: str
    new_shipping_address_zip: str


class ShippingSpeedOut(BaseModel):
    order_id: str
    old_shipping_speed: str
    new_shipping_speed: str
    cost_difference: float
    updated: bool


async def _order(ctx: ToolContext, order_id: str) -> dict[str, Any]:
    order = await store.first_row(ctx.conn, sql["orders"], id=order_id)
    if order is None:
        raise NotFound(f"Order not found: {order_id}")
    return order


@tools.tool(write=False)
async def get_order(ctx: ToolContext, order_id: OrderId) -> OrderOut:
    """Full order details: status, line items, pricing, discounts, points, shipping, installation job."""
    with reference_errors("retrieve order"):
        order = await _order(ctx, order_id)
        items = await store.all_rows(ctx.conn, sql["order_line_items"], order_id=order_id)
        return OrderOut.model_validate(
            {**order, "order_date": iso(str(order["order_date"])), "line_items": items}
        )


@tools.tool(write=True, destructive=True)
async def cancel_order(
    ctx: ToolContext,
    order_id: OrderId,
    cancellation_reason: Annotated[
        m.OrderCancellationReason, Field(description="Why the order is cancelled")
    ],
) -> CancelOrderOut:
    """Cancel an order (status becomes cancelled); eligibility is for the agent to check against policy."""
    with reference_errors("cancel order"):
        order = await _order(ctx, order_id)
        await store.update_row(
            ctx.conn, sql["orders"], {"id": order_id}, {"status": m.OrderStatus.CANCELLED.value}
        )
        return CancelOrderOut(
            order_id=order_id,
            status="cancelled",
            refund_initiated=order["status"] == m.OrderStatus.PROCESSING.value,
        )


@tools.tool(write=True)
async def create_replacement_order(
    ctx: ToolContext,
    original_order_id: Annotated[str, Field(description="The order being replaced (for reference)")],
    customer_id: Annotated[str, Field(description="Customer id, e.g. CUS-30020")],
    sku: Annotated[str, Field(description="SKU of the product to send")],
    quantity: Annotated[int, Field(description="How many units")],
    shipping_speed: Annotated[m.ShippingSpeed, Field(description="standard, expedited or next_day")],
    shipping_address_line1: str,
    shipping_address_city: str,
    shipping_address_state: str,
    shipping_address_zip: str,
) -> ReplacementOrderOut:
    """Create a $0 replacement order for one SKU (needs stock; the stock is decremented)."""
    with reference_errors("create replacement order"):
        stock = await store.first_row(ctx.conn, sql["inventory_records"], sku=sku)
        if stock is None or stock["available_quantity"] == 0:
            raise PreconditionFailed(
                f"Product out of stock - cannot create replacement order for SKU {sku}. "
                "Available quantity is 0."
            )
        await store.update_row(
            ctx.conn,
            sql["inventory_records"],
            {"sku": sku},
            {"available_quantity": int(stock["available_quantity"]) - quantity},
        )
        product = await store.first_row(ctx.conn, sql["products"], sku=sku)
        if product is None:
            raise NotFound(f"Product SKU not found: {sku}")
        orders = await store.all_rows(ctx.conn, sql["orders"])
        order_id = store.first_unused((o["id"] for o in orders), "ORD-2{:07d}", 1)
        lines = await store.all_rows(ctx.conn, sql["order_line_items"])
        line_id = store.first_unused((li["id"] for li in lines), "LIN-2{:07d}", 1)
        order = row_of(
            m.Order,
            id=order_id,
            customer_id=customer_id,
            order_date=FIXED_NOW,
            status=m.OrderStatus.PROCESSING,
            subtotal_amount=0.0,
            discount_amount=0.0,
            points_used=0,
            points_value=0.0,
            shipping_cost=0.0,
            total_amount=0.0,
            shipping_address_line1=shipping_address_line1,
            shipping_address_city=shipping_address_city,
            shipping_address_state=shipping_address_state,
            shipping_address_zip=shipping_address_zip,
            shipping_speed=shipping_speed,
            fulfillment_type=m.FulfillmentType.WAREHOUSE,
            installation_service_id=None,
        )
        line = row_of(
            m.OrderLineItem,
            id=line_id,
            order_id=order_id,
            sku=sku,
            product_name=product["name"],
            quantity=quantity,
            base_price=0.0,
            discount_amount=0.0,
            final_price=0.0,
        )
        await store.insert_row(ctx.conn, sql["orders"], order)
        await store.insert_row(ctx.conn, sql["order_line_items"], line)
        return ReplacementOrderOut(replacement_order_id=order_id, status="processing", total_amount=0.0)


@tools.tool(write=False)
async def get_shipment_tracking(
    ctx: ToolContext, order_id: Annotated[str, Field(description="Order whose shipment to look up")]
) -> TrackingOut:
    """Shipment and carrier tracking of an order: carrier, tracking number, status, location, dates."""
    with reference_errors("retrieve shipment tracking"):
        shipment = await store.first_row(ctx.conn, sql["shipments"], order_id=order_id)
        if shipment is None:
            raise NotFound(f"No shipment found for order: {order_id} (may not be shipped yet)")
        tracking = await store.first_row(
            ctx.conn, sql["carrier_tracking"], tracking_number=shipment["tracking_number"]
        )
        return TrackingOut(
            shipment_id=str(shipment["id"]),
            order_id=str(shipment["order_id"]),
            carrier=str(shipment["carrier"]),
            tracking_number=str(shipment["tracking_number"]),
            ship_date=str(iso(shipment["ship_date"])),
            estimated_delivery_date=str(iso(shipment["estimated_delivery_date"])),
            actual_delivery_date=iso(shipment["actual_delivery_date"]),
            tracking_status=m.TrackingStatus(tracking["status"]) if tracking else m.TrackingStatus.PENDING,
            current_location=tracking["current_location"] if tracking else None,
        )


@tools.tool(write=True)
async def reship_order(
    ctx: ToolContext,
    order_id: OrderId,
    corrected_address_line1: str,
    corrected_address_city: str,
    corrected_address_state: str,
    corrected_address_zip: str,
    customer_fault: Annotated[
        bool, Field(description="Whether the address error was the customer's (reship costs $15)")
    ],
) -> ReshipOut:
    """Reship an order returned to sender: correct its address and create a new shipment and tracking."""
    with reference_errors("reship order"):
        await _order(ctx, order_id)
        shipments = await store.all_rows(ctx.conn, sql["shipments"])
        original = next((s for s in shipments if s["order_id"] == order_id), None)
        if original is None:
            raise NotFound(f"No shipment found for order: {order_id}")
        trackings = await store.all_rows(ctx.conn, sql["carrier_tracking"])
        if not any(t["tracking_number"] == original["tracking_number"] for t in trackings):
            raise NotFound(f"No tracking found for shipment: {original['id']}")
        await store.update_row(
            ctx.conn,
            sql["orders"],
            {"id": order_id},
            {
                "shipping_address_line1": corrected_address_line1,
                "shipping_address_city": corrected_address_city,
                "shipping_address_state": corrected_address_state,
                "shipping_address_zip": corrected_address_zip,
            },
        )
        shipment_id = store.first_unused((s["id"] for s in shipments), "SHP-2{:07d}", 1)
        tracking_number = store.first_unused((t["tracking_number"] for t in trackings), "TRK-2{:011d}", 1)
        eta = FIXED_NOW + timedelta(days=5)
        await store.insert_row(
            ctx.conn,
            sql["shipments"],
            row_of(
                m.Shipment,
                id=shipment_id,
                order_id=order_id,
                carrier=original["carrier"],
                tracking_number=tracking_number,
                ship_date=FIXED_NOW,
                estimated_delivery_date=eta,
                actual_delivery_date=None,
            ),
        )
        await store.insert_row(
            ctx.conn,
            sql["carrier_tracking"],
            row_of(
                m.CarrierTracking,
                tracking_number=tracking_number,
                shipment_id=shipment_id,
                carrier=original["carrier"],
                status=m.TrackingStatus.PENDING,
                current_location=None,
                estimated_delivery=eta,
                last_update=FIXED_NOW,
            ),
        )
        return ReshipOut(
            order_id=order_id,
            new_shipment_id=shipment_id,
            new_tracking_number=tracking_number,
            reship_cost=15.00 if customer_fault else 0.00,
            reship_initiated=True,
        )


@tools.tool(write=True, idempotent=True)
async def update_order_address(
    ctx: ToolContext,
    order_id: OrderId,
    new_address_line1: str,
    new_address_city: str,
    new_address_state: str,
    new_address_zip: str,
) -> AddressOut:
    """Change an order's shipping address (the agent checks the policy's time window)."""
    with reference_errors("update order address"):
        await _order(ctx, order_id)
        await store.update_row(
            ctx.conn,
            sql["orders"],
            {"id": order_id},
            {
                "shipping_address_line1": new_address_line1,
                "shipping_address_city": new_address_city,
                "shipping_address_state": new_address_state,
                "shipping_address_zip": new_address_zip,
            },
        )
        return AddressOut(
            order_id=order_id,
            address_updated=True,
            new_shipping_address_line1=new_address_line1,
            new_shipping_address_city=new_address_city,
            new_shipping_address_state=new_address_state,
            new_shipping_address_zip=new_address_zip,
        )


@tools.tool(write=True, idempotent=True)
async def update_shipping_speed(
    ctx: ToolContext,
    order_id: OrderId,
    new_shipping_speed: Annotated[
        m.ShippingSpeed, Field(description="standard ($0), expedited ($15) or next_day ($29.99)")
    ],
) -> ShippingSpeedOut:
    """Change an order's shipping speed and cost; returns the cost difference to charge or refund."""
    with reference_errors("update shipping speed"):
        order = await _order(ctx, order_id)
        old_speed = str(order["shipping_speed"])
        new_cost = _SHIPPING_COST[new_shipping_speed.value]
        total = (
            float(order["subtotal_amount"]) - float(order["discount_amount"]) - float(order["points_value"])
        )
        await store.update_row(
            ctx.conn,
            sql["orders"],
            {"id": order_id},
            {
                "shipping_speed": new_shipping_speed.value,
                "shipping_cost": new_cost,
                "total_amount": total + new_cost,
            },
        )
        return ShippingSpeedOut(
            order_id=order_id,
            old_shipping_speed=old_speed,
            new_shipping_speed=new_shipping_speed.value,
            cost_difference=new_cost - _SHIPPING_COST[old_speed],
            updated=True,
        )
