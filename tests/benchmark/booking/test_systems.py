"""Corporate, CRM, hotel partner, payments, look-ups and booking's Zendesk variant.

Worlds hold the domain's seed rows (12 tickets, 7 transactions) unless a
test patches more.
"""

from __future__ import annotations

from typing import Any

from benchmark.world import World
from tests.benchmark.booking.conftest import OpenBookingWorld
from tests.benchmark.helpers import ok, refused, rows

TRANSACTION = {
    "booking_reference": "BKG-00012345",
    "customer_id": "CUS-00000001",
    "amount": "10",
    "transaction_type": "charge",
    "payment_status": "successful",
    "created_at": "2025-11-01T10:00:00Z",
    "updated_at": "2025-11-01T10:00:00Z",
}
ESCALATION = {
    "hotel_id": "HTL-00012346",
    "booking_reference": "BKG-00012349",
    "issue_type": "guest-complaint",
    "description": "Noise at night",
}


async def _by_id(world: World, table: str, row_id: str) -> dict[str, Any]:
    return next(r for r in await rows(world, table) if r["id"] == row_id)


async def test_corporate_accounts(seeded: World) -> None:
    details = await ok(seeded, "corporate_api_get_account_details", {"corporate_account_id": "CRP-00012345"})
    assert details["account_data"]["table_name"] == "corporate_accounts"
    assert details["account_data"]["credit_limit"] == "200000.00"
    assert details["account_data"]["expiration_date"] == "2026-12-31T00:00:00Z"
    status = await ok(seeded, "corporate_api_verify_account_status", {"corporate_account_id": "CRP-00012345"})
    assert status == {
        "is_active": True,
        "expiration_date": "2026-12-31T00:00:00Z",
        "booking_limit_remaining": 49,
    }
    expired = await ok(
        seeded, "corporate_api_verify_account_status", {"corporate_account_id": "CRP-00024680"}
    )
    assert expired["is_active"] is False
    history = await ok(
        seeded, "corporate_api_get_corporate_booking_history", {"corporate_account_id": "CRP-00012345"}
    )
    assert [b["booking_reference"] for b in history["corporate_bookings"]] == ["BKG-00012349"]
    invoice = await ok(
        seeded,
        "corporate_api_generate_corporate_invoice",
        {"booking_reference": "BKG-00012349", "corporate_account_id": "CRP-00012345"},
    )
    assert invoice == {
        "invoice_url": "https://staybridge.com/corporate-invoices/CRP-00012345-BKG-00012349.pdf",
        "invoice_id": "INV-00012349-00012345",
        "payment_terms": "Net 60",
    }


async def test_customer_profiles_and_updates(seeded: World) -> None:
    profile = await ok(seeded, "crm_api_get_customer_profile", {"email": "ALICE.THOMPSON@gmail.com"})
    assert profile["customer_data"]["customer_id"] == "CUS-00000001"
    assert profile["customer_data"]["lifetime_value"] == "1200.5"
    vip = await ok(seeded, "crm_api_check_vip_status", {"customer_id": "CUS-00000001"})
    assert vip == {"vip_tier": "standard", "loyalty_program_status": "member"}
    preferences = await ok(seeded, "crm_api_get_customer_preferences", {"customer_id": "CUS-00000001"})
    assert preferences["preferences"] == ["high floor", "late checkout"]
    updated = await ok(
        seeded,
        "crm_api_update_customer_info",
        {
            "customer_id": "CUS-00000001",
            "last_booking_date": "2025-10-01T10:00:00+02:00",
            "complaint_count": 2,
            "special_notes": ["prefers e-mail"],
        },
    )
    assert updated == {
        "success": True,
        "updated_fields": ["special_notes", "complaint_count", "last_booking_date"],
    }
    stored = await _by_id(seeded, "customer_profiles", "CUS-00000001")
    assert stored["complaint_count"] == 2
    assert stored["last_booking_date"] == "2025-10-01T10:00:00+02:00"
    assert stored["updated_at"] == "2025-01-01T00:00:00Z"


