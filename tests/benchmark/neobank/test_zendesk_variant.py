"""The neobank's Zendesk: custom ticket fields, comma-separated lists, the status audit, OData, hashing."""

from __future__ import annotations

from typing import Any

from benchmark.domains import Domain
from benchmark.world import World
from tests.benchmark.helpers import ok, refused, rows, violation
from tests.benchmark.neobank.conftest import OpenWorld

CUSTOM = {
    "resolution_category": "provisioned",
    "owner": "it_sec_team",
    "access_expiry_date": "2025-12-31T00:00:00Z",
    "approval_required": "yes",
    "approval_status": "pending",
    "approver_id": "WD-926473,WD-753918",
    "approval_request_ids": "APR-00000007,APR-00000008",
    "business_justification": "SEV1 incident",
    "incident_severity": "sev1_critical",
    "customer_impact": "yes_active",
    "asset_id": "VDB-HW-29417",
}


async def _ticket(world: World, ticket_id: str) -> dict[str, Any]:
    return next(t for t in await rows(world, "zendesk_tickets") if t["id"] == ticket_id)


async def test_tickets_carry_the_custom_fields_and_normalised_tags(seeded: World) -> None:
    item = {
        "subject": "Access",
        "status": "open",
        "tags": "Escalated, Production_Access,temporary_access ",
        **CUSTOM,
    }
    created = (await ok(seeded, "zendesk_create_item", {"table": "tickets", "item": item}))["item"]
    assert created["id"] == "6"
    assert created["tags"] == ["escalated", "production_access", "temporary_access"]
    assert {k: created[k] for k in CUSTOM} == CUSTOM
    assert (created["created_at"], created["updated_at"]) == ("2025-10-01T13:00:05Z", "2025-10-01T13:00:05Z")
    assert await _ticket(seeded, "6") == created
    empty = await ok(
        seeded, "zendesk_create_item", {"table": "tickets", "item": {"subject": "S", "tags": ""}}
    )
    assert empty["item"]["tags"] == []
    gaps = {"subject": "S", "status": "open", "tags": "a,,B"}
    assert (await ok(seeded, "zendesk_create_item", {"table": "tickets", "item": gaps}))["item"]["tags"] == [
        "",
        "a",
        "b",
    ]


async def test_tags_are_text_not_lists(seeded: World) -> None:
    message = await refused(
        seeded, "zendesk_create_item", {"table": "tickets", "item": {"subject": "S", "tags": ["a", "b"]}}
    )
    assert message.startswith(
        "Input validation failed: item.TicketCreateInput.tags: Input should be a valid string"
    )
    invalid = {"subject": "S", "resolution_category": "magic"}
    message = await refused(seeded, "zendesk_create_item", {"table": "tickets", "item": invalid})
    assert message.startswith(
        "Input validation failed: item.TicketCreateInput.resolution_category: Input should be 'provisioned'"
    )


async def test_updates_normalise_new_tags_keep_stored_ones_and_ignore_nulls(
    make_neobank_world: OpenWorld,
) -> None:
    legacy = {
        "id": "1",
        "subject": "Printer",
        "status": "open",
        "tags": ["Legacy Tag"],
        "created_at": "2025-01-15T10:00:00Z",
        "updated_at": "2025-01-15T10:00:00Z",
    }
    async with make_neobank_world(patch={"zendesk_tickets": [legacy]}) as world:
        kept = await ok(
            world, "zendesk_update_item", {"table": "tickets", "id": "1", "item": {"priority": "low"}}
        )
        assert kept["item"]["tags"] == ["Legacy Tag"]
        assert kept["item"]["updated_at"] == "2025-10-01T13:00:10Z"
        changes = {"tags": "Zed,alpha", "status": None, "owner": None, "approval_status": "approved"}
        updated = await ok(world, "zendesk_update_item", {"table": "tickets", "id": "1", "item": changes})
        assert updated["item"]["tags"] == ["alpha", "zed"]
        assert (updated["item"]["status"], updated["item"]["approval_status"]) == ("open", "approved")
        cleared = await ok(
            world, "zendesk_update_item", {"table": "tickets", "id": "1", "item": {"tags": ""}}
        )
        assert cleared["item"]["tags"] == []
        # an invalid value makes the payload fall to another union member with no fields: nothing changes
        bad = {"table": "tickets", "id": "1", "item": {"owner": "nobody", "tags": "x"}}
        ignored = await ok(world, "zendesk_update_item", bad)
        assert (ignored["item"]["owner"], ignored["item"]["tags"]) == (None, [])


