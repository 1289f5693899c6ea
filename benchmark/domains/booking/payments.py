"""Payments (payment_api): charges, refunds, disputes, invoices, status and history.

New transaction ids count the rows: ``TXN-{n+1:08d}`` for charges and
refunds (n = all transactions), ``DSP-{d+1:08d}`` for disputes (d = dispute
transactions), so a patched row can make a create collide (the reference's
``Object with ID … already exists``). Amounts are rounded half-up to cents.
Charges and refunds succeed at once (stamped 2025-11-25T10:00:00+00:00),
disputes are pending (2025-11-30T10:00:00+00:00); only a charge must be
positive. ``update_payment_method`` and ``generate_invoice`` store nothing.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark.domains import store
from benchmark.domains.booking import models as m
from benchmark.domains.booking.bookings import find_booking
from benchmark.domains.booking.common import (
    DISPUTED_AT,
    INVOICE_STAMP,
    PAID_AT,
    money,
    reference_errors,
    row_of,
)
from benchmark.domains.booking.schema import sql
from guard.errors import InvalidArguments, NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

_REFUND_TIME = "3-5 business days"


class ChargeArgs(BaseModel):
    booking_reference: str = Field(description="Booking reference, e.g. BKG-00012345")
    charge_amount: Decimal = Field(description="Amount to charge, e.g. 50.00")
    reason: str = Field(description="Why, e.g. modification_fee")


class RefundArgs(BaseModel):
    booking_reference: str = Field(description="Booking reference, e.g. BKG-00012345")
    refund_amount: Decimal = Field(description="Amount to refund, e.g. 250.00")
    reason: str = Field(description="Why, e.g. cancellation")


class BookingArgs(BaseModel):
    booking_reference: str = Field(description="Booking reference, e.g. BKG-00012345")


class HistoryArgs(BaseModel):
    customer_id: str | None = Field(None, description="Customer id, e.g. CUS-00012345")
    booking_reference: str | None = Field(None, description="Booking reference, e.g. BKG-00012345")


class InvoiceArgs(BaseModel):
    booking_reference: str = Field(description="Booking reference, e.g. BKG-00012345")
    invoice_type: str = Field(description="receipt or invoice")


class PaymentMethodArgs(BaseModel):
    customer_id: str = Field(description="Customer id, e.g. CUS-00012345")
    new_payment_method: str = Field(description="The new card or payment token")


class ChargeOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    transaction_id: str
    payment_status: str


class RefundOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    transaction_id: str
    refund_status: str
    processing_time_estimate: str


class DisputeOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    dispute_case_id: str
    dispute_status: str


class PaymentStatusOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    payment_status: str
    transaction_id: str
    payment_method: str | None = None


class TransactionRecord(BaseModel):
    id: str
    transaction_id: str
    booking_reference: str
    customer_id: str
    amount: Decimal
    currency: str
    transaction_type: str
    payment_status: str
    payment_method: str | None = None
    reason: str | None = None
    processing_time_estimate: str | None = None
    created_at: str
    updated_at: str


class HistoryOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    transactions: list[TransactionRecord]


class InvoiceOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    invoice_url: str
    invoice_id: str


class PaymentMethodOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    success: bool
    payment_method_last4: str | None = None


async def _record(ctx: ToolContext, **fields: Any) -> None:
    await store.insert_row(ctx.conn, sql["transactions"], row_of(m.Transaction, currency="USD", **fields))


async def _customer_of(ctx: ToolContext, reference: str) -> str:
    booking = await find_booking(ctx.conn, reference)
    if booking is None:
        raise NotFound(f"Booking not found: {reference}")
    return str(booking["customer_id"])


async def _pay(
    ctx: ToolContext,
    reference: str,
    amount: Decimal,
    kind: m.TransactionType,
    reason: str,
    *,
    processing_time_estimate: str | None = None,
) -> str:
    """Record a successful charge or refund of the booking's customer; returns its ``TXN-…`` id.

    A charge must be positive (checked once the booking is found).
    """
    customer = await _customer_of(ctx, reference)
    if kind is m.TransactionType.CHARGE and amount <= 0:
        raise InvalidArguments("Invalid charge amount - must be greater than 0")
    number = await store.count_rows(ctx.conn, sql["transactions"]) + 1
    transaction_id = f"TXN-{number:08d}"
    await _record(
        ctx,
        id=transaction_id,
        transaction_id=transaction_id,
        booking_reference=reference,
        customer_id=customer,
        amount=money(amount),
        transaction_type=kind,
        payment_status=m.PaymentStatus.SUCCESSFUL,
        reason=reason,
        processing_time_estimate=processing_time_estimate,
        created_at=PAID_AT,
        updated_at=PAID_AT,
    )
    return transaction_id


@tools.tool(write=True)
async def payment_api_process_charge(ctx: ToolContext, args: ChargeArgs) -> ChargeOut:
    """Charge the booking's customer (e.g. a modification fee); succeeds at once."""
    with reference_errors():
        transaction_id = await _pay(
            ctx, args.booking_reference, args.charge_amount, m.TransactionType.CHARGE, args.reason
        )
        return ChargeOut(transaction_id=transaction_id, payment_status="successful")


