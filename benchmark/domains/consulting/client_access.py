"""Client access: VPN entitlements, client system access, client requirements, prerequisites.

``provision_vpn`` appends ``VPN-2-nnnnnn`` and ``provision_client_system``
``CSA-2-nnnnnn`` (first unused from 000000), without any check.
``revoke_vpn`` stamps ``revoked_at`` 2025-10-01T00:00Z on the employee's
active VPN rows — every one, or only the first for the given client — and
succeeds even when none matches. ``get_employee_prerequisites`` reads the
clearance (first row for the employee; none is not_initiated), the NDA for
the client (none is not_signed) and the completed courses.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.consulting import models as m
from benchmark.domains.consulting.common import (
    VPN_REVOKED_AT,
    append_row,
    iso,
    reference_errors,
    require,
)
from benchmark.domains.consulting.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)


class ClientAccessApiAction(StrEnum):
    PROVISION_VPN = "provision_vpn"
    CHECK_VPN_ACCESS = "check_vpn_access"
    REVOKE_VPN = "revoke_vpn"
    PROVISION_CLIENT_SYSTEM = "provision_client_system"
    CHECK_CLIENT_REQUIREMENTS = "check_client_requirements"
    GET_EMPLOYEE_PREREQUISITES = "get_employee_prerequisites"


class VpnAccessOut(BaseModel):
    id: str
    employee_email: str
    client_id: str | None = None
    revoked_at: str | None = None


class ClientRequirementsOut(BaseModel):
    clearance_level: str
    requires_nda: bool
    required_training_courses: list[str] = Field(default_factory=list)


class ClientAccessOut(BaseModel):
    success: bool | None = None
    vpn_access: list[VpnAccessOut] | None = None
    requirements: ClientRequirementsOut | None = None
    clearance_status: str | None = None
    nda_status: str | None = None
    completed_training_courses: list[str] | None = None


async def _provision_vpn(ctx: ToolContext, email: str | None, client_id: str | None) -> ClientAccessOut:
    require(email, "email")
    await append_row(
        ctx,
        "client_access_vpn_access",
        "VPN-2",
        m.VpnAccess,
        employee_email=email,
        client_id=client_id,
        revoked_at=None,
    )
    return ClientAccessOut(success=True)


async def _active_vpn(ctx: ToolContext, email: str | None) -> list[dict[str, Any]]:
    require(email, "email")
    rows = await store.all_rows(ctx.conn, sql["client_access_vpn_access"], employee_email=email)
    return [row for row in rows if row["revoked_at"] is None]


async def _revoke_vpn(ctx: ToolContext, email: str | None, client_id: str | None) -> ClientAccessOut:
    for row in await _active_vpn(ctx, email):
        if client_id is None or row["client_id"] == client_id:
            await store.update_row(
                ctx.conn, sql["client_access_vpn_access"], {"id": row["id"]}, {"revoked_at": VPN_REVOKED_AT}
            )
            if client_id is not None:
                break
    return ClientAccessOut(success=True)


async def _provision_system(
    ctx: ToolContext,
    email: str | None,
    client_id: str | None,
    system_name: str | None,
    access_type: m.AccessType | None,
) -> ClientAccessOut:
    require(email, "email")
    require(client_id, "client_id")
    require(system_name, "system_name")
    require(access_type, "access_type")
    await append_row(
        ctx,
        "client_access_client_system_access",
        "CSA-2",
        m.ClientSystemAccess,
        employee_email=email,
        client_id=client_id,
        system_name=system_name,
        access_type=access_type,
        revoked_at=None,
    )
    return ClientAccessOut(success=True)


async def _requirements(ctx: ToolContext, client_id: str | None) -> ClientAccessOut:
    require(client_id, "client_id")
    client = await store.first_row(ctx.conn, sql["salesforce_crm_clients"], id=client_id)
    if client is None:
        raise NotFound(f"Client not found: {client_id}")
    return ClientAccessOut(requirements=ClientRequirementsOut.model_validate(client))


async def _prerequisites(ctx: ToolContext, email: str | None, client_id: str | None) -> ClientAccessOut:
    require(email, "email")
    require(client_id, "client_id")
    clearance = await store.first_row(ctx.conn, sql["client_access_clearance_record"], employee_email=email)
    nda = await store.first_row(
        ctx.conn, sql["client_access_nda_record"], employee_email=email, client_id=client_id
    )
    enrollments = await store.all_rows(ctx.conn, sql["degreed_training_enrollments"], employee_email=email)
    return ClientAccessOut(
        clearance_status=m.ClearanceStatus.NOT_INITIATED.value if clearance is None else clearance["status"],
        nda_status=m.NdaStatus.NOT_SIGNED.value if nda is None else nda["status"],
        completed_training_courses=[e["course_id"] for e in enrollments if e["completion_date"] is not None],
    )


@tools.tool(write=True)
async def client_access_api(
    ctx: ToolContext,
    action: Annotated[
        ClientAccessApiAction,
        Field(
            description="provision_vpn, check_vpn_access, revoke_vpn, provision_client_system, "
            "check_client_requirements or get_employee_prerequisites"
        ),
    ],
    email: Annotated[
        str | None, Field(description="Employee email (every action but check_client_requirements)")
    ] = None,
    client_id: Annotated[
        str | None,
        Field(
            description="Client id (provision_client_system, check_client_requirements, "
            "get_employee_prerequisites; optional for provision_vpn and revoke_vpn)"
        ),
    ] = None,
    system_name: Annotated[
        str | None, Field(description="Client system name (provision_client_system)")
    ] = None,
    access_type: Annotated[
        m.AccessType | None,
        Field(description="full_access, read_only, contributor or admin (provision_client_system)"),
    ] = None,
) -> ClientAccessOut:
    """VPN and client systems. provision_vpn (email, optional client_id); check_vpn_access (email): active
    VPN rows; revoke_vpn (email, optional client_id); provision_client_system (email, client_id,
    system_name, access_type); check_client_requirements (client_id): clearance level, NDA, required
    courses; get_employee_prerequisites (email, client_id): clearance and NDA status, completed courses."""
    with reference_errors("execute Client Access API action"):
        if action is ClientAccessApiAction.PROVISION_VPN:
            return await _provision_vpn(ctx, email, client_id)
        if action is ClientAccessApiAction.CHECK_VPN_ACCESS:
            return ClientAccessOut(
                vpn_access=[
                    VpnAccessOut.model_validate({**row, "revoked_at": iso(row["revoked_at"])})
                    for row in await _active_vpn(ctx, email)
                ]
            )
        if action is ClientAccessApiAction.REVOKE_VPN:
            return await _revoke_vpn(ctx, email, client_id)
        if action is ClientAccessApiAction.PROVISION_CLIENT_SYSTEM:
            return await _provision_system(ctx, email, client_id, system_name, access_type)
        if action is ClientAccessApiAction.CHECK_CLIENT_REQUIREMENTS:
            return await _requirements(ctx, client_id)
        return await _prerequisites(ctx, email, client_id)