async def test_organization_domain_names_are_comma_separated(seeded: World) -> None:
    create = {"table": "organizations", "item": {"name": "Acme", "domain_names": "acme.com, acme.net"}}
    assert (await ok(seeded, "zendesk_create_item", create))["item"]["domain_names"] == [
        "acme.com",
        "acme.net",
    ]
    none = {"table": "organizations", "item": {"name": "Blank", "domain_names": None}}
    assert (await ok(seeded, "zendesk_create_item", none))["item"]["domain_names"] == []
    update = {"table": "organizations", "id": "6", "item": {"domain_names": "acme.org"}}
    assert (await ok(seeded, "zendesk_update_item", update))["item"]["domain_names"] == ["acme.org"]
    rename = {"table": "organizations", "id": "1", "item": {"name": "Renamed"}}
    assert (await ok(seeded, "zendesk_update_item", rename))["item"]["domain_names"] == ["techcorp.com"]
    listed = {"table": "organizations", "item": {"name": "Listed", "domain_names": ["x.com"]}}
    assert "item.OrganizationCreateInput.domain_names: Input should be a valid string" in await refused(
        seeded, "zendesk_create_item", listed
    )


async def test_a_ticket_created_other_than_open_is_audited(seeded: World) -> None:
    for status in ("open", None, "solved"):
        item: dict[str, Any] = {"subject": "S"} if status is None else {"subject": "S", "status": status}
        await ok(seeded, "zendesk_create_item", {"table": "tickets", "item": item})
    await ok(seeded, "zendesk_update_item", {"table": "tickets", "id": "7", "item": {"status": "open"}})
    violations = await rows(seeded, "zendesk_ticket_status_violations")
    assert violations[5:] == [
        violation(6, "7", "new"),
        violation(7, "8", "solved"),
    ]


async def test_a_taken_violation_id_fails_the_call_but_keeps_the_ticket(
    make_neobank_world: OpenWorld,
) -> None:
    taken = {"id": "VIOLATION-7", "ticket_id": "1", "created_status": "new", "created_at": "x"}
    async with make_neobank_world(patch={"zendesk_ticket_status_violations": [taken]}) as world:
        create = {"table": "tickets", "item": {"subject": "S", "status": "hold"}}
        assert (
            await refused(world, "zendesk_create_item", create) == "Object with ID VIOLATION-7 already exists"
        )
        assert (await _ticket(world, "6"))["status"] == "hold"
        assert len(await rows(world, "zendesk_ticket_status_violations")) == 6


async def test_get_items_evaluates_ne_ge_and_le(seeded: World) -> None:
    def ids(reply: dict[str, Any]) -> list[str]:
        return [item["id"] for item in reply["items"]]

    not_open = await ok(seeded, "zendesk_get_items", {"table": "tickets", "$filter": "status ne 'open'"})
    assert "1" not in ids(not_open)
    assert ids(not_open)
    upper = await ok(
        seeded, "zendesk_get_items", {"table": "tickets", "$filter": "id ge '4'", "$select": "id"}
    )
    assert upper == {"items": [{"id": "4"}, {"id": "5"}]}
    lower = await ok(seeded, "zendesk_get_items", {"table": "tickets", "$filter": "id le '2'"})
    assert ids(lower) == ["1", "2"]
    assert await refused(
        seeded, "zendesk_get_items", {"table": "tickets", "$filter": "due_at ge '2025'"}
    ) == ("Failed to parse OData filter: '>=' not supported between instances of 'NoneType' and 'str'")
    assert await ok(seeded, "zendesk_search_articles", {"query": "password"}) == {"results": []}


def test_free_text_ticket_fields_are_not_hashed(neobank: Domain) -> None:
    specs = neobank.specs
    assert specs["zendesk_tickets"].unstable == {
        "subject",
        "description",
        "access_expiry_date",
        "business_justification",
    }
    main = "sandbox_neobank_support_main_models_"
    assert specs[f"{main}approval_requests"].unstable == {"details"}
    assert specs[f"{main}email_notifications"].unstable == {"subject", "body"}
    assert specs["zendesk_ticket_status_violations"].unstable == frozenset()
