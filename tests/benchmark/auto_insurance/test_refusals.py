"""Every insurance tool: a validation error and its business-rule refusals, in the reference's words.

Worlds hold only the domain's seed rows; a refused call changes nothing.
"""

from __future__ import annotations

from benchmark.world import World
from tests.benchmark.auto_insurance.conftest import AUTO
from tests.benchmark.helpers import error_reply, ok
from tests.benchmark.tool_cases import Case, tool_case_tests

POLICY = "POL-0012345678"
FNOL = {
    "policy_id": POLICY,
    "vehicle_id": "VEH-00012345",
    "date_of_loss": "2025-09-28",
    "loss_location": "Los Angeles, CA",
    "claim_type": "Collision – Single Vehicle",
    "severity": "Minor",
}
DRIVER = {
    "policy_id": POLICY,
    "name": "Lily Smith",
    "date_of_birth": "2008-02-02",
    "relationship": "Daughter",
    "status": "Rated",
    "effective_date": "2025-10-01",
}
VEHICLE = {
    "policy_id": POLICY,
    "vin": "5YJ3E1EA7KF317000",
    "year": 2019,
    "make": "Tesla",
    "model": "Model 3",
    "effective_date": "2025-10-01",
}
LINK = {
    "policy_id": POLICY,
    "document_type": "id_card",
    "ticket_id": "6",
    "expiration_date": "2025-10-02T13:00:00Z",
}

VALIDATION_CASES: list[Case] = [
    ("policy_get_policy_details", {}, "policy_id: Field required"),
    (
        "policy_get_policy_vehicles",
        {"policy_id": POLICY, "active_only": "maybe"},
        "active_only: Input should",
    ),
    ("policy_get_policy_drivers", {"policy_id": 7}, "policy_id: Input should be a valid string"),
    ("policy_get_vehicle_details", {"vehicle": "VEH-00012345"}, "vehicle_id: Field required"),
    ("policy_add_vehicle", {**VEHICLE, "year": "new"}, "year: Input should be a valid integer"),
    (
        "policy_add_driver",
        {**DRIVER, "status": "Removedd"},
        "status: Input should be 'Rated', 'Excluded' or 'Removed'",
    ),
    (
        "policy_update_vehicle_status",
        {"vehicle_id": "VEH-00012345", "new_status": "Gone", "effective_date": "2025-10-01"},
        "new_status: Input should be 'Active' or 'Removed'",
    ),
    (
        "policy_update_driver_status",
        {"driver_id": "DRV-00012345"},
        "new_status: Field required; effective_date: Field required",
    ),
    (
        "policy_schedule_cancellation",
        {"policy_id": POLICY, "cancellation_date": "2025-10-15", "cancellation_reason": "Bored"},
        "cancellation_reason: Input should be 'User Requested', 'Non-Payment', 'Underwriting' or 'Fraud'",
    ),
    ("policy_reinstate_policy", {"policy_id": POLICY}, "lapse_flag: Field required"),
    (
        "policy_generate_document_link",
        {**LINK, "document_type": "passport"},
        "document_type: Input should be 'proof_of_insurance', 'declarations_page' or 'id_card'",
    ),
    ("billing_get_account_details", {"policy": POLICY}, "policy_id: Field required"),
    ("billing_get_arrangement_history", {"policy_id": None}, "policy_id: Input should be a valid string"),
    ("billing_grant_extension", {"policy_id": POLICY}, "new_due_date: Field required"),
    (
        "billing_create_installment_plan",
        {"policy_id": POLICY, "installment_count": 2.5, "installment_amount": 100},
        "installment_count: Input should be a valid integer, got a number with a fractional part",
    ),
    ("billing_reset_account_status", {}, "policy_id: Field required"),
    (
        "claims_create_fnol",
        {**FNOL, "severity": "Huge"},
        "severity: Input should be 'Minor', 'Moderate' or 'Major'",
    ),
    ("claims_check_open_major_claims", {}, "policy_id: Field required"),
    (
        "claims_get_policy_claims",
        {"policy_id": POLICY, "months_back": "six"},
        "months_back: Input should be a valid integer",
    ),
    ("claims_get_vehicle_claims", {"vehicle_id": "V", "open_only": "x"}, "open_only: Input should be"),
    (
        "claims_get_driver_claims",
        {"driver_id": "DRV-00012345", "open_only": None},
        "open_only: Input should be a valid boolean",
    ),
    ("crm_get_customer_by_email", {}, "email: Field required"),
    ("crm_get_customer_profile", {"customer_id": 12345}, "customer_id: Input should be a valid string"),
    ("crm_verify_identity", {"ssn_last_4": "1234"}, "customer_id: Field required"),
    ("lookup_validate_vin", {"vin": None}, "vin: Input should be a valid string"),
    ("knowledge_base_search_policy", {"query": "x", "top": 3}, "top: Extra inputs are not permitted"),
]


async def test_unknown_arguments_are_ignored_as_by_the_reference(seeded: World) -> None:
    details = await ok(seeded, "policy_get_policy_details", {"policy_id": POLICY, "verbose": True})
    assert details["policy_id"] == POLICY


