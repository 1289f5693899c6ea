"""License management: license pools, seats left, and allocations.

A software name matches a pool case-insensitively (the first pool in list
order). Seats left = total − active allocations (a missing total counts as
0); unlimited pools report no counts. An allocation ``LAL-{n+1:08d}`` is
refused when the employee already holds an active seat of the pool, or —
unless the pool is unlimited — when no seat is left; it is made
``by "system"`` without a timestamp. Unknown fields in the arguments are
ignored, as the reference's input models do.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark.domains import store
from benchmark.domains.neobank import models as m
from benchmark.domains.neobank.common import employee_by_email, insert_counted, reference_errors
from benchmark.domains.neobank.schema import sql
from guard.errors import NotFound, PreconditionFailed
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

SoftwareName = Annotated[str, Field(description="Software product name, e.g. Tableau")]


class SoftwareArgs(BaseModel):
    software_name: SoftwareName


class AllocateArgs(BaseModel):
    software_name: SoftwareName
    email: str = Field(description="Corporate email address of the employee")


class AvailabilityOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    available_licenses: int | None = None
    total_licenses: int | None = None
    license_type: m.LicenseType


class LicenseTypeOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    license_type: m.LicenseType
    license_id: str
    annual_cost_per_license: int | None = None


class AllocateOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    allocation_id: str


async def _pool(ctx: ToolContext, software_name: str, missing: str) -> dict[str, Any]:
    wanted = software_name.lower()
    for pool in await store.all_rows(ctx.conn, sql["software_licenses"]):
        if pool["software_name"].lower() == wanted:
            return pool
    raise NotFound(missing.format(software_name))


async def _active_seats(ctx: ToolContext, pool: dict[str, Any]) -> list[dict[str, Any]]:
    return await store.all_rows(ctx.conn, sql["license_allocations"], license_id=pool["id"], is_active=True)


@tools.tool(write=False)
async def license_management_api_check_license_type(ctx: ToolContext, args: SoftwareArgs) -> LicenseTypeOut:
    """A product's license pool: type (standard, enterprise, individual, unlimited), id, yearly cost."""
    with reference_errors():
        pool = await _pool(ctx, args.software_name, "Software not found in license inventory: {}")
        return LicenseTypeOut(
            license_type=pool["license_type"],
            license_id=pool["id"],
            annual_cost_per_license=pool["annual_cost_per_license"],
        )


@tools.tool(write=False)
async def license_management_api_check_availability(ctx: ToolContext, args: SoftwareArgs) -> AvailabilityOut:
    """Seats left in a product's license pool (no counts for unlimited pools)."""
    with reference_errors():
        pool = await _pool(ctx, args.software_name, "Software not found in license inventory: {}")
        if pool["license_type"] == m.LicenseType.UNLIMITED.value:
            return AvailabilityOut(license_type=pool["license_type"])
        total = pool["total_licenses"] or 0
        taken = len(await _active_seats(ctx, pool))
        return AvailabilityOut(
            available_licenses=max(0, total - taken), total_licenses=total, license_type=pool["license_type"]
        )


@tools.tool(write=True)
async def license_management_api_allocate_license(ctx: ToolContext, args: AllocateArgs) -> AllocateOut:
    """Allocate a seat of a product's license pool to an employee."""
    with reference_errors():
        employee = await employee_by_email(ctx, args.email, "Employee not found: {}")
        pool = await _pool(ctx, args.software_name, "Software not found: {}")
        seats = await _active_seats(ctx, pool)
        if any(seat["employee_id"] == employee["id"] for seat in seats):
            raise PreconditionFailed(
                f"Employee already has a license for this software: {args.software_name}"
            )
        if pool["license_type"] != m.LicenseType.UNLIMITED.value and len(seats) >= (
            pool["total_licenses"] or 0
        ):
            raise PreconditionFailed("No licenses available in pool")
        row = await insert_counted(
            ctx,
            "license_allocations",
            "LAL-{:08d}",
            m.LicenseAllocation,
            license_id=pool["id"],
            employee_id=employee["id"],
            allocated_by="system",
            is_active=True,
        )
        return AllocateOut(allocation_id=row["id"])
