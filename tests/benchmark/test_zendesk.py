"""The seven Zendesk tools as configured for retail: success paths, validation errors, refusals."""

from __future__ import annotations

from benchmark.world import World
from tests.benchmark.helpers import ok, refused, rows

UNSUPPORTED = (
    "Unsupported table: 'views'. "
    "Only tickets, users, organizations, comments, and ticket_comments are supported."
)


async def test_create_item_numbers_rows_and_freezes_the_clock(seeded: World) -> None:
    created = await ok(
        seeded,
        "zendesk_create_item",
        {
            "table": "tickets",
            "item": {"subject": "Late parcel", "status": "open", "tags": None, "requester_id": "1"},
        },
    )
    ticket = created["item"]
    assert ticket["id"] == "6"
    assert ticket["tags"] == []
    assert ticket["created_at"] == ticket["updated_at"] == "2025-10-01T13:00:05Z"
    assert ticket["description"] is None
    comment = await ok(
        seeded,
        "zendesk_create_item",
        {"table": "ticket_comments", "item": {"ticket_id": 6, "author_id": 1, "body": "hi"}},
    )
    assert comment["item"]["id"] == 23118465221921
    assert comment["item"]["key"] == "23118465221921"
    assert comment["item"]["html_body"] == '<div class="zd-comment" dir="auto"><p dir="auto">hi</p></div>'


async def test_the_item_union_decides_which_fields_are_written(seeded: World) -> None:
    message = await refused(
        seeded, "zendesk_create_item", {"table": "tickets", "item": {"name": "X", "email": "x@y"}}
    )
    assert message.startswith(
        "Failed to create item: 1 validation error for Ticket\nsubject\n  Field required"
    )
    text = await refused(seeded, "zendesk_create_item", {"table": "tickets", "item": {"subject": ""}})
    assert text.startswith(
        "Input validation failed: item.TicketCreateInput.subject: String should have at least 1"
    )


async def test_create_item_refusals(seeded: World) -> None:
    assert (
        await refused(seeded, "zendesk_create_item", {"table": "views", "item": {"name": "x"}}) == UNSUPPORTED
    )
    assert (await refused(seeded, "zendesk_create_item", {"table": "nope", "item": {}})).startswith(
        "Input validation failed: table: Input should be 'activities'"
    )


async def test_update_item_merges_clears_tags_on_null_and_stamps(seeded: World) -> None:
    updated = await ok(
        seeded,
        "zendesk_update_item",
        {"table": "tickets", "id": "1", "item": {"status": "solved", "tags": None, "priority": None}},
    )
    ticket = updated["item"]
    assert ticket["status"] == "solved"
    assert ticket["tags"] == []
    assert ticket["priority"] == "high"
    assert ticket["updated_at"] == "2025-10-01T13:00:10Z"
    user = await ok(seeded, "zendesk_update_item", {"table": "users", "id": "2", "item": {"name": "Jane S."}})
    assert user["item"]["updated_at"] == "2025-10-01T13:00:05Z"


async def test_update_and_delete_refusals(seeded: World) -> None:
    assert (
        await refused(
            seeded, "zendesk_update_item", {"table": "tickets", "id": "404", "item": {"status": "open"}}
        )
        == "Item with ID '404' not found in table 'tickets'"
    )
    assert (
        await refused(
            seeded, "zendesk_update_item", {"table": "ticket_comments", "id": "1", "item": {"body": "x"}}
        )
        == "The value is not updatable. Ticket comments cannot be modified."
    )
    assert (
        await refused(seeded, "zendesk_delete_item", {"table": "ticket_comments", "id": "1"})
        == "The value is not updatable. Ticket comments cannot be deleted."
    )
    assert (
        await refused(seeded, "zendesk_delete_item", {"table": "tickets", "id": "404"})
        == "Item with ID '404' not found in table 'TableName.TICKETS'"
    )
    assert (await refused(seeded, "zendesk_update_item", {"table": "users", "id": "1"})).startswith(
        "Input validation failed: item: Field required"
    )
    assert (await refused(seeded, "zendesk_delete_item", {"table": "tickets"})).startswith(
        "Input validation failed: id: Field required"
    )


