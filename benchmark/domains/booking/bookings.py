"""Bookings (booking_api): look-ups, the booking history and ``modify_booking``.

``booking_api_modify_booking`` refuses only a booking that is not
``confirmed``; it applies the given fields that differ, and when dates, room
or board were given it prices the stay again from ``hotel_inventory`` (the
sum of the nightly prices of the nights from check-in up to check-out,
rounded to cents; the old value stays when no night is priced). Changes are
logged in ``modification_history`` as ``2025-11-25T10:00:00Z: field: old ->
new; …`` and stamp ``updated_at``. As in the reference, a re-priced value is
written even when no field changed (a ``"457.5"`` can become ``"457.50"``),
and fields already changed stay changed if pricing then fails.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.ext.asyncio import AsyncConnection

from benchmark.domains import store
from benchmark.domains.booking import models as m
from benchmark.domains.booking.common import MODIFIED_AT, money, parse_iso, reference_errors
from benchmark.domains.booking.schema import sql
from guard.errors import InvalidArguments, NotFound, PreconditionFailed
from guard.tools import ToolContext, ToolRegistry

__all__ = ["find_booking", "save_booking", "stay_value", "tools"]

tools = ToolRegistry(__name__)

BookingReference = Annotated[str, Field(description="Booking reference, e.g. BKG-00012345")]

_PRICED = ("check_in_date", "check_out_date", "room_type", "board_type")


class GetBookingArgs(BaseModel):
    booking_reference: str | None = Field(None, description="Booking reference, e.g. BKG-00012345")
    customer_id: str | None = Field(
        None, description="Customer id, e.g. CUS-00012345 (the customer's first booking is returned)"
    )


class GetBookingOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    booking_data: dict[str, Any]


class BookingHistoryArgs(BaseModel):
    customer_id: str = Field(description="Customer id, e.g. CUS-00012345")


class BookingHistoryOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    bookings: list[dict[str, Any]]


class ModifyBookingOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    updated_booking: dict[str, Any]
    price_difference: Decimal


async def find_booking(conn: AsyncConnection, reference: str) -> dict[str, Any] | None:
    """The first booking with this reference, or None."""
    return await store.first_row(conn, sql["bookings"], booking_reference=reference)


async def save_booking(conn: AsyncConnection, booking: dict[str, Any]) -> dict[str, Any]:
    """Validate a changed booking as the reference's model does, store it and return the stored row."""
    row = m.Booking.model_validate(booking).model_dump(mode="json")
    await store.update_row(conn, sql["bookings"], {"id": row["id"]}, row)
    return row


async def stay_value(conn: AsyncConnection, booking: dict[str, Any]) -> Decimal | None:
    """The booking's price from the inventory's nightly prices, or None when no night is priced.

    Nights are the calendar dates from check-in up to (not including)
    check-out; unreadable dates price nothing.
    """
    try:
        first = parse_iso(booking["check_in_date"]).date()
        last = parse_iso(booking["check_out_date"]).date()
    except ValueError:
        return None
    total = Decimal(0)
    nights = 0
    inventory = await store.all_rows(
        conn,
        sql["hotel_inventory"],
        hotel_id=booking["hotel_id"],
        room_type=booking["room_type"],
        board_type=booking["board_type"],
    )
    for night in inventory:
        try:
            day = parse_iso(night["date"]).date()
        except ValueError:
            continue
        if first <= day < last:
            total += Decimal(night["price_per_night"])
            nights += 1
    return money(total) if nights else None


@tools.tool(write=False)
async def booking_api_get_booking(ctx: ToolContext, args: GetBookingArgs) -> GetBookingOut:
    """A booking with all its fields: dates, hotel, room and board, guests, status, value, history."""
    with reference_errors():
        if not args.booking_reference and not args.customer_id:
            raise InvalidArguments("Either booking_reference or customer_id must be provided")
        if args.booking_reference:
            booking = await find_booking(ctx.conn, args.booking_reference)
            if booking is None:
                raise NotFound(f"Booking not found with booking_reference '{args.booking_reference}'")
            return GetBookingOut(booking_data=booking)
        booking = await store.first_row(ctx.conn, sql["bookings"], customer_id=args.customer_id)
        if booking is None:
            raise NotFound(f"Booking not found with customer_id '{args.customer_id}'")
        return GetBookingOut(booking_data=booking)


@tools.tool(write=False)
async def booking_api_get_booking_history(ctx: ToolContext, args: BookingHistoryArgs) -> BookingHistoryOut:
    """Every booking of a customer, newest first (by creation time)."""
    with reference_errors():
        bookings = await store.all_rows(ctx.conn, sql["bookings"], customer_id=args.customer_id)
        return BookingHistoryOut(bookings=sorted(bookings, key=lambda b: b["created_at"], reverse=True))


@tools.tool(write=True)
async def booking_api_modify_booking(
    ctx: ToolContext,
    booking_reference: BookingReference,
    check_in_date: Annotated[str | None, Field(description="New check-in, ISO 8601")] = None,
    check_out_date: Annotated[str | None, Field(description="New check-out, ISO 8601")] = None,
    room_type: Annotated[m.RoomType | None, Field(description="New room type")] = None,
    board_type: Annotated[m.BoardType | None, Field(description="New board (meal plan)")] = None,
    adults_count: Annotated[int | None, Field(description="New number of adults")] = None,
    children_count: Annotated[int | None, Field(description="New number of children")] = None,
    special_requests: Annotated[
        list[str] | None, Field(description="The special requests (replaces the list)")
    ] = None,
    booking_status: Annotated[m.BookingStatus | None, Field(description="New status")] = None,
) -> ModifyBookingOut:
    """Change a confirmed booking (only the given fields); dates, room or board re-price the stay.

    Returns the updated booking and the price difference (positive: the customer owes more).
    """
    with reference_errors():
        booking = await find_booking(ctx.conn, booking_reference)
        if booking is None:
            raise NotFound(f"Booking not found with booking_reference '{booking_reference}'")
        if booking["booking_status"] != m.BookingStatus.CONFIRMED.value:
            raise PreconditionFailed(
                f"Booking cannot be modified. Current status is '{booking['booking_status']}', "
                "must be 'confirmed'"
            )
        given: dict[str, Any] = {
            name: value.value if isinstance(value, m.RoomType | m.BoardType | m.BookingStatus) else value
            for name, value in (
                ("check_in_date", check_in_date),
                ("check_out_date", check_out_date),
                ("room_type", room_type),
                ("board_type", board_type),
                ("adults_count", adults_count),
                ("children_count", children_count),
                ("special_requests", special_requests),
                ("booking_status", booking_status),
            )
            if value is not None
        }
        original = dict(booking)
        changes: list[str] = []
        for name, value in given.items():
            if booking[name] != value:
                changes.append(
                    "special_requests updated"
                    if name == "special_requests"
                    else f"{name}: {booking[name]} -> {value}"
                )
                booking[name] = value
        difference = Decimal(0)
        if any(name in given for name in _PRICED):
            try:
                value = await stay_value(ctx.conn, booking)
            except ArithmeticError:
                if booking != original:
                    await save_booking(ctx.conn, booking)
                raise
            if value is not None:
                difference = value - Decimal(original["booking_value"])
                booking["booking_value"] = value
        if changes:
            booking["modification_history"] = [
                *booking["modification_history"],
                f"{MODIFIED_AT}: " + "; ".join(changes),
            ]
            booking["updated_at"] = MODIFIED_AT
        if booking != original:
            booking = await save_booking(ctx.conn, booking)
        return ModifyBookingOut(updated_booking=booking, price_difference=money(difference))
