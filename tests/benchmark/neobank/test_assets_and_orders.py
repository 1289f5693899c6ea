"""Devices, licenses, hardware orders and emails: success paths, counters and the reference's quirks.

Expected replies and rows are the reference's (checked against its state
engine); worlds hold the seed rows unless a test patches its own.
"""

from __future__ import annotations

from typing import Any

from benchmark.world import World
from tests.benchmark.helpers import ok, refused, rows
from tests.benchmark.neobank.conftest import MAIN, OpenWorld

EMMA = "emma.wilson@vdb.com"


def _by_id(table: list[dict[str, Any]], row_id: str) -> dict[str, Any]:
    return next(row for row in table if row["id"] == row_id)


async def test_devices_inventory_and_details(seeded: World) -> None:
    assert await ok(
        seeded,
        "asset_management_api_check_inventory",
        {"device_type": "laptop_standard", "warehouse_location": "sf"},
    ) == {
        "device_type": "laptop_standard",
        "warehouse_location": "sf",
        "available_count": 1,
        "total_count": 1,
        "asset_ids": [{"device_model": "Dell Latitude 5520", "asset_id": "VDB-HW-57382"}],
    }
    nyc = {"device_type": "laptop_standard", "warehouse_location": "nyc"}
    assert (await ok(seeded, "asset_management_api_check_inventory", nyc))["total_count"] == 2
    assert await ok(seeded, "asset_management_api_get_device_details", {"asset_id": "VDB-HW-29417"}) == {
        "asset_id": "VDB-HW-29417",
        "device_type": "laptop_premium",
        "device_model": "MacBook Pro 16-inch M2",
        "purchase_date": "2023-01-15T00:00:00Z",
        "age_months": 35,
        "condition": "good",
        "warehouse_location": "sf",
        "is_assigned": True,
        "assigned_to": "WD-847291",
    }
    devices = await ok(
        seeded, "asset_management_api_get_employee_devices", {"email": "marcus.thompson@vdb.com"}
    )
    assert devices["employee_id"] == "WD-847291"
    assert devices["devices"][1] == {
        "asset_id": "VDB-HW-68149",
        "device_type": "monitor",
        "device_model": "Dell UltraSharp 27 U2723DE",
        "assigned_at": "2023-06-15T10:00:00Z",
        "condition": "good",
        "age_months": 30,
    }


async def test_assigning_and_retiring_devices(seeded: World) -> None:
    assign = {"asset_id": "VDB-HW-57382", "email": EMMA}
    assert await ok(seeded, "asset_management_api_assign_device", assign) == {
        "assignment_id": "ASN-00000008",
        "asset_id": "VDB-HW-57382",
        "employee_id": "WD-192638",
    }
    assert _by_id(await rows(seeded, "asset_assignments"), "ASN-00000008") == {
        "id": "ASN-00000008",
        "asset_id": "VDB-HW-57382",
        "employee_id": "WD-192638",
        "assigned_at": None,
        "assigned_by": "system",
        "is_active": True,
        "returned_at": None,
    }
    details = await ok(seeded, "asset_management_api_get_device_details", {"asset_id": "VDB-HW-57382"})
    assert (details["is_assigned"], details["assigned_to"]) == (True, "WD-192638")
    assert await ok(seeded, "asset_management_api_retire_device", {"asset_id": "VDB-HW-29417"}) == {
        "asset_id": "VDB-HW-29417",
        "previous_condition": "good",
        "retired_at": "2025-12-17T10:00:00Z",
        "was_assigned": True,
    }
    closed = _by_id(await rows(seeded, "asset_assignments"), "ASN-39471826")
    assert (closed["is_active"], closed["returned_at"]) == (False, "2025-12-17T10:00:00Z")
    retired = _by_id(await rows(seeded, "hardware_assets"), "VDB-HW-29417")
    assert (retired["condition"], retired["is_assigned"]) == ("retired", False)
    unassigned = await ok(seeded, "asset_management_api_retire_device", {"asset_id": "VDB-HW-31854"})
    assert unassigned["was_assigned"] is False


async def test_listing_devices_fails_on_an_assignment_without_a_time_as_in_the_reference(
    seeded: World,
) -> None:
    await ok(seeded, "asset_management_api_assign_device", {"asset_id": "VDB-HW-57382", "email": EMMA})
    message = await refused(seeded, "asset_management_api_get_employee_devices", {"email": EMMA})
    assert message.startswith(
        "1 validation error for DeviceInfo\nassigned_at\n  Input should be a valid string "
        "[type=string_type, input_value=None, input_type=NoneType]"
    )


def _asset(asset_id: str, purchased: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": asset_id,
        "device_type": "monitor",
        "device_model": f"Model {asset_id}",
        "purchase_date": purchased,
        "warehouse_location": "austin",
        **fields,
    }


