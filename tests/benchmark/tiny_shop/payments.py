"""Payments: refunds (how much may be refunded is the rule pack's to check)."""

from __future__ import annotations

from typing import Any

from benchmark.domains import store
from benchmark.domains.reference import row_of
from guard.tools import ToolContext, ToolRegistry
from tests.benchmark.tiny_shop import models as m
from tests.benchmark.tiny_shop.common import WRITTEN_AT
from tests.benchmark.tiny_shop.orders import find_order
from tests.benchmark.tiny_shop.schema import sql

__all__ = ["tools"]

tools = ToolRegistry(__name__)


@tools.tool(write=True)
async def refund_order(ctx: ToolContext, order_id: str, amount: float, reason: str) -> dict[str, Any]:
    """Refund part or all of an order to the customer's card; returns the refund (``REF-<n>``)."""
    order = await find_order(ctx, order_id)
    count = await store.count_rows(ctx.conn, sql["refunds"])
    refund = row_of(
        m.Refund,
        id=f"REF-{count + 1}",
        order_id=order_id,
        amount=amount,
        reason=reason,
        created_at=WRITTEN_AT,
    )
    await store.insert_row(ctx.conn, sql["refunds"], refund)
    changes = {"refunded": order["refunded"] + amount, "updated_at": WRITTEN_AT}
    await store.update_row(ctx.conn, sql["orders"], {"id": order_id}, changes)
    return refund
