"""Security: Okta security operations (audited) and the incident check.

``okta_security_api_execute_action`` performs nothing but its audit row
``OSA-{n+1:08d}``, stamped 2025-12-18T10:00Z (:data:`SECURITY_NOW`) and
``performed_by "system"``. MFA device operations need a device id (stored);
a temporary bypass needs 1–4 hours (a zero counts as missing; a negative
number is accepted) and stores the hours and their expiry, now + hours. A
``bypass_expires_at`` given with any other operation is parsed — a bad one
fails the call — but not stored.

``security_api_verify_incident`` lists the incidents that are active or were
resolved within 24 hours of :data:`SECURITY_NOW`, newest report first; a
resolution time without a time zone cannot be compared and fails the call,
as in the reference.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark.domains import store
from benchmark.domains.neobank import models as m
from benchmark.domains.neobank.common import (
    SECURITY_NOW,
    employee_by_email,
    insert_counted,
    parse_datetime,
    reference_errors,
)
from benchmark.domains.neobank.schema import sql
from guard.errors import InvalidArguments
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

_MFA_OPERATIONS = (m.OktaSecurityOperation.ADD_MFA_DEVICE, m.OktaSecurityOperation.REMOVE_MFA_DEVICE)


class ExecuteActionOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    success: bool
    audit_id: str
    error_message: str | None = None


class IncidentRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", use_enum_values=True)

    incident_id: str
    severity: str
    description: str
    started_at: str
    is_active: bool
    closed_at: str | None = None


class IncidentsOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    incidents: list[IncidentRecord]


def _check_operation(operation: m.OktaSecurityOperation, device: str | None, hours: int | None) -> None:
    if operation in _MFA_OPERATIONS and not device:
        raise InvalidArguments(f"mfa_device_id is required for {operation.value} operation")
    if operation is m.OktaSecurityOperation.SET_TEMPORARY_BYPASS:
        if not hours:
            raise InvalidArguments("bypass_duration_hours is required for set_temporary_bypass operation")
        if hours > 4:
            raise InvalidArguments("bypass_duration_hours cannot exceed 4 hours")


@tools.tool(write=True)
async def okta_security_api_execute_action(
    ctx: ToolContext,
    email: Annotated[str, Field(description="Email of the employee whose account is acted upon")],
    operation: Annotated[m.OktaSecurityOperation, Field(description="The security operation")],
    mfa_device_id: Annotated[
        str | None, Field(description="Required for add_mfa_device and remove_mfa_device")
    ] = None,
    bypass_duration_hours: Annotated[
        int | None, Field(description="Required for set_temporary_bypass; at most 4")
    ] = None,
    ticket_id: Annotated[str | None, Field(description="Zendesk ticket id for the audit trail")] = None,
    bypass_expires_at: Annotated[
        str | None, Field(description="Bypass expiry, ISO 8601 (set_temporary_bypass only)")
    ] = None,
) -> ExecuteActionOut:
    """Run an audited security operation on an Okta account: verification, unlock, reset, MFA, bypass."""
    with reference_errors("execute security action"):
        employee = await employee_by_email(ctx, email, "Employee not found in Okta directory: {}")
        _check_operation(operation, mfa_device_id, bypass_duration_hours)
        expires: datetime | None = None
        if operation is m.OktaSecurityOperation.SET_TEMPORARY_BYPASS and bypass_duration_hours:
            expires = SECURITY_NOW + timedelta(hours=bypass_duration_hours)
        elif bypass_expires_at:
            expires = datetime.fromisoformat(bypass_expires_at.replace("Z", "+00:00"))
        fields: dict[str, Any] = {
            "employee_id": employee["id"],
            "operation": operation,
            "performed_by": "system",
            "performed_at": SECURITY_NOW,
            "reason": f"Security operation: {operation.value}",
            "ticket_id": ticket_id,
            "verification_method": None,
            "success": True,
        }
        if operation is m.OktaSecurityOperation.SET_TEMPORARY_BYPASS:
            fields |= {"bypass_duration_hours": bypass_duration_hours, "bypass_expires_at": expires}
        elif operation in _MFA_OPERATIONS:
            fields["mfa_device_id"] = mfa_device_id
        row = await insert_counted(ctx, "okta_security_audit", "OSA-{:08d}", m.OktaSecurityAudit, **fields)
        return ExecuteActionOut(success=True, audit_id=row["id"])


def _iso(text: str | None) -> str | None:
    return None if text is None else parse_datetime(text).isoformat()


@tools.tool(write=False)
async def security_api_verify_incident(ctx: ToolContext) -> IncidentsOut:
    """Security incidents that are active or were resolved in the last 24 hours, newest first."""
    with reference_errors("retrieve security incidents"):
        threshold = SECURITY_NOW - timedelta(hours=24)
        records = []
        for incident in await store.all_rows(ctx.conn, sql["security_incidents"]):
            resolved = incident["resolved_at"]
            if incident["is_active"] or (resolved and parse_datetime(resolved) >= threshold):
                records.append(
                    IncidentRecord(
                        incident_id=incident["id"],
                        severity=incident["severity"],
                        description=incident["description"],
                        started_at=str(_iso(incident["reported_at"])),
                        is_active=incident["is_active"],
                        closed_at=_iso(resolved),
                    )
                )
        records.sort(key=lambda record: record.started_at, reverse=True)
        return IncidentsOut(incidents=records)
