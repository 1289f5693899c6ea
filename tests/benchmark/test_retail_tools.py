"""Every retail tool: its success path, a validation error and its business-rule refusals.

Worlds here hold only the domain's seed rows (an empty patch); messages are
the reference's, verbatim.
"""

from __future__ import annotations

import pytest

from benchmark.world import World
from tests.benchmark.conftest import RETAIL, OpenWorld
from tests.benchmark.helpers import error_reply, ok, refused, rows
from tests.benchmark.tool_cases import Case, tool_case_tests

ADDRESS = {
    "shipping_address_line1": "1 Main St",
    "shipping_address_city": "Memphis",
    "shipping_address_state": "TN",
    "shipping_address_zip": "38103",
}
REPLACEMENT = {
    "original_order_id": "ORD-10000001",
    "customer_id": "CUS-10000001",
    "sku": "SKU-10000001",
    "quantity": 1,
    "shipping_speed": "expedited",
    **ADDRESS,
}
RESHIP = {
    "order_id": "ORD-10000001",
    "corrected_address_line1": "2 Oak Ave",
    "corrected_address_city": "Nashville",
    "corrected_address_state": "TN",
    "corrected_address_zip": "37201",
    "customer_fault": True,
}
RMA = {
    "order_id": "ORD-10000003",
    "line_item_id": "LIN-10000003",
    "customer_id": "CUS-10000003",
    "return_reason": "changed_mind",
    "refund_amount": 85.0,
    "restocking_fee": 15.0,
    "return_shipping_cost": 0.0,
    "removal_fee": 0.0,
}


VALIDATION_CASES: list[Case] = [
    ("get_order", {}, "Input validation failed: order_id: Field required"),
    (
        "cancel_order",
        {"order_id": "ORD-10000001", "cancellation_reason": "bored"},
        "cancellation_reason: Input should be",
    ),
    (
        "create_replacement_order",
        {**REPLACEMENT, "quantity": "two"},
        "quantity: Input should be a valid integer",
    ),
    ("get_shipment_tracking", {"order_id": 5}, "order_id: Input should be a valid string"),
    (
        "reship_order",
        {**RESHIP, "customer_fault": "maybe"},
        "customer_fault: Input should be a valid boolean",
    ),
    ("update_order_address", {"order_id": "ORD-10000001"}, "new_address_line1: Field required"),
    (
        "update_shipping_speed",
        {"order_id": "ORD-10000001", "new_shipping_speed": "warp"},
        "new_shipping_speed",
    ),
    (
        "charge_customer",
        {"order_id": "O", "customer_id": "C", "amount": "lots", "charge_reason": "reship_fee"},
        "amount",
    ),
    (
        "create_refund",
        {"order_id": "O", "customer_id": "C", "amount": 1, "refund_reason": "why"},
        "refund_reason",
    ),
    ("get_payment_status", {"order": "ORD-10000001"}, "order: Extra inputs are not permitted"),
    ("check_warranty_coverage", {"order_id": "ORD-10000001"}, "sku: Field required"),
    (
        "file_warranty_claim",
        {"contract_id": "W", "customer_id": "C", "warranty_issue_type": "broken"},
        "warranty_issue",
    ),
    ("get_installation_job", {"job_id": 7}, "job_id: Input should be a valid string"),
    (
        "cancel_installation",
        {"job_id": "JOB-10000001", "cancellation_reason": "customer_wants_ship_only"},
        "order_id",
    ),
    (
        "reschedule_installation",
        {"job_id": "JOB-10000001", "new_scheduled_date": "soon", "reschedule_reason": "customer_request"},
        "new_scheduled_date: Input should be a valid datetime or date",
    ),
    ("create_rma", {**RMA, "refund_amount": None}, "refund_amount: Input should be a valid number"),
    ("get_rma_status", {}, "rma_id: Field required"),
    ("check_inventory", {"sku": ["SKU-10000001"]}, "sku: Input should be a valid string"),
    ("get_discount_application", {}, "order_id: Field required"),
    ("get_promotion_details", {"code": "WELCOME10"}, "promo_code: Field required"),
    ("get_customer_profile", {"customer_id": 1}, "customer_id: Input should be a valid string"),
    ("get_membership_details", {}, "customer_id: Field required"),
    (
        "update_membership_status",
        {"customer_id": "CUS-10000001", "action": "pause"},
        "action: Input should be",
    ),
    (
        "add_points_to_balance",
        {"customer_id": "C", "points_to_add": 1.5, "points_reason": "manual_adjustment"},
        "points",
    ),
    ("get_product_details", {"sku": None}, "sku: Input should be a valid string"),
    ("search_policy", {"query": "returns", "max_results": "all"}, "max_results"),
]


