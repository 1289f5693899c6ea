"""Wrong auto insurance trajectories: a golden with one mistake an agent makes, and what the gate says.

Each :class:`Wrong` names the task (``bil_001`` for
``sandbox_auto_insurance_group1.py:test_bil_001``), the edit, the rule that
must block the commit and words its finding must contain (message and hint:
the record, the field, the value found and what is allowed). :data:`MISSED`
are real mistakes the gate cannot see, each with the reason; they are
replayed too, to keep the count of caught and missed honest.
"""

from __future__ import annotations

import re
from typing import Any

from tests.benchmark.auto_insurance_rules.conftest import (
    AUTO,
    Edit,
    add,
    chain,
    change,
    change_item,
    drop,
    swap,
)
from tests.benchmark.wrong_cases import Catalogue, Wording, WrongCase, WrongDomain, blocked, by_name, missed

__all__ = ["CASES", "WRONG_DOMAIN"]

CREATE, UPDATE = "zendesk_create_item", "zendesk_update_item"
EXTENSION, PLAN = "billing_grant_extension", "billing_create_installment_plan"


def both(**fields: Any) -> Edit:
    """The same ticket fields on the create and on the update of the ticket."""
    return chain(change_item(CREATE, **fields), change_item(UPDATE, **fields))


WRONG: dict[str, WrongCase] = {
    # --- tickets: lifecycle and fields ---------------------------------------------------------
    "ticket left open": blocked(
        "bil_001",
        change_item(UPDATE, status="open"),
        "ticket-status-at-commit",
        ("ticket 6", "status 'open'", "allowed: pending, hold, solved"),
    ),
    "ticket closed by the agent": blocked(
        "bil_001",
        change_item(UPDATE, status="closed"),
        "ticket-status-at-commit",
        ("ticket 6", "status 'closed'", "allowed: pending, hold, solved"),
    ),
    "ticket left pending after the extension": blocked(
        "bil_001",
        change_item(UPDATE, status="pending"),
        "ticket-status-matches-outcome",
        ("ticket 6", "status 'pending'", "outcome_summary 'Completed'", "status solved"),
    ),
    "ticket created as new": blocked(
        "bil_001",
        change_item(CREATE, status="new"),
        "ticket-created-open",
        ("ticket 6", "created with status 'new'", "allowed at creation: open"),
    ),
    "outcome that is no outcome": blocked(
        "bil_001",
        change_item(UPDATE, outcome_summary="Denied"),
        "ticket-outcome-summary",
        ("ticket 6", "outcome_summary 'Denied'", "allowed: Completed, Declined"),
    ),
    "outcome with a hyphen for the dash": blocked(
        "bil_013",
        change_item(UPDATE, outcome_summary="Pending - User Action"),
        "ticket-outcome-summary",
        ("ticket 6", "outcome_summary 'Pending - User Action'", "Pending – User Action"),
    ),
    "unknown escalation level": blocked(
        "bil_001",
        change_item(UPDATE, escalation_level="High"),
        "ticket-escalation-level",
        ("ticket 6", "escalation_level 'High'", "allowed: Standard, Supervisor Review Required"),
    ),
    "unknown request category": blocked(
        "bil_001",
        both(request_category="Billing"),
        "ticket-request-category",
        ("ticket 6", "request_category 'Billing'", "Billing & Payments"),
    ),
    "escalation level left empty": blocked(
        "bil_001",
        both(escalation_level=None),
        "ticket-required-fields",
        ("ticket 6", "status 'solved'", "escalation_level", "allowed: status open until"),
    ),
    "user type left empty": blocked(
        "bil_001",
        both(user_type=None),
        "action-ticket-agrees",
        (
            "billing account BILL-847291856",
            "user_type null",
            "allowed: user_type Named Insured or Co-Insured",
        ),
    ),
    "assigned to another agent": blocked(
        "bil_001",
        change_item(UPDATE, assignee_id="123"),
        "ticket-assignee",
        ("ticket 6", "assignee_id '123'", "allowed: 585"),
    ),
    "tags on the ticket": blocked(
        "bil_001", change_item(CREATE, tags=["billing"]), "ticket-no-tags", ("ticket 6", "billing", "no tags")
    ),
    "requester is the CRM customer id": blocked(
        "bil_001",
        both(requester_id="CUST-847291"),
        "ticket-requester-known",
        ("ticket 6", "requester_id 'CUST-847291'", "Zendesk user"),
    ),
    "claims action type on a billing ticket": blocked(
        "bil_001",
        change_item(UPDATE, claims_action_type="FNOL – Collision"),
        "ticket-claims-action-type-for-claims",
        ("ticket 6", "claims_action_type 'FNOL – Collision'", "request_category is Claims"),
    ),
    "effective date on a billing ticket": blocked(
        "bil_001",
        change_item(UPDATE, effective_date_of_change="2025-10-11"),
        "ticket-effective-date-of-change",
        ("ticket 6", "effective_date_of_change '2025-10-11'", "Policy Servicing tickets"),
    ),
    "internal review on a solved ticket": blocked(
        "bil_001",
        change_item(UPDATE, internal_review_type="Billing"),
        "ticket-internal-review-on-hold",
        ("ticket 6", "internal_review_type 'Billing'", "status hold"),
    ),
    "servicing task at high priority": blocked(
        "lif_015",
        change_item(CREATE, priority="high"),
        "ticket-servicing-priority",
        ("ticket 7", "priority 'high'", "allowed: normal"),
    ),
    "task at low priority": blocked(
        "ldr_008",
        change_item(UPDATE, priority="low"),
        "ticket-task-priority",
        ("ticket 6", "priority 'low'", "Billing & Payments task"),
    ),
    "comment written": blocked(
        "bil_001",
        add(CREATE, {"table": "comments", "item": {"ticket_id": "6", "author_id": "585", "body": "granted"}}),
        "ticket-no-comments",
        ("written on ticket 6", "allowed: no comments"),
    ),
    "ticket deleted": blocked(
        "bil_002",
        add("zendesk_delete_item", {"table": "tickets", "id": "1"}),
        "ticket-not-deleted",
        ("ticket 1 deleted", "allowed: keep the ticket"),
    ),
    # --- tickets and what the transaction did --------------------------------------------------
    "no ticket at all": blocked(
        "bil_001",
        lambda calls: [c for c in calls if c[0] not in (CREATE, UPDATE)],
        "interaction-documented",
        ("no ticket created or updated", "billing account BILL-847291856", "extension granted"),
    ),
    "extension documented on a ticket of another category": blocked(
        "bil_001",
        both(request_category="Documents"),
        "action-documented",
        ("billing account BILL-847291856", "no Billing & Payments ticket", "'Documents'"),
    ),
    "extension never granted": blocked(
        "bil_001",
        drop(EXTENSION),
        "ticket-completed-without-change",
        ("ticket 6", "outcome_summary 'Completed'", "no payment arrangement"),
    ),
    "claim never filed": blocked(
        "fnol_001",
        drop("claims_create_fnol"),
        "ticket-completed-without-change",
        ("ticket 6", "Claims incident", "no new claim"),
    ),
    "underwriting hold without the vehicle": blocked(
        "veh_020",
        drop("policy_add_vehicle"),
        "ticket-review-without-change",
        ("ticket 6", "status 'hold'", "'Underwriting'", "no vehicle or driver added with uw_pending true"),
    ),
    "extension on a question ticket": blocked(
        "bil_001",
        both(type="question"),
        "action-ticket-agrees",
        ("billing account BILL-847291856", "type 'question'", "allowed: type task"),
    ),
    "pending cancellation at normal priority": blocked(
        "bil_003",
        both(priority="normal"),
        "action-ticket-agrees",
        (
            "billing account BILL-FL-847291",
            "Pending Cancellation",
            "priority 'normal'",
            "priority high or urgent",
        ),
    ),
    "arrangement for a listed driver": blocked(
        "bil_001",
        both(user_type="Listed Driver"),
        "action-ticket-agrees",
        ("user_type 'Listed Driver'", "user_type Named Insured or Co-Insured"),
    ),
    "listed driver cancels the policy": blocked(
        "ldr_010",
        add(
            "policy_schedule_cancellation",
            {
                "policy_id": "POL-8472916384",
                "cancellation_date": "2025-10-01",
                "cancellation_reason": "User Requested",
            },
        ),
        "action-ticket-agrees",
        ("policy POL-8472916384", "outcome_summary 'Declined'", "user_type 'Listed Driver'"),
    ),
    "major claim at normal priority": blocked(
        "fnol_001",
        both(priority="normal"),
        "action-ticket-agrees",
        ("claim CLM-2F5730F495", "severity 'Major'", "priority 'normal'", "priority high or urgent"),
    ),
    "glass claim recorded as comprehensive": blocked(
        "fnol_018",
        both(claims_action_type="FNOL – Comprehensive"),
        "action-ticket-agrees",
        ("claim CLM-20AB7B02AF", "claims_action_type 'FNOL – Comprehensive'", "FNOL – Glass Only"),
    ),
    "new claim on a question ticket": blocked(
        "fnol_006",
        both(type="question"),
        "action-ticket-agrees",
        ("claim CLM-2273AE7230", "type 'question'", "allowed: type incident"),
    ),
    "missing police report, ticket solved": blocked(
        "fnol_013",
        change_item(UPDATE, status="solved", outcome_summary="Completed"),
        "action-ticket-agrees",
        ("claim CLM-247E962F7C", "police report required, no number given", "status pending"),
    ),
    "exclusion form, ticket solved": blocked(
        "drv_011",
        change_item(UPDATE, status="solved", outcome_summary="Completed"),
        "action-ticket-agrees",
        ("driver DRV-2-08785E7F", "exclusion form required", "status pending"),
    ),
    "underwriting vehicle, ticket solved": blocked(
        "veh_020",
        change_item(
            UPDATE, status="solved", outcome_summary="Completed", internal_review_type="Not Required"
        ),
        "action-ticket-agrees",
        ("vehicle VEH-2-BBA023C8", "uw_pending true", "status hold", "internal_review_type Underwriting"),
    ),
    "driver not sent to underwriting": blocked(
        "drv_006",
        change("policy_add_driver", uw_pending=False),
        "action-ticket-agrees",
        ("driver DRV-2-10D81617", "status 'hold'", "allowed: status solved"),
    ),
    "cancellation ticket with another date": blocked(
        "lif_001",
        change_item(UPDATE, effective_date_of_change="2025-10-05"),
        "action-ticket-agrees",
        (
            "policy POL-4729183847",
            "effective_date_of_change '2025-10-05'",
            "effective_date_of_change 2025-10-01",
        ),
    ),
    "vehicle removal on an incident ticket": blocked(
        "veh_013",
        both(type="incident"),
        "action-ticket-agrees",
        ("vehicle VEH-847291-01", "type 'incident'", "allowed: type task"),
    ),
    # --- billing ---------------------------------------------------------------------------------
    "extension to the wrong date": blocked(
        "bil_001",
        change(EXTENSION, new_due_date="2025-10-21"),
        "extension-due-date",
        ("billing account BILL-847291856", "new_due_date 2025-10-21", "allowed: new_due_date 2025-10-11"),
    ),
    "account reset without payment": blocked(
        "bil_001",
        add("billing_reset_account_status", {"policy_id": "POL-3847291856"}),
        "account-reset-after-payment",
        ("billing account BILL-847291856", "payment_received false", "after the payment is received"),
    ),
    "three installments instead of two": blocked(
        "bil_004",
        change(PLAN, installment_count=3),
        "installment-count",
        ("billing account BILL-847291", "installment_count 3", "allowed: installment_count 2"),
    ),
    "installments that do not add up": blocked(
        "bil_004",
        change(PLAN, installment_amount=15000),
        "installment-amount",
        ("billing account BILL-847291", "2 installments of 15000", "past_due_amount 350"),
    ),
    "extension for a current account": blocked(
        "bil_011",
        add(EXTENSION, {"policy_id": "POL-3847291658", "new_due_date": "2025-10-11"}),
        "arrangement-account-status",
        ("billing account BILL-84729163", "account status is 'Current'", "Past Due, In Grace Period"),
    ),
    "arrangement over the tier limit": blocked(
        "bil_010",
        add(PLAN, {"policy_id": "POL-7855783847", "installment_count": 2, "installment_amount": 25000}),
        "arrangement-tier-limit",
        ("billing account BILL-847291", "4 arrangements", "Premium", "allowed: at most 3"),
    ),
    "extension with an open major claim (Standard)": blocked(
        "bil_014",
        add(EXTENSION, {"policy_id": "POL-4729183847", "new_due_date": "2025-10-11"}),
        "arrangement-major-claim",
        ("billing account BILL-847291", "Standard customer", "CLM-847291-001", "Standard none"),
    ),
    "installment plan with an open major claim (Preferred)": blocked(
        "bil_015",
        swap(
            EXTENSION,
            PLAN,
            {"policy_id": "POL-3847291058", "installment_count": 2, "installment_amount": 20000},
        ),
        "arrangement-major-claim",
        ("billing account BILL-FL-847291", "'Installment Plan'", "Preferred Extension only"),
    ),
    "installment plan for a small balance": blocked(
        "bil_006",
        swap(
            EXTENSION,
            PLAN,
            {"policy_id": "POL-2847391652", "installment_count": 2, "installment_amount": 7000},
        ),
        "installment-plan-eligible",
        ("billing account BILL-84729163", "past_due_amount 140", "1.5 × monthly payment"),
    ),
    # --- policy lifecycle ------------------------------------------------------------------------
    "cancellation for non-payment": blocked(
        "lif_001",
        change("policy_schedule_cancellation", cancellation_reason="Non-Payment"),
        "cancellation-eligible",
        ("policy POL-4729183847", "cancellation_reason 'Non-Payment'", "User Requested"),
    ),
    "same-day cancellation in California": blocked(
        "lif_003",
        change("policy_schedule_cancellation", cancellation_date="2025-10-01"),
        "cancellation-notice",
        (
            "policy POL-3847291856",
            "cancellation_date 2025-10-01",
            "CA",
            "allowed: cancellation_date 2025-10-02",
        ),
    ),
    "reinstated without recording the lapse": blocked(
        "lif_011",
        change("policy_reinstate_policy", lapse_flag=False),
        "reinstatement-lapse",
        (
            "policy POL-3847291856",
            "lapse_flag false",
            "lapse_flag true, lapse_start 2025-09-21, lapse_end 2025-10-01",
        ),
    ),
    "reinstated after the window": blocked(
        "lif_014",
        add(
            "policy_reinstate_policy",
            {
                "policy_id": "POL-9988776655",
                "lapse_flag": True,
                "lapse_start": "2025-09-13",
                "lapse_end": "2025-10-01",
            },
        ),
        "reinstatement-window",
        ("policy POL-9988776655", "18 days", "Standard", "within 15 days"),
    ),
    "reinstated before the payment": blocked(
        "lif_017",
        add(
            "policy_reinstate_policy",
            {
                "policy_id": "POL-3847291058",
                "lapse_flag": True,
                "lapse_start": "2025-09-23",
                "lapse_end": "2025-10-01",
            },
        ),
        "reinstatement-eligible",
        ("policy POL-3847291058", '"payment_received":false', "once its past-due amount is paid"),
    ),
    # --- vehicles --------------------------------------------------------------------------------
    "vehicle backdated past the window (TX)": blocked(
        "veh_001",
        change("policy_add_vehicle", effective_date="2025-09-10"),
        "vehicle-effective-date",
        ("vehicle VEH-2-26F3AFB6", "effective_date 2025-09-10", "TX", "allowed: effective_date 2025-09-21"),
    ),
    "vehicle backdated in California": blocked(
        "veh_002",
        change("policy_add_vehicle", effective_date="2025-09-26"),
        "vehicle-effective-date",
        ("vehicle VEH-2-B1D242EE", "effective_date 2025-09-26", "no backdating", "2025-10-01 or later"),
    ),
    "vehicle not sent to underwriting (claims history)": blocked(
        "veh_005",
        change("policy_add_vehicle", uw_pending=False),
        "vehicle-underwriting-claims-history",
        ("vehicle VEH-2-1CD6F134", "uw_pending false", "2 at-fault claims", "allowed: uw_pending true"),
    ),
    "vehicle we cannot insure": blocked(
        "veh_007",
        add(
            "policy_add_vehicle",
            {
                "policy_id": "POL-3847291582",
                "vin": "2C3CDZC98MH123466",
                "year": 2021,
                "make": "Dodge",
                "model": "Challenger Hellcat",
                "effective_date": "2025-10-01",
            },
        ),
        "vehicle-not-insurable",
        ("Dodge Challenger Hellcat", "policy POL-3847291582", "Challenger Hellcat/Demon"),
    ),
    "vehicle added to a cancelled policy": blocked(
        "lif_017",
        add(
            "policy_add_vehicle",
            {
                "policy_id": "POL-3847291058",
                "vin": "2HGFE2F53RH126486",
                "year": 2024,
                "make": "Honda",
                "model": "Civic",
                "effective_date": "2025-10-01",
            },
        ),
        "vehicle-add-policy-status",
        ("policy POL-3847291058", "status 'Cancelled for Non-Payment'", "Active or In Grace Period"),
    ),
    "vehicle removed a fortnight late": blocked(
        "veh_013",
        change("policy_update_vehicle_status", effective_date="2025-10-15"),
        "change-effective-today",
        ("vehicle VEH-847291-01", "removal_date 2025-10-15", "allowed: removal_date 2025-10-01"),
    ),
    "only vehicle removed": blocked(
        "veh_015",
        swap(
            "policy_schedule_cancellation",
            "policy_update_vehicle_status",
            {"vehicle_id": "VEH-847291001", "new_status": "Removed", "effective_date": "2025-10-01"},
        ),
        "vehicle-remove-not-last",
        ("vehicle VEH-847291001", "no active vehicle", "policy cancellation instead"),
    ),
    "vehicle with an open claim removed": blocked(
        "drv_021",
        add(
            "policy_update_vehicle_status",
            {"vehicle_id": "VEH-847291-02", "new_status": "Removed", "effective_date": "2025-10-01"},
        ),
        "vehicle-remove-open-claim",
        ("vehicle VEH-847291-02", "CLM-847291-001 (Open – Investigation)", "Closed"),
    ),
    # --- drivers ---------------------------------------------------------------------------------
    "driver excluded in California": blocked(
        "drv_001",
        change("policy_add_driver", status="Excluded"),
        "driver-exclusion-state",
        ("driver DRV-2-F5970EE7", "status 'Excluded'", "CA", "Excluded in TX and FL only"),
    ),
    "excluded driver without the form": blocked(
        "drv_011",
        change("policy_add_driver", exclusion_form_required=False),
        "driver-exclusion-form",
        ("driver DRV-2-08785E7F", "exclusion_form_required false", "true exactly for Excluded drivers"),
    ),
    "driver added last week": blocked(
        "drv_001",
        change("policy_add_driver", effective_date="2025-09-25"),
        "change-effective-today",
        ("driver DRV-2-F5970EE7", "effective_date 2025-09-25", "allowed: effective_date 2025-10-01"),
    ),
    "driver excluded instead of removed (CA)": blocked(
        "drv_019",
        change("policy_update_driver_status", new_status="Excluded"),
        "driver-exclusion-state",
        ("driver DRV-847291-003", "status 'Excluded'", "CA"),
    ),
    "driver removed next week": blocked(
        "drv_019",
        change("policy_update_driver_status", effective_date="2025-10-08"),
        "change-effective-today",
        ("driver DRV-847291-003", "removal_date 2025-10-08", "allowed: removal_date 2025-10-01"),
    ),
    "driver at the wheel of an open claim removed": blocked(
        "drv_021",
        add(
            "policy_update_driver_status",
            {"driver_id": "DRV-76128490", "new_status": "Removed", "effective_date": "2025-10-01"},
        ),
        "driver-remove-open-claim",
        ("driver DRV-76128490", "CLM-847291-001 (Open – Investigation)", "once the claim is Closed"),
    ),
    "named insured removed": blocked(
        "drv_019",
        change("policy_update_driver_status", driver_id="DRV-847291-001"),
        "driver-remove-insured",
        ("driver DRV-847291-001", "Named Insured", "policy services team"),
    ),
    # --- claims ----------------------------------------------------------------------------------
    "injury claim not major": blocked(
        "fnol_001",
        change("claims_create_fnol", severity="Moderate"),
        "claim-severity",
        ("claim CLM-2F5730F495", "severity 'Moderate'", "has_bodily_injury true", "allowed: Major"),
    ),
    "glass claim not minor": blocked(
        "fnol_018",
        change("claims_create_fnol", severity="Moderate"),
        "claim-severity",
        ("claim CLM-20AB7B02AF", "severity 'Moderate'", "allowed: Minor"),
    ),
    "loss dated in the future": blocked(
        "fnol_001",
        change("claims_create_fnol", date_of_loss="2025-10-05"),
        "claim-date-of-loss",
        ("date_of_loss 2025-10-05", "on or before 2025-10-01"),
    ),
    "vandalism without a police report": blocked(
        "fnol_013",
        change("claims_create_fnol", police_report_required=False),
        "claim-police-report-required",
        ("claim CLM-247E962F7C", "police_report_required false", "allowed: police_report_required true"),
    ),
    "liability only with full coverage": blocked(
        "fnol_006",
        change("claims_create_fnol", claim_type="Liability Only"),
        "claim-coverage",
        ("claim CLM-2273AE7230", "'Liability Only'", "collision_coverage true"),
    ),
    "listed driver flagged as unlisted": blocked(
        "fnol_001",
        change("claims_create_fnol", unlisted_driver_flag=True),
        "claim-unlisted-driver",
        ("claim CLM-2F5730F495", "unlisted_driver_flag true", "allowed: unlisted_driver_flag false"),
    ),
    "claim after the cancellation": blocked(
        "fnol_020",
        add(
            "claims_create_fnol",
            {
                "policy_id": "POL-3847291058",
                "vehicle_id": "VEH-847291001",
                "vehicle_vin": "KMHL14JA5LA129384",
                "driver_id": "DRV-847291001",
                "date_of_loss": "2025-09-24",
                "loss_location": "Brooklyn, NY",
                "claim_type": "Comprehensive – Theft",
                "severity": "Moderate",
                "police_report_required": True,
            },
        ),
        "claim-policy-in-force",
        ("date_of_loss 2025-09-24", "'Cancelled for Non-Payment'", "cancellation 2025-09-21"),
    ),
    "theft of an old car not flagged for SIU": blocked(
        "fnol_011",
        add(
            "claims_create_fnol",
            {
                "policy_id": "POL-3847291058",
                "vehicle_id": "VEH-847291001",
                "vehicle_vin": "1HGCP26309A847291",
                "driver_id": "DRV-847291001",
                "date_of_loss": "2025-09-29",
                "loss_location": "Brooklyn, NY",
                "claim_type": "Comprehensive – Theft",
                "severity": "Moderate",
                "police_report_required": True,
                "police_report_number": "NYPD-1",
            },
        ),
        "claim-siu-triggers",
        ("siu_flag None", "2009 model (16 years old)", "Suspicious Activity Flagged"),
    ),
    # --- documents -------------------------------------------------------------------------------
    "document link for another ticket": blocked(
        "doc_002",
        change("policy_generate_document_link", ticket_id="3"),
        "document-link-ticket",
        ("ticket 3", "request_category Billing & Payments", "the Documents ticket"),
    ),
    "document link valid for a week": blocked(
        "doc_004",
        change("policy_generate_document_link", expiration_date="2025-10-08T13:00:00Z"),
        "document-link-expiry",
        ("expires_at 2025-10-08T13:00:00Z", "allowed: expires_at 24 hours from now, 2025-10-02T13:00:00Z"),
    ),
}


