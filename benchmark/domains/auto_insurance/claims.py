"""Claims: first notice of loss and the claims of a policy, vehicle or driver.

``claims_create_fnol`` is idempotent: the claim id is
``CLM-2<sha256(policy_id, date_of_loss, vehicle_id or vehicle_vin or 'no_vehicle')[:9]>``,
so a repeat returns the claim made first. A new claim starts in
"Open – Initial Review" and its ``created_date`` is its ``date_of_loss``.
``claims_get_policy_claims`` measures ``months_back`` (30-day months) back
from the newest ``created_date`` of any claim in the table, not from a
clock, comparing dates as ``YYYY-MM-DD`` text.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.auto_insurance import models as m
from benchmark.domains.auto_insurance.common import content_id, create_once, reference_errors
from benchmark.domains.auto_insurance.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

_OPEN = "Open"
_POLICY_ID = "The policy's id, e.g. POL-0012345678"


class FnolArgs(BaseModel):
    policy_id: str = Field(description=_POLICY_ID)
    vehicle_id: str | None = Field(None, description="The vehicle involved, e.g. VEH-00012345")
    vehicle_vin: str | None = Field(None, description="VIN of the vehicle involved")
    driver_id: str | None = Field(None, description="Who was driving, e.g. DRV-00012345")
    date_of_loss: str = Field(description="When the loss happened, YYYY-MM-DD")
    loss_location: str = Field(description="Where it happened, e.g. Los Angeles, CA")
    claim_type: m.ClaimType = Field(description="Kind of loss")
    severity: m.ClaimSeverity = Field(description="Minor, Moderate or Major")
    siu_flag: m.SIUFlag | None = Field(None, description="Special Investigations Unit flag (default None)")
    unlisted_driver_flag: bool | None = Field(None, description="Whether the driver is not on the policy")
    has_bodily_injury: bool | None = Field(None, description="Whether anyone was injured")
    police_report_required: bool | None = Field(None, description="Whether a police report is required")
    police_report_number: str | None = Field(None, description="Police report number, if any")
    other_party_name: str | None = Field(None, description="The other party's name")
    other_party_phone: str | None = Field(None, description="The other party's phone number")
    other_party_insurance: str | None = Field(None, description="The other party's insurer")


class FnolOut(BaseModel):
    claim_id: str
    claim_stage: m.ClaimStage


class MajorClaimsArgs(BaseModel):
    policy_id: str = Field(description=_POLICY_ID)


class MajorClaimsOut(BaseModel):
    has_major_claim: bool
    major_claim_count: int


class PolicyClaimsArgs(BaseModel):
    policy_id: str = Field(description=_POLICY_ID)
    months_back: int | None = Field(None, description="Only claims created in the last N months")


class PolicyClaimRecord(BaseModel):
    claim_id: str
    date_of_loss: str
    claim_type: m.ClaimType
    claim_stage: m.ClaimStage
    severity: m.ClaimSeverity
    created_date: str


class PolicyClaimsOut(BaseModel):
    claims: list[PolicyClaimRecord]
    total_count: int


class VehicleClaimsArgs(BaseModel):
    vehicle_id: str = Field(description="The vehicle's id, e.g. VEH-00012345")
    open_only: bool | None = Field(False, description="Only claims still open")


class DriverClaimsArgs(BaseModel):
    driver_id: str = Field(description="The driver's id, e.g. DRV-00012345")
    open_only: bool = Field(False, description="Only claims still open")


class ClaimItem(BaseModel):
    claim_id: str
    date_of_loss: str
    claim_type: str
    claim_stage: str
    severity: str
    created_date: str


class ClaimsOut(BaseModel):
    claims: list[ClaimItem]
    has_open_claims: bool


def _is_open(claim: dict[str, Any]) -> bool:
    return str(claim["claim_stage"]).startswith(_OPEN)


def _summary(claim: dict[str, Any]) -> dict[str, Any]:
    return {
        "claim_id": claim["id"],
        "date_of_loss": claim["date_of_loss"],
        "claim_type": claim["claim_type"],
        "claim_stage": claim["claim_stage"],
        "severity": claim["severity"],
        "created_date": claim["created_date"],
    }


async def _policy(ctx: ToolContext, policy_id: str) -> None:
    if await store.first_row(ctx.conn, sql["policies"], id=policy_id) is None:
        raise NotFound(f"Policy '{policy_id}' not found.")


@tools.tool(write=True, idempotent=True)
async def claims_create_fnol(ctx: ToolContext, args: FnolArgs) -> FnolOut:
    """Open a claim from a first notice of loss; reporting the same loss again returns the same claim."""
    with reference_errors():
        await _policy(ctx, args.policy_id)
        vehicle = args.vehicle_id or args.vehicle_vin or "no_vehicle"
        claim = await create_once(
            ctx,
            "claims",
            m.Claim,
            id=content_id("CLM-2", f"{args.policy_id}_{args.date_of_loss}_{vehicle}", 9),
            policy_id=args.policy_id,
            vehicle_id=args.vehicle_id,
            vehicle_vin=args.vehicle_vin,
            driver_id=args.driver_id,
            date_of_loss=args.date_of_loss,
            loss_location=args.loss_location,
            claim_type=args.claim_type,
            severity=args.severity,
            claim_stage=m.ClaimStage.OPEN_INITIAL,
            siu_flag=args.siu_flag or m.SIUFlag.NONE,
            unlisted_driver_flag=args.unlisted_driver_flag or False,
            has_bodily_injury=args.has_bodily_injury or False,
            police_report_required=args.police_report_required or False,
            police_report_number=args.police_report_number,
            other_party_name=args.other_party_name,
            other_party_phone=args.other_party_phone,
            other_party_insurance=args.other_party_insurance,
            created_date=args.date_of_loss,
        )
        return FnolOut(claim_id=claim["id"], claim_stage=claim["claim_stage"])


@tools.tool(write=False)
async def claims_check_open_major_claims(ctx: ToolContext, args: MajorClaimsArgs) -> MajorClaimsOut:
    """Whether the policy has open claims of Major severity, and how many."""
    with reference_errors():
        await _policy(ctx, args.policy_id)
        claims = await store.all_rows(ctx.conn, sql["claims"], policy_id=args.policy_id)
        count = sum(1 for c in claims if _is_open(c) and c["severity"] == m.ClaimSeverity.MAJOR.value)
        return MajorClaimsOut(has_major_claim=count > 0, major_claim_count=count)


@tools.tool(write=False)
async def claims_get_policy_claims(ctx: ToolContext, args: PolicyClaimsArgs) -> PolicyClaimsOut:
    """A policy's claims (optionally only those created in the last ``months_back`` months)."""
    with reference_errors():
        await _policy(ctx, args.policy_id)
        everything = await store.all_rows(ctx.conn, sql["claims"])
        claims = [c for c in everything if c["policy_id"] == args.policy_id]
        if args.months_back:
            newest = (
                datetime.strptime(max(c["created_date"] for c in everything), "%Y-%m-%d")
                if everything
                else datetime(2099, 12, 31)
            )
            cutoff = (newest - timedelta(days=30 * args.months_back)).strftime("%Y-%m-%d")
            claims = [c for c in claims if c["created_date"] >= cutoff]
        records = [PolicyClaimRecord.model_validate(_summary(c)) for c in claims]
        return PolicyClaimsOut(claims=records, total_count=len(records))


