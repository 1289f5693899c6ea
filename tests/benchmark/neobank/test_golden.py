"""Neobank worlds: tool surface, initial state, golden and wrong trajectories, SQLite vs PostgreSQL."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmark.dataset import Scenario, Task, load_task
from benchmark.domains import Domain
from benchmark.world import clear_golden_cache, golden, grade, replay
from judges.canonical import canonical_state, state_hash
from tests.benchmark.helpers import ok, rows
from tests.benchmark.neobank.conftest import MAIN, NEOBANK, OpenWorld

Calls = list[tuple[str, dict[str, Any]]]
Mutation = Callable[[Calls], Calls]
SEED = (
    "servers/tb_business_ops_servers_202606/tb_business_ops_servers_202606/toolslib/sandbox_neobank_support"
)
RUBRIC_FILE = f"{NEOBANK}_group1_rubrics_yesno.py"


def test_the_domain_offers_exactly_the_scenarios_tools(neobank: Domain, neobank_scenario: Scenario) -> None:
    assert sorted(neobank.registry.names) == sorted(neobank_scenario.tools)
    assert len(neobank.registry) == 32
    assert len(neobank.hashed_tables) == 20
    assert all(len(table.name) <= 63 for table in neobank.tables)
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
    seed = json.loads((data_dir / SEED / "main/initial_data/employees.json").read_text())
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


async def test_all_104_golden_trajectories_run_without_errors_and_hash_stably(
    neobank_tasks: list[Task], data_dir: Path
) -> None:
    assert len(neobank_tasks) == 104
    assert sum(1 for t in neobank_tasks if t.file == RUBRIC_FILE) == 15
    assert all(t.rubrics for t in neobank_tasks if t.file == RUBRIC_FILE)
    clear_golden_cache()
    first = {t.id: (await golden(t, data_dir=data_dir)).hash for t in neobank_tasks}
    second = {t.id: (await golden(t, data_dir=data_dir, cache=False)).hash for t in neobank_tasks}
    assert first == second
    assert len(set(first.values())) == 104


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


def _set(index: int, **changes: Any) -> Mutation:
    def mutate(calls: Calls) -> Calls:
        calls[index][1].update(changes)
        return calls

    return mutate


def _set_item(index: int, **changes: Any) -> Mutation:
    def mutate(calls: Calls) -> Calls:
        calls[index][1]["item"].update(changes)
        return calls

    return mutate


def _drop(index: int) -> Mutation:
    def mutate(calls: Calls) -> Calls:
        del calls[index]
        return calls

    return mutate


def _add(index: int, tool: str, arguments: dict[str, Any]) -> Mutation:
    def mutate(calls: Calls) -> Calls:
        calls.insert(index, (tool, arguments))
        return calls

    return mutate


async def _grade(task: Task, mutate: Mutation, data_dir: Path, domain: Domain) -> list[tuple[str, Any, Any]]:
    expected = await golden(task, data_dir=data_dir)
    calls = mutate([(c.tool, copy.deepcopy(dict(c.arguments))) for c in task.golden])
    result = grade(await replay(task, calls, data_dir=data_dir, strict=False), expected, domain)
    assert result.passed is (not result.diff)
    return [(e.path, e.result, e.expected) for e in result.diff]


OAA = f"{MAIN}okta_app_access"
ASSETS = f"{MAIN}hardware_assets"
ASSIGNMENTS = f"{MAIN}asset_assignments"

WRONG: list[tuple[Callable[[Path], Task], str, Mutation, list[tuple[str, Any, Any]]]] = [
    (
        lambda d: _task("test_ie_001", d),
        "incident access granted read-write instead of read-only",
        _set(5, access_level="read_write"),
        [(f"{OAA}[OAA-00000012].access_level", "read_write", "read_only")],
    ),
    (
        lambda d: _task("test_ie_001", d),
        "the security approver is never told",
        _drop(9),
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
        _set_item(10, tags="production_access,temporary_access,Escalated"),
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
        _set_item(10, resolution_category="approved"),
        [("zendesk_tickets[6].resolution_category", "approved", "provisioned")],
    ),
    (
        lambda d: _task("test_ie_001", d),
        "an unrequested group membership",
        _add(6, "okta_api_add_to_group", {"email": "daniel.park@vdb.com", "group_name": "engineers"}),
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
        _set(9, approver_email="sarah.jones@vdb.com"),
        [(f"{MAIN}approval_requests[APR-00000008].approver_id", "WD-681453", "WD-753918")],
    ),
    (
        lambda d: _task("test_dc_001", d),
        "ticket created as new: the hidden audit row stays although the ticket is updated later",
        _set_item(7, status="new"),
        [
            (
                "zendesk_ticket_status_violations[VIOLATION-6]",
                {
                    "id": "VIOLATION-6",
                    "ticket_id": "6",
                    "created_status": "new",
                    "created_at": "2025-10-01T13:00:05Z",
                },
                None,
            )
        ],
    ),
    (
        lambda d: _task("test_he_001", d),
        "the wrong laptop handed out",
        _set(5, asset_id="VDB-HW-57382"),
        [
            (f"{ASSIGNMENTS}[ASN-00000009].asset_id", "VDB-HW-57382", "VDB-HW-38291"),
            (f"{ASSETS}[VDB-HW-38291].is_assigned", False, True),
            (f"{ASSETS}[VDB-HW-57382].is_assigned", True, False),
        ],
    ),
    (
        lambda d: _task("test_he_001", d),
        "the broken laptop never retired",
        _drop(6),
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
        _set(4, group_name="bi_finance_viewers"),
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
        _drop(4),
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
        _set(3, operation="unlock_account"),
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
        _set(3, software_name="Tableau"),
        [(f"{MAIN}license_allocations[LAL-00000009].license_id", "LIC-29471863", "LIC-52847163")],
    ),
    (
        lambda d: _rubric_task("test_he_010", d),
        "two monitors ordered instead of one",
        _set(5, quantity=2),
        [(f"{MAIN}procurement_orders[HW-ORDER-0000007].quantity", 2, 1)],
    ),
]


@pytest.mark.parametrize(("load", "what", "mutate", "expected"), WRONG, ids=[w[1] for w in WRONG])
async def test_wrong_trajectories_fail_on_exactly_the_wrong_fields(
    load: Callable[[Path], Task],
    what: str,
    mutate: Mutation,
    expected: list[tuple[str, Any, Any]],
    data_dir: Path,
    neobank: Domain,
) -> None:
    assert await _grade(load(data_dir), mutate, data_dir, neobank) == expected


RIGHT: list[tuple[Callable[[Path], Task], str, Mutation]] = [
    (
        lambda d: _task("test_dc_001", d),
        "other ticket wording, justification and approval details",
        lambda calls: _set(8, details="Other words")(
            _set_item(10, subject="Other", description="Other", business_justification="Other")(calls)
        ),
    ),
    (
        lambda d: _task("test_ie_001", d),
        "other email wording, expiry text and tag case",
        lambda calls: _set(8, subject="Hi", body="Other")(
            _set_item(10, tags="Temporary_Access,PRODUCTION_ACCESS", access_expiry_date="tomorrow")(calls)
        ),
    ),
    (
        lambda d: _task("test_he_001", d),
        "reads dropped and repeated",
        lambda calls: _add(4, "asset_management_api_get_device_details", {"asset_id": "VDB-HW-10234"})(
            _drop(2)(calls)
        ),
    ),
]


@pytest.mark.parametrize(("load", "what", "mutate"), RIGHT, ids=[r[1] for r in RIGHT])
async def test_changes_the_grader_cannot_see_still_pass(
    load: Callable[[Path], Task], what: str, mutate: Mutation, data_dir: Path, neobank: Domain
) -> None:
    assert await _grade(load(data_dir), mutate, data_dir, neobank) == []


@pytest.mark.postgres
async def test_golden_hashes_agree_between_sqlite_and_postgres_sample(
    neobank_tasks: list[Task], data_dir: Path, postgres_url: str
) -> None:
    for task in neobank_tasks[::10]:
        on_sqlite = await golden(task, data_dir=data_dir)
        on_postgres = await golden(task, data_dir=data_dir, url=postgres_url)
        assert on_postgres.hash == on_sqlite.hash, task.id


@pytest.mark.postgres
@pytest.mark.slow
async def test_golden_hashes_agree_between_sqlite_and_postgres_all(
    neobank_tasks: list[Task], data_dir: Path, postgres_url: str
) -> None:
    for task in neobank_tasks:
        on_sqlite = await golden(task, data_dir=data_dir)
        on_postgres = await golden(task, data_dir=data_dir, url=postgres_url)
        assert on_postgres.hash == on_sqlite.hash, task.id
