"""Room availability (booking_api): one hotel's inventory, and hotels by location.

Both read ``hotel_inventory``: a stay's nights are the calendar dates from
check-in up to (not including) check-out. ``check_hotel_availability``
finds the hotel by its internal ``id`` (not ``hotel_id``), as the reference
does, and prices the stay at the first matching night's rate;
``search_hotels_by_location`` matches the location as a case-insensitive
substring and averages the nightly rates. Guest counts are accepted and not
used.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark.domains import store
from benchmark.domains.booking import models as m
from benchmark.domains.booking.common import money, parse_iso, reference_errors
from benchmark.domains.booking.schema import sql
from guard.errors import InvalidArguments, NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)


_CHECK_IN = Field(description="Check-in, ISO 8601, e.g. 2025-12-15T15:00:00Z")
_CHECK_OUT = Field(description="Check-out, ISO 8601, e.g. 2025-12-18T11:00:00Z")


class AvailabilityArgs(BaseModel):
    hotel_id: str = Field(description="Hotel id, e.g. HTL-00012345")
    check_in_date: str = _CHECK_IN
    check_out_date: str = _CHECK_OUT
    room_type: m.RoomType = Field(description="Room type")
    board_type: m.BoardType = Field(description="Board (meal plan)")
    adults_count: int = Field(description="Number of adults")
    children_count: int = Field(description="Number of children")


class SearchArgs(BaseModel):
    location: str = Field(description="City or part of it, e.g. New York")
    check_in_date: str = _CHECK_IN
    check_out_date: str = _CHECK_OUT
    room_type: m.RoomType = Field(description="Room type")
    board_type: m.BoardType = Field(description="Board (meal plan)")
    adults_count: int = Field(description="Number of adults")
    children_count: int = Field(description="Number of children")


class AvailabilityOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    available_count: int
    available_board_types: list[str]
    price_per_night: Decimal


class HotelResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    hotel_id: str
    hotel_name: str
    location: str
    partner_tier: str
    available_count: int
    price_per_night: Decimal


class SearchOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    hotels: list[HotelResult]


def _stay(args: AvailabilityArgs | SearchArgs) -> tuple[date, date]:
    try:
        first = parse_iso(args.check_in_date).date()
        last = parse_iso(args.check_out_date).date()
    except ValueError as exc:
        raise InvalidArguments(f"Invalid date format: {exc}") from exc
    if first >= last:
        raise InvalidArguments("Check-in date must be before check-out date")
    return first, last


def _night(row: dict[str, Any]) -> date:
    return parse_iso(row["date"]).date()


@tools.tool(write=False)
async def booking_api_check_hotel_availability(ctx: ToolContext, args: AvailabilityArgs) -> AvailabilityOut:
    """Rooms left (the fewest over the stay's nights), the nightly rate, and which boards have rooms."""
    with reference_errors():
        if await store.first_row(ctx.conn, sql["hotels"], id=args.hotel_id) is None:
            raise NotFound(f"Hotel not found with hotel_id '{args.hotel_id}'")
        first, last = _stay(args)
        rooms = await store.all_rows(
            ctx.conn, sql["hotel_inventory"], hotel_id=args.hotel_id, room_type=args.room_type.value
        )
        if not rooms:
            return AvailabilityOut(
                available_count=0, available_board_types=[], price_per_night=Decimal("0.00")
            )
        nights = [(row, _night(row)) for row in rooms]
        stay = [
            row for row, day in nights if first <= day < last and row["board_type"] == args.board_type.value
        ]
        boards = {
            row["board_type"] for row, day in nights if first <= day < last and row["available_count"] > 0
        }
        return AvailabilityOut(
            available_count=min((row["available_count"] for row in stay), default=0),
            available_board_types=sorted(boards),
            price_per_night=money(Decimal(stay[0]["price_per_night"])) if stay else Decimal("0.00"),
        )


@tools.tool(write=False)
async def booking_api_search_hotels_by_location(ctx: ToolContext, args: SearchArgs) -> SearchOut:
    """Hotels in a location with rooms of the given type and board on every night of the stay."""
    with reference_errors():
        first, last = _stay(args)
        needle = args.location.lower()
        hotels = [h for h in await store.all_rows(ctx.conn, sql["hotels"]) if needle in h["location"].lower()]
        results = []
        for hotel in hotels:
            rooms = await store.all_rows(
                ctx.conn,
                sql["hotel_inventory"],
                hotel_id=hotel["hotel_id"],
                room_type=args.room_type.value,
                board_type=args.board_type.value,
            )
            stay = [row for row in rooms if first <= _night(row) < last]
            if not stay or (left := min(row["available_count"] for row in stay)) <= 0:
                continue
            average = sum((Decimal(row["price_per_night"]) for row in stay), Decimal(0)) / len(stay)
            results.append(
                HotelResult(
                    hotel_id=hotel["hotel_id"],
                    hotel_name=hotel["hotel_name"],
                    location=hotel["location"],
                    partner_tier=hotel["partner_tier"],
                    available_count=left,
                    price_per_night=money(average),
                )
            )
        return SearchOut(hotels=results)
