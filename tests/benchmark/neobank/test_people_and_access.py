"""Workday, Okta access and groups, security operations and incidents, approvals: success paths.

Expected replies and rows are the reference's (checked against its state
engine); worlds hold the seed rows unless a test patches its own.
"""

from __future__ import annotations

from typing import Any

from benchmark.world import World
from tests.benchmark.helpers import ok, refused, rows
from tests.benchmark.neobank.conftest import MAIN, OpenWorld

MARCUS = "marcus.thompson@vdb.com"
EMMA = "emma.wilson@vdb.com"


def _employee(employee_id: str, email: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": employee_id,
        "email": email,
        "full_name": email.split("@")[0].title(),
        "level": 3,
        "department": "sales",
        "role": "Rep",
        "office_location": "sf",
        "start_date": "2022-01-01T00:00:00Z",
        "manager_id": "WD-294817",
        **fields,
    }


def _by_id(table: list[dict[str, Any]], row_id: str) -> dict[str, Any]:
    return next(row for row in table if row["id"] == row_id)


async def test_workday_profiles_chains_and_reports(seeded: World) -> None:
    ceo = await ok(seeded, "workday_api_get_employee", {"email": "lisa.chen@vdb.com"})
    assert ceo == {
        "employee_id": "WD-294817",
        "email": "lisa.chen@vdb.com",
        "full_name": "Lisa Chen",
        "level": 9,
        "department": "executive_leadership",
        "role": "Chief Executive Officer",
        "office_location": "sf",
        "start_date": "2018-01-15T00:00:00Z",
        "employment_status": "active",
        "is_contractor": False,
    }
    contractor = await ok(seeded, "workday_api_get_employee", {"email": "olivia.moore@vdb.com"})
    assert contractor["contract_end_date"] == "2026-05-31T00:00:00Z"
    chain = await ok(seeded, "workday_api_get_manager_chain", {"email": MARCUS})
    assert [m["employee_id"] for m in chain["manager_chain"]] == ["WD-681453", "WD-573926", "WD-294817"]
    assert chain["manager_chain"][0] == {
        "employee_id": "WD-681453",
        "email": "sarah.jones@vdb.com",
        "full_name": "Sarah Jones",
        "level": 7,
        "department": "product_engineering",
        "role": "Engineering Manager",
    }
    assert await ok(seeded, "workday_api_get_manager_chain", {"email": "lisa.chen@vdb.com"}) == {
        "manager_chain": []
    }
    reports = await ok(seeded, "workday_api_get_org_structure", {"manager_email": "sarah.jones@vdb.com"})
    assert [r["email"] for r in reports["direct_reports"]][:3] == [MARCUS, EMMA, "david.kim@vdb.com"]
    assert set(reports["direct_reports"][0]) == {
        "employee_id",
        "email",
        "full_name",
        "level",
        "department",
        "role",
        "office_location",
        "employment_status",
    }


async def test_a_manager_cycle_ends_the_chain_instead_of_looping(make_neobank_world: OpenWorld) -> None:
    loop = [
        _employee("WD-1", "a@vdb.com", manager_id="WD-2"),
        _employee("WD-2", "b@vdb.com", manager_id="WD-1"),
    ]
    async with make_neobank_world(patch={f"{MAIN}employees": loop}) as world:
        chain = await ok(world, "workday_api_get_manager_chain", {"email": "a@vdb.com"})
        assert [m["employee_id"] for m in chain["manager_chain"]] == ["WD-2", "WD-1"]


