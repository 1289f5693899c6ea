"""Wrong consulting trajectories about tickets: lifecycle, status, required and custom fields, priority."""

from __future__ import annotations

from tests.benchmark.consulting_rules.case import APPROVAL, LICENSES
from tests.benchmark.consulting_rules.conftest import (
    CREATE,
    UPDATE,
    add,
    chain,
    change,
    change_item,
    drop,
)
from tests.benchmark.wrong_cases import WrongCase, blocked

__all__ = ["TICKET_CASES"]

TICKET_CASES: dict[str, WrongCase] = {
    # --- ticket lifecycle ---------------------------------------------------------------------------
    "ticket left open": blocked(
        "swa_004",
        change_item(UPDATE, -1, status="open"),
        "ticket-status-at-commit",
        ("ticket 6", "status 'open'", "allowed: pending, hold, solved"),
    ),
    "ticket closed by the agent": blocked(
        "trv_001",
        change_item(UPDATE, -1, status="closed"),
        "ticket-status-at-commit",
        ("ticket 6", "status 'closed'", "allowed: pending, hold, solved"),
    ),
    "approval requested but ticket solved": blocked(
        "exp_001",
        change_item(UPDATE, -1, status="solved"),
        "ticket-status-waiting",
        ("ticket 6", "status 'solved'", "APR-2-000000", "allowed: pending"),
    ),
    "NDA sent but ticket on hold": blocked(
        "csa_005",
        change_item(UPDATE, -1, status="hold"),
        "ticket-status-waiting",
        ("ticket 6", "status 'hold'", "NDA", "allowed: pending"),
    ),
    "clearance initiated but ticket solved": blocked(
        "csa_003",
        change_item(UPDATE, -1, status="solved"),
        "ticket-status-waiting",
        ("ticket 6", "status 'solved'", "clearance", "allowed: pending"),
    ),
    "prerequisite training enrolled but ticket solved": blocked(
        "onb_010",
        change_item(UPDATE, -1, status="solved"),
        "ticket-status-waiting",
        ("ticket 6", "status 'solved'", "enrollment ENR-2-000000", "allowed: pending"),
    ),
    "folder access granted but ticket pending": blocked(
        "doc_001",
        change_item(UPDATE, -1, status="pending"),
        "ticket-status-fulfilled",
        ("ticket 6", "status 'pending'", "FAL-2-000000", "allowed: solved"),
    ),
    "device assigned but ticket on hold": blocked(
        "hwa_001",
        change_item(UPDATE, -1, status="hold"),
        "ticket-status-fulfilled",
        ("ticket 6", "status 'hold'", "ASMT-2-000000", "allowed: solved"),
    ),
    "hardware ordered but ticket solved": blocked(
        "hwa_016",
        change_item(UPDATE, -1, status="solved"),
        "ticket-hardware-order-pending",
        ("ticket 6", "status 'solved'", "HWO-0056435", "allowed: pending"),
    ),
    "solved while the listed approval is pending": blocked(
        "trv_002",
        change_item(UPDATE, -1, status="solved"),
        "ticket-solved-undecided-approval",
        ("ticket 12848", "status 'solved'", "sarah.thompson@msg.com", "pending"),
    ),
    "request recorded on no ticket": blocked(
        "trv_001",
        chain(drop(CREATE), drop(UPDATE)),
        "request-without-ticket",
        ("no ticket created or updated", "zendesk_create_item"),
    ),
    "request solved with its engagement code but not fulfilled": blocked(
        "doc_005",
        drop("box_api", action="grant_folder_access"),
        "ticket-solved-fulfilled",
        (
            "ticket 12847",
            "status 'solved'",
            "ENG-1357924",
            "access to folder FLD-2847391",
            "allowed: solved once",
        ),
    ),
    "ticket deleted": blocked(
        "trv_002",
        add("zendesk_delete_item", {"table": "tickets", "id": "12848"}),
        "ticket-not-deleted",
        ("ticket 12848 deleted",),
    ),
    "comment added to a ticket": blocked(
        "trv_001",
        add(CREATE, {"table": "comments", "item": {"ticket_id": "6", "author_id": "157", "body": "Done."}}),
        "ticket-no-comments",
        ("comment", "allowed: no comments"),
    ),
    # --- ticket fields --------------------------------------------------------------------------------
    "ticket assigned to another agent": blocked(
        "trv_001",
        change_item(CREATE, assignee_id="12"),
        "ticket-assignee",
        ("ticket 6", "assignee_id '12'", "allowed: 157"),
    ),
    "ticket created with an organization": blocked(
        "swa_004",
        change_item(CREATE, organization_id="1"),
        "ticket-no-organization",
        ("ticket 6", "organization_id '1'", "allowed: no organization_id"),
    ),
    "ticket created with a due date": blocked(
        "swa_004",
        change_item(CREATE, due_at="2025-10-03T17:00:00Z"),
        "ticket-no-due-date",
        ("ticket 6", "due_at '2025-10-03T17:00:00Z'", "allowed: no due_at"),
    ),
    "ticket of type incident": blocked(
        "trv_001",
        change_item(CREATE, type="incident"),
        "ticket-type",
        ("ticket 6", "type 'incident'", "allowed: question, problem, task"),
    ),
    "ticket tagged with a hash": blocked(
        "doc_001",
        change_item(CREATE, tags=["#document_access"]),
        "ticket-category-tag",
        ("ticket 6", "#document_access", "allowed: exactly one of"),
    ),
    "ticket with two category tags": blocked(
        "doc_001",
        change_item(CREATE, tags=["document_access", "client_access"]),
        "ticket-category-tag",
        ("ticket 6", "client_access", "allowed: exactly one of"),
    ),
    "ticket for an unknown requester": blocked(
        "trv_001",
        change_item(CREATE, requester_id="99999"),
        "ticket-requester-known",
        ("ticket 6", "requester_id '99999'"),
    ),
    "ticket without priority": blocked(
        "trv_001",
        change_item(CREATE, priority=None),
        "ticket-priority-set",
        ("ticket 6", "priority 'null'", "allowed: urgent, high, normal, low"),
    ),
    "Partner's request at normal priority": blocked(
        "csa_006",
        change_item(CREATE, priority="high"),
        "ticket-priority-partner",
        ("ticket 6", "priority 'high'", "david.martinez@msg.com", "Partner", "allowed: urgent"),
    ),
    "rejected expense at normal priority": blocked(
        "exp_001",
        change_item(CREATE, priority="normal"),
        "ticket-priority-flagged-expense",
        ("ticket 6", "priority 'normal'", "EXP-2847293", "allowed: high"),
    ),
    "started engagement's client access at normal priority": blocked(
        "csa_001",
        change_item(CREATE, priority="normal"),
        "ticket-priority-started-engagement",
        ("ticket 6", "priority 'normal'", "ENG-1234567", "allowed: high"),
    ),
    "urgent for a Manager's software request": blocked(
        "swa_004",
        change_item(CREATE, priority="urgent"),
        "ticket-priority-urgent",
        (
            "ticket 6",
            "priority 'urgent'",
            "software_access",
            "david.martinez@msg.com",
            "allowed: urgent only",
        ),
    ),
    "high for a training request": blocked(
        "trn_002",
        change_item(CREATE, priority="high"),
        "ticket-priority-high",
        ("ticket 6", "priority 'high'", "training_enrollment", "allowed: high only"),
    ),
    "low priority on a provisioning task": blocked(
        "doc_001",
        change_item(CREATE, priority="low"),
        "ticket-priority-low-informational",
        ("ticket 6", "priority 'low'", "type 'task'", "allowed: low only"),
    ),
    "engagement code of the wrong form": blocked(
        "swa_004",
        chain(
            change_item(CREATE, engagement_code="ENG-51829"),
            change(LICENSES, action="allocate", engagement_code="ENG-51829"),
        ),
        "ticket-engagement-code-format",
        ("ticket 6", "engagement_code 'ENG-51829'", "allowed: ENG-#######"),
    ),
    "engagement code of a pipeline engagement stored": blocked(
        "csa_001",
        chain(
            change_item(CREATE, engagement_code="ENG-0034567"),
            change(APPROVAL, engagement_code="ENG-0034567"),
        ),
        "ticket-engagement-code-active",
        ("ticket 6", "engagement_code 'ENG-0034567'", "pipeline", "allowed: only a valid, active"),
    ),
    "engagement code the employee is not on stored": blocked(
        "csa_001",
        chain(
            change_item(CREATE, engagement_code="ENG-0012345"),
            change(APPROVAL, engagement_code="ENG-0012345"),
        ),
        "ticket-engagement-code-assigned",
        ("ticket 6", "engagement_code 'ENG-0012345'", "sarah.martinez@msg.com", "not assigned"),
    ),
    "contributor access on a folder request": blocked(
        "doc_001",
        change_item(CREATE, access_type="contributor"),
        "ticket-document-access-type",
        ("ticket 6", "access_type 'contributor'", "allowed: read_only"),
    ),
    "approval required without approvers": blocked(
        "exp_008",
        change_item(CREATE, approver_id=None),
        "ticket-approval-fields",
        ("ticket 6", "approval_required 'yes'", "approver_id 'null'"),
    ),
    "approvers out of alphabetical order": blocked(
        "trn_005",
        change_item(CREATE, approver_id="sarah.thompson@msg.com,robert.davis@msg.com,lisa.chen@msg.com"),
        "ticket-approver-order",
        (
            "ticket 6",
            "approver_id 'sarah.thompson@msg.com,robert.davis@msg.com,lisa.chen@msg.com'",
            "allowed: lisa.chen@msg.com,robert.davis@msg.com,sarah.thompson@msg.com",
        ),
    ),
    "approvers separated by a space": blocked(
        "swa_002",
        change_item(UPDATE, -1, approver_id="david.chen@msg.com, jennifer.williams@msg.com"),
        "ticket-approver-id-format",
        ("ticket 6", "approver_id 'david.chen@msg.com, jennifer.williams@msg.com'", "without spaces"),
    ),
    "license pool other than the catalog's": blocked(
        "swa_001",
        change_item(CREATE, license_pool="enterprise"),
        "ticket-license-pool",
        ("ticket 6", "license_pool 'enterprise'", "CAT-1847293", "allowed: standard"),
    ),
    "catalog id of no software": blocked(
        "swa_003",
        change_item(UPDATE, -1, catalog_id="CAT-4829999"),
        "ticket-catalog-id",
        ("ticket 6", "catalog_id 'CAT-4829999'", "allowed: CAT-#######"),
    ),
    "client id of no client": blocked(
        "csa_008",
        change_item(CREATE, client_id="CLT-0000000"),
        "ticket-client-id",
        ("ticket 6", "client_id 'CLT-0000000'", "names no client", "allowed: CLT-#######"),
    ),
    "course id of no course": blocked(
        "trn_008",
        change_item(UPDATE, -1, course_id="CRS-0000000"),
        "ticket-course-id",
        ("ticket 6", "course_id 'CRS-0000000'", "names no course", "allowed: CRS-#######"),
    ),
    "folder id of no folder": blocked(
        "doc_003",
        change_item(UPDATE, -1, folder_id="FLD-0000000"),
        "ticket-folder-id",
        ("ticket 47291", "folder_id 'FLD-0000000'", "names no Box folder", "allowed: FLD-#######"),
    ),
    "hardware order id of the wrong form": blocked(
        "hwa_016",
        change_item(UPDATE, -1, hardware_order_id="HWO-56435"),
        "ticket-hardware-order-id",
        ("ticket 6", "hardware_order_id 'HWO-56435'", "allowed: HWO-#######"),
    ),
    "ticket created without a description": blocked(
        "trv_001",
        change_item(CREATE, description=None),
        "ticket-required-fields",
        ("ticket 6", "description 'null'", "allowed: a ticket is created with subject, description"),
    ),
    "expense report of another employee": blocked(
        "exp_001",
        change_item(UPDATE, -1, expense_report_id="EXP-1000002"),
        "ticket-expense-report-id",
        ("ticket 6", "expense_report_id 'EXP-1000002'", "sarah.martinez@msg.com"),
    ),
    "asset id of the old device": blocked(
        "hwa_001",
        change_item(CREATE, asset_id="MSG84729163"),
        "ticket-asset-id",
        ("ticket 6", "asset_id 'MSG84729163'", "retired", "allowed: MSG########"),
    ),
    "device type other than the device's": blocked(
        "hwa_001",
        change_item(CREATE, device_type="laptop"),
        "ticket-asset-id",
        ("ticket 6", "asset_id 'MSG95847261'", "device_type 'laptop'", "phone"),
    ),
    "client other than the engagement's": blocked(
        "csa_001",
        change_item(CREATE, client_id="CLT-0012345"),
        "ticket-client-of-engagement",
        ("ticket 6", "client_id 'CLT-0012345'", "CLT-2847391"),
    ),
}