REFUSALS: list[Case] = [
    ("get_order", {"order_id": "ORD-404"}, "Order not found: ORD-404"),
    (
        "cancel_order",
        {"order_id": "ORD-404", "cancellation_reason": "customer_request"},
        "Order not found: ORD-404",
    ),
    (
        "create_replacement_order",
        {**REPLACEMENT, "sku": "SKU-10000002"},
        "Product out of stock - cannot create replacement order for SKU SKU-10000002. "
        "Available quantity is 0.",
    ),
    (
        "create_replacement_order",
        {**REPLACEMENT, "sku": "SKU-404"},
        "Product out of stock - cannot create replacement order for SKU SKU-404. Available quantity is 0.",
    ),
    (
        "get_shipment_tracking",
        {"order_id": "ORD-404"},
        "No shipment found for order: ORD-404 (may not be shipped yet)",
    ),
    ("reship_order", {**RESHIP, "order_id": "ORD-404"}, "Order not found: ORD-404"),
    (
        "update_order_address",
        {
            "order_id": "ORD-404",
            "new_address_line1": "a",
            "new_address_city": "b",
            "new_address_state": "c",
            "new_address_zip": "d",
        },
        "Order not found: ORD-404",
    ),
    (
        "update_shipping_speed",
        {"order_id": "ORD-404", "new_shipping_speed": "next_day"},
        "Order not found: ORD-404",
    ),
    (
        "create_refund",
        {"order_id": "ORD-404", "customer_id": "C", "amount": 5, "refund_reason": "order_cancelled"},
        "Original payment transaction not found for order: ORD-404",
    ),
    ("get_payment_status", {"order_id": "ORD-404"}, "No payment transaction found for order: ORD-404"),
    (
        "file_warranty_claim",
        {"contract_id": "WCT-404", "customer_id": "C", "warranty_issue_type": "component_failed"},
        "Warranty contract not found: WCT-404",
    ),
    ("get_installation_job", {}, "Either job_id or order_id must be provided"),
    ("get_installation_job", {"order_id": "ORD-404"}, "Installation job not found: ORD-404"),
    (
        "cancel_installation",
        {"job_id": "JOB-404", "order_id": "O", "cancellation_reason": "product_incompatible"},
        "Installation job not found: JOB-404",
    ),
    (
        "reschedule_installation",
        {
            "job_id": "JOB-404",
            "new_scheduled_date": "2025-10-10T09:00:00Z",
            "reschedule_reason": "weather_delay",
        },
        "Installation job not found: JOB-404",
    ),
    ("get_rma_status", {"rma_id": "RMA-404"}, "RMA not found: RMA-404"),
    ("check_inventory", {"sku": "SKU-404"}, "SKU not found in inventory system: SKU-404"),
    ("get_promotion_details", {"promo_code": "SAVE20"}, "Promotion code not found or expired: SAVE20"),
    ("get_customer_profile", {}, "Either customer_id or email must be provided"),
    (
        "get_customer_profile",
        {"email": "nobody@example.com"},
        "Customer not found with provided identifier: nobody@example.com",
    ),
    (
        "get_membership_details",
        {"customer_id": "CUS-10000002"},
        "No active membership found for customer: CUS-10000002",
    ),
    (
        "update_membership_status",
        {"customer_id": "CUS-404", "action": "cancel"},
        "Customer not found: CUS-404",
    ),
    (
        "update_membership_status",
        {"customer_id": "CUS-10000001", "action": "upgrade"},
        "membership_type is required when action is upgrade",
    ),
    (
        "update_membership_status",
        {"customer_id": "CUS-10000002", "action": "cancel"},
        "No membership record found for customer: CUS-10000002",
    ),
    (
        "add_points_to_balance",
        {"customer_id": "CUS-10000002", "points_to_add": 100, "points_reason": "service_recovery"},
        "No membership record found for customer CUS-10000002. "
        "Customer must have a membership record to receive points.",
    ),
    ("get_product_details", {"sku": "SKU-404"}, "Product SKU not found: SKU-404"),
]