async def test_okta_access_is_granted_checked_and_revoked(seeded: World) -> None:
    assert await ok(seeded, "okta_api_check_access", {"email": MARCUS, "app_name": "Salesforce"}) == {
        "has_access": True,
        "access_level": "read_only",
        "granted_at": "2025-06-15T09:00:00Z",
    }
    assert await ok(seeded, "okta_api_check_access", {"email": MARCUS, "app_name": "salesforce"}) == {
        "has_access": False
    }
    grant = {
        "email": EMMA,
        "app_name": "Tableau",
        "access_level": "viewer",
        "is_temporary": True,
        "access_expiry_date": "2025-12-31T00:00:00Z",
    }
    assert await ok(seeded, "okta_api_provision_access", grant) == {"app_access_id": "OAA-00000012"}
    stored = _by_id(await rows(seeded, "okta_app_access"), "OAA-00000012")
    assert stored == {
        "id": "OAA-00000012",
        "employee_id": "WD-192638",
        "app_name": "Tableau",
        "access_level": "viewer",
        "granted_at": None,
        "granted_by": "system",
        "is_active": True,
        "revoked_at": None,
        "is_temporary": True,
        "expires_at": "2025-12-31T00:00:00Z",
    }
    assert await ok(seeded, "okta_api_check_access", {"email": EMMA, "app_name": "Tableau"}) == {
        "has_access": True,
        "access_level": "viewer",
    }
    assert await ok(seeded, "okta_api_revoke_access", {"email": EMMA, "app_name": "Tableau"}) == {
        "revoked": True
    }
    revoked = _by_id(await rows(seeded, "okta_app_access"), "OAA-00000012")
    assert (revoked["is_active"], revoked["revoked_at"]) == (False, None)
    again = {**grant, "access_level": "analyst", "is_temporary": False}
    assert await ok(seeded, "okta_api_provision_access", again) == {"app_access_id": "OAA-00000013"}


async def test_okta_groups(seeded: World) -> None:
    assert await ok(seeded, "okta_api_get_user_groups", {"email": MARCUS}) == {
        "groups": [
            {"group_name": "bi_product_analytics", "added_at": "2025-09-20T11:00:00Z"},
            {"group_name": "engineers", "added_at": "2025-09-15T09:00:00Z"},
        ]
    }
    added = await ok(seeded, "okta_api_add_to_group", {"email": EMMA, "group_name": "bi_marketing_viewers"})
    assert added == {"membership_id": "OGM-00000014"}
    groups = await ok(seeded, "okta_api_get_user_groups", {"email": EMMA})
    assert groups["groups"][-1] == {"group_name": "bi_marketing_viewers"}
    stored = _by_id(await rows(seeded, "okta_group_membership"), "OGM-00000014")
    assert stored == {
        "id": "OGM-00000014",
        "employee_id": "WD-192638",
        "group_name": "bi_marketing_viewers",
        "added_at": None,
        "added_by": "system",
        "is_active": True,
    }


async def test_security_operations_write_only_their_audit_row(seeded: World) -> None:
    unlock = {"email": MARCUS, "operation": "unlock_account", "ticket_id": "6"}
    assert await ok(seeded, "okta_security_api_execute_action", unlock) == {
        "success": True,
        "audit_id": "OSA-00000011",
    }
    mfa = {
        "email": MARCUS,
        "operation": "add_mfa_device",
        "mfa_device_id": "MFA-1",
        "bypass_duration_hours": 2,
    }
    await ok(seeded, "okta_security_api_execute_action", mfa)
    bypass = {
        "email": MARCUS,
        "operation": "set_temporary_bypass",
        "bypass_duration_hours": 4,
        "mfa_device_id": "X",
    }
    await ok(seeded, "okta_security_api_execute_action", bypass)
    negative = {"email": MARCUS, "operation": "set_temporary_bypass", "bypass_duration_hours": -2}
    await ok(seeded, "okta_security_api_execute_action", negative)
    reset = {
        "email": MARCUS,
        "operation": "force_password_reset",
        "bypass_expires_at": "2025-12-18T14:00:00Z",
    }
    await ok(seeded, "okta_security_api_execute_action", reset)
    audit = await rows(seeded, "okta_security_audit")
    assert _by_id(audit, "OSA-00000011") == {
        "id": "OSA-00000011",
        "employee_id": "WD-847291",
        "operation": "unlock_account",
        "performed_by": "system",
        "performed_at": "2025-12-18T10:00:00Z",
        "reason": "Security operation: unlock_account",
        "ticket_id": "6",
        "verification_method": None,
        "success": True,
        "bypass_duration_hours": None,
        "bypass_expires_at": None,
        "mfa_device_id": None,
    }
    assert _by_id(audit, "OSA-00000012")["mfa_device_id"] == "MFA-1"
    assert _by_id(audit, "OSA-00000012")["bypass_duration_hours"] is None
    stored_bypass = _by_id(audit, "OSA-00000013")
    assert (stored_bypass["bypass_duration_hours"], stored_bypass["bypass_expires_at"]) == (
        4,
        "2025-12-18T14:00:00Z",
    )
    assert stored_bypass["mfa_device_id"] is None
    assert _by_id(audit, "OSA-00000014")["bypass_expires_at"] == "2025-12-18T08:00:00Z"
    assert _by_id(audit, "OSA-00000015")["bypass_expires_at"] is None