async def test_hotel_info_and_contacts(seeded: World) -> None:
    info = await ok(seeded, "hotel_partner_api_get_hotel_info", {"hotel_id": "HTL-00012346"})
    assert info["hotel_data"]["id"] == "HTL-00000002"
    assert "escalation_contact" not in info["hotel_data"]
    contact = await ok(seeded, "hotel_partner_api_get_hotel_contact", {"hotel_id": "HTL-00012345"})
    assert contact["escalation_contact"] == "director@grandplaza.com"
    stay = {
        "check_in_date": "2025-12-15T15:00:00Z",
        "check_out_date": "2025-12-18T11:00:00Z",
        "room_type": "deluxe_room",
        "board_type": "with_breakfast",
        "adults_count": 2,
        "children_count": 0,
    }
    confirmed = await ok(
        seeded, "hotel_partner_api_verify_availability", {"hotel_id": "HTL-00012345", **stay}
    )
    assert confirmed == {
        "availability_confirmed": True,
        "confirmation_notes": "Confirmed availability for 3 nights. Minimum 5 rooms available.",
    }
    unknown = await ok(
        seeded,
        "hotel_partner_api_verify_availability",
        {"hotel_id": "HTL-00012345", **stay, "room_type": "suite"},
    )
    assert unknown["availability_confirmed"] is False


async def test_escalations_are_zendesk_tickets_that_shift_later_ticket_ids(seeded: World) -> None:
    first = await ok(seeded, "hotel_partner_api_escalate_to_hotel", ESCALATION)
    assert first == {
        "escalation_ticket_id": "ZDSK-00000001",
        "hotel_contact_email": "contact@citycenter.com",
        "hotel_contact_phone": first["hotel_contact_phone"],
    }
    second = await ok(
        seeded, "hotel_partner_api_escalate_to_hotel", {**ESCALATION, "hotel_id": "HTL-00012345"}
    )
    assert second["escalation_ticket_id"] == "ZDSK-00000002"
    assert second["hotel_contact_email"] == "director@grandplaza.com"
    ticket = await _by_id(seeded, "zendesk_tickets", "ZDSK-00000001")
    assert {k: ticket[k] for k in ("status", "priority", "type", "requester_id", "escalation_reason")} == {
        "status": "open",
        "priority": "high",
        "type": "incident",
        "requester_id": "CUS-00000003",
        "escalation_reason": "guest-complaint",
    }
    assert (ticket["subject"], ticket["created_at"]) == (
        "Hotel Escalation: guest-complaint",
        "2025-11-30T10:00:00Z",
    )
    assert ticket["refund_amount"] is None
    created = await ok(seeded, "zendesk_create_item", {"table": "tickets", "item": {"subject": "next"}})
    assert created["item"]["id"] == "15"


async def test_charges_refunds_and_disputes(seeded: World) -> None:
    charge = await ok(
        seeded,
        "payment_api_process_charge",
        {"booking_reference": "BKG-00012345", "charge_amount": "12.345", "reason": "modification_fee"},
    )
    assert charge == {"transaction_id": "TXN-00000008", "payment_status": "successful"}
    refund = await ok(
        seeded,
        "payment_api_process_refund",
        {"booking_reference": "BKG-00012345", "refund_amount": -20.005, "reason": "goodwill"},
    )
    assert refund == {
        "transaction_id": "TXN-00000009",
        "refund_status": "successful",
        "processing_time_estimate": "3-5 business days",
    }
    dispute = await ok(
        seeded,
        "payment_api_process_charge_dispute",
        {"transaction_id": "TXN-00000006", "dispute_reason": "not authorised", "dispute_amount": "900"},
    )
    assert dispute == {"dispute_case_id": "DSP-00000001", "dispute_status": "under_review"}
    stored = {t["id"]: t for t in await rows(seeded, "transactions")}
    assert (stored["TXN-00000008"]["amount"], stored["TXN-00000008"]["created_at"]) == (
        "12.35",
        "2025-11-25T10:00:00+00:00",
    )
    assert stored["TXN-00000009"]["amount"] == "-20.01"
    assert stored["DSP-00000001"]["customer_id"] == "CUS-00000003"
    assert (stored["DSP-00000001"]["payment_status"], stored["DSP-00000001"]["created_at"]) == (
        "pending",
        "2025-11-30T10:00:00+00:00",
    )
    status = await ok(seeded, "payment_api_check_payment_status", {"booking_reference": "BKG-00012345"})
    assert status == {"payment_status": "successful", "transaction_id": "TXN-00000008"}
    history = await ok(
        seeded,
        "payment_api_get_transaction_history",
        {"customer_id": "CUS-00000001", "booking_reference": "BKG-00012347"},
    )
    assert [t["id"] for t in history["transactions"]] == ["TXN-00000004", "TXN-00000003"]
    invoice = await ok(
        seeded,
        "payment_api_generate_invoice",
        {"booking_reference": "BKG-00012345", "invoice_type": "receipt"},
    )
    assert invoice["invoice_id"] == "INV-BKG-00012345-20251125100000"
    method = await ok(
        seeded,
        "payment_api_update_payment_method",
        {"customer_id": "CUS-00000001", "new_payment_method": "abc"},
    )
    assert method == {"success": True, "payment_method_last4": "****"}


