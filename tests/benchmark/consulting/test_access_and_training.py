"""Licenses, Okta, Degreed, client access, background checks, NDAs and Box: success paths and quirks."""

from __future__ import annotations

from typing import Any

from benchmark.dataset import Scenario
from benchmark.world import World
from tests.benchmark.consulting.conftest import OpenWorld
from tests.benchmark.helpers import ok, rows

E = "marcus.bennett@msg.com"


def _by(table_rows: list[dict[str, Any]], *key: str) -> dict[str, dict[str, Any]]:
    return {"/".join(str(r[k]) for k in key): r for r in table_rows}


async def test_license_availability_allocation_and_cost(seeded: World) -> None:
    standard = {"action": "check_availability", "catalog_id": "CAT-1000001", "pool_type": "standard"}
    assert await ok(seeded, "license_management_api", standard) == {"available_count": 8}
    unlimited = {"action": "check_availability", "catalog_id": "CAT-1000002", "pool_type": "enterprise"}
    assert await ok(seeded, "license_management_api", unlimited) == {"available_count": 99999}
    deallocated_ignored = {**standard, "catalog_id": "CAT-1000003"}
    assert await ok(seeded, "license_management_api", deallocated_ignored) == {"available_count": 4}
    allocate = {"action": "allocate", "catalog_id": "CAT-1000001", "pool_type": "standard", "email": E}
    assert await ok(seeded, "license_management_api", allocate) == {"success": True}
    unknown_software = {**allocate, "catalog_id": "CAT-404", "engagement_code": "ENG-1"}
    assert await ok(seeded, "license_management_api", unknown_software) == {"success": True}
    assert await ok(seeded, "license_management_api", standard) == {"available_count": 7}
    allocations = _by(await rows(seeded, "license_management_license_allocation"), "id")
    assert allocations["LIC-2-000000"] == {
        "id": "LIC-2-000000",
        "catalog_id": "CAT-1000001",
        "employee_email": E,
        "engagement_code": None,
        "pool_type": "standard",
        "deallocated_at": None,
    }
    assert allocations["LIC-2-000001"]["engagement_code"] == "ENG-1"
    cost = await ok(seeded, "license_management_api", {"action": "get_cost", "catalog_id": "CAT-0012345"})
    assert cost == {"annual_cost": 840}


async def test_okta_access_defaults_to_full_access(seeded: World) -> None:
    assert await ok(seeded, "okta_provision_access", {"email": E, "app_name": "Tableau"}) == {"success": True}
    assert await ok(
        seeded, "okta_provision_access", {"email": E, "app_name": "Tableau", "access_type": "read_only"}
    )
    logs = _by(await rows(seeded, "okta_application_access_logs"), "id")
    assert logs["AAL-2-000000"]["access_type"] == "full_access"
    assert logs["AAL-2-000001"] == {
        "id": "AAL-2-000001",
        "employee_email": E,
        "app_name": "Tableau",
        "access_type": "read_only",
    }


async def test_courses_seats_and_enrollment(seeded: World) -> None:
    found = await ok(
        seeded, "degreed_api", {"action": "search_courses", "keyword": "FOR", "category": "must_have"}
    )
    assert found == {
        "courses": [
            {
                "id": "CRS-1000001",
                "title": "Formal Methods for Safety-Critical Systems with TLA+",
                "cost": 0,
                "training_category": "must_have",
                "prerequisites": [],
            }
        ]
    }
    details = await ok(seeded, "degreed_api", {"action": "get_course_details", "course_id": "CRS-1000002"})
    assert details["course_data"]["start_date"] == "2025-02-15T09:00:00+00:00"
    assert details["course_data"]["prerequisites"] == ["CRS-1000001"]
    seats = {"action": "check_enrollment", "course_id": "CRS-1000002"}
    assert await ok(seeded, "degreed_api", seats) == {"available_seats": 19}
    assert await ok(seeded, "degreed_api", {**seats, "course_id": "CRS-1000001"}) == {
        "available_seats": 99999
    }
    enroll = {"action": "enroll_employee", "email": E, "course_id": "CRS-1000002"}
    assert await ok(seeded, "degreed_api", enroll) == {"success": True}
    assert await ok(seeded, "degreed_api", seats) == {"available_seats": 18}
    enrollment = _by(await rows(seeded, "degreed_training_enrollments"), "id")["ENR-2-000000"]
    assert enrollment == {
        "id": "ENR-2-000000",
        "employee_email": E,
        "course_id": "CRS-1000002",
        "completion_date": None,
    }