def _incident(incident_id: str, reported: str, resolved: str | None, active: bool) -> dict[str, Any]:
    return {
        "id": incident_id,
        "employee_id": "WD-847291",
        "severity": "SEV3",
        "incident_type": "outage",
        "description": f"incident {incident_id}",
        "status": "open" if active else "closed",
        "is_active": active,
        "reported_at": reported,
        "reported_by": "monitoring",
        "resolved_at": resolved,
    }


async def test_incidents_are_active_or_resolved_within_a_day_of_the_frozen_clock(
    make_neobank_world: OpenWorld,
) -> None:
    incidents = [
        _incident("SEC-1", "2025-12-17T08:00:00Z", "2025-12-17T12:00:00Z", False),
        _incident("SEC-2", "2025-12-17T08:00:00Z", "2025-12-17T09:59:59Z", False),
        _incident("SEC-3", "2025-12-17T08:00:00+02:00", "2025-12-17T10:00:00Z", False),
        _incident("SEC-4", "2025-12-17T08:00:00", None, True),
    ]
    async with make_neobank_world(patch={f"{MAIN}security_incidents": incidents}) as world:
        found = (await ok(world, "security_api_verify_incident", {}))["incidents"]
        assert [i["incident_id"] for i in found][:4] == ["SEC-3", "SEC-1", "SEC-4", "SEC-84752619"]
        assert found[0] == {
            "incident_id": "SEC-3",
            "severity": "SEV3",
            "description": "incident SEC-3",
            "started_at": "2025-12-17T08:00:00+02:00",
            "is_active": False,
            "closed_at": "2025-12-17T10:00:00+00:00",
        }
        assert found[2]["started_at"] == "2025-12-17T08:00:00"
        assert "SEC-2" not in {i["incident_id"] for i in found}
    naive = [_incident("SEC-5", "2025-12-17T08:00:00Z", "2025-12-17T12:00:00", False)]
    async with make_neobank_world(patch={f"{MAIN}security_incidents": naive}) as world:
        assert await refused(world, "security_api_verify_incident", {}) == (
            "Failed to retrieve security incidents: can't compare offset-naive and offset-aware datetimes"
        )


async def test_approval_requests(seeded: World) -> None:
    request = {
        "request_type": "access_request",
        "requester_email": MARCUS,
        "approver_email": "sarah.jones@vdb.com",
        "details": "Snowflake read access for Q4 reporting",
        "urgency": "urgent",
        "ticket_id": "6",
    }
    assert await ok(seeded, "approval_api_create_request", request) == {
        "approval_request_id": "APR-00000007",
        "status": "pending",
    }
    plain = {k: v for k, v in request.items() if k not in ("urgency", "ticket_id")}
    await ok(seeded, "approval_api_create_request", {**plain, "request_type": "data_export"})
    stored = await rows(seeded, "approval_requests")
    assert _by_id(stored, "APR-00000007") == {
        "id": "APR-00000007",
        "request_type": "access_request",
        "requester_id": "WD-847291",
        "approver_id": "WD-681453",
        "status": "pending",
        "urgency": "urgent",
        "details": "Snowflake read access for Q4 reporting",
        "ticket_id": "6",
        "created_at": None,
        "decided_at": None,
        "approver_feedback": None,
    }
    assert _by_id(stored, "APR-00000008")["urgency"] == "standard"
    assert await ok(seeded, "approval_api_check_status", {"approval_request_id": "APR-19263847"}) == {
        "status": "approved",
        "decided_at": "2025-09-16T14:00:00Z",
        "approver_feedback": "Approved for 30-day access period",
    }
    assert await ok(seeded, "approval_api_check_status", {"approval_request_id": "APR-00000007"}) == {
        "status": "pending"
    }