async def _claims_of(
    ctx: ToolContext, what: str, table: str, column: str, key: str, open_only: bool | None
) -> ClaimsOut:
    """The claims whose ``column`` is ``key`` (optionally only open ones); ``what`` must be in ``table``."""
    if await store.first_row(ctx.conn, sql[table], id=key) is None:
        raise NotFound(f"{what} '{key}' not found.")
    claims = await store.all_rows(ctx.conn, sql["claims"], **{column: key})
    if open_only:
        claims = [c for c in claims if _is_open(c)]
    items = [ClaimItem.model_validate(_summary(c)) for c in claims]
    return ClaimsOut(claims=items, has_open_claims=any(_is_open(c) for c in claims))


@tools.tool(write=False)
async def claims_get_vehicle_claims(ctx: ToolContext, args: VehicleClaimsArgs) -> ClaimsOut:
    """The claims of a vehicle (optionally only open ones), and whether any is open."""
    with reference_errors():
        return await _claims_of(ctx, "Vehicle", "vehicles", "vehicle_id", args.vehicle_id, args.open_only)


@tools.tool(write=False)
async def claims_get_driver_claims(ctx: ToolContext, args: DriverClaimsArgs) -> ClaimsOut:
    """The claims in which a driver was at the wheel (optionally only open ones), and whether any is open."""
    with reference_errors():
        return await _claims_of(ctx, "Driver", "drivers", "driver_id", args.driver_id, args.open_only)
