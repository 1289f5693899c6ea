"""Policy administration: the drivers on a policy.

``policy_add_driver`` refuses a driver whose name and date of birth are
already on the policy (whatever that driver's status) and otherwise adds
``DRV-2-<sha256(policy_id, name, date_of_birth)[:8]>``, neither named nor
co-insured. ``policy_update_driver_status`` stores the new status and
effective date, and the removal date on removal; no role or state rule is
checked (that is the agent's job).
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
_ACTIVE = (m.DriverStatus.RATED.value, m.DriverStatus.EXCLUDED.value)


class PolicyDriversArgs(BaseModel):
    policy_id: str = Field(description=_POLICY_ID)
    active_only: bool | None = Field(None, description="Only drivers still on the policy (Rated or Excluded)")


class DriverInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    date_of_birth: str
    status: str
    effective_date: str
    is_named_insured: bool
    is_co_insured: bool


class PolicyDriversOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    drivers: list[DriverInfo]
    driver_count: int


class AddDriverArgs(BaseModel):
    policy_id: str = Field(description=_POLICY_ID)
    name: str = Field(description="The driver's full name")
    date_of_birth: str = Field(description="Date of birth, YYYY-MM-DD")
    license_number: str | None = Field(None, description="Driver's license number")
    license_state: str | None = Field(None, description="State that issued the license, e.g. CA")
    relationship: str = Field(description="Relationship to the policyholder, e.g. Spouse or Son")
    status: m.DriverStatus = Field(description="Rated or Excluded (by the state's rules)")
    effective_date: str = Field(description="When the driver is added, YYYY-MM-DD")
    uw_pending: bool | None = Field(False, description="Whether the driver awaits underwriting review")
    exclusion_form_required: bool | None = Field(
        False, description="Whether a signed exclusion form is required"
    )


class AddDriverOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    driver_id: str
    status: str


class DriverStatusArgs(BaseModel):
    driver_id: str = Field(description="The driver's id, e.g. DRV-00012345")
    new_status: m.DriverStatus = Field(description="Rated, Excluded or Removed")
    effective_date: str = Field(description="When the change takes effect, YYYY-MM-DD")


class DriverStatusOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    driver_id: str
    status: str


@tools.tool(write=False)
async def policy_get_policy_drivers(ctx: ToolContext, args: PolicyDriversArgs) -> PolicyDriversOut:
    """The drivers on a policy with their status and role (named insured, co-insured or listed driver)."""
    with reference_errors():
        drivers = await policy_rows(ctx, "drivers", args.policy_id, _ACTIVE if args.active_only else None)
        infos = [DriverInfo(**{name: d[name] for name in DriverInfo.model_fields}) for d in drivers]
        return PolicyDriversOut(drivers=infos, driver_count=len(infos))


@tools.tool(write=True, idempotent=True)
async def policy_add_driver(ctx: ToolContext, args: AddDriverArgs) -> AddDriverOut:
    """Add a driver to a policy, rated or excluded as the state's rules and the driver's risk require."""
    with reference_errors():
        await find_policy(ctx, args.policy_id)
        table = sql["drivers"]
        same = await store.first_row(
            ctx.conn, table, policy_id=args.policy_id, name=args.name, date_of_birth=args.date_of_birth
        )
        if same is not None:
            raise PreconditionFailed(
                f"Driver with name '{args.name}' and DOB '{args.date_of_birth}' already exists on this policy"
            )
        driver = await create_once(
            ctx,
            "drivers",
            m.Driver,
            id=content_id("DRV-2-", f"{args.policy_id}_{args.name}_{args.date_of_birth}", 8),
            policy_id=args.policy_id,
            name=args.name,
            date_of_birth=args.date_of_birth,
            license_number=args.license_number,
            license_state=args.license_state,
            relationship=args.relationship,
            status=args.status,
            effective_date=args.effective_date,
            is_named_insured=False,
            is_co_insured=False,
            uw_pending=args.uw_pending or False,
            exclusion_form_required=args.exclusion_form_required or False,
        )
        return AddDriverOut(driver_id=driver["id"], status=driver["status"])


@tools.tool(write=True, idempotent=True)
async def policy_update_driver_status(ctx: ToolContext, args: DriverStatusArgs) -> DriverStatusOut:
    """Change a driver's status (remove a driver, or switch between rated and excluded)."""
    with reference_errors():
        driver = await store.first_row(ctx.conn, sql["drivers"], id=args.driver_id)
        if driver is None:
            raise NotFound(f"Driver with ID '{args.driver_id}' not found")
        changes: dict[str, Any] = {"status": args.new_status.value, "effective_date": args.effective_date}
        if args.new_status is m.DriverStatus.REMOVED:
            changes["removal_date"] = args.effective_date
        await store.update_row(ctx.conn, sql["drivers"], {"id": driver["id"]}, changes)
        return DriverStatusOut(driver_id=driver["id"], status=args.new_status.value)
