"""Software licenses (license management): availability, allocation and cost.

``check_availability`` counts a pool's seats less its active allocations (an
unlimited pool answers 99999); ``allocate`` appends ``LIC-2-nnnnnn`` (first
unused from 000000) without checking capacity, the catalog or duplicates.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.consulting import models as m
from benchmark.domains.consulting.common import append_row, reference_errors, require
from benchmark.domains.consulting.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

UNLIMITED = 99999
"""What an unlimited (enterprise) pool reports as available."""


class LicenseManagementAction(StrEnum):
    CHECK_AVAILABILITY = "check_availability"
    ALLOCATE = "allocate"
    GET_COST = "get_cost"


class LicenseManagementOut(BaseModel):
    available_count: int | None = None
    success: bool | None = None
    annual_cost: int | None = None


@tools.tool(write=True)
async def license_management_api(
    ctx: ToolContext,
    action: Annotated[LicenseManagementAction, Field(description="check_availability, allocate or get_cost")],
    catalog_id: Annotated[str | None, Field(description="Software catalog id (every action)")] = None,
    pool_type: Annotated[
        m.LicensePool | None, Field(description="standard or enterprise (check_availability, allocate)")
    ] = None,
    email: Annotated[str | None, Field(description="Employee email (allocate)")] = None,
    engagement_code: Annotated[str | None, Field(description="Engagement code (allocate, optional)")] = None,
) -> LicenseManagementOut:
    """Software licenses. check_availability (catalog_id, pool_type): free seats (99999 for unlimited
    pools); allocate (catalog_id, email, pool_type, optional engagement_code): allocate a license;
    get_cost (catalog_id): the software's annual cost."""
    with reference_errors("execute License Management API action"):
        require(catalog_id, "catalog_id")
        if action is LicenseManagementAction.CHECK_AVAILABILITY:
            require(pool_type, "pool_type")
            pool = await store.first_row(
                ctx.conn,
                sql["license_management_license_pool_record"],
                catalog_id=catalog_id,
                pool_type=str(pool_type),
            )
            if pool is None:
                raise NotFound(f"License pool not found for catalog_id={catalog_id}, pool_type={pool_type}")
            if pool["total_licenses"] is None:
                return LicenseManagementOut(available_count=UNLIMITED)
            active = [
                allocation
                for allocation in await store.all_rows(
                    ctx.conn,
                    sql["license_management_license_allocation"],
                    catalog_id=catalog_id,
                    pool_type=str(pool_type),
                )
                if allocation["deallocated_at"] is None
            ]
            return LicenseManagementOut(available_count=pool["total_licenses"] - len(active))
        if action is LicenseManagementAction.ALLOCATE:
            require(email, "email")
            require(pool_type, "pool_type")
            await append_row(
                ctx,
                "license_management_license_allocation",
                "LIC-2",
                m.LicenseAllocation,
                catalog_id=catalog_id,
                employee_email=email,
                engagement_code=engagement_code,
                pool_type=pool_type,
                deallocated_at=None,
            )
            return LicenseManagementOut(success=True)
        software = await store.first_row(ctx.conn, sql["software_catalog_software_catalog"], id=catalog_id)
        if software is None:
            raise NotFound(f"Software catalog entry not found: {catalog_id}")
        return LicenseManagementOut(annual_cost=software["annual_cost"])