async def test_delete_and_get_item(seeded: World) -> None:
    assert await ok(seeded, "zendesk_delete_item", {"table": "comments", "id": "1"}) == {"success": True}
    assert [c["id"] for c in await rows(seeded, "zendesk_comments")] == ["2", "3", "4", "5"]
    again = {"table": "comments", "item": {"ticket_id": "1", "author_id": "1", "body": "x"}}
    assert await refused(seeded, "zendesk_create_item", again) == "Object with ID 5 already exists"
    item = await ok(seeded, "zendesk_get_item", {"table": "ticket_comments", "id": "23118465221916"})
    assert item["item"]["ticket_id"] == 1
    assert (
        await refused(seeded, "zendesk_get_item", {"table": "ticket_comments", "id": "023118465221916"})
        == "Item with ID '023118465221916' not found in table 'TableName.TICKET_COMMENTS'"
    )
    assert (await refused(seeded, "zendesk_get_item", {"table": "tickets"})).startswith(
        "Input validation failed: id: Field required"
    )


async def test_get_items_filters_orders_pages_and_projects(seeded: World) -> None:
    found = await ok(seeded, "zendesk_get_items", {"table": "tickets", "$filter": "requester_id eq '1'"})
    assert [t["id"] for t in found["items"]] == ["1", "4"]
    everything = await ok(seeded, "zendesk_get_items", {"table": "tickets", "$filter": "status ne 'open'"})
    assert len(everything["items"]) == 5
    page = await ok(
        seeded,
        "zendesk_get_items",
        {
            "table": "users",
            "$orderby": "name desc",
            "$top": 2,
            "$skip": 1,
            "$select": "id, name",
            "unknown": 1,
        },
    )
    assert page["items"] == [{"id": "2", "name": "Jane Smith"}, {"id": "3", "name": "Bob Johnson"}]


async def test_get_items_refusals(seeded: World) -> None:
    assert await refused(seeded, "zendesk_get_items", {"table": "views"}) == UNSUPPORTED
    assert (
        await refused(seeded, "zendesk_get_items", {"table": "tickets", "$filter": 'status eq "open"'})
    ).startswith("Failed to parse OData filter: Failed to tokenize at:")
    assert (
        await refused(
            seeded, "zendesk_get_items", {"table": "tickets", "$filter": "created_at gt 2025-01-01"}
        )
    ) == "Failed to parse OData filter: '>' not supported between instances of 'str' and 'Date'"
    assert (await refused(seeded, "zendesk_get_items", {"table": "tickets", "$top": 0})).startswith(
        "Input validation failed: $top: Input should be greater than or equal to 1"
    )


async def test_get_tables(seeded: World) -> None:
    """It takes no arguments and ignores any (as the reference does), so it can neither fail nor refuse."""
    tables = (await ok(seeded, "zendesk_get_tables", {"anything": 1}))["value"]
    assert len(tables) == 18
    assert {"Name": "ticket_comments", "DisplayName": "Ticket Comments"} in tables


async def test_search_articles(seeded: World) -> None:
    hits = await ok(seeded, "zendesk_search_articles", {"query": "return"})
    assert [a["id"] for a in hits["results"]] == [10001, 10002, 10005]
    phrase = await ok(seeded, "zendesk_search_articles", {"query": '"restocking fees" -eligibility'})
    assert [a["id"] for a in phrase["results"]] == [10002]
    labelled = await ok(
        seeded, "zendesk_search_articles", {"query": "warranty", "label_names": "coverage, nothing"}
    )
    assert [a["id"] for a in labelled["results"]] == [10005]
    assert (await refused(seeded, "zendesk_search_articles", {"brand_id": 1})).startswith(
        "Input validation failed: query: Field required"
    )
