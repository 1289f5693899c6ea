"""Wrong retail trajectories: a golden trajectory with one mistake an agent makes, and what the gate says.

Each :class:`Wrong` names the task (``ST006_001`` for
``sandbox_external_retail_group1.py:test_case_ST006_001``), the edit, the rule
that must block the commit and words its finding must contain (the record,
the field, the value found and what is allowed). :data:`MISSED` are real
mistakes the gate cannot see, each with the reason; they are replayed too, to
keep the count of caught and missed honest.
"""

from __future__ import annotations

import re

from tests.benchmark.retail_rules.conftest import RETAIL, add, chain, change, change_item, drop
from tests.benchmark.wrong_cases import Catalogue, Wording, WrongCase, WrongDomain, blocked, by_name, missed

__all__ = ["CASES", "WRONG_DOMAIN"]

CREATE, UPDATE = "zendesk_create_item", "zendesk_update_item"


def _ticket(subject: str, requester: str, **fields: object) -> dict[str, object]:
    item: dict[str, object] = {
        "subject": subject,
        "description": subject,
        "status": "open",
        "priority": "normal",
        "type": "incident",
        "requester_id": requester,
        "assignee_id": "2",
        "tags": None,
        "organization_id": None,
        "due_at": None,
    }
    return {"table": "tickets", "item": {**item, **fields}}


