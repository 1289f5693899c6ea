"""The order system: looking orders up and cancelling them (the policy's window is the judges' to check)."""

from __future__ import annotations

from typing import Any, Literal

from benchmark.domains import store
from guard.errors import NotFound, PreconditionFailed
from guard.tools import ToolContext, ToolRegistry
from tests.benchmark.tiny_shop.common import WRITTEN_AT
from tests.benchmark.tiny_shop.schema import sql

__all__ = ["find_order", "tools"]

tools = ToolRegistry(__name__)


async def find_order(ctx: ToolContext, order_id: str) -> dict[str, Any]:
    """The order with ``order_id``; :class:`NotFound` if there is none."""
    order = await store.first_row(ctx.conn, sql["orders"], id=order_id)
    if order is None:
        raise NotFound(f"Order {order_id} not found")
    return order


@tools.tool(write=False)
async def get_order(ctx: ToolContext, order_id: str) -> dict[str, Any]:
    """An order: its customer, status, total, what was refunded and when it was placed."""
    return await find_order(ctx, order_id)


@tools.tool(write=True, idempotent=True)
async def cancel_order(
    ctx: ToolContext, order_id: str, reason: Literal["customer_request", "fraud"]
) -> dict[str, Any]:
    """Cancel an order that has not shipped; returns the order."""
    order = await find_order(ctx, order_id)
    if order["status"] == "shipped":
        raise PreconditionFailed(f"Order {order_id} has shipped and cannot be cancelled")
    changes = {"status": "cancelled", "updated_at": WRITTEN_AT}
    await store.update_row(ctx.conn, sql["orders"], {"id": order_id}, changes)
    return {**order, **changes, "reason": reason}
