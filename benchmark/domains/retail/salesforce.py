"""Customers and membership (Salesforce): profiles, Plus membership and reward points.

``update_membership_status`` upgrades without an eligibility check (a new
active ``MEM-2{n:07d}`` record for 2025-10-01 00:00 to 2026-10-01
23:59:59.999999, tier plus_member) or cancels the customer's first membership
record (tier standard). ``add_points_to_balance`` credits the first
membership record; its reason is not stored.
"""

# ruff: noqa: UP042 - (str, Enum) as in the reference: it formats as "Class.MEMBER", which messages show
from __future__ import annotations

from datetime import timedelta
from enum import Enum
from typing import Annotated

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.retail import models as m
from benchmark.domains.retail.common import FIXED_NOW, iso, reference_errors, row_of
from benchmark.domains.retail.schema import sql
from guard.errors import InvalidArguments, NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

CustomerId = Annotated[str, Field(description="Customer id, e.g. CUS-30020")]


class MembershipAction(str, Enum):
    UPGRADE = "upgrade"
    CANCEL = "cancel"


class ProfileOut(BaseModel):
    id: str
    email: str
    name: str
    phone: str | None = None
    registration_date: str
    customer_tier: m.CustomerTier
    lifetime_value: float
    total_orders: int
    customer_score: int
    behavioral_segment: m.BehavioralSegment
    acquisition_source: str | None = None
    discount_usage_rate: float


class MembershipOut(BaseModel):
    membership_id: str
    customer_id: str
    membership_type: str
    start_date: str
    end_date: str
    status: m.MembershipStatus
    points_balance: int


class MembershipChangeOut(BaseModel):
    customer_id: str
    membership_id: str | None = None
    new_tier: m.CustomerTier
    action_completed: str
    start_date: str | None = None
    end_date: str | None = None


class PointsOut(BaseModel):
    customer_id: str
    old_balance: int
    points_added: int
    new_balance: int


@tools.tool(write=False)
async def get_customer_profile(
    ctx: ToolContext,
    customer_id: Annotated[str | None, Field(description="Customer id")] = None,
    email: Annotated[str | None, Field(description="Customer email (used when no id is given)")] = None,
) -> ProfileOut:
    """A customer's profile by id or email: contact, tier, lifetime value, orders, segment."""
    with reference_errors("retrieve customer profile"):
        if not customer_id and not email:
            raise InvalidArguments("Either customer_id or email must be provided")
        table = sql["customer_profiles"]
        profile = (
            await store.first_row(ctx.conn, table, id=customer_id)
            if customer_id
            else await store.first_row(ctx.conn, table, email=email)
        )
        if profile is None:
            raise NotFound(f"Customer not found with provided identifier: {customer_id or email}")
        return ProfileOut.model_validate({**profile, "registration_date": iso(profile["registration_date"])})


@tools.tool(write=False)
async def get_membership_details(ctx: ToolContext, customer_id: CustomerId) -> MembershipOut:
    """A customer's active membership: type, dates, status and points balance."""
    with reference_errors("retrieve membership details"):
        membership = await store.first_row(
            ctx.conn,
            sql["membership_records"],
            customer_id=customer_id,
            status=m.MembershipStatus.ACTIVE.value,
        )
        if membership is None:
            raise NotFound(f"No active membership found for customer: {customer_id}")
        return MembershipOut.model_validate(
            {
                **membership,
                "membership_id": membership["id"],
                "start_date": iso(membership["start_date"]),
                "end_date": iso(membership["end_date"]),
            }
        )


@tools.tool(write=True)
async def update_membership_status(
    ctx: ToolContext,
    customer_id: CustomerId,
    action: Annotated[MembershipAction, Field(description="upgrade or cancel")],
    membership_type: Annotated[str | None, Field(description="Membership type; required to upgrade")] = None,
) -> MembershipChangeOut:
    """Upgrade a customer to Plus membership or cancel their membership; sets the customer tier."""
    with reference_errors("update membership status"):
        profiles = sql["customer_profiles"]
        if await store.first_row(ctx.conn, profiles, id=customer_id) is None:
            raise NotFound(f"Customer not found: {customer_id}")
        memberships = sql["membership_records"]
        if action is MembershipAction.UPGRADE:
            if not membership_type:
                raise InvalidArguments("membership_type is required when action is upgrade")
            existing = await store.all_rows(ctx.conn, memberships)
            membership_id = store.first_unused((r["id"] for r in existing), "MEM-2{:07d}", 1)
            start = FIXED_NOW.replace(hour=0, minute=0, second=0, microsecond=0)
            end = (start + timedelta(days=365)).replace(hour=23, minute=59, second=59, microsecond=999999)
            row = row_of(
                m.MembershipRecord,
                id=membership_id,
                customer_id=customer_id,
                membership_type=membership_type,
                start_date=start,
                end_date=end,
                status=m.MembershipStatus.ACTIVE,
                points_balance=0,
            )
            await store.insert_row(ctx.conn, memberships, row)
            tier = m.CustomerTier.PLUS_MEMBER
            await store.update_row(ctx.conn, profiles, {"id": customer_id}, {"customer_tier": tier.value})
            return MembershipChangeOut(
                customer_id=customer_id,
                membership_id=membership_id,
                new_tier=tier,
                action_completed="upgraded",
                start_date=start.isoformat(),
                end_date=end.isoformat(),
            )
        current = await store.first_row(ctx.conn, memberships, customer_id=customer_id)
        if current is None:
            raise NotFound(f"No membership record found for customer: {customer_id}")
        cancelled = m.MembershipStatus.CANCELLED.value
        await store.update_row(ctx.conn, memberships, {"id": current["id"]}, {"status": cancelled})
        tier = m.CustomerTier.STANDARD
        await store.update_row(ctx.conn, profiles, {"id": customer_id}, {"customer_tier": tier.value})
        return MembershipChangeOut(customer_id=customer_id, new_tier=tier, action_completed="cancelled")


@tools.tool(write=True)
async def add_points_to_balance(
    ctx: ToolContext,
    customer_id: CustomerId,
    points_to_add: Annotated[int, Field(description="Reward points to credit")],
    points_reason: Annotated[m.PointsAdjustmentReason, Field(description="Why points are added")],
) -> PointsOut:
    """Credit reward points to the customer's membership balance."""
    with reference_errors("add points to balance"):
        membership = await store.first_row(ctx.conn, sql["membership_records"], customer_id=customer_id)
        if membership is None:
            raise NotFound(
                f"No membership record found for customer {customer_id}. "
                "Customer must have a membership record to receive points."
            )
        old = int(membership["points_balance"])
        await store.update_row(
            ctx.conn,
            sql["membership_records"],
            {"id": membership["id"]},
            {"points_balance": old + points_to_add},
        )
        return PointsOut(
            customer_id=customer_id,
            old_balance=old,
            points_added=points_to_add,
            new_balance=old + points_to_add,
        )