REFUSALS: list[Case] = [
    ("policy_get_policy_details", {"policy_id": "POL-404"}, "Policy with ID 'POL-404' not found"),
    ("policy_get_policy_vehicles", {"policy_id": "POL-404"}, "Policy with ID 'POL-404' not found"),
    ("policy_get_policy_drivers", {"policy_id": "POL-404"}, "Policy with ID 'POL-404' not found"),
    ("policy_get_vehicle_details", {"vehicle_id": "VEH-404"}, "Vehicle with ID 'VEH-404' not found"),
    ("policy_add_vehicle", {**VEHICLE, "policy_id": "POL-404"}, "Policy with ID 'POL-404' not found"),
    (
        "policy_add_vehicle",
        {**VEHICLE, "vin": "2T1BURHE1HC123789"},
        "VIN '2T1BURHE1HC123789' already exists on this policy",
    ),
    ("policy_add_driver", {**DRIVER, "policy_id": "POL-404"}, "Policy with ID 'POL-404' not found"),
    (
        "policy_add_driver",
        {**DRIVER, "name": "Sarah Smith", "date_of_birth": "1987-07-22"},
        "Driver with name 'Sarah Smith' and DOB '1987-07-22' already exists on this policy",
    ),
    (
        "policy_update_vehicle_status",
        {"vehicle_id": "VEH-404", "new_status": "Removed", "effective_date": "2025-10-01"},
        "Vehicle with ID 'VEH-404' not found",
    ),
    (
        "policy_update_driver_status",
        {"driver_id": "DRV-404", "new_status": "Removed", "effective_date": "2025-10-01"},
        "Driver with ID 'DRV-404' not found",
    ),
    (
        "policy_schedule_cancellation",
        {"policy_id": "POL-404", "cancellation_date": "2025-10-15", "cancellation_reason": "Fraud"},
        "Policy with ID 'POL-404' not found",
    ),
    (
        "policy_reinstate_policy",
        {"policy_id": "POL-404", "lapse_flag": False},
        "Policy with ID 'POL-404' not found",
    ),
    ("policy_generate_document_link", {**LINK, "policy_id": "POL-404"}, "Policy with ID 'POL-404' not found"),
    (
        "policy_generate_document_link",
        {**LINK, "expiration_date": "tomorrow"},
        "Invalid expiration_date format: 'tomorrow'. Expected ISO 8601 format (e.g., '2024-01-16T10:05:00Z')",
    ),
    (
        "billing_get_account_details",
        {"policy_id": "POL-404"},
        "No billing account found for policy_id 'POL-404'.",
    ),
    (
        "billing_get_arrangement_history",
        {"policy_id": "POL-404"},
        "No billing account found for policy_id 'POL-404'.",
    ),
    (
        "billing_grant_extension",
        {"policy_id": "POL-404", "new_due_date": "2025-10-11"},
        "No billing account found for policy_id 'POL-404'.",
    ),
    (
        "billing_create_installment_plan",
        {"policy_id": "POL-404", "installment_count": 3, "installment_amount": 5000},
        "No billing account found for policy_id 'POL-404'.",
    ),
    (
        "billing_reset_account_status",
        {"policy_id": "POL-404"},
        "No billing account found for policy_id 'POL-404'.",
    ),
    ("claims_create_fnol", {**FNOL, "policy_id": "POL-404"}, "Policy 'POL-404' not found."),
    ("claims_check_open_major_claims", {"policy_id": "POL-404"}, "Policy 'POL-404' not found."),
    ("claims_get_policy_claims", {"policy_id": "POL-404"}, "Policy 'POL-404' not found."),
    ("claims_get_vehicle_claims", {"vehicle_id": "VEH-404"}, "Vehicle 'VEH-404' not found."),
    ("claims_get_driver_claims", {"driver_id": "DRV-404"}, "Driver 'DRV-404' not found."),
    (
        "crm_get_customer_by_email",
        {"email": "nobody@example.com"},
        "No customer found with email 'nobody@example.com'",
    ),
    ("crm_get_customer_profile", {"customer_id": "CUS-404"}, "Customer with ID 'CUS-404' not found"),
    (
        "crm_verify_identity",
        {"customer_id": "CUS-00012345"},
        "Must provide either ssn_last_4 or security_answer for verification",
    ),
    (
        "crm_verify_identity",
        {"customer_id": "CUS-404", "ssn_last_4": "", "security_answer": ""},
        "Must provide either ssn_last_4 or security_answer for verification",
    ),
    (
        "crm_verify_identity",
        {"customer_id": "CUS-404", "ssn_last_4": "1234"},
        "Customer with ID 'CUS-404' not found",
    ),
    ("lookup_validate_vin", {"vin": "1HGCM8263"}, "Invalid VIN format. VIN must be exactly 17 characters."),
    (
        "lookup_validate_vin",
        {"vin": "1HGCM82633A12345!"},
        "Invalid VIN format. VIN must contain only letters and numbers.",
    ),
    ("knowledge_base_search_policy", {"query": "grace period"}, "Search service is not available"),
]


test_validation_errors, test_every_tool_has_a_validation_case, test_business_rule_refusals = tool_case_tests(
    AUTO, VALIDATION_CASES, REFUSALS
)


async def test_errors_reach_the_agent_in_the_reference_envelope(seeded: World) -> None:
    assert await error_reply(seeded, "claims_get_vehicle_claims", {"vehicle_id": "VEH-404"}) == (
        '{"error": "Tool execution failed: Vehicle \'VEH-404\' not found.", '
        '"tool": "claims_get_vehicle_claims"}',
        "not_found",
    )
