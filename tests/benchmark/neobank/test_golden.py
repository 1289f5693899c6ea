"""Neobank worlds: table keys and writers, initial state, policy search, and wrong trajectories.

The golden checks every domain shares are in ``tests/benchmark/test_goldens.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmark.dataset import Scenario, Task, load_task
from benchmark.domains import Domain
from benchmark.world import golden, grade, replay, seed_dir
from judges.canonical import canonical_state, state_hash
from tests.benchmark.helpers import ok, rows, violation
from tests.benchmark.neobank.conftest import MAIN, NEOBANK, OpenWorld
from tests.benchmark.regrade import Edit, add, chain, change, change_item, drop, regrade

RUBRIC_FILE = f"{NEOBANK}_group1_rubrics_yesno.py"


def test_every_table_is_keyed_by_id_and_thirteen_tools_write(neobank: Domain) -> None:
    assert all(table.key == ("id",) for table in neobank.hashed_tables)
    writers = {spec.name for spec in neobank.registry if spec.write}
    assert writers == {
        "zendesk_create_item",
        "zendesk_update_item",
        "zendesk_delete_item",
        "approval_api_create_request",
        "asset_management_api_assign_device",
        "asset_management_api_retire_device",
        "email_notification_api_send_notification",
        "hardware_procurement_api_create_order",
        "license_management_api_allocate_license",
        "okta_api_add_to_group",
        "okta_api_provision_access",
        "okta_api_revoke_access",
        "okta_security_api_execute_action",
    }


async def test_initial_state_is_the_seed_with_the_patch_upserted(
    make_neobank_world: OpenWorld, data_dir: Path
) -> None:
    seed = json.loads(
        (seed_dir(data_dir) / "sandbox_neobank_support/main/initial_data/employees.json").read_text()
    )
    moved = {**seed[1], "office_location": "nyc", "unknown_field": "ignored"}
    hire = {**seed[0], "id": "WD-100001", "email": "new.hire@vdb.com"}
    order = {
        "id": "HW-ORDER-1",
        "device_type": "mouse",
        "device_model": "MX",
        "quantity": 1,
        "ship_to_location": "SF",
        "requester_id": "WD-294817",
        "expected_delivery_date": "2025-10-15",
        "created_at": "2025-10-01T10:00:00+00:00",
    }
    patch = {f"{MAIN}employees": [hire, moved], f"{MAIN}procurement_orders": [order], "zendesk_tickets": []}
    async with make_neobank_world(patch=patch) as world:
        employees = await rows(world, "employees")
        assert [e["email"] for e in employees] == [*(e["email"] for e in seed), "new.hire@vdb.com"]
        assert employees[1]["office_location"] == "nyc"
        assert "unknown_field" not in employees[1]
        stored = (await rows(world, "procurement_orders"))[-1]
        assert (stored["created_at"], stored["status"]) == ("2025-10-01T10:00:00Z", "pending")
        assert len(await rows(world, "zendesk_tickets")) == 5
        assert len(await rows(world, "zendesk_ticket_status_violations")) == 5
        profile = await ok(world, "workday_api_get_employee", {"email": "new.hire@vdb.com"})
        assert profile["employee_id"] == "WD-100001"


async def test_policy_search_reads_the_scenarios_sources(
    make_neobank_world: OpenWorld, neobank_scenario: Scenario
) -> None:
    async with make_neobank_world(scenario=neobank_scenario) as world:
        query = {"query": "temporary MFA bypass duration", "max_results": 2}
        hits = (await ok(world, "knowledge_base_search_policy", query))["snippets"]
        assert len(hits) == 2
        assert hits[0]["source"] == "password_mfa_account_access.md"
        assert {"source", "score", "text"} == set(hits[0])


async def test_he_017_changes_nothing_so_doing_nothing_passes(data_dir: Path, neobank: Domain) -> None:
    task = load_task(data_dir, f"{NEOBANK}_group1.py:test_he_017")
    expected = await golden(task, data_dir=data_dir)
    initial = await replay(task, [], data_dir=data_dir)
    assert state_hash(canonical_state(initial, neobank.specs)) == expected.hash
    assert grade(initial, expected, neobank).passed


def _task(name: str, data_dir: Path) -> Task:
    return load_task(data_dir, f"{NEOBANK}_group1.py:{name}")


def _rubric_task(name: str, data_dir: Path) -> Task:
    return load_task(data_dir, f"{RUBRIC_FILE}:{name}")


OAA = f"{MAIN}okta_app_access"
ASSETS = f"{MAIN}hardware_assets"
ASSIGNMENTS = f"{MAIN}asset_assignments"

WRONG: list[tuple[Callable[[Path], Task], str, Edit, list[tuple[str, Any, Any]]]] = [
    (
        lambda d: _task("test_ie_001", d),
        "incident access granted read-write instead of read-only",
        change(5, access_level="read_write"),
        [(f"{OAA}[OAA-00000012].access_level", "read_write", "read_only")],
    ),
    (
        lambda d: _task("test_ie_001", d),
        "the security approver is never told",
        drop(9),
        [
            (
                f"{MAIN}email_notifications[NTF-00000008]",
                None,
                {
                    "id": "NTF-00000008",
                    "recipient_id": "WD-753918",
                    "recipient_email": "amanda.lee@vdb.com",
                    "notification_type": "incident_access_granted",
                    "ticket_id": "6",
                    "priority": "urgent",
                    "delivery_status": "queued",
                    "sent_by": "system",
                },
            )
        ],
    ),
    (
        lambda d: _task("test_ie_001", d),
        "an extra tag on the closing update",
        change_item(10, tags="production_access,temporary_access,Escalated"),
        [
            (
                "zendesk_tickets[6].tags",
                ["escalated", "production_access", "temporary_access"],
                ["production_access", "temporary_access"],
            )
        ],
    ),
    (
        lambda d: _task("test_ie_001", d),
        "the ticket closed as approved instead of provisioned",
        change_item(10, resolution_category="approved"),
        [("zendesk_tickets[6].resolution_category", "approved", "provisioned")],
    ),
    (
        lambda d: _task("test_ie_001", d),
        "an unrequested group membership",
        add("okta_api_add_to_group", {"email": "daniel.park@vdb.com", "group_name": "engineers"}, at=6),
        [
            (
                f"{MAIN}okta_group_membership[OGM-00000014]",
                {
                    "id": "OGM-00000014",
                    "employee_id": "WD-637182",
                    "group_name": "engineers",
                    "added_by": "system",
                    "is_active": True,
                },
                None,
            )
        ],
    ),
    (
        lambda d: _task("test_dc_001", d),
        "the second approval routed to the manager instead of security",
        change(9, approver_email="sarah.jones@vdb.com"),
        [(f"{MAIN}approval_requests[APR-00000008].approver_id", "WD-681453", "WD-753918")],
    ),
    (
        lambda d: _task("test_dc_001", d),
        "ticket created as new: the hidden audit row stays although the ticket is updated later",
        change_item(7, status="new"),
        [
            (
                "zendesk_ticket_status_violations[VIOLATION-6]",
                violation(6, "6", "new"),
                None,
            )
        ],
    ),
    (
        lambda d: _task("test_he_001", d),
        "the wrong laptop handed out",
        change(5, asset_id="VDB-HW-57382"),
        [
            (f"{ASSIGNMENTS}[ASN-00000009].asset_id", "VDB-HW-57382", "VDB-HW-38291"),
            (f"{ASSETS}[VDB-HW-38291].is_assigned", False, True),
            (f"{ASSETS}[VDB-HW-57382].is_assigned", True, False),
        ],
    ),
    (
        lambda d: _task("test_he_001", d),
        "the broken laptop never retired",
        drop(6),
        [
            (f"{ASSIGNMENTS}[ASN-29471583].is_active", True, False),
            (f"{ASSIGNMENTS}[ASN-29471583].returned_at", None, "2025-12-17T10:00:00Z"),
            (f"{ASSETS}[VDB-HW-10234].condition", "fair", "retired"),
            (f"{ASSETS}[VDB-HW-10234].is_assigned", True, False),
        ],
    ),
    (
        lambda d: _task("test_sa_008", d),
        "added to the finance dashboards instead of marketing",
        change(4, group_name="bi_finance_viewers"),
        [
            (
                f"{MAIN}okta_group_membership[OGM-00000015].group_name",
                "bi_finance_viewers",
                "bi_marketing_viewers",
            )
        ],
    ),
    (
        lambda d: _task("test_sa_003", d),
        "old access not revoked first, so the new grant is refused",
        drop(4),
        [
            (
                f"{OAA}[OAA-00000013]",
                None,
                {
                    "id": "OAA-00000013",
                    "employee_id": "WD-415397",
                    "app_name": "Admin Panel",
                    "access_level": "write non-PII only",
                    "granted_by": "system",
                    "is_active": True,
                    "is_temporary": False,
                },
            ),
            (f"{OAA}[OAA-41539712].is_active", True, False),
        ],
    ),
    (
        lambda d: _rubric_task("test_aa_001", d),
        "account unlocked instead of a forced password reset",
        change(3, operation="unlock_account"),
        [
            (f"{MAIN}okta_security_audit[OSA-00000011].operation", "unlock_account", "force_password_reset"),
            (
                f"{MAIN}okta_security_audit[OSA-00000011].reason",
                "Security operation: unlock_account",
                "Security operation: force_password_reset",
            ),
        ],
    ),
    (
        lambda d: _rubric_task("test_sl_004", d),
        "a Tableau seat instead of 1Password",
        change(3, software_name="Tableau"),
        [(f"{MAIN}license_allocations[LAL-00000009].license_id", "LIC-29471863", "LIC-52847163")],
    ),
    (
        lambda d: _rubric_task("test_he_010", d),
        "two monitors ordered instead of one",
        change(5, quantity=2),
        [(f"{MAIN}procurement_orders[HW-ORDER-0000007].quantity", 2, 1)],
    ),
]


@pytest.mark.parametrize(("load", "what", "mutate", "expected"), WRONG, ids=[w[1] for w in WRONG])
async def test_wrong_trajectories_fail_on_exactly_the_wrong_fields(
    load: Callable[[Path], Task],
    what: str,
    mutate: Edit,
    expected: list[tuple[str, Any, Any]],
    data_dir: Path,
    neobank: Domain,
) -> None:
    result = await regrade(load(data_dir), mutate, data_dir=data_dir, domain=neobank, strict=False)
    assert [(e.path, e.result, e.expected) for e in result.diff] == expected


RIGHT: list[tuple[Callable[[Path], Task], str, Edit]] = [
    (
        lambda d: _task("test_dc_001", d),
        "other ticket wording, justification and approval details",
        chain(
            change_item(10, subject="Other", description="Other", business_justification="Other"),
            change(8, details="Other words"),
        ),
    ),
    (
        lambda d: _task("test_ie_001", d),
        "other email wording, expiry text and tag case",
        chain(
            change_item(10, tags="Temporary_Access,PRODUCTION_ACCESS", access_expiry_date="tomorrow"),
            change(8, subject="Hi", body="Other"),
        ),
    ),
    (
        lambda d: _task("test_he_001", d),
        "reads dropped and repeated",
        chain(drop(2), add("asset_management_api_get_device_details", {"asset_id": "VDB-HW-10234"}, at=4)),
    ),
]


@pytest.mark.parametrize(("load", "what", "mutate"), RIGHT, ids=[r[1] for r in RIGHT])
async def test_changes_the_grader_cannot_see_still_pass(
    load: Callable[[Path], Task], what: str, mutate: Edit, data_dir: Path, neobank: Domain
) -> None:
    result = await regrade(load(data_dir), mutate, data_dir=data_dir, domain=neobank, strict=False)
    assert result.diff == ()
