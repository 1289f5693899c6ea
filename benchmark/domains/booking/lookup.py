"""Look-ups (lookup): ids from names, e-mails and references.

As in the reference, these tools search the live tables (``hotels``,
``bookings``, ``group_bookings``, ``corporate_accounts``), not the
``lookup_*`` copies, which nothing reads or writes but which are part of the
graded state.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.booking import models as m
from benchmark.domains.booking.bookings import find_booking
from benchmark.domains.booking.common import reference_errors
from benchmark.domains.booking.schema import sql
from guard.errors import InvalidArguments, NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

_REFERENCE = re.compile(r"BKG-\d{8}")


class HotelLookupArgs(BaseModel):
    hotel_name: str | None = Field(None, description="Part of the hotel's name (case-insensitive)")
    location: str | None = Field(None, description="Part of the hotel's location (case-insensitive)")


class AccountLookupArgs(BaseModel):
    company_name: str | None = Field(None, description="Part of the company's name (case-insensitive)")
    customer_email: str | None = Field(None, description="An employee's e-mail; its domain is matched")


class GroupLookupArgs(BaseModel):
    booking_reference: str | None = Field(None, description="A booking of the group, e.g. BKG-00012345")
    coordinator_email: str | None = Field(None, description="The group coordinator's e-mail")


class ReferenceArgs(BaseModel):
    booking_reference: str = Field(description="Booking reference, e.g. BKG-00012345")


class HotelLookupResult(BaseModel):
    hotel_id: str
    hotel_name: str
    location: str


class HotelLookupOut(BaseModel):
    results: list[HotelLookupResult]


class AccountLookupOut(BaseModel):
    corporate_account_id: str | None = None
    company_name: str | None = None
    account_tier: m.CorporateAccountTier | None = None


class GroupLookupOut(BaseModel):
    group_booking_id: str | None = None
    total_rooms: int | None = None
    coordinator_contact: str | None = None


class ReferenceOut(BaseModel):
    is_valid: bool
    booking_id: str | None = None


@tools.tool(write=False)
async def lookup_lookup_hotel_id(ctx: ToolContext, args: HotelLookupArgs) -> HotelLookupOut:
    """Hotels whose name or location contains the given text, with their ids."""
    with reference_errors():
        if not args.hotel_name and not args.location:
            raise InvalidArguments("Invalid parameters: provide hotel_name or location.")
        name = args.hotel_name.lower() if args.hotel_name else None
        place = args.location.lower() if args.location else None
        matches = [
            HotelLookupResult.model_validate(hotel)
            for hotel in await store.all_rows(ctx.conn, sql["hotels"])
            if (name and name in hotel["hotel_name"].lower())
            or (place and place in hotel["location"].lower())
        ]
        if not matches:
            raise NotFound("No hotels found matching criteria.")
        return HotelLookupOut(results=matches)


@tools.tool(write=False)
async def lookup_lookup_corporate_account_id(ctx: ToolContext, args: AccountLookupArgs) -> AccountLookupOut:
    """The corporate account of a company (name contains the text) or of an e-mail's domain."""
    with reference_errors():
        if not args.company_name and not args.customer_email:
            raise InvalidArguments("Invalid parameters: provide company_name or customer_email.")
        accounts = await store.all_rows(ctx.conn, sql["corporate_accounts"])
        matches: list[dict[str, Any]] = []
        if args.company_name:
            wanted = args.company_name.lower()
            matches = [a for a in accounts if wanted in a["company_name"].lower()]
        if args.customer_email:
            parts = args.customer_email.split("@", 1)
            if len(parts) < 2:
                raise InvalidArguments("Invalid email format.")
            domain = parts[1].lower()
            for account in accounts:
                email = account["contact_email"]
                if email and email.split("@")[-1].lower() == domain and account not in matches:
                    matches.append(account)
        if not matches:
            raise NotFound("No corporate account found matching criteria.")
        first = matches[0]
        return AccountLookupOut(
            corporate_account_id=first["corporate_account_id"],
            company_name=first["company_name"],
            account_tier=first["account_tier"],
        )


@tools.tool(write=False)
async def lookup_lookup_group_booking_id(ctx: ToolContext, args: GroupLookupArgs) -> GroupLookupOut:
    """The group booking that a booking belongs to, or that a coordinator e-mail runs."""
    with reference_errors():
        if not args.booking_reference and not args.coordinator_email:
            raise InvalidArguments("Invalid parameters: provide booking_reference or coordinator_email.")
        groups = await store.all_rows(ctx.conn, sql["group_bookings"])
        found = None
        if args.booking_reference:
            booking = await find_booking(ctx.conn, args.booking_reference)
            if booking and booking["group_booking_id"]:
                found = next(
                    (g for g in groups if g["group_booking_id"] == booking["group_booking_id"]), None
                )
        if not found and args.coordinator_email:
            wanted = args.coordinator_email.lower()
            found = next((g for g in groups if g["coordinator_email"].lower() == wanted), None)
        if not found:
            raise NotFound("No group booking found matching criteria or booking is not part of a group.")
        return GroupLookupOut(
            group_booking_id=found["group_booking_id"],
            total_rooms=found["total_rooms"],
            coordinator_contact=f"{found['coordinator_name']} <{found['coordinator_email']}>",
        )


@tools.tool(write=False)
async def lookup_validate_booking_reference(ctx: ToolContext, args: ReferenceArgs) -> ReferenceOut:
    """Whether a booking reference (BKG-########) exists, with the booking's internal id."""
    with reference_errors():
        if not _REFERENCE.fullmatch(args.booking_reference):
            raise InvalidArguments("Invalid booking reference format.")
        booking = await find_booking(ctx.conn, args.booking_reference)
        if booking is None:
            return ReferenceOut(is_valid=False)
        return ReferenceOut(is_valid=True, booking_id=booking["id"])