MISSED: dict[str, WrongCase] = {
    "license number mistyped": missed(
        "drv_014",
        change("policy_add_driver", license_number="M977634472"),
        "",
        why="the customer's words are the only record of the license number",
    ),
    "loss dated a day early": missed(
        "fnol_018",
        change("claims_create_fnol", date_of_loss="2025-09-30"),
        "",
        why="any past date of loss within the policy term is possible",
    ),
    "declined request at high priority": missed(
        "bil_009",
        change_item(UPDATE, priority="high"),
        "",
        why="high priority follows what the customer said (injury, hospital) or records the gate cannot link",
    ),
    "FNOL ticket pending without the claim": missed(
        "fnol_013",
        drop("claims_create_fnol"),
        "",
        why="a claim ticket may wait on the customer before any claim is filed",
    ),
    "declined vehicle request dated a day later": missed(
        "veh_007",
        change_item(UPDATE, effective_date_of_change="2025-10-02"),
        "",
        why="no change was made, so no record dates the request",
    ),
}

CASES = by_name(WRONG, MISSED)

WRONG_DOMAIN = WrongDomain(
    name="auto_insurance",
    domain=AUTO,
    cases=CASES,
    bench=True,
    wording=Wording(imperative=re.compile(r"please|you must|you should|do not|don't|ignore", re.I)),
    catalogue=Catalogue(blocked=70, rules=50, missed=5),
)
