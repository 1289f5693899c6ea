"""Every neobank tool's validation errors and business-rule refusals, in the reference's words.

Worlds hold only the domain's seed rows; a refused call changes nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmark.world import World
from tests.benchmark.helpers import error_reply, ok
from tests.benchmark.neobank.conftest import NEOBANK
from tests.benchmark.tool_cases import Case, tool_case_tests

MARCUS = "marcus.thompson@vdb.com"
EMMA = "emma.wilson@vdb.com"
NOBODY = "nobody@vdb.com"
APPROVAL = {
    "request_type": "access_request",
    "requester_email": MARCUS,
    "approver_email": "sarah.jones@vdb.com",
    "details": "Snowflake read access",
}
ORDER = {
    "device_type": "monitor",
    "device_model": "Dell U2723",
    "quantity": 1,
    "expected_delivery_date": "2025-12-28",
    "ship_to_location": "350 Mission St, San Francisco",
    "requester_email": EMMA,
}
EMAIL = {
    "recipient_email": "sarah.jones@vdb.com",
    "notification_type": "ticket_update",
    "subject": "s",
    "body": "b",
}

VALIDATION_CASES: list[Case] = [
    ("workday_api_get_employee", {}, "email: Field required"),
    ("workday_api_get_manager_chain", {"email": 5}, "email: Input should be a valid string"),
    ("workday_api_get_org_structure", {"email": MARCUS}, "manager_email: Field required"),
    ("okta_api_check_access", {"email": MARCUS}, "app_name: Field required"),
    (
        "okta_api_provision_access",
        {"email": EMMA, "app_name": "Tableau", "access_level": "boss"},
        "access_level: Input should be 'none', 'read_only', 'read_write'",
    ),
    (
        "okta_api_provision_access",
        {"email": EMMA, "app_name": "Tableau", "access_level": "viewer", "is_temporary": "maybe"},
        "is_temporary: Input should be a valid boolean, unable to interpret input",
    ),
    ("okta_api_revoke_access", {"app_name": "Tableau"}, "email: Field required"),
    ("okta_api_get_user_groups", {"email": None}, "email: Input should be a valid string"),
    ("okta_api_add_to_group", {"email": EMMA}, "group_name: Field required"),
    (
        "okta_security_api_execute_action",
        {"email": MARCUS, "operation": "reboot"},
        "operation: Input should be 'send_verification_manager'",
    ),
    (
        "okta_security_api_execute_action",
        {"email": MARCUS, "operation": "set_temporary_bypass", "bypass_duration_hours": 2.5},
        "bypass_duration_hours: Input should be a valid integer, got a number with a fractional part",
    ),
    ("security_api_verify_incident", {"severity": "SEV1"}, "severity: Extra inputs are not permitted"),
    (
        "approval_api_create_request",
        {k: v for k, v in APPROVAL.items() if k != "details"},
        "details: Field required",
    ),
    ("approval_api_create_request", {**APPROVAL, "urgency": "asap"}, "urgency: Input should be"),
    ("approval_api_check_status", {}, "approval_request_id: Field required"),
    (
        "approver_lookup_api_get_contact_details",
        {"email": MARCUS, "extra": 1},
        "extra: Extra inputs are not permitted",
    ),
    ("approver_lookup_api_get_approver_contact", {}, "required_approver: Field required"),
    ("asset_management_api_assign_device", {"asset_id": "VDB-HW-31854"}, "email: Field required"),
    (
        "asset_management_api_check_inventory",
        {"device_type": "monitor"},
        "warehouse_location: Field required",
    ),
    ("asset_management_api_get_device_details", {"asset_id": 7}, "asset_id: Input should be a valid string"),
    (
        "asset_management_api_get_employee_devices",
        {"email": MARCUS, "all": True},
        "all: Extra inputs are not permitted",
    ),
    ("asset_management_api_retire_device", {}, "asset_id: Field required"),
    (
        "email_notification_api_send_notification",
        {**EMAIL, "cc_emails": ["a@vdb.com"]},
        "cc_emails: Input should be a valid string",
    ),
    (
        "email_notification_api_send_notification",
        {**EMAIL, "notification_type": "party"},
        "notification_type: Input should be 'access_provisioned'",
    ),
    (
        "hardware_procurement_api_create_order",
        {**ORDER, "quantity": "two"},
        "quantity: Input should be a valid integer, unable to parse string as an integer",
    ),
    ("hardware_procurement_api_create_order", {**ORDER, "cost": 5}, "cost: Extra inputs are not permitted"),
    ("license_management_api_allocate_license", {"software_name": "Tableau"}, "email: Field required"),
    ("license_management_api_check_availability", {}, "software_name: Field required"),
    (
        "license_management_api_check_license_type",
        {"software_name": ["Tableau"]},
        "software_name: Input should be a valid string",
    ),
    ("knowledge_base_search_policy", {"query": "laptop", "max_results": "all"}, "max_results"),
]


REFUSALS: list[Case] = [
    (
        "workday_api_get_employee",
        {"email": "LISA.CHEN@vdb.com"},
        "No employee found with the provided email: LISA.CHEN@vdb.com",
    ),
    ("workday_api_get_manager_chain", {"email": NOBODY}, "Employee not found: nobody@vdb.com"),
    ("workday_api_get_org_structure", {"manager_email": NOBODY}, "Manager not found: nobody@vdb.com"),
    ("okta_api_check_access", {"email": NOBODY, "app_name": "Jira"}, "Employee not found: nobody@vdb.com"),
    (
        "okta_api_provision_access",
        {"email": MARCUS, "app_name": "Salesforce", "access_level": "viewer"},
        "Employee already has access to this application: Salesforce",
    ),
    (
        "okta_api_provision_access",
        {"email": NOBODY, "app_name": "Salesforce", "access_level": "viewer"},
        "Employee not found in Okta directory: nobody@vdb.com",
    ),
    (
        "okta_api_revoke_access",
        {"email": "david.kim@vdb.com", "app_name": "Jira"},
        "No active access found to revoke for application: Jira",
    ),
    ("okta_api_revoke_access", {"email": NOBODY, "app_name": "Jira"}, "Employee not found: nobody@vdb.com"),
    ("okta_api_get_user_groups", {"email": NOBODY}, "Employee not found: nobody@vdb.com"),
    (
        "okta_api_add_to_group",
        {"email": MARCUS, "group_name": "engineers"},
        "Employee is already a member of this group: engineers",
    ),
    ("okta_api_add_to_group", {"email": NOBODY, "group_name": "x"}, "Employee not found: nobody@vdb.com"),
    (
        "okta_security_api_execute_action",
        {"email": NOBODY, "operation": "unlock_account"},
        "Employee not found in Okta directory: nobody@vdb.com",
    ),
    (
        "okta_security_api_execute_action",
        {"email": MARCUS, "operation": "add_mfa_device", "mfa_device_id": ""},
        "mfa_device_id is required for add_mfa_device operation",
    ),
    (
        "okta_security_api_execute_action",
        {"email": MARCUS, "operation": "remove_mfa_device"},
        "mfa_device_id is required for remove_mfa_device operation",
    ),
    (
        "okta_security_api_execute_action",
        {"email": MARCUS, "operation": "set_temporary_bypass", "bypass_duration_hours": 0},
        "bypass_duration_hours is required for set_temporary_bypass operation",
    ),
    (
        "okta_security_api_execute_action",
        {"email": MARCUS, "operation": "set_temporary_bypass", "bypass_duration_hours": 5},
        "bypass_duration_hours cannot exceed 4 hours",
    ),
    (
        "okta_security_api_execute_action",
        {"email": MARCUS, "operation": "force_password_reset", "bypass_expires_at": "tomorrow"},
        "Failed to execute security action: Invalid isoformat string: 'tomorrow'",
    ),
    (
        "approval_api_create_request",
        {**APPROVAL, "requester_email": NOBODY, "approver_email": "nobody2@vdb.com"},
        "Requester not found: nobody@vdb.com",
    ),
    (
        "approval_api_create_request",
        {**APPROVAL, "approver_email": "nobody2@vdb.com"},
        "Approver not found: nobody2@vdb.com",
    ),
    ("approval_api_check_status", {"approval_request_id": "APR-404"}, "Approval request not found: APR-404"),
    ("approver_lookup_api_get_contact_details", {"email": NOBODY}, "Approver not found: nobody@vdb.com"),
    (
        "approver_lookup_api_get_approver_contact",
        {"required_approver": "legal"},
        "Invalid required_approver: legal. Must be one of: it_security, finance_accounting, compliance_risk",
    ),
    (
        "asset_management_api_assign_device",
        {"asset_id": "VDB-HW-29417", "email": EMMA},
        "Asset VDB-HW-29417 is already assigned",
    ),
    (
        "asset_management_api_assign_device",
        {"asset_id": "VDB-HW-14725", "email": EMMA},
        "Cannot assign retired asset: VDB-HW-14725",
    ),
    (
        "asset_management_api_assign_device",
        {"asset_id": "VDB-HW-404", "email": EMMA},
        "Asset not found: VDB-HW-404",
    ),
    (
        "asset_management_api_assign_device",
        {"asset_id": "VDB-HW-31854", "email": NOBODY},
        "Employee not found: nobody@vdb.com",
    ),
    (
        "asset_management_api_check_inventory",
        {"device_type": "Monitor", "warehouse_location": "sf"},
        "Invalid device type: Monitor",
    ),
    (
        "asset_management_api_check_inventory",
        {"device_type": "monitor", "warehouse_location": "london"},
        "Invalid warehouse location: london",
    ),
    ("asset_management_api_get_device_details", {"asset_id": "VDB-HW-404"}, "Asset not found: VDB-HW-404"),
    ("asset_management_api_get_employee_devices", {"email": NOBODY}, "Employee not found: nobody@vdb.com"),
    (
        "asset_management_api_retire_device",
        {"asset_id": "VDB-HW-14725"},
        "Asset VDB-HW-14725 is already retired",
    ),
    ("asset_management_api_retire_device", {"asset_id": "VDB-HW-404"}, "Asset not found: VDB-HW-404"),
    (
        "email_notification_api_send_notification",
        {**EMAIL, "recipient_email": NOBODY},
        "Recipient email not found in employee directory: nobody@vdb.com",
    ),
    (
        "hardware_procurement_api_create_order",
        {**ORDER, "expected_delivery_date": "12/28/2025"},
        "Invalid expected_delivery_date format: 12/28/2025. Expected YYYY-MM-DD format.",
    ),
    (
        "hardware_procurement_api_create_order",
        {**ORDER, "requester_email": NOBODY},
        "Requester not found: nobody@vdb.com",
    ),
    (
        "license_management_api_allocate_license",
        {"software_name": "tableau", "email": "lisa.chen@vdb.com"},
        "Employee already has a license for this software: tableau",
    ),
    (
        "license_management_api_allocate_license",
        {"software_name": "Figma", "email": EMMA},
        "Software not found: Figma",
    ),
    (
        "license_management_api_allocate_license",
        {"software_name": "Figma", "email": NOBODY},
        "Employee not found: nobody@vdb.com",
    ),
    (
        "license_management_api_check_availability",
        {"software_name": "Figma"},
        "Software not found in license inventory: Figma",
    ),
    (
        "license_management_api_check_license_type",
        {"software_name": "Figma"},
        "Software not found in license inventory: Figma",
    ),
    ("knowledge_base_search_policy", {"query": "laptop refresh"}, "Search service is not available"),
]


test_validation_errors, test_every_tool_has_a_validation_case, test_business_rule_refusals = tool_case_tests(
    NEOBANK, VALIDATION_CASES, REFUSALS
)


async def test_errors_reach_the_agent_in_the_reference_envelope(seeded: World) -> None:
    assert await error_reply(seeded, "approval_api_check_status", {"approval_request_id": "APR-404"}) == (
        '{"error": "Tool execution failed: Approval request not found: APR-404", '
        '"tool": "approval_api_check_status"}',
        "not_found",
    )


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("workday_api_get_employee", {"email": EMMA, "verbose": True}),
        ("okta_api_check_access", {"email": MARCUS, "app_name": "Salesforce", "reason": "audit"}),
        ("license_management_api_check_license_type", {"software_name": "Slack", "edition": "pro"}),
    ],
)
async def test_the_lenient_tools_ignore_unknown_arguments(
    seeded: World, tool: str, arguments: dict[str, Any]
) -> None:
    await ok(seeded, tool, arguments)