async def test_training_history_certifications_and_client_requirements(seeded: World) -> None:
    history = await ok(
        seeded, "degreed_api", {"action": "get_training_history", "email": "jennifer.patel@msg.com"}
    )
    assert history["completed_trainings"] == [{"course_id": "CRS-1000001"}, {"course_id": "CRS-1000003"}]
    assert [c["certification_name"] for c in history["certifications"]] == ["HIPAA", "Python Professional"]
    assert "expiry_date" not in history["certifications"][1]
    check = {
        "action": "check_certification_status",
        "email": "jennifer.patel@msg.com",
        "certification_name": "hipaa",
    }
    assert await ok(seeded, "degreed_api", check) == {"has_certification": True}
    assert await ok(seeded, "degreed_api", {**check, "certification_name": "SOX"}) == {
        "has_certification": False
    }
    required = await ok(
        seeded, "degreed_api", {"action": "get_required_trainings", "client_id": "CLT-0045678"}
    )
    assert required == {"required_courses": []}


async def test_vpn_provisioning_and_revocation(seeded: World) -> None:
    jennifer = "jennifer.patel@msg.com"
    provision = {"action": "provision_vpn", "email": jennifer, "client_id": "CLT-0012345"}
    assert await ok(seeded, "client_access_api", provision) == {"success": True}
    assert await ok(seeded, "client_access_api", provision) == {"success": True}
    revoke = {"action": "revoke_vpn", "email": jennifer, "client_id": "CLT-0012345"}
    assert await ok(seeded, "client_access_api", revoke) == {"success": True}
    active = await ok(seeded, "client_access_api", {"action": "check_vpn_access", "email": jennifer})
    assert active == {
        "vpn_access": [
            {"id": "VPN-1000001", "employee_email": jennifer},
            {"id": "VPN-2-000001", "employee_email": jennifer, "client_id": "CLT-0012345"},
        ]
    }
    assert await ok(seeded, "client_access_api", {"action": "revoke_vpn", "email": jennifer}) == {
        "success": True
    }
    vpn = _by(await rows(seeded, "client_access_vpn_access"), "id")
    assert [vpn[i]["revoked_at"] for i in ("VPN-1000001", "VPN-2-000000", "VPN-2-000001")] == [
        "2025-10-01T00:00:00Z"
    ] * 3
    nobody = {"action": "revoke_vpn", "email": "nobody@msg.com"}
    assert await ok(seeded, "client_access_api", nobody) == {"success": True}


async def test_client_systems_requirements_and_prerequisites(seeded: World) -> None:
    grant = {
        "action": "provision_client_system",
        "email": E,
        "client_id": "CLT-0012345",
        "system_name": "Client Wiki",
        "access_type": "read_only",
    }
    assert await ok(seeded, "client_access_api", grant) == {"success": True}
    access = _by(await rows(seeded, "client_access_client_system_access"), "id")["CSA-2-000000"]
    assert access["system_name"] == "Client Wiki"
    assert access["revoked_at"] is None
    requirements = await ok(
        seeded, "client_access_api", {"action": "check_client_requirements", "client_id": "CLT-0023456"}
    )
    assert requirements["requirements"]["clearance_level"] == "high_security"
    prerequisites = {
        "action": "get_employee_prerequisites",
        "email": "jennifer.patel@msg.com",
        "client_id": "CLT-0012345",
    }
    assert await ok(seeded, "client_access_api", prerequisites) == {
        "clearance_status": "cleared",
        "nda_status": "signed",
        "completed_training_courses": ["CRS-1000001", "CRS-1000003"],
    }
    assert await ok(seeded, "client_access_api", {**prerequisites, "email": "nobody@msg.com"}) == {
        "clearance_status": "not_initiated",
        "nda_status": "not_signed",
        "completed_training_courses": [],
    }


