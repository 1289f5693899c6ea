"""Every booking tool: a validation error and its business-rule refusals, in the reference's words.

Worlds here hold only the domain's seed rows; a refused call changes nothing.
"""

from __future__ import annotations

from benchmark.world import World
from tests.benchmark.booking.conftest import BOOKING, STAY
from tests.benchmark.helpers import error_reply
from tests.benchmark.tool_cases import Case, tool_case_tests

ESCALATION = {
    "hotel_id": "HTL-00012345",
    "booking_reference": "BKG-00012345",
    "issue_type": "guest-complaint",
    "description": "Noise at night",
}

VALIDATION_CASES: list[Case] = [
    (
        "booking_api_get_booking",
        {"booking_reference": 7},
        "booking_reference: Input should be a valid string",
    ),
    ("booking_api_get_booking_history", {}, "customer_id: Field required"),
    (
        "booking_api_get_group_booking",
        {"group_booking_id": None},
        "group_booking_id: Input should be a valid",
    ),
    (
        "booking_api_modify_booking",
        {"booking_reference": "BKG-00012345", "room_type": "castle"},
        "room_type: Input should be 'standard_room', 'deluxe_room'",
    ),
    (
        "booking_api_modify_booking",
        {"booking_reference": "BKG-00012345", "nights": 2},
        "nights: Extra inputs are not permitted",
    ),
    (
        "booking_api_modify_group_booking",
        {"group_booking_id": "GRP-00012345", "modification_details": {}},
        "cascade_to_individual_bookings: Field required",
    ),
    (
        "booking_api_check_hotel_availability",
        {"hotel_id": "HTL-00012345", **STAY, "adults_count": "two"},
        "adults_count: Input should be a valid integer",
    ),
    (
        "booking_api_search_hotels_by_location",
        {**STAY, "board_type": "breakfast"},
        "location: Field required; board_type: Input should be",
    ),
    ("corporate_api_get_account_details", {}, "corporate_account_id: Field required"),
    (
        "corporate_api_verify_account_status",
        {"corporate_account_id": 1},
        "corporate_account_id: Input should be",
    ),
    ("corporate_api_get_corporate_booking_history", {}, "corporate_account_id: Field required"),
    (
        "corporate_api_generate_corporate_invoice",
        {"corporate_account_id": "CRP-00012345"},
        "booking_reference: Field required",
    ),
    ("crm_api_check_vip_status", {}, "customer_id: Field required"),
    ("crm_api_get_customer_preferences", {"customer_id": ["CUS-00000001"]}, "customer_id: Input should be"),
    ("crm_api_get_customer_profile", {"email": 5}, "email: Input should be a valid string"),
    (
        "crm_api_update_customer_info",
        {"customer_id": "CUS-00000001", "last_booking_date": "soon"},
        "last_booking_date: Input should be a valid datetime or date",
    ),
    ("hotel_partner_api_get_hotel_info", {}, "hotel_id: Field required"),
    ("hotel_partner_api_get_hotel_contact", {"hotel_id": 3}, "hotel_id: Input should be a valid string"),
    (
        "hotel_partner_api_verify_availability",
        {"hotel_id": "HTL-00012345", **STAY, "room_type": None},
        "room_type: Input should be",
    ),
    (
        "hotel_partner_api_escalate_to_hotel",
        {key: value for key, value in ESCALATION.items() if key != "description"},
        "description: Field required",
    ),
    (
        "payment_api_process_charge",
        {"booking_reference": "BKG-00012345", "charge_amount": "abc", "reason": "fee"},
        "charge_amount: Input should be a valid decimal",
    ),
    (
        "payment_api_process_refund",
        {"booking_reference": "BKG-00012345", "refund_amount": 10},
        "reason: Field required",
    ),
    (
        "payment_api_process_charge_dispute",
        {"transaction_id": "TXN-00000001", "dispute_reason": "r", "dispute_amount": 1, "urgent": True},
        "urgent: Extra inputs are not permitted",
    ),
    ("payment_api_check_payment_status", {}, "booking_reference: Field required"),
    (
        "payment_api_get_transaction_history",
        {"customer_id": 12},
        "customer_id: Input should be a valid string",
    ),
    ("payment_api_generate_invoice", {"booking_reference": "BKG-00012345"}, "invoice_type: Field required"),
    (
        "payment_api_update_payment_method",
        {"customer_id": "CUS-00000001"},
        "new_payment_method: Field required",
    ),
    ("lookup_lookup_hotel_id", {"hotel_name": 1}, "hotel_name: Input should be a valid string"),
    (
        "lookup_lookup_corporate_account_id",
        {"company_name": []},
        "company_name: Input should be a valid string",
    ),
    ("lookup_lookup_group_booking_id", {"coordinator_email": {}}, "coordinator_email: Input should be"),
    ("lookup_validate_booking_reference", {}, "booking_reference: Field required"),
    ("knowledge_base_search_policy", {"query": "refunds", "max_results": "all"}, "max_results"),
]


