"""Corporate accounts (corporate_api): details, status, booking history and invoices.

Every tool first checks that the account id starts with ``CRP-`` and finds
the account by ``corporate_account_id``. ``verify_account_status`` counts
the account's confirmed bookings against its ``booking_limit``;
``generate_corporate_invoice`` derives its id and URL from the two
references and stores nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.booking import models as m
from benchmark.domains.booking.bookings import find_booking
from benchmark.domains.booking.common import reference_errors
from benchmark.domains.booking.schema import sql
from guard.errors import InvalidArguments, NotFound, PreconditionFailed
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

AccountId = Annotated[str, Field(description="Corporate account id, e.g. CRP-00012345")]


class AccountArgs(BaseModel):
    corporate_account_id: AccountId


class InvoiceArgs(BaseModel):
    booking_reference: str = Field(description="Booking reference, e.g. BKG-00012345")
    corporate_account_id: AccountId


class AccountOut(BaseModel):
    account_data: m.CorporateAccount


class AccountStatusOut(BaseModel):
    is_active: bool
    expiration_date: datetime | None = None
    booking_limit_remaining: int


class CorporateHistoryOut(BaseModel):
    corporate_bookings: list[m.Booking]


class CorporateInvoiceOut(BaseModel):
    invoice_url: str
    invoice_id: str
    payment_terms: str


async def _account(ctx: ToolContext, account_id: str) -> dict[str, Any]:
    if not account_id.startswith("CRP-"):
        raise InvalidArguments("Invalid corporate_account_id parameter.")
    account = await store.first_row(ctx.conn, sql["corporate_accounts"], corporate_account_id=account_id)
    if account is None:
        raise NotFound("Corporate account not found.")
    return account


@tools.tool(write=False)
async def corporate_api_get_account_details(ctx: ToolContext, args: AccountArgs) -> AccountOut:
    """A corporate account: company, tier, status, contact, booking and credit limits, payment terms."""
    with reference_errors():
        return AccountOut(
            account_data=m.CorporateAccount.model_validate(await _account(ctx, args.corporate_account_id))
        )


@tools.tool(write=False)
async def corporate_api_verify_account_status(ctx: ToolContext, args: AccountArgs) -> AccountStatusOut:
    """Whether a corporate account is active, its expiry, and how many more confirmed bookings it allows."""
    with reference_errors():
        account = await _account(ctx, args.corporate_account_id)
        confirmed = await store.all_rows(
            ctx.conn,
            sql["bookings"],
            corporate_account_id=account["corporate_account_id"],
            booking_status=m.BookingStatus.CONFIRMED.value,
        )
        return AccountStatusOut(
            is_active=account["account_status"] == m.AccountStatus.ACTIVE.value,
            expiration_date=account["expiration_date"],
            booking_limit_remaining=max(0, account["booking_limit"] - len(confirmed)),
        )


@tools.tool(write=False)
async def corporate_api_get_corporate_booking_history(
    ctx: ToolContext, args: AccountArgs
) -> CorporateHistoryOut:
    """Every booking of a corporate account, newest first (by creation time)."""
    with reference_errors():
        await _account(ctx, args.corporate_account_id)
        bookings = await store.all_rows(
            ctx.conn, sql["bookings"], corporate_account_id=args.corporate_account_id
        )
        ordered = sorted(bookings, key=lambda b: b["created_at"], reverse=True)
        return CorporateHistoryOut(corporate_bookings=[m.Booking.model_validate(b) for b in ordered])


@tools.tool(write=False)
async def corporate_api_generate_corporate_invoice(
    ctx: ToolContext, args: InvoiceArgs
) -> CorporateInvoiceOut:
    """A corporate invoice for one of the account's bookings (id, URL, payment terms); stores nothing."""
    with reference_errors():
        if not args.corporate_account_id.startswith("CRP-"):
            raise InvalidArguments("Invalid corporate_account_id parameter.")
        if not args.booking_reference.startswith("BKG-"):
            raise InvalidArguments("Invalid booking_reference parameter.")
        account = await _account(ctx, args.corporate_account_id)
        booking = await find_booking(ctx.conn, args.booking_reference)
        if booking is None:
            raise NotFound("Booking not found.")
        if booking["corporate_account_id"] != account["corporate_account_id"]:
            raise PreconditionFailed("Booking is not associated with this corporate account.")
        number = args.booking_reference.replace("BKG-", "")
        account_number = args.corporate_account_id.replace("CRP-", "")
        return CorporateInvoiceOut(
            invoice_url=(
                "https://staybridge.com/corporate-invoices/"
                f"{args.corporate_account_id}-{args.booking_reference}.pdf"
            ),
            invoice_id=f"INV-{number}-{account_number}",
            payment_terms=account["payment_terms"],
        )
