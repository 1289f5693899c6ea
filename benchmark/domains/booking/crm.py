"""Customers (crm_api): profiles, VIP status, preferences and profile updates.

Profiles are found by ``customer_id`` (or, in ``get_customer_profile``
without one, by e-mail, case-insensitively). ``update_customer_info`` sets
every given field and stamps ``updated_at`` 2025-01-01T00:00Z, the
reference's constant; ``preferences`` and ``special_notes`` are not part of
the graded state.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.booking import models as m
from benchmark.domains.booking.common import CRM_UPDATED_AT, reference_errors
from benchmark.domains.booking.schema import sql
from guard.errors import InvalidArguments, NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

CustomerId = Annotated[str, Field(description="Customer id, e.g. CUS-00012345")]


class CustomerArgs(BaseModel):
    customer_id: CustomerId


class ProfileArgs(BaseModel):
    customer_id: str | None = Field(None, description="Customer id, e.g. CUS-00012345")
    email: str | None = Field(None, description="Customer e-mail (used when no id is given)")


class VipOut(BaseModel):
    vip_tier: m.VipTier
    loyalty_program_status: str | None = None


class PreferencesOut(BaseModel):
    preferences: list[str]
    special_notes: list[str]


class ProfileOut(BaseModel):
    customer_data: m.CustomerProfile


class UpdateOut(BaseModel):
    success: bool
    updated_fields: list[str]


async def _profile(ctx: ToolContext, customer_id: str) -> dict[str, Any]:
    if not customer_id.strip():
        raise InvalidArguments("Invalid customer_id parameter.")
    profile = await store.first_row(ctx.conn, sql["customer_profiles"], customer_id=customer_id)
    if profile is None:
        raise NotFound("Customer not found.")
    return profile


@tools.tool(write=False)
async def crm_api_get_customer_profile(ctx: ToolContext, args: ProfileArgs) -> ProfileOut:
    """A customer's full profile: contact, VIP tier, loyalty, lifetime value, bookings, complaints, notes."""
    with reference_errors():
        if not args.customer_id and not args.email:
            raise InvalidArguments("Invalid parameters: provide customer_id or email.")
        profiles = await store.all_rows(ctx.conn, sql["customer_profiles"])
        if args.customer_id:
            found = next((p for p in profiles if p["customer_id"] == args.customer_id), None)
        else:
            wanted = str(args.email).lower()
            found = next((p for p in profiles if p["email"].lower() == wanted), None)
        if found is None:
            raise NotFound("Customer not found.")
        return ProfileOut(customer_data=m.CustomerProfile.model_validate(found))


@tools.tool(write=False)
async def crm_api_check_vip_status(ctx: ToolContext, args: CustomerArgs) -> VipOut:
    """A customer's VIP tier (standard, vip, platinum) and loyalty status."""
    with reference_errors():
        profile = await _profile(ctx, args.customer_id)
        return VipOut(vip_tier=profile["vip_tier"], loyalty_program_status=profile["loyalty_program_status"])


@tools.tool(write=False)
async def crm_api_get_customer_preferences(ctx: ToolContext, args: CustomerArgs) -> PreferencesOut:
    """A customer's preferences and service notes."""
    with reference_errors():
        profile = await _profile(ctx, args.customer_id)
        return PreferencesOut(preferences=profile["preferences"], special_notes=profile["special_notes"])


@tools.tool(write=True, idempotent=True)
async def crm_api_update_customer_info(
    ctx: ToolContext,
    customer_id: CustomerId,
    email: Annotated[str | None, Field(description="New e-mail")] = None,
    full_name: Annotated[str | None, Field(description="New full name")] = None,
    preferences: Annotated[list[str] | None, Field(description="The preferences (replaces the list)")] = None,
    special_notes: Annotated[
        list[str] | None, Field(description="The service notes (replaces the list)")
    ] = None,
    complaint_count: Annotated[int | None, Field(description="New complaint count")] = None,
    loyalty_program_status: Annotated[str | None, Field(description="New loyalty status")] = None,
    last_booking_date: Annotated[datetime | None, Field(description="Most recent booking, ISO 8601")] = None,
) -> UpdateOut:
    """Set the given fields of a customer's profile; returns the names of the fields set."""
    with reference_errors():
        if not customer_id.strip():
            raise InvalidArguments("Invalid customer_id parameter.")
        given = {
            name: value
            for name, value in (
                ("email", email),
                ("full_name", full_name),
                ("preferences", preferences),
                ("special_notes", special_notes),
                ("complaint_count", complaint_count),
                ("loyalty_program_status", loyalty_program_status),
                ("last_booking_date", last_booking_date),
            )
            if value is not None
        }
        if not given:
            raise InvalidArguments("Invalid update_fields parameter.")
        profile = await store.first_row(ctx.conn, sql["customer_profiles"], customer_id=customer_id)
        if profile is None:
            raise NotFound("Customer not found.")
        row = m.CustomerProfile.model_validate({**profile, **given, "updated_at": CRM_UPDATED_AT})
        stored = row.model_dump(mode="json")
        await store.update_row(ctx.conn, sql["customer_profiles"], {"id": stored["id"]}, stored)
        return UpdateOut(success=True, updated_fields=list(given))
