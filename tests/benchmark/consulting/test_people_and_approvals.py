"""Software catalog, CRM, Workday, approver lookup, Mavenlink and approvals: success paths.

Worlds hold only the seed rows; replies are the reference's (checked
against its own state engine), in its ``exclude_none`` JSON form.
"""

from __future__ import annotations

from benchmark.world import World
from tests.benchmark.consulting.conftest import OpenWorld
from tests.benchmark.helpers import ok, rows

E = "marcus.bennett@msg.com"


async def test_the_software_catalog_matches_names_in_any_case(seeded: World) -> None:
    found = await ok(seeded, "software_catalog_search", {"software_name": "ENTERPRISE"})
    assert [r["id"] for r in found["results"]][:3] == ["CAT-0023456", "CAT-0045678", "CAT-0078901"]
    assert found["results"][2] == {
        "id": "CAT-0078901",
        "name": "Notion Enterprise",
        "annual_cost": 600,
        "pool_type": "enterprise",
    }
    details = await ok(seeded, "software_catalog_get_details", {"catalog_id": "CAT-0012345"})
    assert details["annual_cost"] == 840


async def test_engagements_and_assignment_checks(seeded: World) -> None:
    engagement = await ok(seeded, "salesforce_crm_get_engagement", {"engagement_code": "ENG-0034567"})
    assert engagement == {
        "engagement_code": "ENG-0034567",
        "client_id": "CLT-0012345",
        "engagement_manager_email": "emily.rodriguez@msg.com",
        "status": "pipeline",
        "start_date": "2025-01-01T00:00:00+00:00",
    }
    check = "salesforce_crm_check_employee_assignment"
    booked = await ok(seeded, check, {"email": "bob.taylor@msg.com", "engagement_code": "ENG-0034567"})
    assert booked == {
        "assigned": True,
        "assignment_status": "booked",
        "start_date": "2025-01-01T00:00:00+00:00",
    }
    assert await ok(seeded, check, {"email": E, "engagement_code": "ENG-404"}) == {"assigned": False}


async def test_employees_and_approver_contacts(seeded: World) -> None:
    employee = await ok(seeded, "workday_api", {"action": "get_employee", "email": "david.kim@msg.com"})
    assert employee == {
        "employee_data": {
            "email": "david.kim@msg.com",
            "name": "David Kim",
            "level": "Administrative",
            "office_location": "New York",
            "start_date": "2020-08-01T00:00:00+00:00",
            "manager_email": "sarah.johnson@msg.com",
            "onboarding_phase": "completed",
            "availability_status": "available",
        }
    }
    contact = await ok(seeded, "approver_lookup_get_contact", {"email": "sarah.johnson@msg.com"})
    assert contact["backup_approver_email"] == "michael.chen@msg.com"
    partner = await ok(seeded, "approver_lookup_get_contact", {"email": "richard.williams@msg.com"})
    assert partner == {
        "email": "richard.williams@msg.com",
        "name": "Richard Williams",
        "availability_status": "available",
    }


async def test_mavenlink_engagements_and_assignments(seeded: World) -> None:
    engagement = await ok(
        seeded, "mavenlink_api", {"action": "get_engagement", "engagement_code": "ENG-0034567"}
    )
    assert engagement["engagement_data"]["senior_manager_email"] == "emily.rodriguez@msg.com"
    assert "end_date" not in engagement["engagement_data"]
    assignments = await ok(
        seeded, "mavenlink_api", {"action": "get_employee_assignments", "email": "bob.taylor@msg.com"}
    )
    assert [a["assignment_status"] for a in assignments["assignments"]] == ["booked"]
    nobody = await ok(
        seeded, "mavenlink_api", {"action": "get_employee_assignments", "email": "nobody@msg.com"}
    )
    assert nobody == {"assignments": []}
    cancelled = {"action": "validate_engagement_code", "engagement_code": "ENG-0067890"}
    assert await ok(seeded, "mavenlink_api", cancelled) == {"valid": True}
    unknown = {"action": "validate_engagement_code", "engagement_code": "ENG-404"}
    assert await ok(seeded, "mavenlink_api", unknown) == {"valid": False}


async def test_approval_requests_take_the_first_unused_ids(seeded: World) -> None:
    software = {
        "request_type": "software_access",
        "requester_email": E,
        "approver_email": "sarah.johnson@msg.com",
        "amount": 840,
        "engagement_code": "ENG-0012345",
    }
    assert await ok(seeded, "approval_create_request", software) == {"approval_id": "APR-2-000000"}
    travel = {"request_type": "travel", "requester_email": E, "approver_email": "sarah.johnson@msg.com"}
    assert await ok(seeded, "approval_create_request", travel) == {"approval_id": "APR-2-000001"}
    stored = {r["id"]: r for r in await rows(seeded, "approval_approval_requests")}
    assert stored["APR-2-000001"] == {
        "id": "APR-2-000001",
        "request_type": "travel",
        "requester_email": E,
        "approver_email": "sarah.johnson@msg.com",
        "amount": None,
        "engagement_code": None,
        "status": "pending",
    }


async def test_a_patched_id_is_skipped(make_consulting_world: OpenWorld) -> None:
    taken = {"id": "APR-2-000000", "request_type": "travel", "requester_email": "a", "approver_email": "b"}
    async with make_consulting_world(patch={"approval_approval_requests": [taken]}) as world:
        created = await ok(
            world,
            "approval_create_request",
            {"request_type": "travel", "requester_email": E, "approver_email": "b"},
        )
        assert created == {"approval_id": "APR-2-000001"}


async def test_approval_status_filters_and_its_placeholder(seeded: World) -> None:
    status = await ok(
        seeded,
        "approval_get_status",
        {"request_type": "training_cost", "requester_email": "robert.nguyen@msg.com"},
    )
    assert status == {
        "results": [
            {
                "approval_id": "APR-1000004",
                "status": "rejected",
                "request_type": "training_cost",
                "approver_email": "sarah.johnson@msg.com",
            }
        ]
    }
    none = await ok(
        seeded,
        "approval_get_status",
        {"request_type": "software_access", "requester_email": E, "engagement_code": "ENG-404"},
    )
    assert none == {
        "results": [
            {
                "approval_id": "NOT_FOUND",
                "status": "not_found",
                "request_type": "software_access",
                "approver_email": "",
                "engagement_code": "ENG-404",
            }
        ]
    }
    filtered = await ok(
        seeded,
        "approval_get_status",
        {
            "request_type": "client_access",
            "requester_email": "alice.jones@msg.com",
            "approver_email": "x@msg.com",
        },
    )
    assert filtered["results"][0]["approval_id"] == "NOT_FOUND"
