"""Devices and orders (§9), judged on single commits in memory."""

from __future__ import annotations

from typing import Any

import pytest

from benchmark.domains.neobank import models as m
from tests.benchmark.neobank_rules.office import judge, rules, ticket


def _asset(id: str, device_type: str, model: str, **extra: Any) -> dict[str, Any]:
    return m.HardwareAsset(
        id=id,
        device_type=device_type,
        device_model=model,
        purchase_date="2022-01-01",
        warehouse_location=extra.pop("warehouse_location", "sf"),
        **extra,
    ).model_dump(mode="json")


def _assignment(id: str, asset: str, employee: str, *, active: bool = True) -> dict[str, Any]:
    return m.AssetAssignment(
        id=id, asset_id=asset, employee_id=employee, assigned_by="system", is_active=active
    ).model_dump(mode="json")


def _handover(employee: str, asset: dict[str, Any], **fields: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The commit that assigns ``asset`` (from stock) to ``employee``, and the stock it starts from."""
    commit = {
        "hardware_assets": [{**asset, "is_assigned": True}],
        "asset_assignments": [_assignment("ASN-9", asset["id"], employee)],
        "zendesk_tickets": [ticket("T-1", employee, "solved", resolution_category="provisioned", **fields)],
    }
    return commit, {"hardware_assets": [asset]}


MONITOR = _asset("VDB-HW-00001", "monitor", 'Dell P2425H 24"')
DOCK = _asset("VDB-HW-00002", "docking_station", "CalDigit TS4", warehouse_location="remote_ship")
PREMIUM = _asset("VDB-HW-00003", "laptop_premium", "MacBook Pro 14")


@pytest.mark.parametrize(
    ("employee", "asset", "blocked"),
    [
        ("WD-DEV", MONITOR, False),  # technical role in an office
        ("WD-MKT", MONITOR, False),  # remote
        ("WD-ANALYST", MONITOR, True),  # office, not technical
        ("WD-MKT", DOCK, False),  # remote
        ("WD-DEV", DOCK, True),  # office
        ("WD-DEV", PREMIUM, True),  # premium for a non-executive
    ],
)
def test_hardware_auto_approval(employee: str, asset: dict[str, Any], blocked: bool) -> None:
    commit, stock = _handover(employee, asset)
    found = rules(judge(commit, before=stock))
    if asset is PREMIUM:
        found.discard("device-laptop-replacement")
    assert found == ({"device-approval"} if blocked else set())


def test_a_failed_monitor_replaced_from_stock_is_auto_approved() -> None:
    old = _asset("VDB-HW-00009", "monitor", 'Dell P2425H 24"', is_assigned=True, condition="good")
    commit, _ = _handover("WD-ANALYST", MONITOR)
    commit["hardware_assets"].append({**old, "is_assigned": False, "condition": "retired"})
    commit["asset_assignments"].append(_assignment("ASN-1", old["id"], "WD-ANALYST", active=False))
    before = {
        "hardware_assets": [MONITOR, old],
        "asset_assignments": [_assignment("ASN-1", old["id"], "WD-ANALYST")],
    }
    assert judge(commit, before=before) == []


def test_a_contractor_gets_no_monitor() -> None:
    commit, stock = _handover("WD-CONTRACT", MONITOR)
    assert "device-monitor-dock-eligibility" in rules(judge(commit, before=stock))


def test_an_order_arrives_after_the_policy_lead_time() -> None:
    def order(device_type: str, model: str, delivery: str) -> dict[str, Any]:
        return m.ProcurementOrder(
            id="HW-ORDER-1",
            device_type=device_type,
            device_model=model,
            quantity=1,
            ship_to_location="office",
            requester_id="WD-MKT",
            ticket_id="T-1",
            expected_delivery_date=delivery,
        ).model_dump(mode="json")

    approved = ticket("T-1", "WD-MKT", "solved", resolution_category="approved")
    ten = {
        "procurement_orders": [order("monitor", 'Dell P2425H 24"', "2025-10-15")],
        "zendesk_tickets": [approved],
    }
    five = {
        "procurement_orders": [order("headset", "Logitech H650e", "2025-10-08")],
        "zendesk_tickets": [approved],
    }
    assert judge(ten) == []
    assert judge(five) == []
    late = {**five, "procurement_orders": [order("headset", "Logitech H650e", "2025-10-15")]}
    assert rules(judge(late)) == {"order-lead-time"}