async def test_counter_ids_can_collide_with_patched_rows(make_booking_world: OpenBookingWorld) -> None:
    taken = {**TRANSACTION, "id": "TXN-00000010", "transaction_id": "TXN-00000010"}
    dispute = {**TRANSACTION, "id": "DSP-00000001", "transaction_id": "DSP-00000001"}
    async with make_booking_world(patch={"payment_api_transactions": [taken, dispute]}) as world:
        before = await world.state()
        refund = {"booking_reference": "BKG-00012345", "refund_amount": 1, "reason": "r"}
        assert await refused(world, "payment_api_process_refund", refund) == (
            "Object with ID TXN-00000010 already exists"
        )
        arguments = {"transaction_id": "TXN-00000001", "dispute_reason": "r", "dispute_amount": 1}
        assert await refused(world, "payment_api_process_charge_dispute", arguments) == (
            "Object with ID DSP-00000001 already exists"
        )
        assert await world.state() == before


async def test_lookups_read_the_live_tables(seeded: World) -> None:
    hotels = await ok(seeded, "lookup_lookup_hotel_id", {"hotel_name": "nowhere", "location": "MIAMI"})
    assert hotels == {
        "results": [{"hotel_id": "HTL-00012348", "hotel_name": "Beach Resort Hotel", "location": "Miami"}]
    }
    account = await ok(
        seeded, "lookup_lookup_corporate_account_id", {"customer_email": "someone@ORBITIX.com"}
    )
    assert account == {
        "corporate_account_id": "CRP-00099999",
        "company_name": "Orbitix Industries",
        "account_tier": "small_business",
    }
    group = await ok(
        seeded,
        "lookup_lookup_group_booking_id",
        {"booking_reference": "BKG-404", "coordinator_email": "ALICE.JOHNSON@company.com"},
    )
    assert group == {
        "group_booking_id": "GRP-00012345",
        "total_rooms": 5,
        "coordinator_contact": "Alice Johnson <alice.johnson@company.com>",
    }
    valid = await ok(seeded, "lookup_validate_booking_reference", {"booking_reference": "BKG-00012346"})
    assert valid == {"is_valid": True, "booking_id": "BKG-00000002"}
    unknown = await ok(seeded, "lookup_validate_booking_reference", {"booking_reference": "BKG-99999999"})
    assert unknown == {"is_valid": False}
    assert len(await rows(seeded, "lookup_bookings")) == 5


