"""Wrong consulting trajectories about the work a ticket documents: approvals, software, hardware,
expenses, training, client access and documents."""

from __future__ import annotations

from tests.benchmark.consulting_rules.case import (
    APPROVAL,
    ASSETS,
    CLIENT,
    CONCUR,
    DEGREED,
    LICENSES,
    approval_item,
    enroll_item,
)
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

__all__ = ["ACTION_CASES"]

ACTION_CASES: dict[str, WrongCase] = {
    # --- approvals ------------------------------------------------------------------------------------
    "software approval without its amount": blocked(
        "swa_001",
        change(APPROVAL, amount=None),
        "approval-amount",
        ("approval APR-2-000000", "amount null", "software_access", "allowed: an amount for software_access"),
    ),
    "hardware approval with an amount": blocked(
        "hwa_004",
        change(APPROVAL, amount=999),
        "approval-amount",
        ("approval APR-2-000000", "amount 999", "hardware_replacement"),
    ),
    "software approval amount other than the annual cost": blocked(
        "swa_001",
        change(APPROVAL, amount=400),
        "approval-amount-of-record",
        ("approval APR-2-000000", "amount 400", "CAT-1847293", "allowed: 420"),
    ),
    "expense approval amount other than the report's": blocked(
        "exp_001",
        change(APPROVAL, amount=100),
        "approval-amount-of-record",
        ("approval APR-2-000000", "amount 100", "EXP-2847293", "allowed: 120"),
    ),
    "requester approving their own request": blocked(
        "exp_001",
        chain(
            change(APPROVAL, approver_email="sarah.martinez@msg.com"),
            change_item(UPDATE, -1, approver_id="sarah.martinez@msg.com"),
        ),
        "approval-not-self",
        (
            "approval APR-2-000000",
            "sarah.martinez@msg.com",
            "approver_email 'sarah.martinez@msg.com'",
            "requester's own",
        ),
    ),
    "expense approval routed to the partner": blocked(
        "exp_012",
        chain(
            change(APPROVAL, approver_email="jennifer.williams@msg.com"),
            change_item(UPDATE, -1, approver_id="jennifer.williams@msg.com"),
        ),
        "approval-approver",
        ("approval APR-2-000000", "expense_override", "jennifer.williams@msg.com", "manager"),
    ),
    "software approval for a Partner": blocked(
        "swa_020",
        chain(
            add(
                APPROVAL,
                approval_item(
                    "software_access", "david.martinez@msg.com", "sarah.thompson@msg.com", amount=50000
                ),
                before=UPDATE,
            ),
            change_item(
                UPDATE, -1, status="pending", approval_required="yes", approver_id="sarah.thompson@msg.com"
            ),
        ),
        "approval-needed",
        ("approval APR-2-000000", "software_access", "Partner", "allowed: no approval request"),
    ),
    "approval requested twice": blocked(
        "exp_001",
        add(
            APPROVAL,
            approval_item(
                "expense_override", "sarah.martinez@msg.com", "michael.thompson@msg.com", amount=120
            ),
            before=UPDATE,
        ),
        "approval-duplicate",
        ("approval APR-2-000001", "michael.thompson@msg.com", "already has", "APR-2-000000 pending"),
    ),
    "client access approval before the clearance": blocked(
        "csa_009",
        add(
            APPROVAL,
            approval_item(
                "client_access",
                "david.martinez@msg.com",
                "jennifer.adams@msg.com",
                engagement_code="ENG-9012345",
            ),
            before=CREATE,
        ),
        "approval-client-prerequisites",
        ("approval APR-2-000000", "clearance", "'in_progress'"),
    ),
    "approval on an engagement code the ticket does not store": blocked(
        "swa_001",
        change(APPROVAL, engagement_code=None),
        "approval-ticket-engagement-code",
        ("approval APR-2-000000", "engagement_code 'null'", "ENG-2847561"),
    ),
    "hardware approval for a monitor": blocked(
        "hwa_019",
        chain(
            add(
                APPROVAL,
                approval_item("hardware_replacement", "michael.rodriguez@msg.com", "sarah.chen@msg.com"),
            ),
            change_item(
                UPDATE, -1, approval_required="yes", approver_id="sarah.chen@msg.com", status="pending"
            ),
        ),
        "approval-peripheral",
        ("approval APR-2-000000", "monitor", "allowed: no approval"),
    ),
    "engagement coordination approval without its engagement": blocked(
        "trn_005",
        change(APPROVAL, 0, engagement_code=None),
        "approval-engagement-code",
        ("approval APR-2-000000", "engagement_code 'null'", "training_engagement_coordination", "required"),
    ),
    "approval recorded on no ticket": blocked(
        "exp_001",
        chain(drop(CREATE), drop(UPDATE)),
        "action-without-ticket",
        ("approval APR-2-000000", "sarah.martinez@msg.com", "no ticket"),
    ),
    "approver listed but never asked": blocked(
        "exp_001",
        drop(APPROVAL),
        "ticket-approver-not-asked",
        (
            "ticket 6",
            "approver_id lists michael.thompson@msg.com",
            "no approval request",
            "approval_create_request",
        ),
    ),
    "approver left out of the ticket": blocked(
        "swa_002",
        change_item(UPDATE, -1, approver_id="david.chen@msg.com"),
        "action-ticket-field",
        ("ticket 6", "approver_id 'david.chen@msg.com'", "APR-2-000001", "jennifer.williams@msg.com"),
    ),
    # --- software and access --------------------------------------------------------------------------
    "license from a pool at capacity": blocked(
        "swa_003",
        add(
            LICENSES,
            {
                "action": "allocate",
                "catalog_id": "CAT-4829571",
                "email": "sarah.martinez@msg.com",
                "pool_type": "standard",
                "engagement_code": "ENG-4027183",
            },
            before=UPDATE,
        ),
        "license-pool-capacity",
        ("license LIC-2-000000", "CAT-4829571", "6 licenses", "would have 7"),
    ),
    "license before the approval is granted": blocked(
        "swa_001",
        add(
            LICENSES,
            {
                "action": "allocate",
                "catalog_id": "CAT-1847293",
                "email": "sarah.martinez@msg.com",
                "pool_type": "standard",
                "engagement_code": "ENG-2847561",
            },
        ),
        "license-approved",
        ("license LIC-2-000000", "Tableau", "Analyst", "APR-2-000000 pending"),
    ),
    "license from the wrong pool": blocked(
        "swa_004",
        change(LICENSES, action="allocate", pool_type="standard"),
        "license-pool-type",
        ("license LIC-2-000000", "CAT-2847391", "pool_type 'standard'", "catalog: enterprise"),
    ),
    "specialized software without engagement code": blocked(
        "swa_004",
        change(LICENSES, action="allocate", engagement_code=None),
        "license-engagement-code",
        ("license LIC-2-000000", "Miro", "engagement_code 'null'"),
    ),
    "application access without a license": blocked(
        "swa_004",
        drop(LICENSES, action="allocate"),
        "okta-licensed",
        ("application access AAL-2-000000", "Miro", "CAT-2847391"),
    ),
    "application access provisioned twice": blocked(
        "onb_001",
        add(
            "okta_provision_access",
            {"access_type": "full_access", "app_name": "Zoom", "email": "sarah.martinez@msg.com"},
            before=UPDATE,
        ),
        "okta-duplicate",
        ("application access AAL-2-000004", "app_name 'Zoom'", "already provisioned"),
    ),
    "application access of another type than the ticket records": blocked(
        "onb_001",
        change("okta_provision_access", -1, access_type="read_only"),
        "access-type-of-ticket",
        ("application access AAL-2-000003", "access_type 'read_only'", "ticket 6", "allowed: full_access"),
    ),
    "license allocated twice": blocked(
        "swa_004",
        add(
            LICENSES,
            {
                "action": "allocate",
                "catalog_id": "CAT-2847391",
                "email": "david.martinez@msg.com",
                "pool_type": "enterprise",
                "engagement_code": "ENG-5182934",
            },
            before=UPDATE,
        ),
        "license-duplicate",
        ("license LIC-2-000001", "catalog_id CAT-2847391", "already licensed"),
    ),
    "license without its ticket's catalog id": blocked(
        "swa_004",
        change_item(CREATE, catalog_id=None),
        "action-ticket-field",
        ("ticket 6", "catalog_id 'null'", "LIC-2-000000", "CAT-2847391"),
    ),
    # --- hardware -------------------------------------------------------------------------------------
    "device reserved but never assigned": blocked(
        "hwa_001",
        drop(ASSETS, action="assign_device"),
        "device-from-stock",
        ("device MSG95847261", "'reserved'", "allowed: available → reserved → assigned"),
    ),
    "later unit assigned before the first": blocked(
        "hwa_001",
        chain(
            drop(ASSETS, action="reserve_device"),
            change(ASSETS, action="assign_device", asset_id="MSG95847262"),
            change_item(CREATE, asset_id="MSG95847262"),
        ),
        "device-first-available",
        ("device MSG95847262", "MSG95847261", "iPhone 15", "allowed: the first available device"),
    ),
    "device from another office": blocked(
        "hwa_001",
        chain(
            drop(ASSETS, action="reserve_device"),
            change(ASSETS, action="assign_device", asset_id="MSG00002002"),
            change_item(CREATE, asset_id="MSG00002002"),
        ),
        "device-assignment-office",
        ("device assignment ASMT-2-000000", "MSG00002002", "Austin", "Chicago"),
    ),
    "device already held by someone else": blocked(
        "hwa_001",
        chain(
            drop(ASSETS, action="reserve_device"),
            change(ASSETS, action="assign_device", asset_id="MSG00002001"),
            change_item(CREATE, asset_id="MSG00002001"),
        ),
        "device-assignment-single",
        ("device assignment ASMT-2-000000", "MSG00002001", "already assigned"),
    ),
    "available device retired": blocked(
        "hwa_001",
        change(ASSETS, action="retire_device", asset_id="MSG95847262"),
        "device-retired-in-use",
        ("device MSG95847262", "inventory_status 'retired'", "'available'"),
    ),
    # --- expenses -------------------------------------------------------------------------------------
    "override before the approval is granted": blocked(
        "exp_001",
        add(
            CONCUR,
            {
                "action": "override_expense_rejection",
                "expense_report_id": "EXP-2847293",
                "override_reason": "justified_exception",
                "approver_email": "michael.thompson@msg.com",
            },
        ),
        "expense-override-approved",
        (
            "expense report EXP-2847293",
            "justified_exception",
            "michael.thompson@msg.com",
            "APR-2-000000 michael.thompson@msg.com pending",
        ),
    ),
    "override reason system_error for a missing receipt": blocked(
        "exp_008",
        change(CONCUR, action="override_expense_rejection", override_reason="system_error"),
        "expense-override-reason",
        ("expense report EXP-2847593", "'system_error'", "receipt 'missing'", "allowed: receipt_exception"),
    ),
    "override approved by someone other than the manager": blocked(
        "exp_007",
        change(CONCUR, action="override_expense_rejection", approver_email="michael.chen@msg.com"),
        "expense-override-manager",
        ("expense report EXP-7394821", "michael.chen@msg.com", "sarah.thompson@msg.com"),
    ),
    # --- training -------------------------------------------------------------------------------------
    "enrolled before the cost approval is granted": blocked(
        "trn_002",
        add(DEGREED, enroll_item("sarah.martinez@msg.com", "CRS-2847391")),
        "enrollment-cost-approvals",
        ("enrollment ENR-2-000000", "CRS-2847391", "3500", "APR-2-000000 pending"),
    ),
    "enrolled before the engagement approvals": blocked(
        "trn_005",
        add(DEGREED, enroll_item("david.martinez@msg.com", "CRS-2847391")),
        "enrollment-engagement-approvals",
        ("enrollment ENR-2-000000", "CRS-2847391", "ENG-2583694", "ENG-3694705"),
    ),
    "conference during an active engagement": blocked(
        "trn_008",
        add(DEGREED, enroll_item("sarah.martinez@msg.com", "CRS-4829571"), before=UPDATE),
        "enrollment-conference-overlap",
        (
            "enrollment ENR-2-000000",
            "course_id CRS-4829571 is a conference",
            "ENG-6927038",
            "allowed: no enrollment",
        ),
    ),
    "enrolled in a full session": blocked(
        "trn_011",
        add(DEGREED, enroll_item("michael.rodriguez@msg.com", "CRS-4829571"), before=UPDATE),
        "enrollment-seats",
        ("enrollment ENR-2-000000", "CRS-4829571", "0 seats", "allowed: no enrollment in a full session"),
    ),
    "enrolled without the prerequisites": blocked(
        "trn_001",
        chain(
            change(DEGREED, action="enroll_employee", course_id="CRS-1000002"),
            change_item(CREATE, course_id="CRS-1000002"),
            change_item(UPDATE, -1, course_id="CRS-1000002"),
        ),
        "enrollment-prerequisites",
        ("enrollment ENR-2-000000", "CRS-1000002", "CRS-1000001"),
    ),
    "enrolled twice": blocked(
        "trn_004",
        add(DEGREED, enroll_item("sarah.martinez@msg.com", "CRS-3847291")),
        "enrollment-duplicate",
        ("enrollment ENR-2-000001", "already enrolled", "CRS-3847291"),
    ),
    # --- client access and documents ------------------------------------------------------------------
    "NDA sent before the clearance": blocked(
        "csa_004",
        add(
            "nda_api",
            {"action": "send_for_signature", "client_id": "CLT-9384751", "email": "david.martinez@msg.com"},
            before=UPDATE,
        ),
        "nda-after-clearance",
        ("NDA david.martinez@msg.com/CLT-9384751", "'in_progress'", "allowed: initiate the clearance first"),
    ),
    "signed NDA sent again": blocked(
        "csa_001",
        add(
            "nda_api",
            {"action": "send_for_signature", "client_id": "CLT-2847391", "email": "sarah.martinez@msg.com"},
        ),
        "nda-not-signed-again",
        (
            "NDA sarah.martinez@msg.com/CLT-2847391",
            "status 'signed'",
            "allowed: send only an NDA that is not signed",
        ),
    ),
    "clearance initiated again": blocked(
        "csa_001",
        add(
            "background_check_api",
            {"action": "initiate", "clearance_level": "standard", "email": "sarah.martinez@msg.com"},
        ),
        "clearance-not-restarted",
        ("clearance sarah.martinez@msg.com", "status 'in_progress'", "while it was 'cleared'"),
    ),
    "clearance of the wrong level": blocked(
        "csa_009",
        change("background_check_api", action="initiate", clearance_level="standard"),
        "clearance-level-of-client",
        ("clearance david.martinez@msg.com", "standard", "CLT-4829371", "allowed: high_security"),
    ),
    "client system provisioned before approval": blocked(
        "csa_001",
        add(
            CLIENT,
            {
                "action": "provision_client_system",
                "client_id": "CLT-2847391",
                "email": "sarah.martinez@msg.com",
                "system_name": "Meridian VPN",
                "access_type": "full_access",
            },
            before=UPDATE,
        ),
        "client-access-approved",
        ("client system access CSA-2-000000", "CLT-2847391", "APR-2-000000 david.thompson@msg.com pending"),
    ),
    "client system provisioned before the prerequisites": blocked(
        "csa_004",
        add(
            CLIENT,
            {
                "action": "provision_client_system",
                "client_id": "CLT-9384751",
                "email": "david.martinez@msg.com",
                "system_name": "MedHealth EHR",
                "access_type": "full_access",
            },
            before=UPDATE,
        ),
        "client-access-prerequisites",
        ("client system access CSA-2-000000", "CLT-9384751", "'in_progress (high_security)'", "not_signed"),
    ),
    "VPN for a client the employee does not work for": blocked(
        "csa_006",
        add(
            CLIENT,
            {"action": "provision_vpn", "client_id": "CLT-0012345", "email": "david.martinez@msg.com"},
            before=UPDATE,
        ),
        "client-access-assigned",
        ("VPN access VPN-2-000000", "david.martinez@msg.com", "CLT-0012345"),
    ),
    "folder opened as editor": blocked(
        "doc_001",
        change("box_api", action="grant_folder_access", permission_level="editor"),
        "folder-viewer-only",
        ("folder access FAL-2-000000", "permission_level 'editor'", "allowed: viewer"),
    ),
    "confidential folder before the manager's approval": blocked(
        "doc_003",
        add(
            "box_api",
            {
                "action": "grant_folder_access",
                "email": "sarah.martinez@msg.com",
                "folder_id": "FLD-8472951",
                "permission_level": "viewer",
            },
        ),
        "folder-confidential-approval",
        (
            "folder access FAL-2-000000",
            "folder_id FLD-8472951 is confidential",
            "allowed: grant after the direct manager approved",
        ),
    ),
    "client-confidential folder before the NDA is signed": blocked(
        "doc_007",
        add(
            "box_api",
            {
                "action": "grant_folder_access",
                "email": "sarah.martinez@msg.com",
                "folder_id": "FLD-8472639",
                "permission_level": "viewer",
            },
        ),
        "folder-client-confidential-prerequisites",
        ("folder access FAL-2-000000", "FLD-8472639", "sent_for_signature"),
    ),
    "client-confidential folder without the engagement on the ticket": blocked(
        "doc_013",
        change_item(UPDATE, -1, client_id="CLT-0012345"),
        "client-folder-engagement",
        ("folder access FAL-2-000000", "FLD-3847291", "client_id 'CLT-0012345'"),
    ),
    "folder opened for another employee": blocked(
        "doc_001",
        change("box_api", action="grant_folder_access", email="david.martinez@msg.com"),
        "action-ticket-requester",
        ("folder access FAL-2-000000", "david.martinez@msg.com", "sarah.martinez@msg.com"),
    ),
    "folder opened twice": blocked(
        "doc_001",
        add(
            "box_api",
            {
                "action": "grant_folder_access",
                "email": "sarah.martinez@msg.com",
                "folder_id": "FLD-2847391",
                "permission_level": "viewer",
            },
            before=UPDATE,
        ),
        "folder-duplicate",
        ("folder access FAL-2-000001", "folder_id FLD-2847391", "already open"),
    ),
    "folder access without the ticket's folder id": blocked(
        "doc_001",
        change_item(CREATE, folder_id=None),
        "action-ticket-field",
        ("ticket 6", "folder_id 'null'", "FLD-2847391"),
    ),
}