@tools.tool(write=True)
async def payment_api_process_refund(ctx: ToolContext, args: RefundArgs) -> RefundOut:
    """Refund part or all of a booking to its customer; succeeds at once."""
    with reference_errors():
        transaction_id = await _pay(
            ctx,
            args.booking_reference,
            args.refund_amount,
            m.TransactionType.REFUND,
            args.reason,
            processing_time_estimate=_REFUND_TIME,
        )
        return RefundOut(
            transaction_id=transaction_id, refund_status="successful", processing_time_estimate=_REFUND_TIME
        )


@tools.tool(write=True)
async def payment_api_process_charge_dispute(
    ctx: ToolContext,
    transaction_id: Annotated[str, Field(description="The disputed transaction, e.g. TXN-00012345")],
    dispute_reason: Annotated[str, Field(description="Why the charge is disputed")],
    dispute_amount: Annotated[Decimal, Field(description="Amount disputed, e.g. 150.00")],
) -> DisputeOut:
    """Open a dispute (chargeback) on a transaction; the case is under review."""
    with reference_errors():
        transactions = await store.all_rows(ctx.conn, sql["transactions"])
        original = next((t for t in transactions if t["transaction_id"] == transaction_id), None)
        if original is None:
            raise NotFound(f"Transaction not found: {transaction_id}")
        disputes = sum(1 for t in transactions if t["transaction_type"] == m.TransactionType.DISPUTE.value)
        case_id = f"DSP-{disputes + 1:08d}"
        await _record(
            ctx,
            id=case_id,
            transaction_id=case_id,
            booking_reference=original["booking_reference"],
            customer_id=original["customer_id"],
            amount=money(dispute_amount),
            transaction_type=m.TransactionType.DISPUTE,
            payment_status=m.PaymentStatus.PENDING,
            reason=dispute_reason,
            created_at=DISPUTED_AT,
            updated_at=DISPUTED_AT,
        )
        return DisputeOut(dispute_case_id=case_id, dispute_status="under_review")


@tools.tool(write=False)
async def payment_api_check_payment_status(ctx: ToolContext, args: BookingArgs) -> PaymentStatusOut:
    """The status of a booking's most recent transaction."""
    with reference_errors():
        transactions = await store.all_rows(
            ctx.conn, sql["transactions"], booking_reference=args.booking_reference
        )
        if not transactions:
            raise NotFound(f"No transactions found for booking: {args.booking_reference}")
        latest = max(transactions, key=lambda t: t["created_at"])
        return PaymentStatusOut(
            payment_status=latest["payment_status"],
            transaction_id=latest["transaction_id"],
            payment_method=latest["payment_method"],
        )


@tools.tool(write=False)
async def payment_api_get_transaction_history(ctx: ToolContext, args: HistoryArgs) -> HistoryOut:
    """The transactions of a customer and/or booking, newest first."""
    with reference_errors():
        if not args.customer_id and not args.booking_reference:
            raise InvalidArguments("Either customer_id or booking_reference must be provided")
        match = {}
        if args.customer_id:
            match["customer_id"] = args.customer_id
        if args.booking_reference:
            match["booking_reference"] = args.booking_reference
        transactions = await store.all_rows(ctx.conn, sql["transactions"], **match)
        ordered = sorted(transactions, key=lambda t: t["created_at"], reverse=True)
        return HistoryOut(transactions=[TransactionRecord.model_validate(t) for t in ordered])


@tools.tool(write=False)
async def payment_api_generate_invoice(ctx: ToolContext, args: InvoiceArgs) -> InvoiceOut:
    """An invoice or receipt for a booking (id and download URL); nothing is stored."""
    with reference_errors():
        if await find_booking(ctx.conn, args.booking_reference) is None:
            raise NotFound(f"Booking not found: {args.booking_reference}")
        name = f"{args.booking_reference}-{INVOICE_STAMP}"
        return InvoiceOut(
            invoice_url=f"https://staybridge.com/invoices/{name}.pdf",
            invoice_id=f"INV-{name}",
        )


@tools.tool(write=False)
async def payment_api_update_payment_method(ctx: ToolContext, args: PaymentMethodArgs) -> PaymentMethodOut:
    """Replace a customer's payment method in the payment provider; returns its last four characters.

    The customer must have a booking. Nothing is recorded in the graded state.
    """
    with reference_errors():
        if await store.first_row(ctx.conn, sql["bookings"], customer_id=args.customer_id) is None:
            raise NotFound(f"Customer not found: {args.customer_id}")
        method = args.new_payment_method
        return PaymentMethodOut(
            success=True, payment_method_last4=method[-4:] if len(method) >= 4 else "****"
        )
