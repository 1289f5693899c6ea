"""Policy administration: the vehicles on a policy.

``policy_add_vehicle`` refuses a VIN already on the policy (whatever that
vehicle's status) and otherwise adds ``VEH-2-<sha256(policy_id, vin)[:8]>``,
active, with collision and comprehensive coverage and no rental coverage.
``policy_update_vehicle_status`` sets a removal date only on removal; its
effective date is otherwise not stored.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark.domains import store
from benchmark.domains.auto_insurance import models as m
from benchmark.domains.auto_insurance.common import content_id, create_once, reference_errors
from benchmark.domains.auto_insurance.policy import find_policy, policy_rows
from benchmark.domains.auto_insurance.schema import sql
from guard.errors import NotFound, PreconditionFailed
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

_POLICY_ID = "The policy's id, e.g. POL-0012345678"
_VEHICLE_ID = "The vehicle's id, e.g. VEH-00012345"


async def _vehicle(ctx: ToolContext, vehicle_id: str) -> dict[str, Any]:
    vehicle = await store.first_row(ctx.conn, sql["vehicles"], id=vehicle_id)
    if vehicle is None:
        raise NotFound(f"Vehicle with ID '{vehicle_id}' not found")
    return vehicle


class PolicyVehiclesArgs(BaseModel):
    policy_id: str = Field(description=_POLICY_ID)
    active_only: bool | None = Field(None, description="Only vehicles still on the policy (Active)")


class VehicleInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    vin: str
    year: int
    make: str
    model: str
    status: str
    effective_date: str


class PolicyVehiclesOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    vehicles: list[VehicleInfo]
    vehicle_count: int


class VehicleDetailsArgs(BaseModel):
    vehicle_id: str = Field(description=_VEHICLE_ID)


class VehicleDetailsOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    vehicle_id: str
    policy_id: str
    vin: str
    year: int
    make: str
    model: str
    status: str
    effective_date: str
    date_added_to_policy: str
    collision_coverage: bool
    comprehensive_coverage: bool
    rental_coverage: bool
    uw_pending: bool


class AddVehicleArgs(BaseModel):
    policy_id: str = Field(description=_POLICY_ID)
    vin: str = Field(description="Vehicle identification number (17 characters)")
    year: int = Field(description="Model year")
    make: str = Field(description="Manufacturer, e.g. Honda")
    model: str = Field(description="Model, e.g. Accord")
    effective_date: str = Field(description="When coverage starts, YYYY-MM-DD")
    uw_pending: bool | None = Field(None, description="Whether the vehicle awaits underwriting review")


class AddVehicleOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    vehicle_id: str


class VehicleStatusArgs(BaseModel):
    vehicle_id: str = Field(description=_VEHICLE_ID)
    new_status: m.VehicleStatus = Field(description="Active or Removed")
    effective_date: str = Field(description="When the change takes effect, YYYY-MM-DD")


class VehicleStatusOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    vehicle_id: str
    status: str


@tools.tool(write=False)
async def policy_get_policy_vehicles(ctx: ToolContext, args: PolicyVehiclesArgs) -> PolicyVehiclesOut:
    """The vehicles on a policy, current and removed (or only active ones): VIN, year, make, model, status."""
    with reference_errors():
        active = (m.VehicleStatus.ACTIVE.value,) if args.active_only else None
        vehicles = await policy_rows(ctx, "vehicles", args.policy_id, active)
        infos = [VehicleInfo(**{name: v[name] for name in VehicleInfo.model_fields}) for v in vehicles]
        return PolicyVehiclesOut(vehicles=infos, vehicle_count=len(infos))


@tools.tool(write=False)
async def policy_get_vehicle_details(ctx: ToolContext, args: VehicleDetailsArgs) -> VehicleDetailsOut:
    """One vehicle with its coverage flags (collision, comprehensive, rental) and underwriting status."""
    with reference_errors():
        vehicle = await _vehicle(ctx, args.vehicle_id)
        fields = {name: vehicle[name] for name in VehicleDetailsOut.model_fields if name != "vehicle_id"}
        return VehicleDetailsOut(vehicle_id=vehicle["id"], **fields)


@tools.tool(write=True, idempotent=True)
async def policy_add_vehicle(ctx: ToolContext, args: AddVehicleArgs) -> AddVehicleOut:
    """Add a vehicle to a policy with the default coverages (collision and comprehensive, no rental)."""
    with reference_errors():
        await find_policy(ctx, args.policy_id)
        table = sql["vehicles"]
        if await store.first_row(ctx.conn, table, policy_id=args.policy_id, vin=args.vin) is not None:
            raise PreconditionFailed(f"VIN '{args.vin}' already exists on this policy")
        vehicle = await create_once(
            ctx,
            "vehicles",
            m.Vehicle,
            id=content_id("VEH-2-", f"{args.policy_id}_{args.vin}", 8),
            policy_id=args.policy_id,
            vin=args.vin,
            year=args.year,
            make=args.make,
            model=args.model,
            status=m.VehicleStatus.ACTIVE,
            effective_date=args.effective_date,
            date_added_to_policy=args.effective_date,
            collision_coverage=True,
            comprehensive_coverage=True,
            rental_coverage=False,
            uw_pending=args.uw_pending if args.uw_pending is not None else False,
        )
        return AddVehicleOut(vehicle_id=vehicle["id"])


@tools.tool(write=True, idempotent=True)
async def policy_update_vehicle_status(ctx: ToolContext, args: VehicleStatusArgs) -> VehicleStatusOut:
    """Change a vehicle's status; Removed also records the removal date."""
    with reference_errors():
        vehicle = await _vehicle(ctx, args.vehicle_id)
        changes: dict[str, Any] = {"status": args.new_status.value}
        if args.new_status is m.VehicleStatus.REMOVED:
            changes["removal_date"] = args.effective_date
        await store.update_row(ctx.conn, sql["vehicles"], {"id": vehicle["id"]}, changes)
        return VehicleStatusOut(vehicle_id=vehicle["id"], status=args.new_status.value)
