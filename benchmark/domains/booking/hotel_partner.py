"""Hotel partners (hotel_partner_api): hotel details, contacts, availability and escalations.

Hotels are found by ``hotel_id``. ``escalate_to_hotel`` writes a Zendesk
ticket: id ``ZDSK-nnnnnnnn`` (the first unused, from 1), status open,
priority high, type incident, requester the booking's customer, stamped
2025-11-30T10:00:00Z, with the hotel, booking and reason in its custom
fields. Being a ticket row, it shifts the ``len + 1`` ids of later
``zendesk_create_item`` tickets. ``verify_availability`` compares the
inventory's dates as text with the date part of the given ones.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.booking import models as m
from benchmark.domains.booking.bookings import find_booking
from benchmark.domains.booking.common import ESCALATED_AT, reference_errors, row_of
from benchmark.domains.booking.schema import sql
from benchmark.domains.zendesk import models as zd
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

HotelId = Annotated[str, Field(description="Hotel id, e.g. HTL-00012345")]


class HotelArgs(BaseModel):
    hotel_id: HotelId


class VerifyArgs(BaseModel):
    hotel_id: HotelId
    check_in_date: str = Field(description="Check-in, ISO 8601")
    check_out_date: str = Field(description="Check-out, ISO 8601")
    room_type: m.RoomType = Field(description="Room type")
    board_type: m.BoardType = Field(description="Board (meal plan)")
    adults_count: int = Field(description="Number of adults")
    children_count: int = Field(description="Number of children")


class HotelData(BaseModel):
    id: str
    hotel_id: str
    hotel_name: str
    location: str
    partner_tier: str
    contact_name: str
    contact_email: str
    contact_phone: str
    escalation_contact: str | None
    amenities: list[str]
    supports_pets: bool
    accessible_rooms_available: bool
    created_at: str
    updated_at: str


class HotelInfoOut(BaseModel):
    hotel_data: HotelData


class ContactOut(BaseModel):
    contact_name: str
    contact_email: str
    contact_phone: str
    escalation_contact: str | None = None


class VerifyOut(BaseModel):
    availability_confirmed: bool
    confirmation_notes: str | None = None


class EscalationOut(BaseModel):
    escalation_ticket_id: str
    hotel_contact_email: str
    hotel_contact_phone: str


async def _hotel(ctx: ToolContext, hotel_id: str) -> dict[str, Any] | None:
    return await store.first_row(ctx.conn, sql["hotels"], hotel_id=hotel_id)


@tools.tool(write=False)
async def hotel_partner_api_get_hotel_info(ctx: ToolContext, args: HotelArgs) -> HotelInfoOut:
    """A partner hotel: name, location, partner tier (which sets its policies), contacts, amenities."""
    with reference_errors():
        hotel = await _hotel(ctx, args.hotel_id)
        if hotel is None:
            raise NotFound(f"Hotel not found: {args.hotel_id}")
        return HotelInfoOut(hotel_data=HotelData.model_validate(hotel))


@tools.tool(write=False)
async def hotel_partner_api_get_hotel_contact(ctx: ToolContext, args: HotelArgs) -> ContactOut:
    """A partner hotel's contact and escalation contact."""
    with reference_errors():
        hotel = await _hotel(ctx, args.hotel_id)
        if hotel is None:
            raise NotFound(f"Hotel not found: {args.hotel_id}")
        return ContactOut.model_validate(hotel)


@tools.tool(write=False)
async def hotel_partner_api_verify_availability(ctx: ToolContext, args: VerifyArgs) -> VerifyOut:
    """Ask the hotel partner whether every night of a stay has a room of the given type and board."""
    with reference_errors():
        if await _hotel(ctx, args.hotel_id) is None:
            raise NotFound(f"Hotel not found: {args.hotel_id}")
        first = args.check_in_date.split("T")[0]
        last = args.check_out_date.split("T")[0]
        rooms = await store.all_rows(
            ctx.conn,
            sql["hotel_inventory"],
            hotel_id=args.hotel_id,
            room_type=args.room_type.value,
            board_type=args.board_type.value,
        )
        nights = [row for row in rooms if first <= row["date"] < last]
        if not nights:
            return VerifyOut(
                availability_confirmed=False,
                confirmation_notes="No inventory data available for this hotel/room combination.",
            )
        fewest = min(row["available_count"] for row in nights)
        if fewest <= 0:
            return VerifyOut(
                availability_confirmed=False, confirmation_notes="No availability for requested dates."
            )
        return VerifyOut(
            availability_confirmed=True,
            confirmation_notes=(
                f"Confirmed availability for {len(nights)} nights. Minimum {fewest} rooms available."
            ),
        )


@tools.tool(write=True)
async def hotel_partner_api_escalate_to_hotel(
    ctx: ToolContext,
    hotel_id: HotelId,
    booking_reference: Annotated[str, Field(description="Booking reference, e.g. BKG-00012345")],
    issue_type: Annotated[m.EscalationReason, Field(description="Why the hotel must act")],
    description: Annotated[str, Field(description="What the hotel needs to know")],
) -> EscalationOut:
    """Escalate an issue to the hotel partner (a high-priority incident ticket); returns its contact."""
    with reference_errors():
        hotel = await _hotel(ctx, hotel_id)
        if hotel is None:
            raise NotFound(f"Hotel '{hotel_id}' not found.")
        booking = await find_booking(ctx.conn, booking_reference)
        if booking is None:
            raise NotFound(f"Booking '{booking_reference}' not found.")
        tickets = sql["zendesk_tickets"]
        taken = [t["id"] for t in await store.all_rows(ctx.conn, tickets)]
        ticket_id = store.first_unused(taken, "ZDSK-{:08d}", 1)
        ticket = row_of(
            m.Ticket,
            id=ticket_id,
            subject=f"Hotel Escalation: {issue_type.value}",
            description=description,
            status=zd.TicketStatus.OPEN,
            priority=zd.TicketPriority.HIGH,
            type=zd.TicketType.INCIDENT,
            created_at=ESCALATED_AT,
            updated_at=ESCALATED_AT,
            requester_id=booking["customer_id"],
            hotel_id=hotel_id,
            booking_reference=booking_reference,
            escalation_reason=issue_type,
        )
        await store.insert_row(ctx.conn, tickets, ticket)
        return EscalationOut(
            escalation_ticket_id=ticket_id,
            hotel_contact_email=hotel["escalation_contact"] or hotel["contact_email"],
            hotel_contact_phone=hotel["contact_phone"],
        )