def _assignment(assignment_id: str, asset_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": assignment_id,
        "asset_id": asset_id,
        "employee_id": "WD-892536",
        "assigned_at": "2025-01-01T00:00:00Z",
        "assigned_by": "system",
        **fields,
    }


async def test_device_ages_and_bad_purchase_dates(make_neobank_world: OpenWorld) -> None:
    patch = {
        f"{MAIN}hardware_assets": [
            _asset("HW-A", "2023-01-15"),
            _asset("HW-B", ""),
            _asset("HW-C", "15/01/2023"),
            _asset("HW-D", "2025-11-17T10:00:00+05:00", is_assigned=True, condition="fair"),
            _asset("HW-E", "2026-02-01T00:00:00Z"),
        ],
        f"{MAIN}asset_assignments": [
            _assignment("ASN-X1", "HW-D"),
            _assignment("ASN-X2", "HW-D", assigned_at="2025-02-01T00:00:00Z"),
        ],
    }
    async with make_neobank_world(patch=patch) as world:
        ages = [
            (await ok(world, "asset_management_api_get_device_details", {"asset_id": a}))["age_months"]
            for a in ("HW-A", "HW-D", "HW-E")
        ]
        assert ages == [35, 1, -1]
        assert await refused(world, "asset_management_api_get_device_details", {"asset_id": "HW-B"}) == (
            "Invalid purchase_date for asset HW-B: ''"
        )
        assert await refused(world, "asset_management_api_get_device_details", {"asset_id": "HW-C"}) == (
            "Invalid purchase_date for asset HW-C: '15/01/2023'"
        )
        stock = {"device_type": "monitor", "warehouse_location": "austin"}
        assert (await ok(world, "asset_management_api_check_inventory", stock))["available_count"] == 4
        retired = await ok(world, "asset_management_api_retire_device", {"asset_id": "HW-D"})
        assert retired["previous_condition"] == "fair"
        assignments = await rows(world, "asset_assignments")
        assert [_by_id(assignments, a)["is_active"] for a in ("ASN-X1", "ASN-X2")] == [False, False]


async def test_license_pools_and_allocations(make_neobank_world: OpenWorld) -> None:
    patch = {
        f"{MAIN}software_licenses": [
            {"id": "LIC-T", "software_name": "Tiny", "license_type": "standard", "total_licenses": 1},
            {"id": "LIC-N", "software_name": "Nolimit", "license_type": "enterprise", "total_licenses": None},
        ],
        f"{MAIN}license_allocations": [
            {"id": "LAL-T1", "license_id": "LIC-T", "employee_id": "WD-294817", "allocated_by": "system"}
        ],
    }
    async with make_neobank_world(patch=patch) as world:
        assert await ok(world, "license_management_api_check_license_type", {"software_name": "tableau"}) == {
            "license_type": "standard",
            "license_id": "LIC-29471863",
            "annual_cost_per_license": 840,
        }
        availability = "license_management_api_check_availability"
        assert await ok(world, availability, {"software_name": "TABLEAU"}) == {
            "available_licenses": 23,
            "total_licenses": 25,
            "license_type": "standard",
        }
        assert await ok(world, availability, {"software_name": "Slack"}) == {"license_type": "unlimited"}
        assert (await ok(world, availability, {"software_name": "Nolimit"}))["available_licenses"] == 0
        allocate = "license_management_api_allocate_license"
        assert await ok(world, allocate, {"software_name": "Tableau", "email": "sophia.davis@vdb.com"}) == {
            "allocation_id": "LAL-00000010"
        }
        assert _by_id(await rows(world, "license_allocations"), "LAL-00000010") == {
            "id": "LAL-00000010",
            "license_id": "LIC-29471863",
            "employee_id": "WD-834765",
            "allocated_at": None,
            "allocated_by": "system",
            "is_active": True,
            "deallocated_at": None,
        }
        await ok(world, allocate, {"software_name": "Slack", "email": "david.kim@vdb.com"})
        for full in ("Tiny", "Nolimit"):
            message = await refused(world, allocate, {"software_name": full, "email": "david.kim@vdb.com"})
            assert message == "No licenses available in pool"


async def test_hardware_orders(seeded: World) -> None:
    order = {
        "device_type": "monitor",
        "device_model": "Dell P2425H",
        "quantity": "2",
        "expected_delivery_date": "2025-12-28T10:00:00Z",
        "ship_to_location": "1823 Elm Street, Minneapolis, MN 55401",
        "requester_email": EMMA,
        "ticket_id": "6",
    }
    assert await ok(seeded, "hardware_procurement_api_create_order", order) == {
        "order_id": "HW-ORDER-0000007",
        "status": "pending",
    }
    assert _by_id(await rows(seeded, "procurement_orders"), "HW-ORDER-0000007") == {
        "id": "HW-ORDER-0000007",
        "device_type": "monitor",
        "device_model": "Dell P2425H",
        "quantity": 2,
        "ship_to_location": "1823 Elm Street, Minneapolis, MN 55401",
        "requester_id": "WD-192638",
        "ticket_id": "6",
        "status": "pending",
        "created_at": None,
        "expected_delivery_date": "2025-12-28",
        "delivered_at": None,
    }