async def test_background_checks_upsert_the_clearance_record(seeded: World) -> None:
    failed = {"action": "get_status", "email": "david.garcia@msg.com"}
    assert await ok(seeded, "background_check_api", failed) == {
        "clearance_data": {"clearance_level": "standard", "status": "failed"}
    }
    assert await ok(seeded, "background_check_api", {"action": "get_status", "email": "nobody@msg.com"}) == {
        "clearance_data": {"clearance_level": "standard", "status": "not_initiated"}
    }
    again = {"action": "initiate", "email": "david.garcia@msg.com", "clearance_level": "high_security"}
    assert await ok(seeded, "background_check_api", again) == {"success": True}
    new = {"action": "initiate", "email": "new.person@msg.com", "clearance_level": "standard"}
    assert await ok(seeded, "background_check_api", new) == {"success": True}
    records = await rows(seeded, "client_access_clearance_record")
    assert records[7] == {
        "employee_email": "david.garcia@msg.com",
        "clearance_level": "high_security",
        "status": "in_progress",
    }
    assert records[-1] == {
        "employee_email": "new.person@msg.com",
        "clearance_level": "standard",
        "status": "in_progress",
    }
    days = {"action": "get_timeline", "clearance_level": "high_security"}
    assert await ok(seeded, "background_check_api", days) == {"estimated_days": 28}
    assert await ok(seeded, "background_check_api", {**days, "clearance_level": "standard"}) == {
        "estimated_days": 14
    }


async def test_ndas_are_sent_again_whatever_their_status(seeded: World) -> None:
    signed = {"action": "check_status", "email": "jennifer.patel@msg.com", "client_id": "CLT-0012345"}
    assert await ok(seeded, "nda_api", signed) == {"signed": True, "nda_data": {"status": "signed"}}
    none = {**signed, "email": "nobody@msg.com"}
    assert await ok(seeded, "nda_api", none) == {"signed": False, "nda_data": {"status": "not_signed"}}
    assert await ok(seeded, "nda_api", {**signed, "action": "send_for_signature"}) == {"success": True}
    assert await ok(seeded, "nda_api", {**none, "action": "send_for_signature"}) == {"success": True}
    records = _by(await rows(seeded, "client_access_nda_record"), "employee_email", "client_id")
    assert records["jennifer.patel@msg.com/CLT-0012345"]["status"] == "sent_for_signature"
    assert records["nobody@msg.com/CLT-0012345"]["status"] == "sent_for_signature"


async def test_folders_and_access_grants(seeded: World) -> None:
    folder = await ok(seeded, "box_api", {"action": "get_folder_details", "folder_id": "FLD-1000001"})
    assert folder == {
        "folder_data": {
            "id": "FLD-1000001",
            "folder_name": "GDPR Article 30 Processing Records",
            "confidentiality_level": "internal",
            "owner_email": "hr@msg.com",
        }
    }
    grant = {
        "action": "grant_folder_access",
        "folder_id": "FLD-1000002",
        "email": E,
        "permission_level": "editor",
    }
    assert await ok(seeded, "box_api", grant) == {"success": True}
    log = _by(await rows(seeded, "box_folder_access_logs"), "id")["FAL-2-000000"]
    assert log == {
        "id": "FAL-2-000000",
        "folder_id": "FLD-1000002",
        "employee_email": E,
        "permission_level": "editor",
    }


async def test_policy_search_answers_from_the_scenario_sources(
    make_consulting_world: OpenWorld, consulting_scenario: Scenario
) -> None:
    async with make_consulting_world(scenario=consulting_scenario) as world:
        hits = await ok(
            world,
            "knowledge_base_search_policy",
            {"query": "VPN access for client engagements", "max_results": 2},
        )
        assert len(hits["snippets"]) == 2
        assert {"source", "score", "text"} == set(hits["snippets"][0])
