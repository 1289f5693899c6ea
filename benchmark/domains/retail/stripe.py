"""Payments (Stripe): charges, refunds and payment status.

New ids count the rows, 0-based: ``TXN-2{n:07d}`` and ``RFD-2{n:07d}``, so a
patched row can make a create collide (the reference's
``Object with ID … already exists``). A refund needs a payment transaction
of the order (the first one is used); its ``customer_id`` is accepted but
not stored.
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

Amount = Annotated[float, Field(description="Amount in dollars")]


class ChargeOut(BaseModel):
    transaction_id: str
    order_id: str
    amount: float
    status: m.PaymentStatus
    transaction_date: str


class RefundOut(BaseModel):
    refund_id: str
    transaction_id: str
    amount: float
    status: str
    refund_date: str


class PaymentStatusOut(BaseModel):
    transaction_id: str
    order_id: str
    customer_id: str
    amount: float
    status: m.PaymentStatus
    payment_method: str
    transaction_date: str


@tools.tool(write=True)
async def charge_customer(
    ctx: ToolContext,
    order_id: str,
    customer_id: str,
    amount: Amount,
    charge_reason: Annotated[m.ChargeReason, Field(description="Why the customer is charged")],
) -> ChargeOut:
    """Charge the customer's card on file for an order (authorized at once)."""
    with reference_errors("charge customer"):
        count = await store.count_rows(ctx.conn, sql["payment_transactions"])
        row = row_of(
            m.PaymentTransaction,
            id=f"TXN-2{count:07d}",
            order_id=order_id,
            customer_id=customer_id,
            amount=amount,
            status=m.PaymentStatus.AUTHORIZED,
            payment_method="Card on file",
            transaction_date=FIXED_NOW,
            charge_reason=charge_reason,
        )
        await store.insert_row(ctx.conn, sql["payment_transactions"], row)
        return ChargeOut(
            transaction_id=row["id"],
            order_id=order_id,
            amount=row["amount"],
            status=m.PaymentStatus.AUTHORIZED,
            transaction_date=str(iso(row["transaction_date"])),
        )


@tools.tool(write=True)
async def create_refund(
    ctx: ToolContext,
    order_id: str,
    customer_id: str,
    amount: Amount,
    refund_reason: Annotated[m.RefundReason, Field(description="Why the money is returned")],
) -> RefundOut:
    """Refund part or all of an order's payment (status pending)."""
    with reference_errors("create refund"):
        payment = await store.first_row(ctx.conn, sql["payment_transactions"], order_id=order_id)
        if payment is None:
            raise NotFound(f"Original payment transaction not found for order: {order_id}")
        count = await store.count_rows(ctx.conn, sql["refunds"])
        row = row_of(
            m.Refund,
            id=f"RFD-2{count:07d}",
            transaction_id=payment["id"],
            order_id=order_id,
            amount=amount,
            refund_reason=refund_reason,
            status="pending",
            refund_date=FIXED_NOW,
        )
        await store.insert_row(ctx.conn, sql["refunds"], row)
        return RefundOut(
            refund_id=row["id"],
            transaction_id=row["transaction_id"],
            amount=row["amount"],
            status="pending",
            refund_date=str(iso(row["refund_date"])),
        )


@tools.tool(write=False)
async def get_payment_status(ctx: ToolContext, order_id: str) -> PaymentStatusOut:
    """The payment transaction of an order: amount, status, method and date."""
    with reference_errors("retrieve payment status"):
        payment = await store.first_row(ctx.conn, sql["payment_transactions"], order_id=order_id)
        if payment is None:
            raise NotFound(f"No payment transaction found for order: {order_id}")
        return PaymentStatusOut.model_validate(
            {**payment, "transaction_id": payment["id"], "transaction_date": iso(payment["transaction_date"])}
        )
