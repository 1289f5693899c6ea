"""Okta (SSO): application access and group memberships.

Only active rows count: a grant or a group add is refused when an active
one exists for the same employee and application (group); a revoke
deactivates the first active grant and records nothing else (``revoked_at``
stays empty). New rows count the table, 1-based — ``OAA-{n+1:08d}`` and
``OGM-{n+1:08d}`` — are granted/added ``by "system"`` and carry no
timestamp. Unknown fields in the arguments are ignored, as the reference's
input models do.
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

Email = Annotated[str, Field(description="Corporate email address, e.g. john.smith@vdb.com")]
AppName = Annotated[
    str, Field(description="Application name, e.g. Salesforce, Tableau, Snowflake depersonalized")
]


class AccessArgs(BaseModel):
    email: Email
    app_name: AppName


class ProvisionArgs(BaseModel):
    email: Email
    app_name: AppName
    access_level: m.GenericAccessLevel = Field(description="Access level, e.g. read_only, viewer, user")
    is_temporary: bool = Field(False, description="Whether the access is temporary")
    access_expiry_date: str | None = Field(None, description="When temporary access ends, ISO 8601")


class GroupsArgs(BaseModel):
    email: Email


class AddToGroupArgs(BaseModel):
    email: Email
    group_name: str = Field(description="Okta group, e.g. bi_marketing_viewers")


class ProvisionOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    app_access_id: str


class CheckAccessOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    has_access: bool
    access_level: m.GenericAccessLevel | None = None
    granted_at: str | None = None


class RevokeOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    revoked: bool


class GroupRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    group_name: str
    added_at: str | None = None


class GroupsOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    groups: list[GroupRecord]


class AddToGroupOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    membership_id: str


async def _active_access(ctx: ToolContext, employee: dict[str, Any], app_name: str) -> dict[str, Any] | None:
    return await store.first_row(
        ctx.conn, sql["okta_app_access"], employee_id=employee["id"], app_name=app_name, is_active=True
    )


@tools.tool(write=True)
async def okta_api_provision_access(ctx: ToolContext, args: ProvisionArgs) -> ProvisionOut:
    """Grant an employee access to an application at a level (refused if active access exists)."""
    with reference_errors():
        employee = await employee_by_email(ctx, args.email, "Employee not found in Okta directory: {}")
        active = await _active_access(ctx, employee, args.app_name)
        if active is not None:
            raise PreconditionFailed(f"Employee already has access to this application: {args.app_name}")
        row = await insert_counted(
            ctx,
            "okta_app_access",
            "OAA-{:08d}",
            m.OktaAppAccess,
            employee_id=employee["id"],
            app_name=args.app_name,
            access_level=args.access_level,
            granted_by="system",
            is_active=True,
            is_temporary=args.is_temporary,
            expires_at=args.access_expiry_date,
        )
        return ProvisionOut(app_access_id=row["id"])


@tools.tool(write=False)
async def okta_api_check_access(ctx: ToolContext, args: AccessArgs) -> CheckAccessOut:
    """Whether an employee has active access to an application, and at which level."""
    with reference_errors():
        employee = await employee_by_email(ctx, args.email, "Employee not found: {}")
        active = await _active_access(ctx, employee, args.app_name)
        if active is None:
            return CheckAccessOut(has_access=False)
        return CheckAccessOut(
            has_access=True, access_level=active["access_level"], granted_at=active["granted_at"]
        )


@tools.tool(write=True, idempotent=False, destructive=True)
async def okta_api_revoke_access(ctx: ToolContext, args: AccessArgs) -> RevokeOut:
    """Revoke an employee's active access to an application."""
    with reference_errors():
        employee = await employee_by_email(ctx, args.email, "Employee not found: {}")
        active = await _active_access(ctx, employee, args.app_name)
        if active is None:
            raise NotFound(f"No active access found to revoke for application: {args.app_name}")
        await store.update_row(ctx.conn, sql["okta_app_access"], {"id": active["id"]}, {"is_active": False})
        return RevokeOut(revoked=True)


@tools.tool(write=False)
async def okta_api_get_user_groups(ctx: ToolContext, args: GroupsArgs) -> GroupsOut:
    """An employee's active Okta group memberships."""
    with reference_errors():
        employee = await employee_by_email(ctx, args.email, "Employee not found: {}")
        memberships = await store.all_rows(
            ctx.conn, sql["okta_group_membership"], employee_id=employee["id"], is_active=True
        )
        return GroupsOut(
            groups=[GroupRecord(group_name=g["group_name"], added_at=g["added_at"]) for g in memberships]
        )


@tools.tool(write=True)
async def okta_api_add_to_group(ctx: ToolContext, args: AddToGroupArgs) -> AddToGroupOut:
    """Add an employee to an Okta group (refused if already an active member)."""
    with reference_errors():
        employee = await employee_by_email(ctx, args.email, "Employee not found: {}")
        member = await store.first_row(
            ctx.conn,
            sql["okta_group_membership"],
            employee_id=employee["id"],
            group_name=args.group_name,
            is_active=True,
        )
        if member is not None:
            raise PreconditionFailed(f"Employee is already a member of this group: {args.group_name}")
        row = await insert_counted(
            ctx,
            "okta_group_membership",
            "OGM-{:08d}",
            m.OktaGroupMembership,
            employee_id=employee["id"],
            group_name=args.group_name,
            added_by="system",
            is_active=True,
        )
        return AddToGroupOut(membership_id=row["id"])