WRONG: dict[str, WrongCase] = {
    # --- tickets ------------------------------------------------------------------------------
    "blog case: carrier investigation solved instead of hold": blocked(
        "ST003_006",
        change_item(UPDATE, -1, status="solved"),
        "ticket-carrier-investigation-on-hold",
        ("ticket 20", "status 'solved'", "carrier investigation", "allowed: hold"),
    ),
    "ticket left open": blocked(
        "ST002_001",
        change_item(UPDATE, -1, status="open"),
        "ticket-status-at-resolution",
        ("ticket 6", "status 'open'", "allowed: pending, hold, solved"),
    ),
    "ticket closed by the agent": blocked(
        "ST025_003",
        change_item(UPDATE, -1, status="closed"),
        "ticket-status-at-resolution",
        ("ticket 7", "status 'closed'", "allowed: pending, hold, solved"),
    ),
    "ticket created as a question": blocked(
        "ST002_001",
        change_item(CREATE, type="question"),
        "ticket-type-incident",
        ("ticket 6", "type 'question'", "allowed: incident"),
    ),
    "ticket assigned to another agent": blocked(
        "ST013_001",
        change_item(CREATE, assignee_id="5"),
        "ticket-assignee",
        ("ticket 6", "assignee_id '5'", "allowed: 2"),
    ),
    "ticket created with tags": blocked(
        "ST025_001",
        change_item(UPDATE, -1, tags=["cancellation"]),
        "ticket-no-tags",
        ("ticket 6", "cancellation", "allowed: no tags"),
    ),
    "ticket created with an organization": blocked(
        "ST006_004",
        change_item(CREATE, organization_id="1"),
        "ticket-no-organization",
        ("ticket 6", "organization_id '1'", "allowed: no organization_id"),
    ),
    "ticket created with a due date": blocked(
        "ST029_001",
        change_item(CREATE, due_at="2025-10-03T17:00:00Z"),
        "ticket-no-due-date",
        ("ticket 6", "due_at '2025-10-03T17:00:00Z'", "allowed: no due_at"),
    ),
    "ticket created without priority": blocked(
        "ST002_001",
        change_item(CREATE, priority=None),
        "ticket-priority-set",
        ("ticket 6", "no priority"),
    ),
    "ticket for an unknown requester": blocked(
        "ST025_001",
        change_item(CREATE, requester_id="99999"),
        "ticket-requester-known",
        ("ticket 6", "requester_id '99999'"),
    ),
    "comment added to a ticket": blocked(
        "ST002_001",
        add(
            CREATE,
            {"table": "comments", "item": {"ticket_id": "6", "author_id": "2", "body": "Delay explained."}},
        ),
        "ticket-no-comments",
        ("comment", "allowed: no comments"),
    ),
    "ticket deleted": blocked(
        "ST006_002",
        add("zendesk_delete_item", {"table": "tickets", "id": "16"}),
        "ticket-not-deleted",
        ("ticket 16 deleted",),
    ),
    "RMA created but ticket solved": blocked(
        "ST006_004",
        change_item(UPDATE, -1, status="solved"),
        "ticket-hold-for-pending-work",
        ("ticket 6", "status 'solved'", "RMA-20000004", "ORD-10000004", "allowed: hold"),
    ),
    "RMA created but ticket pending": blocked(
        "ST006_017",
        change_item(UPDATE, -1, status="pending"),
        "ticket-hold-for-pending-work",
        ("ticket 15", "status 'pending'", "RMA-20000004", "allowed: hold"),
    ),
    "warranty claim filed but ticket solved": blocked(
        "ST013_003",
        change_item(UPDATE, -1, status="solved"),
        "ticket-hold-for-pending-work",
        ("ticket 7", "status 'solved'", "WCL-20000003", "allowed: hold"),
    ),
    "corrective installation scheduled but ticket solved": blocked(
        "ST017_001",
        change_item(UPDATE, -1, status="solved"),
        "ticket-hold-for-pending-work",
        ("ticket 6", "status 'solved'", "JOB-10000025", "allowed: hold"),
    ),
    "order cancelled but ticket on hold": blocked(
        "ST025_001",
        change_item(UPDATE, -1, status="hold"),
        "ticket-status-for-outcome",
        ("ticket 6", "status 'hold'", "ORD-90077", "allowed: solved"),
    ),
    "exchange left pending": blocked(
        "ST011_006",
        change_item(UPDATE, -1, status="pending"),
        "ticket-status-for-outcome",
        ("ticket 7", "status 'pending'", "exchange", "allowed: hold, solved"),
    ),
    "Plus member's follow-up on a ticket alone at normal priority": blocked(
        "ST003_003",
        change_item(UPDATE, priority="normal"),
        "ticket-priority",
        ("ticket 6", "priority 'normal'", "plus_member", "CUS-20000001", "allowed: urgent, high"),
    ),
    "carrier exception follow-up solved instead of hold": blocked(
        "ST003_003",
        change_item(UPDATE, status="solved"),
        "ticket-hold-for-carrier-exception",
        ("ticket 6", "status 'solved'", "ORD-20000001", "TRK-200000000001", "'exception'", "allowed: hold"),
    ),
    "missing package of a bonus hunter solved without saying so": blocked(
        "ST004_009",
        change_item(UPDATE, status="solved", description="Customer informed; case handled."),
        "ticket-hold-for-carrier-investigation",
        ("ticket 7", "status 'solved'", "not received", "CUS-00001876", "customer_score 18", "allowed: hold"),
    ),
    "VIP ticket at normal priority": blocked(
        "ST004_001",
        change_item(CREATE, priority="normal"),
        "ticket-priority",
        ("ticket 6", "priority 'normal'", "vip", "allowed: urgent"),
    ),
    "VIP return at high priority": blocked(
        "ST006_028",
        change_item(UPDATE, -1, priority="high"),
        "ticket-priority",
        ("ticket 6", "priority 'high'", "vip", "allowed: urgent"),
    ),
    "Plus member at normal priority": blocked(
        "ST006_016",
        change_item(CREATE, priority="normal"),
        "ticket-priority",
        ("ticket 6", "priority 'normal'", "plus_member", "allowed: high"),
    ),
    "Plus member cancelling membership at low priority": blocked(
        "ST031_001",
        change_item(UPDATE, -1, priority="low"),
        "ticket-priority",
        ("ticket 6", "priority 'low'", "plus_member", "allowed: high"),
    ),
    "wrong item received at normal priority": blocked(
        "ST006_003",
        change_item(UPDATE, -1, priority="normal"),
        "ticket-priority",
        ("ticket 7", "priority 'normal'", "wrong_item_received", "allowed: urgent"),
    ),
    "missing package replaced at normal priority": blocked(
        "ST004_004",
        change_item(CREATE, priority="normal"),
        "ticket-priority",
        ("ticket 6", "priority 'normal'", "courtesy replacement", "allowed: urgent"),
    ),
    "standard return at urgent priority": blocked(
        "ST006_004",
        change_item(CREATE, priority="urgent"),
        "ticket-priority",
        ("ticket 6", "priority 'urgent'", "standard", "allowed: normal"),
    ),
    "standard warranty claim at high priority": blocked(
        "ST013_001",
        change_item(CREATE, priority="high"),
        "ticket-priority",
        ("ticket 6", "priority 'high'", "standard", "allowed: normal"),
    ),
    "installation leak of a standard customer at normal priority": blocked(
        "ST017_001",
        change_item(CREATE, priority="normal"),
        "ticket-priority",
        ("ticket 6", "priority 'normal'", "workmanship", "allowed: urgent, high"),
    ),
    "return processed without a ticket": blocked(
        "ST006_001",
        chain(drop(UPDATE), drop(CREATE)),
        "ticket-documents-conversation",
        ("no ticket was created or updated", "rma_records", "zendesk_create_item"),
    ),
    "return documented on another requester's ticket": blocked(
        "ST006_001",
        change_item(CREATE, requester_id="1"),
        "ticket-documents-work",
        ("CUS-20010", "RMA-20000004", "no ticket requested by"),
    ),
    "conversation ended without touching its ticket": blocked(
        "ST018_002",
        drop(UPDATE),
        "ticket-documents-conversation",
        ("no ticket was created or updated and nothing changed",),
    ),
    "Plus member's warranty claim at urgent priority": blocked(
        "ST014_005",
        change_item(UPDATE, -1, priority="urgent"),
        "ticket-priority",
        ("ticket 87", "priority 'urgent'", "plus_member", "allowed: high"),
    ),
    "ticket reports an RMA never created": blocked(
        "ST006_017",
        drop("create_rma"),
        "ticket-claims-match-records",
        ("ticket 15", "reports an RMA", "RMA RMA-20000004 has been created", "create_rma"),
    ),
    "ticket reports a warranty claim never filed": blocked(
        "ST009_005",
        drop("file_warranty_claim"),
        "ticket-claims-match-records",
        ("ticket 20001", "reports a warranty claim", "file_warranty_claim"),
    ),
    "ticket reports a replacement never created": blocked(
        "ST004_005",
        drop("create_replacement_order"),
        "ticket-claims-match-records",
        ("ticket 15", "reports a replacement order", "create_replacement_order"),
    ),
    "ticket reports a membership upgrade never made": blocked(
        "ST030_002",
        drop("update_membership_status"),
        "ticket-claims-match-records",
        ("ticket 101", "reports a membership change", "update_membership_status"),
    ),
    # --- orders -------------------------------------------------------------------------------
    "shipped order cancelled": blocked(
        "ST010_001",
        add("cancel_order", {"order_id": "ORD-10000010", "cancellation_reason": "customer_request"}),
        "order-cancel-eligible",
        (
            "order ORD-10000010",
            "cancelled while 'shipped'",
            "allowed: cancel only pending_payment or processing",
        ),
    ),
    "order cancelled, installation kept": blocked(
        "ST025_004",
        drop("cancel_installation"),
        "order-cancel-installation",
        ("order ORD-10000020", "JOB-10000020", "'scheduled'", "allowed: installation job cancelled"),
    ),
    "address changed on a shipped order": blocked(
        "ST028_003",
        add(
            "update_order_address",
            {
                "order_id": "ORD-10000015",
                "new_address_line1": "12 Harbor Road",
                "new_address_city": "Miami",
                "new_address_state": "FL",
                "new_address_zip": "33139",
            },
        ),
        "order-modification-window",
        ("order ORD-10000015", "shipping address changed while 'shipped'", "within the last 2 hours"),
    ),
    "VIP replacement shipped standard": blocked(
        "ST004_001",
        change("create_replacement_order", shipping_speed="standard"),
        "replacement-order-shipping",
        ("ORD-20000001", "shipping_speed 'standard'", "vip", "allowed: expedited"),
    ),
    "standard customer's replacement shipped expedited": blocked(
        "ST004_004",
        change("create_replacement_order", shipping_speed="expedited"),
        "replacement-order-shipping",
        ("ORD-20000001", "shipping_speed 'expedited'", "allowed: standard"),
    ),
    "replacement to another address": blocked(
        "ST004_004",
        change("create_replacement_order", shipping_address_line1="458 Elm Street"),
        "replacement-order-address",
        ("ORD-20000001", "458 Elm Street", "allowed: the shipping address of the original order"),
    ),
    "courtesy replacement for an opportunist": blocked(
        "ST004_007",
        add(
            "create_replacement_order",
            {
                "sku": "ACC-4432",
                "quantity": 1,
                "customer_id": "CUS-10000010",
                "shipping_speed": "standard",
                "original_order_id": "ORD-10000015",
                "shipping_address_line1": "742 Oak Street",
                "shipping_address_city": "Nashville",
                "shipping_address_state": "TN",
                "shipping_address_zip": "37203",
            },
            before=UPDATE,
        ),
        "courtesy-replacement-eligible",
        ("ORD-20000001", "CUS-10000010", "carrier investigation"),
    ),
    "replacement of more units than in stock": blocked(
        "ST004_004",
        change("create_replacement_order", quantity=13),
        "inventory-not-negative",
        ("inventory TAB-5512", "available_quantity -1"),
    ),
    # --- refunds and charges ------------------------------------------------------------------
    "refund larger than the order": blocked(
        "ST002_003",
        change("create_refund", amount=1500.0),
        "refund-amount-positive",
        ("RFD-20000001", "amount 1500", "order total 1245"),
    ),
    "late delivery compensation of a made-up amount": blocked(
        "ST002_003",
        change("create_refund", amount=100.0),
        "refund-late-delivery-amount",
        ("RFD-20000001", "late_delivery_compensation of 100", "ORD-10000020", "10%"),
    ),
    "late delivery compensation at 5% for a regular customer": blocked(
        "ST002_003",
        change("create_refund", amount=62.25),
        "refund-late-delivery-amount",
        (
            "RFD-20000001",
            "late_delivery_compensation of 62.25",
            "CUS-10000010",
            "customer_score 92",
            "allowed: 10%",
        ),
    ),
    "late delivery compensation at 10% for an opportunist": blocked(
        "ST002_004",
        change("create_refund", amount=89.55),
        "refund-late-delivery-amount",
        ("late_delivery_compensation of 89.55", "customer_score 48", "allowed: 5%"),
    ),
    "minor defect refund at the regular rate for a bonus hunter": blocked(
        "ST012_003",
        change("create_refund", amount=259.8),
        "refund-minor-defect-amount",
        ("RFD-20000001", "partial_refund_minor_defect of 259.8", "customer_score 28", "allowed: 5%", "1299"),
    ),
    "minor defect refund of a made-up amount": blocked(
        "ST012_003",
        change("create_refund", amount=200.0),
        "refund-minor-defect-amount",
        ("RFD-20000001", "partial_refund_minor_defect of 200", "1299"),
    ),
    "manual refund for a cancelled order": blocked(
        "ST025_002",
        add(
            "create_refund",
            {
                "order_id": "ORD-10000015",
                "customer_id": "CUS-10000015",
                "amount": 249.0,
                "refund_reason": "order_cancelled",
            },
        ),
        "refund-not-automatic",
        ("RFD-20000001", "ORD-10000015", "'cancelled'", "allowed: no manual refund"),
    ),
    "manual refund beside an RMA": blocked(
        "ST006_019",
        add(
            "create_refund",
            {
                "order_id": "ORD-10000015",
                "customer_id": "CUS-10000015",
                "amount": 129.0,
                "refund_reason": "order_cancelled",
            },
        ),
        "refund-with-return",
        ("RFD-20000001", "ORD-10000015", "RMA-20000004", "allowed: no manual refund"),
    ),
    "installation cancelled without refunding its cost": blocked(
        "ST018_003",
        drop("create_refund"),
        "installation-cancellation-refund",
        ("JOB-20000001", "ORD-20000001", "129.00", "allowed: refund order_cancelled 129.00"),
    ),
    "installation cancelled, shipping charged at the service cost": blocked(
        "ST018_003",
        change("charge_customer", amount=129.0),
        "charge-amount",
        ("installation_cancelled_shipping of 129", "ORD-20000001", "55.00"),
    ),
    "installation in progress cancelled": blocked(
        "ST018_005",
        add(
            "cancel_installation",
            {
                "job_id": "JOB-10000010",
                "order_id": "ORD-10000010",
                "cancellation_reason": "customer_wants_ship_only",
            },
            before=UPDATE,
        ),
        "installation-cancel-eligible",
        ("JOB-10000010", "cancelled while 'in_progress'"),
    ),
    "reship to a corrected address, fee not charged": blocked(
        "ST005_005",
        drop("charge_customer"),
        "reship-fee",
        ("order ORD-10000015", "without a reship_fee charge", "allowed: charge reship_fee 15.00"),
    ),
    "reship to the address on record, fee charged": blocked(
        "ST005_001",
        add(
            "charge_customer",
            {
                "order_id": "ORD-55442001",
                "customer_id": "CUS-30004577",
                "amount": 15.0,
                "charge_reason": "reship_fee",
            },
        ),
        "reship-fee",
        ("reship_fee on order ORD-55442001", "address on record"),
    ),
    "installation delay compensated at 10% for an opportunist": blocked(
        "ST016_004",
        change("create_refund", amount=12.9),
        "installation-delay-compensation",
        ("RFD-20000001", "late_delivery_compensation of 12.9", "IJ-4008899", "allowed: 6.45"),
    ),
    "installation rescheduled into the past": blocked(
        "ST015_001",
        change("reschedule_installation", new_scheduled_date="2025-09-20T10:00:00Z"),
        "installation-reschedule-future",
        ("JOB-10000025", "2025-09-20T10:00:00Z", "allowed: a date after"),
    ),
    "reship fee charged twice": blocked(
        "ST005_005",
        lambda calls: [*calls[:-1], next(c for c in calls if c[0] == "charge_customer"), calls[-1]],
        "write-not-repeated",
        ("TXN-20000005 repeats TXN-20000004", "reship_fee"),
    ),
    "replacement order of zero units": blocked(
        "ST004_005",
        change("create_replacement_order", quantity=0),
        "replacement-line-quantity",
        ("LIN-20000001", "quantity 0", "allowed: 1 or more"),
    ),
    # --- returns ------------------------------------------------------------------------------
    "RMA refund ignores the return shipping": blocked(
        "ST006_001",
        change("create_rma", refund_amount=799.0),
        "rma-refund-arithmetic",
        ("RMA-20000004", "refund_amount 799", "final price 799", "allowed: 790.01"),
    ),
    "restocking fee for a Plus member": blocked(
        "ST006_016",
        change("create_rma", restocking_fee=179.85, refund_amount=1019.15),
        "rma-no-fees-for-members-or-defects",
        ("RMA-20000004", "179.85 restocking", "plus_member", "allowed: restocking_fee 0"),
    ),
    "restocking fee for a regular customer": blocked(
        "ST006_001",
        change("create_rma", restocking_fee=119.85, refund_amount=670.16),
        "rma-restocking-fee",
        ("RMA-20000004", "restocking_fee 119.85", "allowed: 0"),
    ),
    "return shipping for a VIP": blocked(
        "ST006_023",
        change("create_rma", return_shipping_cost=8.99, refund_amount=340.01),
        "rma-no-fees-for-members-or-defects",
        ("RMA-20000004", "8.99 return shipping", "vip", "allowed: restocking_fee 0, return_shipping_cost 0"),
    ),
    "removal fee forgotten": blocked(
        "ST006_010",
        change("create_rma", removal_fee=0, refund_amount=749.0),
        "rma-removal-fee",
        ("RMA-20000004", "removal_fee 0", "allowed: 50.00"),
    ),
    "defective item returned as not defective": blocked(
        "ST007_003",
        change("create_rma", is_defective=False),
        "rma-defect-flag",
        ("RMA-20000004", "return_reason 'defective'", "is_defective false", "allowed: is_defective true"),
    ),
    "wrong item returned as defective": blocked(
        "ST006_025",
        change("create_rma", is_defective=True),
        "rma-defect-flag",
        (
            "RMA-20000004",
            "return_reason 'wrong_item_received'",
            "is_defective true",
            "allowed: is_defective false",
        ),
    ),
    "RMA for a line item of another order": blocked(
        "ST006_001",
        change("create_rma", line_item_id="LIN-10000001"),
        "rma-order-returnable",
        ("RMA-20000004", "LIN-10000001", "ORD-60010", "line item of order ORD-10000001"),
    ),
    "return outside the window": blocked(
        "ST009_001",
        add(
            "create_rma",
            {
                "order_id": "ORD-02001111",
                "line_item_id": "LIN-02001111-001",
                "customer_id": "CUS-15500001",
                "return_reason": "changed_mind",
                "is_defective": False,
                "refund_amount": 440.01,
                "restocking_fee": 0,
                "return_shipping_cost": 8.99,
                "removal_fee": 0,
            },
            before=UPDATE,
        ),
        "rma-return-window",
        ("RMA-20000004", "ORD-02001111", "30-day window", "computing", "warranty claim"),
    ),
    "standard customer's tablet returned after the half window": blocked(
        "ST006_002",
        chain(
            add(
                "create_rma",
                {
                    "order_id": "ORD-10000010",
                    "line_item_id": "LIN-10000010",
                    "customer_id": "CUS-10000010",
                    "return_reason": "not_as_expected",
                    "is_defective": False,
                    "refund_amount": 372.66,
                    "restocking_fee": 67.35,
                    "return_shipping_cost": 8.99,
                    "removal_fee": 0,
                },
                before=UPDATE,
            ),
            change_item(UPDATE, -1, status="hold"),
        ),
        "rma-return-window",
        ("ORD-10000010", "30-day window", "standard customer", "computing", "is_defective false"),
    ),
    "return shipping charged for a heavy item": blocked(
        "ST006_006",
        change("create_rma", return_shipping_cost=8.99, refund_amount=151.66),
        "rma-return-shipping",
        ("return_shipping_cost 8.99", "42 lb", "standard", "allowed: 0 "),
    ),
    "refurbished item returned for a change of mind": blocked(
        "ST008_003",
        change("create_rma", return_reason="changed_mind", is_defective=False),
        "rma-refurbished-defective-only",
        ("refurbished product APPL-REF-6634", "return_reason 'changed_mind'", "allowed: a return"),
    ),
    "same item returned twice": blocked(
        "ST006_004",
        lambda calls: [*calls[:-1], next(c for c in calls if c[0] == "create_rma"), calls[-1]],
        "rma-once-per-line-item",
        ("LIN-10000004", "already has return", "allowed: one RMA per line item"),
    ),
    "return before installation, installation kept": blocked(
        "ST006_008",
        drop("cancel_installation"),
        "return-cancels-installation",
        (
            "JOB-20000001",
            "ORD-20000001",
            "'scheduled'",
            "RMA-20000004",
            "allowed: installation job cancelled",
        ),
    ),
    "exchange without the replacement order": blocked(
        "ST011_002",
        drop("create_replacement_order"),
        "rma-zero-refund-exchange-only",
        ("RMA-20000004", "refund_amount 0", "no replacement order"),
    ),
    "exchange for another SKU": blocked(
        "ST011_007",
        change("create_replacement_order", sku="SKU-10000001"),
        "exchange-same-sku",
        ("ORD-20000002", "SKU 'SKU-10000001'", "APPL-4456", "allowed: APPL-4456"),
    ),
    # --- warranty and membership --------------------------------------------------------------
    "warranty claim on another customer's contract": blocked(
        "ST013_001",
        change("file_warranty_claim", contract_id="WCT-10000002"),
        "claim-contract-valid",
        ("WCL-20000003", "WCT-10000002", "CUS-10000002", "CUS-70130"),
    ),
    "accidental damage under a manufacturer warranty": blocked(
        "ST013_001",
        change("file_warranty_claim", warranty_issue_type="accidental_damage"),
        "claim-accidental-damage-plan",
        (
            "WCL-20000003",
            "accidental damage",
            "manufacturer",
            "allowed: accidental_damage only under a protection_plan",
        ),
    ),
    "Plus membership sold to an active member": blocked(
        "ST030_003",
        add(
            "update_membership_status",
            {"customer_id": "CUS-10000015", "action": "upgrade", "membership_type": "plus"},
            before=UPDATE,
        ),
        "membership-upgrade-eligible",
        (
            "MEM-20000001",
            "CUS-10000015",
            "allowed: membership_type plus, for a customer with no active membership",
        ),
    ),
}

MISSED: dict[str, WrongCase] = {
    "carrier exception solved, the ticket naming no order": missed(
        "ST003_006",
        change_item(
            UPDATE, -1, status="solved", description="Customer contacted again about the delayed order."
        ),
        "ticket-hold-for-carrier-exception",
        why=(
            "the records reach the carrier tracking from a ticket in five links (requester, profile by "
            "email, orders, shipments, tracking), one more than the gate's four rounds of reads; the "
            "ticket names no order to start from and the commit changes no record of it"
        ),
    ),
}

CASES = by_name(WRONG, MISSED)

_RETAIL_JUDGES = frozenset(
    {
        "retail",
        "retail_tickets",
        "retail_ticket_claims",
        "retail_carrier",
        "retail_returns",
        "retail_workflow",
    }
)

WRONG_DOMAIN = WrongDomain(
    name="retail",
    domain=RETAIL,
    cases=CASES,
    prefix="test_case_",
    wording=Wording(
        imperative=re.compile(
            r"^(please|set|change|update|create|use|make|do|don't|you must|you should)\b", re.I
        ),
        hint="allowed:",
        judges=_RETAIL_JUDGES,
        evidence=True,
    ),
    catalogue=Catalogue(blocked=80),
)