async def test_email_notifications(make_neobank_world: OpenWorld) -> None:
    leaving = {
        "id": "WD-900003",
        "email": "z.leaving@vdb.com",
        "full_name": "Z",
        "level": 3,
        "department": "sales",
        "role": "Rep",
        "office_location": "sf",
        "start_date": "2022-01-01T00:00:00Z",
        "employment_status": "departing",
    }
    async with make_neobank_world(patch={f"{MAIN}employees": [leaving]}) as world:
        alert = {
            "recipient_email": "sarah.jones@vdb.com",
            "notification_type": "post_facto_manager_alert",
            "subject": "Access granted",
            "body": "Daniel was granted temporary access.",
            "ticket_id": "6",
            "priority": "urgent",
            "cc_emails": "it.support@vdb.com, security@vdb.com",
        }
        assert await ok(world, "email_notification_api_send_notification", alert) == {
            "notification_id": "NTF-00000007",
            "delivery_status": "queued",
        }
        on_leave = {**alert, "recipient_email": "kevin.miller@vdb.com", "priority": None, "cc_emails": ""}
        await ok(world, "email_notification_api_send_notification", on_leave)
        emails = await rows(world, "email_notifications")
        assert _by_id(emails, "NTF-00000007") == {
            "id": "NTF-00000007",
            "recipient_id": "WD-681453",
            "recipient_email": "sarah.jones@vdb.com",
            "notification_type": "post_facto_manager_alert",
            "subject": "Access granted",
            "body": "Daniel was granted temporary access.",
            "ticket_id": "6",
            "priority": "urgent",
            "cc_emails": ["it.support@vdb.com", "security@vdb.com"],
            "sent_at": None,
            "delivery_status": "queued",
            "delivered_at": None,
            "sent_by": "system",
        }
        assert (_by_id(emails, "NTF-00000008")["priority"], _by_id(emails, "NTF-00000008")["cc_emails"]) == (
            "normal",
            None,
        )
        assert await refused(
            world,
            "email_notification_api_send_notification",
            {**alert, "recipient_email": "z.leaving@vdb.com"},
        ) == ("Recipient is inactive or on extended leave; notification not sent: z.leaving@vdb.com")


async def test_counter_ids_collide_with_patched_rows_in_each_tools_own_words(
    make_neobank_world: OpenWorld,
) -> None:
    taken = {
        f"{MAIN}okta_app_access": [
            {
                "id": "OAA-00000013",
                "employee_id": "WD-294817",
                "app_name": "Zoom",
                "access_level": "user",
                "granted_by": "x",
                "is_active": False,
            }
        ],
        f"{MAIN}approval_requests": [
            {
                "id": "APR-00000008",
                "request_type": "access_request",
                "requester_id": "WD-1",
                "approver_id": "WD-2",
                "status": "pending",
                "details": "x",
            }
        ],
        f"{MAIN}okta_security_audit": [
            {
                "id": "OSA-00000012",
                "employee_id": "WD-1",
                "operation": "unlock_account",
                "performed_by": "x",
                "performed_at": "2025-01-01T00:00:00Z",
                "reason": "r",
            }
        ],
        f"{MAIN}asset_assignments": [_assignment("ASN-00000009", "VDB-HW-1", is_active=False)],
    }
    async with make_neobank_world(patch=taken) as world:
        grant = {"email": EMMA, "app_name": "Zoom", "access_level": "user"}
        assert (
            await refused(world, "okta_api_provision_access", grant)
            == "Object with ID OAA-00000013 already exists"
        )
        request = {
            "request_type": "access_request",
            "requester_email": EMMA,
            "approver_email": "sarah.jones@vdb.com",
            "details": "d",
        }
        assert await refused(world, "approval_api_create_request", request) == (
            "Failed to create approval request: Object with ID APR-00000008 already exists"
        )
        unlock = {"email": EMMA, "operation": "unlock_account"}
        assert await refused(world, "okta_security_api_execute_action", unlock) == (
            "Failed to execute security action: Object with ID OSA-00000012 already exists"
        )
        assign = {"asset_id": "VDB-HW-31854", "email": EMMA}
        assert await refused(world, "asset_management_api_assign_device", assign) == (
            "Object with ID ASN-00000009 already exists"
        )
        monitor = _by_id(await rows(world, "hardware_assets"), "VDB-HW-31854")
        assert monitor["is_assigned"] is False
