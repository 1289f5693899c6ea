"""Booking's hand-made wrong trajectories fail on exactly the fields they got wrong; variations the
graded state does not record still pass.

The golden checks every domain shares are in ``tests/benchmark/test_goldens.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark.dataset import Task
from benchmark.domains import Domain
from tests.benchmark.regrade import Edit, add, change, change_item, drop, regrade, swap


def _group_booking_fields(*ids: str) -> list[str]:
    fields = ("booking_value", "check_in_date", "check_out_date", "modification_history", "updated_at")
    return [f"booking_api_bookings[{i}].{f}" for i in ids for f in fields]


WRONG: list[tuple[str, str, Edit, list[str]]] = [
    ("ticket status", "test_bmd_001", change_item(8, status="solved"), ["zendesk_tickets[13].status"]),
    (
        "escalation reason",
        "test_bmd_001",
        change(7, issue_type="hotel-confirmation-required"),
        ["zendesk_tickets[ZDSK-00000001].escalation_reason"],
    ),
    ("escalation dropped", "test_bmd_001", drop(7), ["zendesk_tickets[ZDSK-00000001]"]),
    (
        "escalation before the ticket shifts its id",
        "test_bmd_001",
        swap(6, 7),
        ["zendesk_tickets[13]", "zendesk_tickets[14]"],
    ),
    (
        "one night short",
        "test_bmd_010",
        change(7, check_out_date="2025-10-07T11:00:00Z"),
        [
            "booking_api_bookings[BKG-00000006].booking_value",
            "booking_api_bookings[BKG-00000006].check_out_date",
            "booking_api_bookings[BKG-00000006].modification_history",
        ],
    ),
    (
        "charge amount",
        "test_bmd_010",
        change(8, charge_amount="340.00"),
        ["payment_api_transactions[TXN-00000008].amount"],
    ),
    ("charge dropped", "test_bmd_010", drop(8), ["payment_api_transactions[TXN-00000008]"]),
    (
        "refund amount",
        "test_bpy_007",
        change(7, refund_amount="56.00"),
        ["payment_api_transactions[TXN-00000009].amount"],
    ),
    (
        "request type",
        "test_bpy_007",
        change_item(8, request_type_detail="request-refund"),
        ["zendesk_tickets[14].request_type_detail"],
    ),
    (
        "group change not cascaded",
        "test_gbm_001",
        change(7, cascade_to_individual_bookings=False),
        _group_booking_fields("BKG-00000006", "BKG-00000007", "BKG-00000008", "BKG-00000009"),
    ),
    (
        "complaint count",
        "test_psc_001",
        change(6, complaint_count=2),
        ["crm_api_customer_profiles[CUS-00000006].complaint_count"],
    ),
    (
        "an extra charge",
        "test_psc_001",
        add(
            "payment_api_process_charge",
            {"booking_reference": "BKG-01845146", "charge_amount": 5, "reason": "x"},
            at=6,
        ),
        ["payment_api_transactions[TXN-00000009]"],
    ),
    ("ticket priority", "test_psc_001", change_item(4, priority="urgent"), ["zendesk_tickets[13].priority"]),
]

STILL_PASSING: list[tuple[str, str, Edit]] = [
    ("refund reason is unhashed", "test_bpy_007", change(7, reason="anything")),
    ("an ignored tag", "test_bpy_007", change_item(8, tags=["b2c-customer", "Repeat-Issue"])),
    ("special requests are unhashed", "test_bmd_019", change(6, special_requests=["pet bed"])),
    (
        "payment methods are not recorded",
        "test_psc_001",
        add(
            "payment_api_update_payment_method",
            {"customer_id": "CUS-00000006", "new_payment_method": "t"},
            at=5,
        ),
    ),
]


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
    result = await regrade(task, edit, data_dir=data_dir, domain=booking, strict=False)
    assert not result.passed
    assert sorted(entry.path for entry in result.diff) == sorted(paths)


@pytest.mark.parametrize(("label", "name", "edit"), STILL_PASSING, ids=[s[0] for s in STILL_PASSING])
async def test_variations_the_state_does_not_record_still_pass(
    tasks_by_name: dict[str, Task], data_dir: Path, booking: Domain, label: str, name: str, edit: Edit
) -> None:
    task = tasks_by_name[name]
    result = await regrade(task, edit, data_dir=data_dir, domain=booking)
    assert result.passed, result.diff
