"""Group bookings (booking_api): look-up and ``modify_group_booking``.

``booking_api_modify_group_booking`` moves the group's dates (only the
given, non-empty ones that differ) and, with
``cascade_to_individual_bookings``, the dates of every booking it lists
(references that match no booking are skipped; the bookings' status is not
checked). Each moved booking is re-priced from the inventory — its value is
rewritten only when the price changed — and logs
``2025-11-25T10:00:00Z: check_in_date updated via group booking GRP-…``.
The group's ``updated_at`` is stamped when anything moved. Writes happen in
the reference's order, so a failure part-way keeps what was already moved.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark.domains import store
from benchmark.domains.booking import models as m
from benchmark.domains.booking.bookings import find_booking, save_booking, stay_value
from benchmark.domains.booking.common import MODIFIED_AT, money, reference_errors
from benchmark.domains.booking.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

_DATES = ("check_in_date", "check_out_date")


class GroupBookingArgs(BaseModel):
    group_booking_id: str = Field(description="Group booking id, e.g. GRP-00012345")


class GroupBookingOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    group_booking_data: dict[str, Any]


class ModificationDetails(BaseModel):
    check_in_date: str | None = Field(None, description="New check-in, ISO 8601")
    check_out_date: str | None = Field(None, description="New check-out, ISO 8601")


class ModifyGroupOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    updated_group_booking: dict[str, Any]
    modified_booking_references: list[str]
    total_price_difference: Decimal


async def _save_group(ctx: ToolContext, group: dict[str, Any]) -> dict[str, Any]:
    row = m.GroupBooking.model_validate(group).model_dump(mode="json")
    await store.update_row(ctx.conn, sql["group_bookings"], {"id": row["id"]}, row)
    return row


@tools.tool(write=False)
async def booking_api_get_group_booking(ctx: ToolContext, args: GroupBookingArgs) -> GroupBookingOut:
    """A group booking: coordinator, room count, dates, hotel and the references of its bookings."""
    with reference_errors():
        group = await store.first_row(ctx.conn, sql["group_bookings"], group_booking_id=args.group_booking_id)
        if group is None:
            raise NotFound(f"Group booking not found with group_booking_id '{args.group_booking_id}'")
        return GroupBookingOut(group_booking_data=group)


async def _cascade(
    ctx: ToolContext, group_id: str, reference: str, new_dates: dict[str, str]
) -> Decimal | None:
    """Move one booking of the group; its price difference, or None when nothing moved."""
    booking = await find_booking(ctx.conn, reference)
    if booking is None:
        return None
    original_value = Decimal(booking["booking_value"])
    changes = []
    for name, value in new_dates.items():
        if booking[name] != value:
            booking[name] = value
            changes.append(f"{name} updated via group booking {group_id}")
    if not changes:
        return None
    try:
        priced = await stay_value(ctx.conn, booking)
    except ArithmeticError:
        await save_booking(ctx.conn, booking)
        raise
    difference = Decimal(0)
    if priced is not None:
        difference = priced - original_value
        if difference != 0:
            booking["booking_value"] = priced
    booking["modification_history"] = [
        *booking["modification_history"],
        f"{MODIFIED_AT}: " + "; ".join(changes),
    ]
    booking["updated_at"] = MODIFIED_AT
    await save_booking(ctx.conn, booking)
    return difference


@tools.tool(write=True)
async def booking_api_modify_group_booking(
    ctx: ToolContext,
    group_booking_id: Annotated[str, Field(description="Group booking id, e.g. GRP-00012345")],
    modification_details: Annotated[ModificationDetails, Field(description="The new dates")],
    cascade_to_individual_bookings: Annotated[
        bool, Field(description="Also move every booking of the group")
    ],
) -> ModifyGroupOut:
    """Move a group booking's dates, and optionally those of all its bookings (re-priced).

    Returns the updated group, the references of the bookings that changed and
    the total price difference.
    """
    with reference_errors():
        group = await store.first_row(ctx.conn, sql["group_bookings"], group_booking_id=group_booking_id)
        if group is None:
            raise NotFound(f"Group booking not found with group_booking_id '{group_booking_id}'")
        new_dates = {name: value for name in _DATES if (value := getattr(modification_details, name))}
        group_moved = False
        for name, value in new_dates.items():
            if group[name] != value:
                group[name] = value
                group_moved = True
        if group_moved:
            group = await _save_group(ctx, group)
        modified: list[str] = []
        total = Decimal(0)
        if cascade_to_individual_bookings:
            for reference in group["booking_references"]:
                difference = await _cascade(ctx, group_booking_id, reference, new_dates)
                if difference is not None:
                    modified.append(reference)
                    total += difference
        if group_moved or modified:
            group["updated_at"] = MODIFIED_AT
            group = await _save_group(ctx, group)
        return ModifyGroupOut(
            updated_group_booking=group,
            modified_booking_references=modified,
            total_price_difference=money(total),
        )
