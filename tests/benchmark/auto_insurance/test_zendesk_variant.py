"""HorizonShield's Zendesk: custom ticket fields, nulls ignored, ne/ge/le filters, the violation trap."""

from __future__ import annotations

from typing import Any

from benchmark.world import World
from tests.benchmark.auto_insurance.conftest import OpenWorld
from tests.benchmark.helpers import ok, refused, rows, violation

TICKET: dict[str, Any] = {
    "subject": "Payment extension",
    "description": "Customer asks for more time.",
    "priority": "normal",
    "type": "task",
    "requester_id": "847291",
    "assignee_id": "585",
    "request_category": "Billing & Payments",
    "internal_review_type": "Not Required",
    "escalation_level": "Standard",
    "user_type": "Named Insured",
}


async def _create(world: World, **fields: Any) -> dict[str, Any]:
    reply = await ok(world, "zendesk_create_item", {"table": "tickets", "item": {**TICKET, **fields}})
    item: dict[str, Any] = reply["item"]
    return item


async def test_custom_fields_are_stored_and_nulls_in_updates_change_nothing(maria: World) -> None:
    created = await _create(maria, status="open", tags=None, outcome_summary=None)
    assert created["id"] == "6"
    assert created["tags"] == []
    assert created["request_category"] == "Billing & Payments"
    assert created["created_at"] == created["updated_at"] == "2025-10-01T13:00:05Z"
    updated = await ok(
        maria,
        "zendesk_update_item",
        {
            "table": "tickets",
            "id": "6",
            "item": {
                **TICKET,
                "status": "solved",
                "outcome_summary": "Completed",
                "tags": None,
                "user_type": None,
            },
        },
    )
    assert updated["item"]["outcome_summary"] == "Completed"
    assert updated["item"]["user_type"] == "Named Insured"
    assert updated["item"]["updated_at"] == "2025-10-01T13:00:10Z"
    sparse = await ok(
        maria,
        "zendesk_update_item",
        {"table": "tickets", "id": "6", "item": {"effective_date_of_change": "2025-10-11"}},
    )
    assert sparse["item"]["effective_date_of_change"] == "2025-10-11"
    assert sparse["item"]["status"] == "solved"


async def test_an_open_ticket_leaves_no_trace_in_the_violations_table(maria: World) -> None:
    before = await rows(maria, "zendesk_ticket_status_violations")
    await _create(maria, status="open")
    assert await rows(maria, "zendesk_ticket_status_violations") == before


async def test_any_other_status_on_create_is_recorded_as_a_violation(maria: World) -> None:
    await _create(maria)
    await _create(maria, status="pending")
    await _create(maria, status="open")
    violations = await rows(maria, "zendesk_ticket_status_violations")
    assert violations[-2:] == [
        violation(6, "6", "new"),
        violation(7, "7", "pending"),
    ]
    await ok(maria, "zendesk_update_item", {"table": "tickets", "id": "7", "item": {"status": "open"}})
    assert len(await rows(maria, "zendesk_ticket_status_violations")) == 7


async def test_a_taken_violation_id_fails_the_call_but_keeps_the_ticket(
    make_auto_world: OpenWorld, extension_task: Any
) -> None:
    taken = {"id": "VIOLATION-7", "ticket_id": "x", "created_status": "new", "created_at": "2025-01-01"}
    patch = {**extension_task.data_patch, "zendesk_ticket_status_violations": [taken]}
    async with make_auto_world(patch=patch) as world:
        message = await refused(
            world, "zendesk_create_item", {"table": "tickets", "item": {**TICKET, "status": "closed"}}
        )
        assert message == "Object with ID VIOLATION-7 already exists"
        assert (await rows(world, "zendesk_tickets"))[-1]["id"] == "6"
        assert [v["ticket_id"] for v in await rows(world, "zendesk_ticket_status_violations")][-1] == "x"


async def test_the_violations_table_is_hidden_from_the_zendesk_tools(maria: World) -> None:
    message = await refused(maria, "zendesk_get_items", {"table": "ticket_status_violations"})
    assert message.startswith("Input validation failed: table: Input should be 'activities'")


async def test_filters_evaluate_ne_ge_and_le(maria: World) -> None:
    await _create(maria, status="open")
    await _create(maria, status="pending")
    not_open = await ok(maria, "zendesk_get_items", {"table": "tickets", "$filter": "status ne 'open'"})
    assert [t["status"] for t in not_open["items"]] == ["hold", "solved", "solved", "pending", "pending"]
    newest = await ok(
        maria,
        "zendesk_get_items",
        {"table": "tickets", "$filter": "id ge '6' and status le 'open'", "$select": "id,status"},
    )
    assert newest["items"] == [{"id": "6", "status": "open"}]
    message = await refused(maria, "zendesk_get_items", {"table": "tickets", "$filter": "due_at ge '2025'"})
    assert (
        message
        == "Failed to parse OData filter: '>=' not supported between instances of 'NoneType' and 'str'"
    )