async def test_a_decision_time_is_shown_in_its_own_zone_marked_z(make_neobank_world: OpenWorld) -> None:
    decided = {
        "id": "APR-77",
        "request_type": "access_request",
        "requester_id": "WD-847291",
        "approver_id": "WD-681453",
        "status": "approved",
        "details": "x",
        "decided_at": "2025-09-16T14:00:00+02:00",
    }
    async with make_neobank_world(patch={f"{MAIN}approval_requests": [decided]}) as world:
        status = await ok(world, "approval_api_check_status", {"approval_request_id": "APR-77"})
        assert status == {"status": "approved", "decided_at": "2025-09-16T14:00:00Z"}


async def test_approver_directory(seeded: World) -> None:
    assert await ok(seeded, "approver_lookup_api_get_contact_details", {"email": "kevin.miller@vdb.com"}) == {
        "name": "Kevin Miller",
        "availability_status": "on_leave",
        "backup_approver_email": "sarah.jones@vdb.com",
    }
    assert await ok(seeded, "approver_lookup_api_get_contact_details", {"email": "sarah.jones@vdb.com"}) == {
        "name": "Sarah Jones",
        "availability_status": "available",
    }
    for department, approver in [
        ("it_security", "WD-753918"),
        ("IT_Security", "WD-753918"),
        ("finance_accounting", "WD-671392"),
        ("compliance_risk", "WD-926473"),
    ]:
        contact = await ok(
            seeded, "approver_lookup_api_get_approver_contact", {"required_approver": department}
        )
        assert contact["employee_id"] == approver
    assert await ok(
        seeded, "approver_lookup_api_get_approver_contact", {"required_approver": "it_security"}
    ) == {
        "employee_id": "WD-753918",
        "contact_email": "amanda.lee@vdb.com",
        "contact_name": "Amanda Lee",
    }


async def test_approver_availability_by_employment_status(make_neobank_world: OpenWorld) -> None:
    people = [
        _employee("WD-900001", "z.orphan@vdb.com", manager_id="WD-404404", employment_status="on_leave"),
        _employee("WD-900002", "z.gone@vdb.com", employment_status="terminated"),
        _employee("WD-900003", "z.leaving@vdb.com", employment_status="departing"),
        _employee("WD-900004", "z.cfo@vdb.com", level=5, department="finance_accounting"),
    ]
    async with make_neobank_world(patch={f"{MAIN}employees": people}) as world:
        details = "approver_lookup_api_get_contact_details"
        assert await ok(world, details, {"email": "z.orphan@vdb.com"}) == {
            "name": "Z.Orphan",
            "availability_status": "on_leave",
        }
        assert (await ok(world, details, {"email": "z.gone@vdb.com"}))["availability_status"] == "unavailable"
        assert (await ok(world, details, {"email": "z.leaving@vdb.com"}))[
            "availability_status"
        ] == "available"
        top = await ok(
            world, "approver_lookup_api_get_approver_contact", {"required_approver": "finance_accounting"}
        )
        assert top["employee_id"] == "WD-671392"
    hr_only = [
        _employee("WD-926473", "jennifer.brown@vdb.com", department="legal"),
        _employee("WD-584201", "robert.anderson@vdb.com", department="hr"),
    ]
    async with make_neobank_world(patch={f"{MAIN}employees": hr_only}) as world:
        assert await refused(
            world, "approver_lookup_api_get_approver_contact", {"required_approver": "compliance_risk"}
        ) == ("No compliance_risk team members found")
