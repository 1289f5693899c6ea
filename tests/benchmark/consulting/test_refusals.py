"""Every consulting tool: its validation errors and business-rule refusals, in the reference's words.

Worlds here hold only the domain's seed rows; a refused call changes
nothing. The messages were checked against the reference's own state engine.
"""

from __future__ import annotations

from typing import Any

from benchmark.world import World
from tests.benchmark.consulting.conftest import CONSULTING
from tests.benchmark.helpers import error_reply
from tests.benchmark.tool_cases import Case, tool_case_tests

E = "marcus.bennett@msg.com"

VALIDATION_CASES: list[Case] = [
    ("software_catalog_search", {}, "software_name: Field required"),
    ("software_catalog_get_details", {"catalog_id": 5}, "catalog_id: Input should be a valid string"),
    ("salesforce_crm_get_engagement", {}, "engagement_code: Field required"),
    ("salesforce_crm_check_employee_assignment", {"email": E}, "engagement_code: Field required"),
    ("workday_api", {"action": "fire_employee", "email": E}, "action: Input should be 'get_employee'"),
    ("approver_lookup_get_contact", {"email": E, "extra": 1}, "extra: Extra inputs are not permitted"),
    (
        "okta_provision_access",
        {"email": E, "app_name": "Jira", "access_type": "owner"},
        "access_type: Input should be 'full_access', 'read_only', 'contributor' or 'admin'",
    ),
    (
        "mavenlink_api",
        {"action": "get_engagements"},
        "action: Input should be 'get_engagement', 'get_employee_assignments' or 'validate_engagement_code'",
    ),
    (
        "concur_api",
        {"action": "override_expense_rejection", "override_reason": "because"},
        "override_reason: Input should be 'justified_exception', 'system_error' or 'receipt_exception'",
    ),
    (
        "asset_management_api",
        {"action": "reserve_device", "device_type": "tablet", "location": "New York"},
        "device_type: Input should be 'laptop', 'phone', 'monitor', 'docking_station', 'headset' or "
        "'peripheral'",
    ),
    (
        "hardware_procurement_create_order",
        {"device_model": "Google Pixel 7a", "quantity": "two", "deliver_to": "Paris"},
        "quantity: Input should be a valid integer, unable to parse string as an integer; "
        "deliver_to: Input should be 'New York', 'San Francisco', 'Chicago' or 'Austin'",
    ),
    (
        "license_management_api",
        {"action": "get_cost", "catalog_id": "CAT-0012345", "pool_type": "gold"},
        "pool_type: Input should be 'standard' or 'enterprise'",
    ),
    (
        "degreed_api",
        {"action": "search_courses", "keyword": "a", "category": "optional"},
        "category: Input should be 'must_have', 'nice_to_have' or 'conference'",
    ),
    (
        "client_access_api",
        {"action": "provision_client_system", "access_type": "root"},
        "access_type: Input should be 'full_access', 'read_only', 'contributor' or 'admin'",
    ),
    (
        "approval_create_request",
        {"request_type": "travel"},
        "requester_email: Field required; approver_email: Field required",
    ),
    (
        "approval_create_request",
        {"request_type": "travel", "requester_email": E, "approver_email": "s@msg.com", "amount": 12.5},
        "amount: Input should be a valid integer, got a number with a fractional part",
    ),
    ("approval_get_status", {"request_type": "training_cost"}, "requester_email: Field required"),
    (
        "background_check_api",
        {"action": "get_timeline", "clearance_level": "top_secret"},
        "clearance_level: Input should be 'standard' or 'high_security'",
    ),
    ("nda_api", {"action": "sign"}, "action: Input should be 'check_status' or 'send_for_signature'"),
    (
        "box_api",
        {"action": "grant_folder_access", "folder_id": "FLD-1000002", "permission_level": "owner"},
        "permission_level: Input should be 'viewer', 'editor' or 'co_owner'",
    ),
    ("knowledge_base_search_policy", {"query": "vpn", "max_results": "all"}, "max_results"),
]


def _missing(tool: str, arguments: dict[str, Any], name: str) -> Case:
    return (tool, arguments, f"Missing required parameter: {name}")