test_validation_errors, test_every_tool_has_a_validation_case, test_business_rule_refusals = tool_case_tests(
    RETAIL, VALIDATION_CASES, REFUSALS
)


async def test_errors_reach_the_agent_in_the_reference_envelope(seeded: World) -> None:
    assert await error_reply(seeded, "get_order", {"order_id": "ORD-404"}) == (
        '{"error": "Tool execution failed: Order not found: ORD-404", "tool": "get_order"}',
        "not_found",
    )


async def test_orders(seeded: World) -> None:
    order = await ok(seeded, "get_order", {"order_id": "ORD-10000002"})
    assert order["status"] == "processing"
    assert order["order_date"].endswith("+00:00")
    assert [item["id"] for item in order["line_items"]] == ["LIN-10000002"]
    cancelled = await ok(
        seeded, "cancel_order", {"order_id": "ORD-10000002", "cancellation_reason": "customer_request"}
    )
    assert cancelled == {"order_id": "ORD-10000002", "status": "cancelled", "refund_initiated": True}
    again = await ok(
        seeded, "cancel_order", {"order_id": "ORD-10000002", "cancellation_reason": "out_of_stock"}
    )
    assert again["refund_initiated"] is False
    moved = await ok(
        seeded,
        "update_order_address",
        {
            "order_id": "ORD-10000001",
            "new_address_line1": "9 Elm",
            "new_address_city": "Austin",
            "new_address_state": "TX",
            "new_address_zip": "73301",
        },
    )
    assert moved["address_updated"] is True
    speed = await ok(
        seeded, "update_shipping_speed", {"order_id": "ORD-10000001", "new_shipping_speed": "next_day"}
    )
    assert speed["new_shipping_speed"] == "next_day"
    order = next(o for o in await rows(seeded, "orders") if o["id"] == "ORD-10000001")
    assert order["shipping_address_city"] == "Austin"
    assert order["shipping_cost"] == 29.99
    assert order["total_amount"] == pytest.approx(
        order["subtotal_amount"] - order["discount_amount"] - order["points_value"] + 29.99
    )


async def test_replacement_orders_take_the_first_free_ids_and_decrement_stock(seeded: World) -> None:
    first = await ok(seeded, "create_replacement_order", REPLACEMENT)
    second = await ok(seeded, "create_replacement_order", REPLACEMENT)
    assert first == {"replacement_order_id": "ORD-20000001", "status": "processing", "total_amount": 0.0}
    assert second["replacement_order_id"] == "ORD-20000002"
    stock = await ok(seeded, "check_inventory", {"sku": "SKU-10000001"})
    assert stock["available_quantity"] == 13
    lines = [li for li in await rows(seeded, "order_line_items") if li["id"].startswith("LIN-2")]
    assert [li["id"] for li in lines] == ["LIN-20000001", "LIN-20000002"]
    order = next(o for o in await rows(seeded, "orders") if o["id"] == "ORD-20000001")
    assert order["order_date"] == "2025-10-01T13:00:05Z"
    assert order["shipping_speed"] == "expedited"


async def test_a_failed_replacement_keeps_its_stock_decrement(make_world: OpenWorld) -> None:
    orphan = {"sku": "SKU-ORPHAN", "available_quantity": 4, "reserved_quantity": 0}
    patch = {"external_retail_toolset_netsuite_models_inventory_records": [orphan]}
    async with make_world(patch=patch) as world:
        message = await refused(
            world, "create_replacement_order", {**REPLACEMENT, "sku": "SKU-ORPHAN", "quantity": 3}
        )
        assert message == "Product SKU not found: SKU-ORPHAN"
        stock = await ok(world, "check_inventory", {"sku": "SKU-ORPHAN"})
        assert stock["available_quantity"] == 1
        assert not any(o["id"].startswith("ORD-2") for o in await rows(world, "orders"))