async def test_ticket_tags_drop_three_values_and_the_reply_echoes_them(seeded: World) -> None:
    tags = ["VIP-Customer", "b", "B", "a", "repeat-issue"]
    created = await ok(
        seeded,
        "zendesk_create_item",
        {"table": "tickets", "item": {"subject": "s", "tags": tags, "refund_amount": 0}},
    )
    assert created["item"]["id"] == "13"
    assert created["item"]["tags"] == tags
    stored = await _by_id(seeded, "zendesk_tickets", "13")
    assert stored["tags"] == ["a", "B", "b"]
    assert stored["refund_amount"] == 0.0
    plain = await ok(
        seeded, "zendesk_create_item", {"table": "tickets", "item": {"subject": "t", "tags": None}}
    )
    assert (plain["item"]["tags"], plain["item"]["refund_amount"]) == ([], 0.0)
    updated = await ok(
        seeded,
        "zendesk_update_item",
        {
            "table": "tickets",
            "id": "13",
            "item": {"tags": ["Hotel-Partner-Escalation", "z"], "refund_amount": 12.5},
        },
    )
    assert updated["item"]["tags"] == ["Hotel-Partner-Escalation", "z"]
    assert (await _by_id(seeded, "zendesk_tickets", "13"))["tags"] == ["z"]


async def test_a_ticket_update_leaves_other_stored_fields_as_they_are(
    make_booking_world: OpenBookingWorld,
) -> None:
    raw = {
        "id": "TCK-RAW",
        "subject": "patched",
        "status": "open",
        "tags": ["vip-customer", "zeta", "alpha"],
        "created_at": "2025-09-28T10:00:00Z",
        "updated_at": "2025-09-28T10:00:00Z",
        "refund_amount": None,
    }
    async with make_booking_world(patch={"zendesk_tickets": [raw]}) as world:
        result = await ok(
            world,
            "zendesk_update_item",
            {
                "table": "tickets",
                "id": "TCK-RAW",
                "item": {"status": "solved", "tags": None, "refund_amount": None},
            },
        )
        assert result["item"]["tags"] == ["vip-customer", "zeta", "alpha"]
        stored = await _by_id(world, "zendesk_tickets", "TCK-RAW")
        assert (stored["status"], stored["refund_amount"]) == ("solved", None)
        assert stored["tags"] == ["vip-customer", "zeta", "alpha"]
        assert stored["updated_at"] == "2025-10-01T13:00:10Z"


async def test_get_items_evaluates_ne_ge_and_le(seeded: World) -> None:
    others = await ok(
        seeded, "zendesk_get_items", {"table": "tickets", "$filter": "status ne 'open'", "$select": "id"}
    )
    assert len(others["items"]) == 7
    low = await ok(
        seeded,
        "zendesk_get_items",
        {"table": "tickets", "$filter": "booking_reference eq 'BKG-00012348' and booking_value le 15000"},
    )
    assert [t["id"] for t in low["items"]] == ["TCK-10000004"]
    high = await ok(
        seeded,
        "zendesk_get_items",
        {"table": "tickets", "$filter": "booking_reference eq 'BKG-00012349' and booking_value ge 583.4"},
    )
    assert [t["id"] for t in high["items"]] == ["TCK-10000005", "TCK-10000010"]
    assert await refused(
        seeded, "zendesk_get_items", {"table": "tickets", "$filter": "booking_value ge 1"}
    ) == ("Failed to parse OData filter: '>=' not supported between instances of 'NoneType' and 'int'")
    assert await ok(seeded, "zendesk_search_articles", {"query": "refund"}) == {"results": []}


async def test_the_other_zendesk_tools_and_policy_search(seeded: World) -> None:
    item = await ok(seeded, "zendesk_get_item", {"table": "tickets", "id": "TCK-10000002"})
    assert (item["item"]["refund_amount"], item["item"]["request_type_detail"]) == (3218.75, "request-refund")
    assert await ok(seeded, "zendesk_delete_item", {"table": "users", "id": "USR-10000006"}) == {
        "success": True
    }
    assert len(await rows(seeded, "zendesk_users")) == 5
    tables = await ok(seeded, "zendesk_get_tables", {})
    assert {"Name": "tickets", "DisplayName": "Tickets"} in tables["value"]
    hits = await ok(
        seeded,
        "knowledge_base_search_policy",
        {"query": "cancellation refund for a premium hotel", "max_results": 2},
    )
    assert len(hits["snippets"]) == 2
    assert all(hit["text"] for hit in hits["snippets"])
