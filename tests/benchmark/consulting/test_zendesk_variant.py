"""Consulting's Zendesk: custom ticket fields, the VIOLATION-n audit, nulls, OData comparators, users."""

from __future__ import annotations

from benchmark.world import World
from tests.benchmark.consulting.conftest import OpenWorld
from tests.benchmark.helpers import ok, refused, rows, violation

CUSTOM_FIELDS = (
    "engagement_code",
    "approval_required",
    "approver_id",
    "asset_id",
    "catalog_id",
    "client_id",
    "expense_report_id",
    "course_id",
    "folder_id",
    "device_type",
    "hardware_order_id",
    "access_type",
    "license_pool",
)
VIOLATIONS = "zendesk_ticket_status_violations"


async def test_tickets_carry_the_custom_fields(seeded: World) -> None:
    item = {
        "subject": "Need laptop",
        "status": "open",
        "device_type": "laptop",
        "approval_required": "yes",
        "asset_id": "MSG1",
        "tags": ["hardware_request"],
    }
    created = (await ok(seeded, "zendesk_create_item", {"table": "tickets", "item": item}))["item"]
    assert created["id"] == "6"
    assert set(CUSTOM_FIELDS) <= set(created)
    assert (created["device_type"], created["approval_required"], created["license_pool"]) == (
        "laptop",
        "yes",
        None,
    )
    changes = {"status": "solved", "tags": None, "approver_id": "sarah.johnson@msg.com", "asset_id": None}
    updated = (await ok(seeded, "zendesk_update_item", {"table": "tickets", "id": "6", "item": changes}))[
        "item"
    ]
    assert updated["tags"] == ["hardware_request"]
    assert updated["asset_id"] == "MSG1"
    assert updated["approver_id"] == "sarah.johnson@msg.com"
    assert updated["updated_at"] == "2025-10-01T13:00:10Z"


async def test_a_custom_field_outside_its_vocabulary_is_refused_on_create(seeded: World) -> None:
    item = {"subject": "Bad", "status": "open", "device_type": "tablet"}
    message = await refused(seeded, "zendesk_create_item", {"table": "tickets", "item": item})
    assert message.startswith(
        "Input validation failed: item.TicketCreateInput.device_type: Input should be 'laptop', 'phone', "
    )


async def test_an_update_that_fits_no_ticket_payload_binds_to_another_member_and_changes_nothing(
    seeded: World,
) -> None:
    await ok(seeded, "zendesk_create_item", {"table": "tickets", "item": {"subject": "s", "status": "open"}})
    before = (await rows(seeded, "zendesk_tickets"))[-1]
    maybe = {"table": "tickets", "id": "6", "item": {"approval_required": "maybe"}}
    after = (await ok(seeded, "zendesk_update_item", maybe))["item"]
    assert after["approval_required"] is None
    assert {k: v for k, v in after.items() if k != "updated_at"} == {
        k: v for k, v in before.items() if k != "updated_at"
    }


async def test_tickets_not_created_open_are_recorded_as_violations(seeded: World) -> None:
    await ok(
        seeded, "zendesk_create_item", {"table": "tickets", "item": {"subject": "open", "status": "open"}}
    )
    await ok(seeded, "zendesk_create_item", {"table": "tickets", "item": {"subject": "no status"}})
    await ok(
        seeded, "zendesk_create_item", {"table": "tickets", "item": {"subject": "p", "status": "pending"}}
    )
    await ok(seeded, "zendesk_update_item", {"table": "tickets", "id": "6", "item": {"status": "hold"}})
    violations = await rows(seeded, VIOLATIONS)
    assert [v["id"] for v in violations] == [f"VIOLATION-{n}" for n in range(1, 8)]
    assert violations[5:] == [
        violation(6, "7", "new"),
        violation(7, "8", "pending"),
    ]


async def test_a_taken_violation_id_fails_the_call_after_the_ticket_is_stored(
    make_consulting_world: OpenWorld,
) -> None:
    taken = {
        "id": "VIOLATION-7",
        "ticket_id": "9",
        "created_status": "new",
        "created_at": "2024-01-01T00:00:00Z",
    }
    async with make_consulting_world(patch={VIOLATIONS: [taken]}) as world:
        hold = {"table": "tickets", "item": {"subject": "S", "status": "hold"}}
        assert (
            await refused(world, "zendesk_create_item", hold) == "Object with ID VIOLATION-7 already exists"
        )
        tickets = await rows(world, "zendesk_tickets")
        assert (tickets[-1]["id"], tickets[-1]["status"]) == ("6", "hold")
        assert len(await rows(world, VIOLATIONS)) == 6


async def test_get_items_evaluates_ne_ge_and_le(seeded: World) -> None:
    not_open = await ok(seeded, "zendesk_get_items", {"table": "tickets", "$filter": "status ne 'open'"})
    expected = [t["id"] for t in await rows(seeded, "zendesk_tickets") if t["status"] != "open"]
    assert [t["id"] for t in not_open["items"]] == expected
    assert 0 < len(expected) < 5
    window = await ok(seeded, "zendesk_get_items", {"table": "tickets", "$filter": "id ge '2' and id le '3'"})
    assert [t["id"] for t in window["items"]] == ["2", "3"]
    message = await refused(seeded, "zendesk_get_items", {"table": "tickets", "$filter": "due_at ge 'a'"})
    assert (
        message
        == "Failed to parse OData filter: '>=' not supported between instances of 'NoneType' and 'str'"
    )


async def test_patched_users_may_carry_a_numeric_organization_id(make_consulting_world: OpenWorld) -> None:
    user = {
        "id": "7",
        "name": "N",
        "email": "n@msg.com",
        "organization_id": 12,
        "created_at": "x",
        "updated_at": "y",
    }
    async with make_consulting_world(patch={"zendesk_users": [user]}) as world:
        stored = await ok(world, "zendesk_get_item", {"table": "users", "id": "7"})
        assert stored["item"]["organization_id"] == "12"
        again = {"table": "users", "item": {"name": "X", "email": "x@msg.com"}}
        assert await refused(world, "zendesk_create_item", again) == "Object with ID 7 already exists"