async def test_shipments_and_reships(seeded: World) -> None:
    tracking = await ok(seeded, "get_shipment_tracking", {"order_id": "ORD-10000001"})
    assert tracking["tracking_status"] == "in_transit"
    assert tracking["tracking_number"] == "TRK-100000000001"
    reship = await ok(seeded, "reship_order", RESHIP)
    assert reship == {
        "order_id": "ORD-10000001",
        "new_shipment_id": "SHP-20000001",
        "new_tracking_number": "TRK-200000000001",
        "reship_cost": 15.0,
        "reship_initiated": True,
    }
    new_tracking = next(
        t for t in await rows(seeded, "carrier_tracking") if t["tracking_number"] == "TRK-200000000001"
    )
    assert new_tracking["status"] == "pending"
    assert new_tracking["estimated_delivery"] == "2025-10-06T13:00:05Z"


async def test_payments(seeded: World) -> None:
    status = await ok(seeded, "get_payment_status", {"order_id": "ORD-10000001"})
    assert status["transaction_id"] == "TXN-10000001"
    charge = await ok(
        seeded,
        "charge_customer",
        {
            "order_id": "ORD-10000001",
            "customer_id": "CUS-10000001",
            "amount": 15,
            "charge_reason": "shipping_upgrade",
        },
    )
    assert charge["transaction_id"] == "TXN-20000003"
    assert charge["status"] == "authorized"
    assert charge["transaction_date"] == "2025-10-01T13:00:05+00:00"
    refund = await ok(
        seeded,
        "create_refund",
        {
            "order_id": "ORD-10000001",
            "customer_id": "CUS-1",
            "amount": 20.5,
            "refund_reason": "discount_correction",
        },
    )
    assert refund == {
        "refund_id": "RFD-20000001",
        "transaction_id": "TXN-10000001",
        "amount": 20.5,
        "status": "pending",
        "refund_date": "2025-10-01T13:00:05+00:00",
    }


async def test_counter_ids_can_collide_with_patched_rows(make_world: OpenWorld) -> None:
    taken = {
        "id": "TXN-20000004",
        "order_id": "ORD-9",
        "customer_id": "CUS-9",
        "amount": 1,
        "status": "authorized",
        "payment_method": "Visa",
        "transaction_date": "2025-09-01T00:00:00Z",
    }
    patch = {"external_retail_toolset_stripe_models_payment_transactions": [taken]}
    async with make_world(patch=patch) as world:
        arguments = {"order_id": "ORD-1", "customer_id": "C", "amount": 5, "charge_reason": "reship_fee"}
        assert await refused(world, "charge_customer", arguments) == (
            "Failed to charge customer: Object with ID TXN-20000004 already exists"
        )


async def test_warranties_use_the_scenario_clock(seeded: World) -> None:
    valid = await ok(seeded, "check_warranty_coverage", {"order_id": "ORD-10000001", "sku": "SKU-10000001"})
    assert valid["has_coverage"] is True
    assert valid["contract_id"] == "WCT-10000001"
    expired = await ok(seeded, "check_warranty_coverage", {"order_id": "ORD-10000004", "sku": "SKU-10000004"})
    assert expired == {"has_coverage": False}
    claim = await ok(
        seeded,
        "file_warranty_claim",
        {
            "contract_id": "WCT-10000004",
            "customer_id": "CUS-10000001",
            "warranty_issue_type": "component_failed",
        },
    )
    assert claim == {
        "claim_id": "WCL-20000003",
        "status": "pending",
        "claim_date": "2025-10-01T13:00:05+00:00",
    }
    stored = next(c for c in await rows(seeded, "warranty_claims") if c["id"] == "WCL-20000003")
    assert stored["issue_description"] == "Component failed"


