"""Consulting worlds: tool surface, initial state, golden and wrong trajectories, PostgreSQL."""

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
from tests.benchmark.consulting.conftest import CONSULTING, OpenWorld
from tests.benchmark.helpers import ok, rows

Calls = list[tuple[str, dict[str, Any]]]
Mutation = Callable[[Calls], Calls]
SEED_TABLES = (
    "servers/tb_business_ops_servers_202606/tb_business_ops_servers_202606/toolslib/sandbox_consulting"
)


def test_the_domain_offers_exactly_the_scenarios_tools(
    consulting: Domain, consulting_scenario: Scenario
) -> None:
    assert sorted(consulting.registry.names) == sorted(consulting_scenario.tools)
    assert len(consulting.hashed_tables) == 30
    assert all(len(table.name) <= 63 for table in consulting.tables)
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
    seed = json.loads((data_dir / SEED_TABLES / "workday/initial_data/employees.json").read_text())
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


async def test_all_101_golden_trajectories_run_without_errors_and_hash_stably(
    consulting_tasks: list[Task], data_dir: Path
) -> None:
    assert len(consulting_tasks) == 101
    clear_golden_cache()
    first = {t.id: (await golden(t, data_dir=data_dir)).hash for t in consulting_tasks}
    second = {t.id: (await golden(t, data_dir=data_dir, cache=False)).hash for t in consulting_tasks}
    assert first == second
    assert len(set(first.values())) == 101


def _task(name: str, data_dir: Path) -> Task:
    return load_task(data_dir, f"{CONSULTING}_group1.py:{name}")


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
    result = grade(await replay(task, calls, data_dir=data_dir), expected, domain)
    assert result.passed is (not result.diff)
    return [(e.path, e.result, e.expected) for e in result.diff]


WRONG: list[tuple[str, str, Mutation, list[tuple[str, Any, Any]]]] = [
    (
        "test_csa_001",
        "approval routed to the wrong approver",
        _set(1, approver_email="someone.else@msg.com"),
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
        _set_item(0, status="new"),
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
        "test_csa_003",
        "background check at the wrong clearance level",
        _set(1, clearance_level="high_security"),
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
        _set_item(1, approval_required="yes"),
        [("zendesk_tickets[6].approval_required", "yes", "no")],
    ),
    (
        "test_csa_005",
        "NDA never sent",
        _drop(3),
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
        _set(1, access_type="read_only"),
        [("client_access_client_system_access[CSA-2-000000].access_type", "read_only", "full_access")],
    ),
    (
        "test_csa_007",
        "second course never enrolled",
        _drop(2),
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
        _set(2, permission_level="editor"),
        [("box_folder_access_logs[FAL-2-000000].permission_level", "editor", "viewer")],
    ),
    (
        "test_exp_007",
        "expense override with the wrong reason",
        _set(1, override_reason="system_error"),
        [("concur_expense_reports[EXP-7394821].override_reason", "system_error", "justified_exception")],
    ),
    (
        "test_onb_011",
        "laptop reserved in the wrong office",
        _set(1, location="New York"),
        [("asset_management_devices[MSG00001001].inventory_status", "reserved", "available")],
    ),
    (
        "test_onb_011",
        "a different laptop assigned",
        _set(2, asset_id="MSG00001001"),
        [
            ("asset_management_device_assignments[ASMT-2-000000].asset_id", "MSG00001001", "MSG00005002"),
            ("asset_management_devices[MSG00001001].inventory_status", "assigned", "available"),
            ("asset_management_devices[MSG00005002].inventory_status", "reserved", "assigned"),
        ],
    ),
    (
        "test_onb_011",
        "application access provisioned read-only",
        _set(3, access_type="read_only"),
        [("okta_application_access_logs[AAL-2-000000].access_type", "read_only", "full_access")],
    ),
    (
        "test_swa_004",
        "license allocated from the standard pool",
        _set(1, pool_type="standard"),
        [("license_management_license_allocation[LIC-2-000000].pool_type", "standard", "enterprise")],
    ),
    (
        "test_csa_001",
        "an extra VPN provisioned",
        _add(2, "client_access_api", {"action": "provision_vpn", "email": "sarah.martinez@msg.com"}),
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
    mutate: Mutation,
    diff: list[tuple[str, Any, Any]],
    data_dir: Path,
    consulting: Domain,
) -> None:
    assert await _grade(_task(name, data_dir), mutate, data_dir, consulting) == diff


HARMLESS: list[tuple[str, str, Mutation]] = [
    (
        "test_csa_001",
        "other ticket subject and description (unhashed)",
        _set_item(2, subject="Other", description="x"),
    ),
    (
        "test_csa_001",
        "a hardware order (writes nothing)",
        _add(
            2,
            "hardware_procurement_create_order",
            {"device_model": "X", "quantity": 3, "deliver_to": "Austin"},
        ),
    ),
    (
        "test_onb_011",
        "extra reads",
        _add(
            0,
            "asset_management_api",
            {"action": "check_inventory", "device_type": "laptop", "location": "Chicago"},
        ),
    ),
]


@pytest.mark.parametrize(("name", "what", "mutate"), HARMLESS, ids=[f"{h[0]}: {h[1]}" for h in HARMLESS])
async def test_changes_the_state_does_not_record_still_pass(
    name: str, what: str, mutate: Mutation, data_dir: Path, consulting: Domain
) -> None:
    assert await _grade(_task(name, data_dir), mutate, data_dir, consulting) == []


@pytest.mark.postgres
async def test_golden_hashes_agree_between_sqlite_and_postgres_sample(
    consulting_tasks: list[Task], data_dir: Path, postgres_url: str
) -> None:
    for task in consulting_tasks[::10]:
        on_sqlite = await golden(task, data_dir=data_dir)
        on_postgres = await golden(task, data_dir=data_dir, url=postgres_url)
        assert on_postgres.hash == on_sqlite.hash, task.id


@pytest.mark.postgres
@pytest.mark.slow
async def test_golden_hashes_agree_between_sqlite_and_postgres_all(
    consulting_tasks: list[Task], data_dir: Path, postgres_url: str
) -> None:
    for task in consulting_tasks:
        on_sqlite = await golden(task, data_dir=data_dir)
        on_postgres = await golden(task, data_dir=data_dir, url=postgres_url)
        assert on_postgres.hash == on_sqlite.hash, task.id