REFUSALS: list[Case] = [
    (
        "software_catalog_search",
        {"software_name": "zzz"},
        "No matching software found in catalog for: zzz",
    ),
    ("software_catalog_get_details", {"catalog_id": "CAT-404"}, "Software not found in catalog: CAT-404"),
    ("salesforce_crm_get_engagement", {"engagement_code": "ENG-404"}, "Engagement not found: ENG-404"),
    _missing("workday_api", {"action": "get_employee"}, "email"),
    _missing("workday_api", {"action": "get_employee", "email": ""}, "email"),
    ("workday_api", {"action": "get_employee", "email": "x@msg.com"}, "Employee not found: x@msg.com"),
    ("approver_lookup_get_contact", {"email": "nobody@msg.com"}, "Approver not found: nobody@msg.com"),
    _missing("mavenlink_api", {"action": "get_engagement"}, "engagement_code"),
    _missing("mavenlink_api", {"action": "get_employee_assignments"}, "email"),
    _missing("mavenlink_api", {"action": "validate_engagement_code"}, "engagement_code"),
    (
        "mavenlink_api",
        {"action": "get_engagement", "engagement_code": "ENG-404"},
        "Engagement not found: ENG-404",
    ),
    _missing("concur_api", {"action": "get_expense_report"}, "expense_report_id"),
    (
        "concur_api",
        {"action": "get_expense_report", "expense_report_id": "EXP-404"},
        "Expense report not found: EXP-404",
    ),
    _missing(
        "concur_api",
        {"action": "override_expense_rejection", "override_reason": "system_error"},
        "expense_report_id",
    ),
    _missing(
        "concur_api",
        {
            "action": "override_expense_rejection",
            "expense_report_id": "EXP-1000002",
            "approver_email": "a@msg.com",
        },
        "override_reason",
    ),
    _missing(
        "concur_api",
        {
            "action": "override_expense_rejection",
            "expense_report_id": "EXP-1000002",
            "override_reason": "system_error",
        },
        "approver_email",
    ),
    (
        "concur_api",
        {
            "action": "override_expense_rejection",
            "expense_report_id": "EXP-404",
            "override_reason": "system_error",
            "approver_email": "a@msg.com",
        },
        "Expense report not found: EXP-404",
    ),
    _missing("concur_api", {"action": "get_travel_booking"}, "booking_id"),
    (
        "concur_api",
        {"action": "get_travel_booking", "booking_id": "TRV-404"},
        "Travel booking not found: TRV-404",
    ),
    _missing("asset_management_api", {"action": "get_employee_devices"}, "email"),
    _missing("asset_management_api", {"action": "get_device_details"}, "asset_id"),
    ("asset_management_api", {"action": "get_device_details", "asset_id": "X"}, "Device not found: X"),
    _missing("asset_management_api", {"action": "check_inventory", "location": "Austin"}, "device_type"),
    _missing("asset_management_api", {"action": "check_inventory", "device_type": "phone"}, "location"),
    _missing("asset_management_api", {"action": "reserve_device", "location": "Austin"}, "device_type"),
    (
        "asset_management_api",
        {"action": "reserve_device", "device_type": "laptop", "location": "Austin"},
        "No available laptop devices at Austin",
    ),
    _missing("asset_management_api", {"action": "assign_device", "asset_id": "MSG00001001"}, "email"),
    _missing("asset_management_api", {"action": "assign_device", "email": E}, "asset_id"),
    (
        "asset_management_api",
        {"action": "assign_device", "email": E, "asset_id": "MSG-404"},
        "Device not found: MSG-404",
    ),
    _missing("asset_management_api", {"action": "retire_device"}, "asset_id"),
    ("asset_management_api", {"action": "retire_device", "asset_id": "MSG-404"}, "Device not found: MSG-404"),
    _missing("license_management_api", {"action": "check_availability"}, "catalog_id"),
    _missing(
        "license_management_api", {"action": "check_availability", "catalog_id": "CAT-1000001"}, "pool_type"
    ),
    (
        "license_management_api",
        {"action": "check_availability", "catalog_id": "CAT-1000002", "pool_type": "standard"},
        "License pool not found for catalog_id=CAT-1000002, pool_type=standard",
    ),
    _missing(
        "license_management_api",
        {"action": "allocate", "catalog_id": "CAT-1000001", "pool_type": "standard"},
        "email",
    ),
    _missing(
        "license_management_api", {"action": "allocate", "catalog_id": "CAT-1000001", "email": E}, "pool_type"
    ),
    _missing("license_management_api", {"action": "get_cost"}, "catalog_id"),
    (
        "license_management_api",
        {"action": "get_cost", "catalog_id": "CAT-1000001"},
        "Software catalog entry not found: CAT-1000001",
    ),
    _missing("degreed_api", {"action": "search_courses"}, "keyword"),
    _missing("degreed_api", {"action": "get_course_details"}, "course_id"),
    ("degreed_api", {"action": "get_course_details", "course_id": "CRS-404"}, "Course not found: CRS-404"),
    ("degreed_api", {"action": "check_enrollment", "course_id": "CRS-404"}, "Course not found: CRS-404"),
    _missing("degreed_api", {"action": "enroll_employee", "course_id": "CRS-1000002"}, "email"),
    _missing("degreed_api", {"action": "enroll_employee", "email": E}, "course_id"),
    (
        "degreed_api",
        {"action": "enroll_employee", "email": E, "course_id": "CRS-404"},
        "Course not found: CRS-404",
    ),
    _missing("degreed_api", {"action": "get_training_history"}, "email"),
    _missing("degreed_api", {"action": "check_certification_status", "email": E}, "certification_name"),
    _missing("degreed_api", {"action": "get_required_trainings"}, "client_id"),
    (
        "degreed_api",
        {"action": "get_required_trainings", "client_id": "CLT-404"},
        "Client not found: CLT-404",
    ),
    _missing("client_access_api", {"action": "provision_vpn"}, "email"),
    _missing("client_access_api", {"action": "check_vpn_access"}, "email"),
    _missing("client_access_api", {"action": "revoke_vpn"}, "email"),
    _missing(
        "client_access_api",
        {"action": "provision_client_system", "email": E, "system_name": "X", "access_type": "admin"},
        "client_id",
    ),
    _missing(
        "client_access_api",
        {"action": "provision_client_system", "email": E, "client_id": "CLT-0012345", "access_type": "admin"},
        "system_name",
    ),
    _missing(
        "client_access_api",
        {"action": "provision_client_system", "email": E, "client_id": "CLT-0012345", "system_name": "X"},
        "access_type",
    ),
    _missing("client_access_api", {"action": "check_client_requirements"}, "client_id"),
    (
        "client_access_api",
        {"action": "check_client_requirements", "client_id": "CLT-404"},
        "Client not found: CLT-404",
    ),
    _missing("client_access_api", {"action": "get_employee_prerequisites", "email": E}, "client_id"),
    _missing("background_check_api", {"action": "get_status"}, "email"),
    _missing("background_check_api", {"action": "initiate", "clearance_level": "standard"}, "email"),
    _missing("background_check_api", {"action": "initiate", "email": E}, "clearance_level"),
    _missing("background_check_api", {"action": "get_timeline"}, "clearance_level"),
    _missing("nda_api", {"action": "check_status", "email": E}, "client_id"),
    _missing("nda_api", {"action": "send_for_signature", "client_id": "CLT-0012345"}, "email"),
    _missing("box_api", {"action": "get_folder_details"}, "folder_id"),
    ("box_api", {"action": "get_folder_details", "folder_id": "FLD-404"}, "Folder not found: FLD-404"),
    _missing("box_api", {"action": "grant_folder_access", "folder_id": "FLD-1000002"}, "email"),
    _missing(
        "box_api", {"action": "grant_folder_access", "email": E, "permission_level": "viewer"}, "folder_id"
    ),
    _missing(
        "box_api",
        {"action": "grant_folder_access", "email": E, "folder_id": "FLD-1000002"},
        "permission_level",
    ),
    (
        "box_api",
        {"action": "grant_folder_access", "email": E, "folder_id": "FLD-404", "permission_level": "editor"},
        "Folder not found: FLD-404",
    ),
]


test_validation_errors, test_every_tool_has_a_validation_case, test_business_rule_refusals = tool_case_tests(
    CONSULTING, VALIDATION_CASES, REFUSALS
)


async def test_errors_reach_the_agent_in_the_reference_envelope(seeded: World) -> None:
    assert await error_reply(seeded, "box_api", {"action": "get_folder_details", "folder_id": "FLD-404"}) == (
        '{"error": "Tool execution failed: Folder not found: FLD-404", "tool": "box_api"}',
        "not_found",
    )
    missing = await seeded.call("nda_api", {"action": "check_status"})
    assert missing.error_class == "invalid_arguments"