async def test_installations(seeded: World) -> None:
    by_order = await ok(seeded, "get_installation_job", {"order_id": "ORD-10000002"})
    assert by_order["job_id"] == "JOB-10000002"
    moved = await ok(
        seeded,
        "reschedule_installation",
        {
            "job_id": "JOB-10000002",
            "new_scheduled_date": "2025-10-10",
            "reschedule_reason": "workmanship_issue",
        },
    )
    assert moved["status"] == "scheduled"
    assert moved["new_scheduled_date"] == "2025-10-10T00:00:00"
    kept = await ok(
        seeded,
        "reschedule_installation",
        {
            "job_id": "JOB-10000001",
            "new_scheduled_date": "2025-10-12T09:00:00Z",
            "reschedule_reason": "weather_delay",
        },
    )
    assert kept["status"] == "scheduled"
    cancelled = await ok(
        seeded,
        "cancel_installation",
        {
            "job_id": "JOB-10000003",
            "order_id": "ORD-10000003",
            "cancellation_reason": "customer_wants_ship_only",
        },
    )
    assert cancelled["status"] == "cancelled"
    jobs = {j["id"]: j for j in await rows(seeded, "installation_jobs")}
    assert jobs["JOB-10000002"]["scheduled_date"] == "2025-10-10T00:00:00"
    assert jobs["JOB-10000001"]["scheduled_date"] == "2025-10-12T09:00:00Z"


async def test_returns(seeded: World) -> None:
    created = await ok(seeded, "create_rma", RMA)
    assert created == {
        "rma_id": "RMA-20000004",
        "status": "approved",
        "created_date": "2025-10-01T13:00:05+00:00",
    }
    status = await ok(seeded, "get_rma_status", {"rma_id": "RMA-20000004"})
    assert status["refund_amount"] == 85.0
    assert status["restocking_fee"] == 15.0
    stored = next(r for r in await rows(seeded, "rma_records") if r["id"] == "RMA-20000004")
    assert stored["is_defective"] is False


async def test_catalog_and_promotions(seeded: World) -> None:
    assert (await ok(seeded, "check_inventory", {"sku": "SKU-10000002"}))["available_quantity"] == 0
    assert (await ok(seeded, "get_product_details", {"sku": "SKU-10000001"}))["sku"] == "SKU-10000001"
    promo = await ok(seeded, "get_promotion_details", {"promo_code": "WELCOME10"})
    assert promo["promo_id"] == "PRM-10000004"
    application = await ok(seeded, "get_discount_application", {"order_id": "ORD-10012345"})
    assert application["discount_app_id"] == "DSC-10000001"
    empty = await ok(seeded, "get_discount_application", {"order_id": "ORD-404"})
    assert empty == {
        "discount_app_id": "",
        "order_id": "ORD-404",
        "points_used": 0,
        "loyalty_discount_applied": False,
        "total_discount_amount": 0.0,
    }


async def test_customers_and_membership(seeded: World) -> None:
    by_email = await ok(seeded, "get_customer_profile", {"email": "jane.doe@example.com"})
    assert by_email["id"] == "CUS-10000002"
    membership = await ok(seeded, "get_membership_details", {"customer_id": "CUS-10000001"})
    assert membership["points_balance"] == 2500
    points = await ok(
        seeded,
        "add_points_to_balance",
        {"customer_id": "CUS-10000001", "points_to_add": 250, "points_reason": "service_recovery"},
    )
    assert points == {
        "customer_id": "CUS-10000001",
        "old_balance": 2500,
        "points_added": 250,
        "new_balance": 2750,
    }
    upgraded = await ok(
        seeded,
        "update_membership_status",
        {"customer_id": "CUS-10000002", "action": "upgrade", "membership_type": "plus"},
    )
    assert upgraded == {
        "customer_id": "CUS-10000002",
        "membership_id": "MEM-20000001",
        "new_tier": "plus_member",
        "action_completed": "upgraded",
        "start_date": "2025-10-01T00:00:00+00:00",
        "end_date": "2026-10-01T23:59:59.999999+00:00",
    }
    cancelled = await ok(
        seeded, "update_membership_status", {"customer_id": "CUS-10000003", "action": "cancel"}
    )
    assert cancelled == {
        "customer_id": "CUS-10000003",
        "new_tier": "standard",
        "action_completed": "cancelled",
    }
    profiles = {p["id"]: p for p in await rows(seeded, "customer_profiles")}
    assert profiles["CUS-10000002"]["customer_tier"] == "plus_member"
    assert profiles["CUS-10000003"]["customer_tier"] == "standard"
