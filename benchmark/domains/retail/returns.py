"""Returns (Loop): RMAs.

``create_rma`` stores the refund and fees the agent computed, verbatim (no
arithmetic check), with status approved; the id is the first free
``RMA-20{n:06d}`` from n = row count.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.retail import models as m
from benchmark.domains.retail.common import FIXED_NOW, iso, reference_errors, row_of
from benchmark.domains.retail.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

Money = Annotated[float, Field(description="Dollars")]


class RmaOut(BaseModel):
    rma_id: str
    status: m.RMAStatus
    created_date: str


class RmaStatusOut(BaseModel):
    rma_id: str
    order_id: str
    line_item_id: str
    customer_id: str
    return_reason: m.RMAReturnReason
    status: m.RMAStatus
    refund_amount: float
    restocking_fee: float
    return_shipping_cost: float
    removal_fee: float
    created_date: str


@tools.tool(write=True)
async def create_rma(
    ctx: ToolContext,
    order_id: str,
    line_item_id: Annotated[str, Field(description="The line item being returned")],
    customer_id: str,
    return_reason: Annotated[m.RMAReturnReason, Field(description="Why the item is returned")],
    refund_amount: Annotated[float, Field(description="Refund after all fees, in dollars")],
    restocking_fee: Money,
    return_shipping_cost: Money,
    removal_fee: Money,
    is_defective: Annotated[bool, Field(description="Whether the item is defective (no fees)")] = False,
) -> RmaOut:
    """Create an approved return authorization (RMA) with the given refund and fees."""
    with reference_errors("create RMA"):
        existing = await store.all_rows(ctx.conn, sql["rma_records"])
        rma_id = store.first_unused((r["id"] for r in existing), "RMA-20{:06d}", len(existing))
        row = row_of(
            m.RMARecord,
            id=rma_id,
            order_id=order_id,
            line_item_id=line_item_id,
            customer_id=customer_id,
            return_reason=return_reason,
            is_defective=is_defective,
            status=m.RMAStatus.APPROVED,
            created_date=FIXED_NOW,
            refund_amount=refund_amount,
            restocking_fee=restocking_fee,
            return_shipping_cost=return_shipping_cost,
            removal_fee=removal_fee,
        )
        await store.insert_row(ctx.conn, sql["rma_records"], row)
        return RmaOut(rma_id=rma_id, status=m.RMAStatus.APPROVED, created_date=str(iso(row["created_date"])))


@tools.tool(write=False)
async def get_rma_status(
    ctx: ToolContext, rma_id: Annotated[str, Field(description="RMA id")]
) -> RmaStatusOut:
    """An RMA's status, refund and fees."""
    with reference_errors("retrieve RMA status"):
        rma = await store.first_row(ctx.conn, sql["rma_records"], id=rma_id)
        if rma is None:
            raise NotFound(f"RMA not found: {rma_id}")
        return RmaStatusOut.model_validate(
            {**rma, "rma_id": rma["id"], "created_date": iso(rma["created_date"])}
        )