REFUSALS: list[Case] = [
    ("booking_api_get_booking", {}, "Either booking_reference or customer_id must be provided"),
    (
        "booking_api_get_booking",
        {"booking_reference": "BKG-404"},
        "Booking not found with booking_reference 'BKG-404'",
    ),
    ("booking_api_get_booking", {"customer_id": "CUS-404"}, "Booking not found with customer_id 'CUS-404'"),
    (
        "booking_api_get_group_booking",
        {"group_booking_id": "GRP-404"},
        "Group booking not found with group_booking_id 'GRP-404'",
    ),
    (
        "booking_api_modify_booking",
        {"booking_reference": "BKG-404", "adults_count": 1},
        "Booking not found with booking_reference 'BKG-404'",
    ),
    (
        "booking_api_modify_booking",
        {"booking_reference": "BKG-00012346", "adults_count": 1},
        "Booking cannot be modified. Current status is 'checked_out', must be 'confirmed'",
    ),
    (
        "booking_api_modify_group_booking",
        {"group_booking_id": "GRP-404", "modification_details": {}, "cascade_to_individual_bookings": True},
        "Group booking not found with group_booking_id 'GRP-404'",
    ),
    (
        "booking_api_check_hotel_availability",
        {"hotel_id": "HTL-00012345", **STAY},
        "Hotel not found with hotel_id 'HTL-00012345'",
    ),
    (
        "booking_api_check_hotel_availability",
        {"hotel_id": "HTL-00000001", **STAY, "check_in_date": "15/12/2025"},
        "Invalid date format: Invalid isoformat string: '15/12/2025'",
    ),
    (
        "booking_api_check_hotel_availability",
        {"hotel_id": "HTL-00000001", **STAY, "check_out_date": "2025-12-15T20:00:00Z"},
        "Check-in date must be before check-out date",
    ),
    (
        "booking_api_search_hotels_by_location",
        {"location": "New York", **STAY, "check_out_date": "2025-12-01"},
        "Check-in date must be before check-out date",
    ),
    (
        "corporate_api_get_account_details",
        {"corporate_account_id": "ACME"},
        "Invalid corporate_account_id parameter.",
    ),
    (
        "corporate_api_verify_account_status",
        {"corporate_account_id": "CRP-404"},
        "Corporate account not found.",
    ),
    (
        "corporate_api_get_corporate_booking_history",
        {"corporate_account_id": "CRP-404"},
        "Corporate account not found.",
    ),
    (
        "corporate_api_generate_corporate_invoice",
        {"booking_reference": "REF-1", "corporate_account_id": "CRP-00012345"},
        "Invalid booking_reference parameter.",
    ),
    (
        "corporate_api_generate_corporate_invoice",
        {"booking_reference": "BKG-404", "corporate_account_id": "CRP-00012345"},
        "Booking not found.",
    ),
    (
        "corporate_api_generate_corporate_invoice",
        {"booking_reference": "BKG-00012345", "corporate_account_id": "CRP-00012345"},
        "Booking is not associated with this corporate account.",
    ),
    ("crm_api_get_customer_profile", {}, "Invalid parameters: provide customer_id or email."),
    ("crm_api_get_customer_profile", {"email": "nobody@example.com"}, "Customer not found."),
    ("crm_api_check_vip_status", {"customer_id": "  "}, "Invalid customer_id parameter."),
    ("crm_api_get_customer_preferences", {"customer_id": "CUS-404"}, "Customer not found."),
    ("crm_api_update_customer_info", {"customer_id": "CUS-00000001"}, "Invalid update_fields parameter."),
    ("crm_api_update_customer_info", {"customer_id": "CUS-404", "complaint_count": 1}, "Customer not found."),
    ("hotel_partner_api_get_hotel_info", {"hotel_id": "HTL-404"}, "Hotel not found: HTL-404"),
    ("hotel_partner_api_get_hotel_contact", {"hotel_id": "HTL-404"}, "Hotel not found: HTL-404"),
    ("hotel_partner_api_verify_availability", {"hotel_id": "HTL-404", **STAY}, "Hotel not found: HTL-404"),
    (
        "hotel_partner_api_escalate_to_hotel",
        {**ESCALATION, "hotel_id": "HTL-404"},
        "Hotel 'HTL-404' not found.",
    ),
    (
        "hotel_partner_api_escalate_to_hotel",
        {**ESCALATION, "booking_reference": "BKG-404"},
        "Booking 'BKG-404' not found.",
    ),
    (
        "payment_api_process_charge",
        {"booking_reference": "BKG-404", "charge_amount": 5, "reason": "fee"},
        "Booking not found: BKG-404",
    ),
    (
        "payment_api_process_charge",
        {"booking_reference": "BKG-00012345", "charge_amount": 0, "reason": "fee"},
        "Invalid charge amount - must be greater than 0",
    ),
    (
        "payment_api_process_refund",
        {"booking_reference": "BKG-404", "refund_amount": 5, "reason": "r"},
        "Booking not found: BKG-404",
    ),
    (
        "payment_api_process_charge_dispute",
        {"transaction_id": "TXN-404", "dispute_reason": "r", "dispute_amount": 1},
        "Transaction not found: TXN-404",
    ),
    (
        "payment_api_check_payment_status",
        {"booking_reference": "BKG-404"},
        "No transactions found for booking: BKG-404",
    ),
    ("payment_api_get_transaction_history", {}, "Either customer_id or booking_reference must be provided"),
    (
        "payment_api_generate_invoice",
        {"booking_reference": "BKG-404", "invoice_type": "receipt"},
        "Booking not found: BKG-404",
    ),
    (
        "payment_api_update_payment_method",
        {"customer_id": "CUS-404", "new_payment_method": "tok_1234"},
        "Customer not found: CUS-404",
    ),
    ("lookup_lookup_hotel_id", {}, "Invalid parameters: provide hotel_name or location."),
    ("lookup_lookup_hotel_id", {"hotel_name": "Ritz"}, "No hotels found matching criteria."),
    ("lookup_lookup_corporate_account_id", {}, "Invalid parameters: provide company_name or customer_email."),
    ("lookup_lookup_corporate_account_id", {"customer_email": "no-at-sign"}, "Invalid email format."),
    (
        "lookup_lookup_corporate_account_id",
        {"company_name": "Initech"},
        "No corporate account found matching criteria.",
    ),
    (
        "lookup_lookup_group_booking_id",
        {},
        "Invalid parameters: provide booking_reference or coordinator_email.",
    ),
    (
        "lookup_lookup_group_booking_id",
        {"coordinator_email": "x@y.z"},
        "No group booking found matching criteria or booking is not part of a group.",
    ),
    (
        "lookup_validate_booking_reference",
        {"booking_reference": "BKG-1"},
        "Invalid booking reference format.",
    ),
]


test_validation_errors, test_every_tool_has_a_validation_case, test_business_rule_refusals = tool_case_tests(
    BOOKING, VALIDATION_CASES, REFUSALS
)


async def test_errors_reach_the_agent_in_the_reference_envelope(seeded: World) -> None:
    reply = await error_reply(seeded, "payment_api_check_payment_status", {"booking_reference": "BKG-404"})
    assert reply == (
        '{"error": "Tool execution failed: No transactions found for booking: BKG-404", '
        '"tool": "payment_api_check_payment_status"}',
        "not_found",
    )


async def test_unknown_arguments_are_ignored_where_the_reference_ignores_them(seeded: World) -> None:
    outcome = await seeded.call("booking_api_get_booking", {"customer_id": "CUS-00000002", "verbose": True})
    assert outcome.error is None
    assert outcome.value["booking_data"]["booking_reference"] == "BKG-00012348"
