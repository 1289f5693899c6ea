"""Booking golden states: every golden trajectory replays cleanly and stably, on SQLite and PostgreSQL,
and hand-made wrong trajectories fail on exactly the fields they got wrong.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmark.dataset import Task
from benchmark.domains import Domain
from benchmark.world import clear_golden_cache, golden, grade, replay

Calls = list[tuple[str, dict[str, Any]]]
Edit = Callable[[Calls], None]


def _set(index: int, path: str, value: Any) -> Edit:
    """Set one argument (a dotted path) of call ``index``."""

    def edit(calls: Calls) -> None:
        *parents, last = path.split(".")
        target = calls[index][1]
        for name in parents:
            target = target[name]
        target[last] = value

    return edit


def _drop(index: int) -> Edit:
    def edit(calls: Calls) -> None:
        del calls[index]

    return edit


def _insert(index: int, tool: str, arguments: dict[str, Any]) -> Edit:
    def edit(calls: Calls) -> None:
        calls.insert(index, (tool, arguments))

    return edit


def _swap(first: int, second: int) -> Edit:
    def edit(calls: Calls) -> None:
        calls[first], calls[second] = calls[second], calls[first]

    return edit


def _group_booking_fields(*ids: str) -> list[str]:
    fields = ("booking_value", "check_in_date", "check_out_date", "modification_history", "updated_at")
    return [f"booking_api_bookings[{i}].{f}" for i in ids for f in fields]


WRONG: list[tuple[str, str, Edit, list[str]]] = [
    ("ticket status", "test_bmd_001", _set(8, "item.status", "solved"), ["zendesk_tickets[13].status"]),
    (
        "escalation reason",
        "test_bmd_001",
        _set(7, "issue_type", "hotel-confirmation-required"),
        ["zendesk_tickets[ZDSK-00000001].escalation_reason"],
    ),
    ("escalation dropped", "test_bmd_001", _drop(7), ["zendesk_tickets[ZDSK-00000001]"]),
    (
        "escalation before the ticket shifts its id",
        "test_bmd_001",
        _swap(6, 7),
        ["zendesk_tickets[13]", "zendesk_tickets[14]"],
    ),
    (
        "one night short",
        "test_bmd_010",
        _set(7, "check_out_date", "2025-10-07T11:00:00Z"),
        [
            "booking_api_bookings[BKG-00000006].booking_value",
            "booking_api_bookings[BKG-00000006].check_out_date",
            "booking_api_bookings[BKG-00000006].modification_history",
        ],
    ),
    (
        "charge amount",
        "test_bmd_010",
        _set(8, "charge_amount", "340.00"),
        ["payment_api_transactions[TXN-00000008].amount"],
    ),
    ("charge dropped", "test_bmd_010", _drop(8), ["payment_api_transactions[TXN-00000008]"]),
    (
        "refund amount",
        "test_bpy_007",
        _set(7, "refund_amount", "56.00"),
        ["payment_api_transactions[TXN-00000009].amount"],
    ),
    (
        "request type",
        "test_bpy_007",
        _set(8, "item.request_type_detail", "request-refund"),
        ["zendesk_tickets[14].request_type_detail"],
    ),
    (
        "group change not cascaded",
        "test_gbm_001",
        _set(7, "cascade_to_individual_bookings", False),
        _group_booking_fields("BKG-00000006", "BKG-00000007", "BKG-00000008", "BKG-00000009"),
    ),
    (
        "complaint count",
        "test_psc_001",
        _set(6, "complaint_count", 2),
        ["crm_api_customer_profiles[CUS-00000006].complaint_count"],
    ),
    (
        "an extra charge",
        "test_psc_001",
        _insert(
            6,
            "payment_api_process_charge",
            {"booking_reference": "BKG-01845146", "charge_amount": 5, "reason": "x"},
        ),
        ["payment_api_transactions[TXN-00000009]"],
    ),
    ("ticket priority", "test_psc_001", _set(4, "item.priority", "urgent"), ["zendesk_tickets[13].priority"]),
]

STILL_PASSING: list[tuple[str, str, Edit]] = [
    ("refund reason is unhashed", "test_bpy_007", _set(7, "reason", "anything")),
    ("an ignored tag", "test_bpy_007", _set(8, "item.tags", ["b2c-customer", "Repeat-Issue"])),
    ("special requests are unhashed", "test_bmd_019", _set(6, "special_requests", ["pet bed"])),
    (
        "payment methods are not recorded",
        "test_psc_001",
        _insert(
            5, "payment_api_update_payment_method", {"customer_id": "CUS-00000006", "new_payment_method": "t"}
        ),
    ),
]


def _calls(task: Task, edit: Edit) -> Calls:
    calls = [(call.tool, copy.deepcopy(call.arguments)) for call in task.golden]
    edit(calls)
    return calls


async def test_all_104_golden_trajectories_run_without_errors_and_hash_stably(
    booking_tasks: list[Task], data_dir: Path
) -> None:
    assert len(booking_tasks) == 104
    assert sum(1 for t in booking_tasks if t.file.endswith("_rubrics_yesno.py")) == 15
    clear_golden_cache()
    first = {t.id: (await golden(t, data_dir=data_dir)).hash for t in booking_tasks}
    clear_golden_cache()
    second = {t.id: (await golden(t, data_dir=data_dir, cache=False)).hash for t in booking_tasks}
    assert first == second
    assert len(set(first.values())) == 104


@pytest.mark.parametrize(("label", "name", "edit", "paths"), WRONG, ids=[w[0] for w in WRONG])
async def test_a_wrong_trajectory_fails_on_exactly_the_wrong_fields(
    tasks_by_name: dict[str, Task],
    data_dir: Path,
    booking: Domain,
    label: str,
    name: str,
    edit: Edit,
    paths: list[str],
) -> None:
    task = tasks_by_name[name]
    expected = await golden(task, data_dir=data_dir)
    result = grade(await replay(task, _calls(task, edit), data_dir=data_dir, strict=False), expected, booking)
    assert not result.passed
    assert sorted(entry.path for entry in result.diff) == sorted(paths)


@pytest.mark.parametrize(("label", "name", "edit"), STILL_PASSING, ids=[s[0] for s in STILL_PASSING])
async def test_variations_the_state_does_not_record_still_pass(
    tasks_by_name: dict[str, Task], data_dir: Path, booking: Domain, label: str, name: str, edit: Edit
) -> None:
    task = tasks_by_name[name]
    expected = await golden(task, data_dir=data_dir)
    result = grade(await replay(task, _calls(task, edit), data_dir=data_dir), expected, booking)
    assert result.passed, result.diff


@pytest.mark.postgres
async def test_golden_hashes_agree_between_sqlite_and_postgres_sample(
    booking_tasks: list[Task], data_dir: Path, postgres_url: str
) -> None:
    for task in booking_tasks[::10]:
        on_sqlite = await golden(task, data_dir=data_dir)
        on_postgres = await golden(task, data_dir=data_dir, url=postgres_url)
        assert on_postgres.hash == on_sqlite.hash, task.id


@pytest.mark.postgres
@pytest.mark.slow
async def test_golden_hashes_agree_between_sqlite_and_postgres_all(
    booking_tasks: list[Task], data_dir: Path, postgres_url: str
) -> None:
    for task in booking_tasks:
        on_sqlite = await golden(task, data_dir=data_dir)
        on_postgres = await golden(task, data_dir=data_dir, url=postgres_url)
        assert on_postgres.hash == on_sqlite.hash, task.id
