"""Consulting worlds: table keys, initial state, and wrong trajectories graded against the goldens.

The golden checks every domain shares are in ``tests/benchmark/test_goldens.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmark.dataset import Task, load_task
from benchmark.domains import Domain
from benchmark.world import seed_dir
from tests.benchmark.consulting.conftest import CONSULTING, OpenWorld
from tests.benchmark.helpers import ok, rows, violation
from tests.benchmark.regrade import Edit, add, change, change_item, drop, regrade


def test_six_tables_are_keyed_by_their_natural_key(consulting: Domain) -> None:
    keys = {t.benchmark_name: t.key for t in consulting.hashed_tables if t.key != ("id",)}
    assert keys == {
        "salesforce_crm_sf_engagements": ("engagement_code",),
        "workday_employees": ("email",),
        "mavenlink_mv_engagements": ("engagement_code",),
        "license_management_license_pool_record": ("catalog_id", "pool_type"),
        "client_access_clearance_record": ("employee_email",),
        "client_access_nda_record": ("employee_email", "client_id"),
    }


async def test_initial_state_is_the_seed_with_the_patch_upserted_by_natural_key(
    make_consulting_world: OpenWorld, data_dir: Path
) -> None:
    seed = json.loads(
        (seed_dir(data_dir) / "sandbox_consulting/workday/initial_data/employees.json").read_text()
    )
    moved = {**seed[1], "office_location": "Austin"}
    new = {**seed[0], "email": "new.hire@msg.com"}
    pool = {"catalog_id": "CAT-1000003", "pool_type": "standard", "total_licenses": 6}
    patch = {"workday_employees": [new, moved], "license_management_license_pool_record": [pool]}
    async with make_consulting_world(patch=patch) as world:
        employees = await rows(world, "workday_employees")
        assert [e["email"] for e in employees] == [*(e["email"] for e in seed), "new.hire@msg.com"]
        assert employees[1]["office_location"] == "Austin"
        assert employees[1]["start_date"] == seed[1]["start_date"]
        pools = await rows(world, "license_management_license_pool_record")
        assert pools[2] == pool
        assert len(await rows(world, "zendesk_ticket_status_violations")) == 5
        seats = {"action": "check_availability", "catalog_id": "CAT-1000003", "pool_type": "standard"}
        assert await ok(world, "license_management_api", seats) == {"available_count": 5}


def _task(name: str, data_dir: Path) -> Task:
    return load_task(data_dir, f"{CONSULTING}_group1.py:{name}")


WRONG: list[tuple[str, str, Edit, list[tuple[str, Any, Any]]]] = [
    (
        "test_csa_001",
        "approval routed to the wrong approver",
        change(1, approver_email="someone.else@msg.com"),
        [
            (
                "approval_approval_requests[APR-2-000000].approver_email",
                "someone.else@msg.com",
                "david.thompson@msg.com",
            )
        ],
    ),
    (
        "test_csa_001",
        "ticket created as new: the hidden audit row stays although the ticket is updated later",
        change_item(0, status="new"),
        [
            (
                "zendesk_ticket_status_violations[VIOLATION-6]",
                violation(6, "6", "new"),
                None,
            )
        ],
    ),
    (
        "test_csa_003",
        "background check at the wrong clearance level",
        change(1, clearance_level="high_security"),
        [
            (
                "client_access_clearance_record[sarah.martinez@msg.com].clearance_level",
                "high_security",
                "standard",
            )
        ],
    ),
    (
        "test_csa_004",
        "ticket marked as needing approval",
        change_item(1, approval_required="yes"),
        [("zendesk_tickets[6].approval_required", "yes", "no")],
    ),
    (
        "test_csa_005",
        "NDA never sent",
        drop(3),
        [
            (
                "client_access_nda_record[david.martinez@msg.com/CLT-4829573].status",
                "not_signed",
                "sent_for_signature",
            )
        ],
    ),
    (
        "test_csa_006",
        "client system access granted read-only",
        change(1, access_type="read_only"),
        [("client_access_client_system_access[CSA-2-000000].access_type", "read_only", "full_access")],
    ),
    (
        "test_csa_007",
        "second course never enrolled",
        drop(2),
        [
            (
                "degreed_training_enrollments[ENR-2-000001]",
                None,
                {
                    "id": "ENR-2-000001",
                    "employee_email": "sarah.martinez@msg.com",
                    "course_id": "CRS-1001236",
                },
            )
        ],
    ),
    (
        "test_doc_001",
        "folder access as editor instead of viewer",
        change(2, permission_level="editor"),
        [("box_folder_access_logs[FAL-2-000000].permission_level", "editor", "viewer")],
    ),
    (
        "test_exp_007",
        "expense override with the wrong reason",
        change(1, override_reason="system_error"),
        [("concur_expense_reports[EXP-7394821].override_reason", "system_error", "justified_exception")],
    ),
    (
        "test_onb_011",
        "laptop reserved in the wrong office",
        change(1, location="New York"),
        [("asset_management_devices[MSG00001001].inventory_status", "reserved", "available")],
    ),
    (
        "test_onb_011",
        "a different laptop assigned",
        change(2, asset_id="MSG00001001"),
        [
            ("asset_management_device_assignments[ASMT-2-000000].asset_id", "MSG00001001", "MSG00005002"),
            ("asset_management_devices[MSG00001001].inventory_status", "assigned", "available"),
            ("asset_management_devices[MSG00005002].inventory_status", "reserved", "assigned"),
        ],
    ),
    (
        "test_onb_011",
        "application access provisioned read-only",
        change(3, access_type="read_only"),
        [("okta_application_access_logs[AAL-2-000000].access_type", "read_only", "full_access")],
    ),
    (
        "test_swa_004",
        "license allocated from the standard pool",
        change(1, pool_type="standard"),
        [("license_management_license_allocation[LIC-2-000000].pool_type", "standard", "enterprise")],
    ),
    (
        "test_csa_001",
        "an extra VPN provisioned",
        add("client_access_api", {"action": "provision_vpn", "email": "sarah.martinez@msg.com"}, at=2),
        [
            (
                "client_access_vpn_access[VPN-2-000000]",
                {"id": "VPN-2-000000", "employee_email": "sarah.martinez@msg.com"},
                None,
            )
        ],
    ),
]


@pytest.mark.parametrize(("name", "what", "mutate", "diff"), WRONG, ids=[f"{w[0]}: {w[1]}" for w in WRONG])
async def test_wrong_trajectories_fail_on_exactly_the_wrong_fields(
    name: str,
    what: str,
    mutate: Edit,
    diff: list[tuple[str, Any, Any]],
    data_dir: Path,
    consulting: Domain,
) -> None:
    result = await regrade(_task(name, data_dir), mutate, data_dir=data_dir, domain=consulting)
    assert [(e.path, e.result, e.expected) for e in result.diff] == diff


HARMLESS: list[tuple[str, str, Edit]] = [
    (
        "test_csa_001",
        "other ticket subject and description (unhashed)",
        change_item(2, subject="Other", description="x"),
    ),
    (
        "test_csa_001",
        "a hardware order (writes nothing)",
        add(
            "hardware_procurement_create_order",
            {"device_model": "X", "quantity": 3, "deliver_to": "Austin"},
            at=2,
        ),
    ),
    (
        "test_onb_011",
        "extra reads",
        add(
            "asset_management_api",
            {"action": "check_inventory", "device_type": "laptop", "location": "Chicago"},
            at=0,
        ),
    ),
]


@pytest.mark.parametrize(("name", "what", "mutate"), HARMLESS, ids=[f"{h[0]}: {h[1]}" for h in HARMLESS])
async def test_changes_the_state_does_not_record_still_pass(
    name: str, what: str, mutate: Edit, data_dir: Path, consulting: Domain
) -> None:
    assert (await regrade(_task(name, data_dir), mutate, data_dir=data_dir, domain=consulting)).diff == ()
