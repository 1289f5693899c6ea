"""Asset management, hardware procurement and Concur: success paths, partial states, quirks."""

from __future__ import annotations

from benchmark.world import World
from tests.benchmark.consulting.conftest import OpenWorld
from tests.benchmark.helpers import ok, refused, rows

E = "marcus.bennett@msg.com"
NEW_YORK_LAPTOPS = {"action": "reserve_device", "device_type": "laptop", "location": "New York"}


async def test_inventory_counts_available_devices_by_model(seeded: World) -> None:
    counts = await ok(
        seeded,
        "asset_management_api",
        {"action": "check_inventory", "device_type": "phone", "location": "Austin"},
    )
    assert counts == {"available_count_by_model": {"Sony Xperia 1 V": 1, "Fairphone 5": 1}}
    none = await ok(
        seeded,
        "asset_management_api",
        {"action": "check_inventory", "device_type": "headset", "location": "Austin"},
    )
    assert none == {"available_count_by_model": {}}


async def test_reservations_take_the_lowest_available_asset_id_until_none_is_left(seeded: World) -> None:
    assert await ok(seeded, "asset_management_api", NEW_YORK_LAPTOPS) == {"reserved_asset_id": "MSG00001001"}
    assert await ok(seeded, "asset_management_api", NEW_YORK_LAPTOPS) == {"reserved_asset_id": "MSG00001002"}
    assert await refused(seeded, "asset_management_api", NEW_YORK_LAPTOPS) == (
        "No available laptop devices at New York"
    )
    devices = {d["id"]: d for d in await rows(seeded, "asset_management_devices")}
    assert devices["MSG00001002"]["inventory_status"] == "reserved"


async def test_the_lowest_id_wins_over_list_order(make_consulting_world: OpenWorld) -> None:
    late = {
        "id": "MSG00000001",
        "device_type": "laptop",
        "model": "Patched late",
        "age_months": 1,
        "inventory_status": "available",
        "location": "New York",
    }
    async with make_consulting_world(patch={"asset_management_devices": [late]}) as world:
        assert await ok(world, "asset_management_api", NEW_YORK_LAPTOPS) == {
            "reserved_asset_id": "MSG00000001"
        }


async def test_assignment_does_not_check_availability(seeded: World) -> None:
    retired = {"action": "assign_device", "email": E, "asset_id": "MSG00003001"}
    assert await ok(seeded, "asset_management_api", retired) == {"success": True}
    assert await ok(seeded, "asset_management_api", {**retired, "asset_id": "MSG00001001"}) == {
        "success": True
    }
    devices = await ok(seeded, "asset_management_api", {"action": "get_employee_devices", "email": E})
    assert devices == {
        "devices": [
            {"id": "ASMT-1000001", "asset_id": "MSG00001003", "employee_email": E},
            {"id": "ASMT-2-000000", "asset_id": "MSG00003001", "employee_email": E},
            {"id": "ASMT-2-000001", "asset_id": "MSG00001001", "employee_email": E},
        ]
    }
    details = await ok(
        seeded, "asset_management_api", {"action": "get_device_details", "asset_id": "MSG00003001"}
    )
    assert details["device_data"]["inventory_status"] == "assigned"
    returned = await ok(
        seeded, "asset_management_api", {"action": "get_employee_devices", "email": "bob.taylor@msg.com"}
    )
    assert returned == {"devices": []}


async def test_retiring_a_device(seeded: World) -> None:
    assert await ok(
        seeded, "asset_management_api", {"action": "retire_device", "asset_id": "MSG00002001"}
    ) == {"success": True}
    device = next(d for d in await rows(seeded, "asset_management_devices") if d["id"] == "MSG00002001")
    assert device["inventory_status"] == "retired"


async def test_hardware_orders_write_nothing_and_share_one_id(seeded: World) -> None:
    before = await seeded.state()
    order = {"device_model": "Google Pixel 7a", "quantity": 2, "deliver_to": "Chicago"}
    assert await ok(seeded, "hardware_procurement_create_order", order) == {"order_id": "HWO-0056435"}
    assert await ok(seeded, "hardware_procurement_create_order", {**order, "quantity": 9}) == {
        "order_id": "HWO-0056435"
    }
    assert await seeded.state() == before


async def test_expense_overrides_keep_the_rejection_reason(seeded: World) -> None:
    override = {
        "action": "override_expense_rejection",
        "expense_report_id": "EXP-1000002",
        "override_reason": "receipt_exception",
        "approver_email": "sarah.johnson@msg.com",
    }
    assert await ok(seeded, "concur_api", override) == {"success": True}
    report = await ok(
        seeded, "concur_api", {"action": "get_expense_report", "expense_report_id": "EXP-1000002"}
    )
    assert report["expense_report"] == {
        "id": "EXP-1000002",
        "employee_email": "jennifer.patel@msg.com",
        "amount": 250,
        "category": "hotel",
        "trip_location_city": "San Francisco",
        "trip_location_state": "CA",
        "expense_date": "2024-10-20T00:00:00+00:00",
        "receipt_status": "missing",
        "rejection_reason": "Receipt missing - required for hotel expenses over $150",
        "override_approved": True,
        "override_approved_by": "sarah.johnson@msg.com",
        "override_reason": "receipt_exception",
    }


async def test_travel_bookings(seeded: World) -> None:
    booking = await ok(seeded, "concur_api", {"action": "get_travel_booking", "booking_id": "TRV-1000004"})
    assert booking == {
        "travel_booking": {
            "id": "TRV-1000004",
            "employee_email": "bob.taylor@msg.com",
            "destination": "Boston, MA",
            "departure_date": "2024-12-10T10:00:00+00:00",
            "return_date": "2024-12-14T17:45:00+00:00",
            "flight_class": "economy",
        }
    }
