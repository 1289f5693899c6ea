"""Hand-made wrong trajectories: a golden trajectory with one argument changed, a call dropped or added.

Each case (a blocked :class:`~tests.benchmark.wrong_cases.WrongCase`) names
the golden it starts from (``ei_003`` for the test ``test_ei_003``), the
edit, and the rules whose blocking findings must name it. The edits use the task's own data
(its requester's email, the seed's employees and stock), never golden
state, and each is a mistake the policy forbids.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

from tests.benchmark.neobank_rules.conftest import NEOBANK
from tests.benchmark.wrong_cases import Catalogue, Kind, Wording, WrongCase, WrongDomain, by_name

__all__ = [
    "CASES",
    "WRONG_DOMAIN",
    "Call",
    "add",
    "append",
    "chain",
    "drop",
    "edit",
    "remove",
    "requester_email",
]

Call = tuple[str, dict[str, Any]]
Edit = Callable[[list[Call]], list[Call]]

CREATE, UPDATE = "zendesk_create_item", "zendesk_update_item"
APPROVAL, PROVISION = "approval_api_create_request", "okta_api_provision_access"
ASSIGN, RETIRE, ORDER = (
    "asset_management_api_assign_device",
    "asset_management_api_retire_device",
    ("hardware_procurement_api_create_order"),
)
NOTIFY, SECURITY = "email_notification_api_send_notification", "okta_security_api_execute_action"


def _fields(call: Call) -> dict[str, Any]:
    tool, arguments = call
    return arguments["item"] if tool in (CREATE, UPDATE) else arguments


def _nth(calls: list[Call], tool: str, n: int) -> int:
    positions = [i for i, (name, _) in enumerate(calls) if name == tool]
    return positions[n]


def edit(tool: str, n: int = -1, **changes: Any) -> Edit:
    """Set fields of the ``n``-th call of ``tool`` (a Zendesk call's item); ``None`` sets null."""

    def apply(calls: list[Call]) -> list[Call]:
        calls = copy.deepcopy(calls)
        fields = _fields(calls[_nth(calls, tool, n)])
        fields.update(changes)
        return calls

    return apply


def remove(tool: str, n: int = -1, *names: str) -> Edit:
    """Leave fields out of the ``n``-th call of ``tool``."""

    def apply(calls: list[Call]) -> list[Call]:
        calls = copy.deepcopy(calls)
        fields = _fields(calls[_nth(calls, tool, n)])
        for name in names:
            fields.pop(name, None)
        return calls

    return apply


def drop(tool: str, n: int = -1) -> Edit:
    """Leave out the ``n``-th call of ``tool``."""

    def apply(calls: list[Call]) -> list[Call]:
        calls = list(calls)
        del calls[_nth(calls, tool, n)]
        return calls

    return apply


def add(before: str, n: int, tool: str, arguments: Callable[[list[Call]], dict[str, Any]]) -> Edit:
    """Insert a call before the ``n``-th call of ``before``; its arguments may read the calls (an email)."""

    def apply(calls: list[Call]) -> list[Call]:
        calls = list(calls)
        calls.insert(_nth(calls, before, n), (tool, arguments(calls)))
        return calls

    return apply


def append(tool: str, arguments: Callable[[list[Call]], dict[str, Any]]) -> Edit:
    """Add a call at the end."""

    def apply(calls: list[Call]) -> list[Call]:
        return [*calls, (tool, arguments(calls))]

    return apply


def chain(*edits: Edit) -> Edit:
    def apply(calls: list[Call]) -> list[Call]:
        for step in edits:
            calls = step(calls)
        return calls

    return apply


def requester_email(calls: list[Call]) -> str:
    """The requester's email, as the trajectory looked the employee up."""
    for tool, arguments in calls:
        if tool in ("workday_api_get_employee", "okta_api_check_access") and "email" in arguments:
            return str(arguments["email"])
    for _, arguments in calls:
        if "email" in arguments:
            return str(arguments["email"])
    raise LookupError("no email in the trajectory")


def _grant(app: str, level: str, *, temporary: bool = False, expiry: str | None = None) -> Callable[..., Any]:
    def arguments(calls: list[Call]) -> dict[str, Any]:
        return {
            "email": requester_email(calls),
            "app_name": app,
            "access_level": level,
            "is_temporary": temporary,
            "access_expiry_date": expiry,
        }

    return arguments


def _retarget(ticket_id: str) -> Edit:
    """Point the last ticket update at another ticket (a wrong id)."""

    def apply(calls: list[Call]) -> list[Call]:
        calls = copy.deepcopy(calls)
        calls[_nth(calls, UPDATE, -1)][1]["id"] = ticket_id
        return calls

    return apply


def _solved_provisioned(**extra: Any) -> Edit:
    return edit(UPDATE, -1, status="solved", resolution_category="provisioned", **extra)


def _case(name: str, task: str, apply: Edit, *rules: str, tool_errors: int = 0) -> dict[str, WrongCase]:
    case = WrongCase(
        task=task, edit=apply, kind=Kind.BLOCKED, rules=frozenset(rules), tool_errors=tool_errors
    )
    return {name: case}


CASES = by_name(
    # --- ticket lifecycle and fields ---
    _case("created-solved", "ei_003", edit(CREATE, 0, status="solved"), "ticket-created-open"),
    _case("created-pending", "sa_011", edit(CREATE, 0, status="pending"), "ticket-created-open"),
    _case("left-open", "ei_003", drop(UPDATE), "ticket-created-left-open"),
    _case("status-closed", "ei_012", edit(UPDATE, -1, status="closed"), "ticket-status-set-by-agent"),
    _case("no-resolution", "pi_003", edit(UPDATE, -1, resolution_category=None), "ticket-solved-resolution"),
    _case(
        "resolution-while-pending",
        "ei_019",
        edit(UPDATE, -1, resolution_category="approved"),
        "ticket-resolution-until-solved",
    ),
    _case(
        "solved-while-approvals-pending",
        "sa_005",
        edit(UPDATE, -1, status="solved", resolution_category="provisioned"),
        "ticket-approvals-pending",
        "approval-ticket-pending",
    ),
    _case("pending-without-reason", "ei_003", edit(UPDATE, -1, status="pending"), "ticket-pending-reason"),
    _case(
        "escalated-on-hold",
        "ei_007",
        edit(UPDATE, -1, status="hold"),
        "ticket-hold-reason",
        "ticket-escalation",
    ),
    _case("escalated-untagged", "ei_007", edit(UPDATE, -1, tags=""), "ticket-escalation"),
    _case(
        "escalated-tag-without-team",
        "ei_003",
        edit(UPDATE, -1, tags="escalated"),
        "ticket-escalated-tag",
    ),
    _case("unknown-tag", "ei_004", edit(UPDATE, -1, tags="hardware"), "ticket-tags-allowed"),
    _case("due-date", "ei_005", edit(CREATE, 0, due_at="2025-10-08T17:00:00Z"), "ticket-no-due-date"),
    _case("assignee", "ei_006", edit(CREATE, 0, assignee_id="3"), "ticket-assignee"),
    _case("organization", "ei_008", edit(CREATE, 0, organization_id="2"), "ticket-organization"),
    _case("type-task", "ei_027", edit(UPDATE, -1, type="task"), "ticket-type-not-task"),
    _case("question-not-low", "pi_001", edit(UPDATE, -1, priority="normal"), "ticket-question-priority"),
    _case("problem-low", "ei_030", edit(UPDATE, -1, priority="low"), "ticket-question-priority"),
    _case("sev1-not-urgent", "ie_006", edit(UPDATE, -1, priority="high"), "ticket-severity-priority"),
    _case("sev3-incident-normal", "ei_009", edit(UPDATE, -1, priority="normal"), "ticket-severity-priority"),
    _case(
        "incident-no-severity",
        "ei_009",
        remove(UPDATE, -1, "incident_severity"),
        "ticket-incident-fields",
    ),
    _case("requester-unknown", "ei_031", edit(CREATE, 0, requester_id="999"), "ticket-requester-known"),
    _case(
        "approval-status-null",
        "ei_032",
        remove(UPDATE, -1, "approval_status"),
        "ticket-fields-leaving-open",
    ),
    _case("redirected-problem", "ei_033", edit(UPDATE, -1, tags="redirected"), "ticket-redirected-question"),
    _case("asset-tag-format", "ei_035", edit(UPDATE, -1, asset_id="HW-9234"), "ticket-asset-id-format"),
    _case(
        "temporary-tag-without-date",
        "sa_023",
        edit(UPDATE, -1, access_expiry_date=""),
        "ticket-temporary-access",
    ),
    _case(
        "production-without-justification",
        "sa_006",
        edit(UPDATE, -1, business_justification=""),
        "ticket-production-justification",
    ),
    _case(
        "approval-required-undone",
        "sa_010",
        edit(UPDATE, -1, approval_required="no"),
        "ticket-approval-fields",
    ),
    _case(
        "comment-written",
        "pi_005",
        add(
            UPDATE,
            -1,
            "zendesk_create_item",
            lambda calls: {
                "table": "ticket_comments",
                "item": {
                    "ticket_id": "6",
                    "author_id": "2",
                    "body": "Sent the export steps.",
                    "public": True,
                },
            },
        ),
        "ticket-no-comments",
    ),
    _case(
        "ticket-deleted",
        "he_038",
        add(UPDATE, -1, "zendesk_delete_item", lambda calls: {"table": "tickets", "id": "6"}),
        "ticket-not-deleted",
        tool_errors=1,  # the update after it finds no ticket
    ),
    _case("executive-normal", "he_012", edit(UPDATE, -1, priority="normal"), "ticket-executive-priority"),
    _case("departing-untagged", "he_025", edit(UPDATE, -1, tags=""), "ticket-offboarding-tag"),
    _case(
        "other-requesters-ticket",
        "ei_005",
        _retarget("5"),
        "ticket-one-requester",
        "ticket-created-left-open",
    ),
    _case(
        "questions-split",
        "pi_001",
        chain(
            append(
                CREATE,
                lambda calls: {
                    "table": "tickets",
                    "item": {
                        "subject": "MFA enrollment",
                        "description": "How to enroll in MFA",
                        "status": "open",
                        "priority": "low",
                        "type": "question",
                        "requester_id": "6",
                        "assignee_id": "2",
                        "organization_id": "1",
                        "owner": "it_support",
                    },
                },
            ),
            append(
                UPDATE,
                lambda calls: {
                    "table": "tickets",
                    "id": "7",
                    "item": {
                        "status": "solved",
                        "resolution_category": "information_provided",
                        "approval_required": "no",
                        "approval_status": "not_required",
                    },
                },
            ),
        ),
        "ticket-questions-combined",
    ),
    _case(
        "waitlist-on-hold",
        "ei_003",
        edit(UPDATE, -1, tags="license_waitlist"),
        "ticket-license-waitlist",
    ),
    # --- approvals ---
    _case("approval-urgency", "dc_001", edit(APPROVAL, 0, urgency="standard"), "approval-urgency"),
    _case("approval-no-ticket", "sa_028", edit(APPROVAL, 0, ticket_id=None), "approval-ticket"),
    _case(
        "approval-not-listed",
        "sa_012",
        remove(UPDATE, -1, "approval_request_ids", "approver_id"),
        "approval-listed-on-ticket",
        "ticket-approval-fields",
    ),
    _case(
        "approvals-dropped",
        "sa_002",
        chain(drop(APPROVAL, 1), drop(APPROVAL, 0)),
        "ticket-approval-list",
    ),
    _case(
        "approvers-swapped",
        "sa_005",
        edit(UPDATE, -1, approver_id="WD-753918,WD-417283"),
        "ticket-approval-list",
    ),
    _case(
        "approval-wrong-approver",
        "sa_028",
        edit(APPROVAL, 0, approver_email="alex.taylor@vdb.com"),
        "approval-approver-in-chain",
        "approval-listed-on-ticket",
    ),
    _case(
        "approval-junior-security",
        "sa_011",
        edit(APPROVAL, 1, approver_email="thomas.white@vdb.com"),
        "approval-approver-in-chain",
        "approval-listed-on-ticket",
    ),
    _case(
        "approval-approver-on-leave",
        "sa_028",
        edit(APPROVAL, 0, approver_email="kevin.miller@vdb.com"),
        "approval-approver-available",
        "approval-approver-in-chain",
        "approval-listed-on-ticket",
    ),
    _case(
        "approval-self",
        "sa_028",
        edit(APPROVAL, 0, approver_email="daniel.parker@vdb.com"),
        "approval-approver-not-requester",
        "approval-listed-on-ticket",
    ),
    _case(
        "approval-for-departing",
        "sa_016",
        chain(
            add(
                UPDATE,
                -1,
                APPROVAL,
                lambda calls: {
                    "request_type": "access_request",
                    "requester_email": requester_email(calls),
                    "approver_email": "lisa.chen@vdb.com",
                    "details": "Tableau viewer",
                    "ticket_id": "6",
                },
            ),
            edit(
                UPDATE,
                -1,
                status="pending",
                resolution_category=None,
                approval_required="yes",
                approval_status="pending",
                approver_id="WD-294817",
                approval_request_ids="APR-00000007",
            ),
        ),
        "approval-access-requester-active",
    ),
    # --- access ---
    _case(
        "access-without-approval",
        "sa_028",
        chain(
            drop(APPROVAL, 0),
            add(UPDATE, -1, PROVISION, _grant("Tableau", "viewer")),
            edit(
                UPDATE,
                -1,
                status="solved",
                resolution_category="provisioned",
                approval_required="no",
                approval_status="not_required",
                approver_id=None,
                approval_request_ids=None,
            ),
        ),
        "access-approval",
    ),
    _case(
        "access-while-pending",
        "sa_028",
        add(UPDATE, -1, PROVISION, _grant("Tableau", "viewer")),
        "access-approval",
        "ticket-provisioned-outcome",
    ),
    _case("access-unlisted", "sa_029", edit(PROVISION, 0, access_level="admin"), "access-listed-tool"),
    _case(
        "access-forbidden",
        "sa_025",
        chain(add(UPDATE, -1, PROVISION, _grant("Splunk SIEM", "user")), _solved_provisioned()),
        "access-forbidden",
    ),
    _case(
        "production-without-incident",
        "sa_024",
        chain(add(UPDATE, -1, PROVISION, _grant("AWS Production", "user")), _solved_provisioned()),
        "access-incident-only",
    ),
    _case(
        "contractor-group-4",
        "dc_003",
        chain(
            edit(CREATE, 0, status="open"),
            append(PROVISION, _grant("Snowflake raw replica", "analyst")),
            append(
                UPDATE,
                lambda calls: {
                    "table": "tickets",
                    "id": "6",
                    "item": {"status": "solved", "resolution_category": "provisioned"},
                },
            ),
        ),
        "access-contractor",
    ),
    _case(
        "departing-access",
        "sa_016",
        chain(add(UPDATE, -1, PROVISION, _grant("Tableau", "viewer")), _solved_provisioned()),
        "access-employee-status",
    ),
    _case(
        "incident-access-48h",
        "ie_001",
        edit(PROVISION, 0, access_expiry_date="2025-10-03T13:00:00Z"),
        "access-incident-window",
        "access-ticket",
    ),
    _case(
        "incident-access-permanent",
        "ie_010",
        edit(PROVISION, 0, is_temporary=False, access_expiry_date=None),
        "access-incident-window",
    ),
    _case(
        "incident-no-notices",
        "ie_009",
        chain(drop(NOTIFY, 1), drop(NOTIFY, 0)),
        "access-incident-notice",
    ),
    _case(
        "incident-severity-dropped",
        "ie_010",
        chain(remove(CREATE, 0, "incident_severity"), remove(UPDATE, -1, "incident_severity")),
        "access-incident-only",
    ),
    _case(
        "access-ticket-on-hold",
        "sa_004",
        edit(UPDATE, -1, status="hold", resolution_category=None),
        "ticket-provisioned-outcome",
    ),
    _case(
        "access-ticket-denied",
        "sa_019",
        edit(UPDATE, -1, resolution_category="denied"),
        "ticket-provisioned-outcome",
    ),
    _case("access-undocumented", "sa_020", chain(drop(UPDATE), drop(CREATE)), "work-documented"),
    _case(
        "dashboard-other-department",
        "sa_008",
        edit("okta_api_add_to_group", 0, group_name="bi_finance_viewers"),
        "dashboard-approval",
    ),
    _case(
        "dashboard-not-bi",
        "sa_008",
        edit("okta_api_add_to_group", 0, group_name="engineers"),
        "dashboard-group",
    ),
    _case(
        "provisioned-without-work",
        "he_037",
        edit(UPDATE, -1, resolution_category="provisioned"),
        "ticket-provisioned-claims-work",
    ),
    # --- devices and orders ---
    _case("laptop-not-retired", "he_001", drop(RETIRE), "device-laptop-replacement"),
    _case(
        "laptop-unlisted-model",
        "he_032",
        edit(ASSIGN, 0, asset_id="VDB-HW-57382"),
        "device-listed-model",
    ),
    _case(
        "monitor-for-agent",
        "he_011",
        chain(
            add(
                UPDATE,
                -1,
                ASSIGN,
                lambda calls: {"asset_id": "VDB-HW-31854", "email": requester_email(calls)},
            ),
            _solved_provisioned(),
        ),
        "device-monitor-dock-eligibility",
        "device-listed-model",
    ),
    _case(
        "monitor-without-approval",
        "he_023",
        chain(
            drop(APPROVAL, 0),
            add(
                UPDATE,
                -1,
                ASSIGN,
                lambda calls: {"asset_id": "VDB-HW-31854", "email": requester_email(calls)},
            ),
            edit(
                UPDATE,
                -1,
                status="solved",
                resolution_category="provisioned",
                approval_required="no",
                approval_status="not_required",
                approver_id=None,
                approval_request_ids=None,
            ),
        ),
        "device-approval",
    ),
    _case(
        "device-ticket-on-hold",
        "he_027",
        edit(UPDATE, -1, status="hold", resolution_category=None),
        "ticket-provisioned-outcome",
    ),
    _case(
        "order-lead-time",
        "he_010",
        edit(ORDER, 0, expected_delivery_date="2025-10-10"),
        "order-lead-time",
    ),
    _case("order-quantity", "he_010", edit(ORDER, 0, quantity=2), "order-quantity"),
    _case(
        "order-unlisted-model",
        "he_010",
        edit(ORDER, 0, device_model="LG UltraWide 34WN80C"),
        "order-listed-model",
    ),
    _case("order-address", "he_010", edit(ORDER, 0, ship_to_location="SF office"), "order-remote-address"),
    _case(
        "order-ticket-pending",
        "he_010",
        edit(UPDATE, -1, status="pending", resolution_category=None),
        "order-ticket",
    ),
    _case(
        "order-while-in-stock",
        "he_009",
        chain(
            drop(ASSIGN),
            add(
                UPDATE,
                -1,
                ORDER,
                lambda calls: {
                    "device_type": "monitor",
                    "device_model": 'Dell P2425H 24"',
                    "quantity": 1,
                    "expected_delivery_date": "2025-10-15",
                    "ship_to_location": "SF office",
                    "requester_email": requester_email(calls),
                    "ticket_id": "6",
                },
            ),
            edit(UPDATE, -1, resolution_category="approved", asset_id=None),
        ),
        "order-only-without-stock",
    ),
    _case(
        "order-twice",
        "he_010",
        lambda calls: [*calls[:-1], *[c for c in calls if c[0] == ORDER], calls[-1]],
        "order-no-duplicate",
    ),
    # --- licenses and security operations ---
    _case(
        "individual-license",
        "sl_004",
        edit("license_management_api_allocate_license", 0, software_name="Adobe Creative Cloud"),
        "license-individual-approval",
    ),
    _case(
        "unlock-account",
        "aa_001",
        edit(SECURITY, 0, operation="unlock_account"),
        "security-escalated-operations",
    ),
    _case(
        "verification-by-sms",
        "aa_001",
        edit(SECURITY, 0, operation="send_verification_sms"),
        "security-verification-method",
    ),
    _case(
        "bypass-without-approval",
        "aa_001",
        edit(SECURITY, 0, operation="set_temporary_bypass", bypass_duration_hours=2),
        "security-bypass-approval",
    ),
    _case("security-no-ticket", "aa_001", edit(SECURITY, 0, ticket_id="77"), "security-action-ticket"),
    _case(
        "bypass-undocumented",
        "aa_001",
        edit(SECURITY, 0, operation="set_temporary_bypass", bypass_duration_hours=2),
        "security-bypass-justification",
        "security-bypass-notice",
    ),
    _case(
        "lost-mfa-alone",
        "aa_001",
        edit(SECURITY, 0, operation="remove_mfa_device", mfa_device_id="MFA-1"),
        "security-lost-mfa-steps",
    ),
    _case(
        "compromise-reset-alone",
        "aa_001",
        chain(edit(UPDATE, -1, type="incident", incident_severity="sev4_low", customer_impact="no_impact")),
        "security-compromise-steps",
    ),
    _case(
        "hardware-approval-to-director",
        "he_023",
        edit(APPROVAL, 0, approver_email="lisa.chen@vdb.com"),
        "approval-hardware-manager",
    ),
    _case(
        "contractor-expiry-past-contract",
        "sa_026",
        edit(UPDATE, -1, access_expiry_date="2026-12-31T00:00:00Z"),
        "approval-contractor-expiry",
    ),
    _case("revoked-not-regranted", "sa_013", drop(PROVISION), "access-revocation"),
    _case("retired-not-replaced", "he_032", drop(ASSIGN), "device-retired-replaced"),
)

WRONG_DOMAIN = WrongDomain(
    name="neobank",
    domain=NEOBANK,
    cases=CASES,
    bench=True,
    judge_timeout_s=2.0,
    wording=Wording(
        imperative=re.compile(r"you must|please|you should|do not|don't|make sure", re.I), rules_only=True
    ),
    catalogue=Catalogue(blocked=80),
)
