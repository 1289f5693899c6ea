"""Okta grants and dashboard groups (§3, §4, §10), judged on single commits in memory."""

from __future__ import annotations

from typing import Any

import pytest

from benchmark.domains.neobank import models as m
from tests.benchmark.neobank_rules.office import judge, rules, ticket


def _grant(employee: str, app: str, level: str, *, expires: str | None = None) -> dict[str, Any]:
    return m.OktaAppAccess(
        id="OAA-1",
        employee_id=employee,
        app_name=app,
        access_level=level,
        granted_by="system",
        is_temporary=expires is not None,
        expires_at=expires,
    ).model_dump(mode="json")


def _approved(requester: str, *approvers: str) -> list[dict[str, Any]]:
    return [
        m.ApprovalRequest(
            id=f"APR-{n}",
            request_type="access_request",
            requester_id=requester,
            approver_id=approver,
            status="approved",
            details="earlier request",
            ticket_id="T-0",
        ).model_dump(mode="json")
        for n, approver in enumerate(approvers)
    ]


def _solved(requester: str, **fields: Any) -> dict[str, Any]:
    return ticket("T-1", requester, "solved", resolution_category="provisioned", **fields)


def test_a_may_obtain_grant_after_its_approvals_passes_and_before_them_is_blocked() -> None:
    commit = {
        "okta_app_access": [_grant("WD-DEV", "GitHub", "write")],
        "zendesk_tickets": [_solved("WD-DEV")],
    }
    assert rules(judge(commit)) == {"access-approval"}
    assert rules(judge(commit, before={"approval_requests": _approved("WD-DEV", "WD-MGR")})) == {
        "access-approval"
    }
    assert judge(commit, before={"approval_requests": _approved("WD-DEV", "WD-MGR", "WD-SEC")}) == []


def test_default_access_needs_no_approval() -> None:
    commit = {
        "okta_app_access": [_grant("WD-ANALYST", "Snowflake depersonalized", "analyst")],
        "zendesk_tickets": [_solved("WD-ANALYST")],
    }
    assert judge(commit) == []


def test_a_contractor_gets_temporary_access_ending_by_the_contract() -> None:
    approvals = {"approval_requests": _approved("WD-CONTRACT", "WD-MGR")}

    def commit(expires: str | None) -> dict[str, Any]:
        return {
            "okta_app_access": [_grant("WD-CONTRACT", "Tableau", "viewer", expires=expires)],
            "zendesk_tickets": [
                _solved(
                    "WD-CONTRACT", access_expiry_date=expires, tags=["temporary_access"] if expires else []
                )
            ],
        }

    assert judge(commit("2026-01-31T00:00:00Z"), before=approvals) == []
    assert rules(judge(commit("2026-06-30T00:00:00Z"), before=approvals)) == {"access-contractor"}
    assert rules(judge(commit(None), before=approvals)) == {"access-contractor"}


def test_incident_access_for_24_hours_with_its_notices_passes() -> None:
    expires = "2025-10-02T13:00:00Z"
    notices = [
        m.EmailNotification(
            id=f"NTF-{n}",
            recipient_id=recipient,
            recipient_email=f"{recipient.lower()}@vdb.com",
            notification_type=kind,
            subject="s",
            body="b",
            ticket_id="T-1",
            sent_by="system",
        ).model_dump(mode="json")
        for n, (recipient, kind) in enumerate(
            [("WD-MGR", "post_facto_manager_alert"), ("WD-SEC", "incident_access_granted")]
        )
    ]
    fields = {
        "priority": "urgent",
        "incident_severity": "sev1_critical",
        "customer_impact": "yes_active",
        "access_expiry_date": expires,
        "tags": ["production_access", "temporary_access"],
        "business_justification": "SEV1: payments down",
    }
    commit = {
        "okta_app_access": [_grant("WD-DEV", "Production database", "read_only", expires=expires)],
        "zendesk_tickets": [_solved("WD-DEV", **fields)],
        "email_notifications": notices,
    }
    assert judge(commit) == []
    assert rules(judge({**commit, "email_notifications": notices[:1]})) == {"access-incident-notice"}
    glass = {**commit, "zendesk_tickets": [_solved("WD-DEV", **fields, approval_status="escalated")]}
    assert rules(judge(glass)) == {"access-incident-notice"}


@pytest.mark.parametrize(
    ("employee", "group", "approved", "blocked"),
    [
        ("WD-MKT", "bi_marketing_viewers", False, False),  # own department
        ("WD-CFO", "bi_product_analytics", False, False),  # confidential: auto-approved for executives
        ("WD-CFO", "bi_compliance", False, True),  # compliance_restricted: Head of Compliance for all
        ("WD-DEV", "bi_finance_viewers", False, True),  # financial_data: Head of Finance
        ("WD-DEV", "bi_finance_viewers", True, False),
    ],
)
def test_dashboard_groups_follow_their_sensitivity(
    employee: str, group: str, approved: bool, blocked: bool
) -> None:
    add = m.OktaGroupMembership(id="OGM-1", employee_id=employee, group_name=group, added_by="system")
    priority = "high" if employee == "WD-CFO" else "normal"
    commit = {
        "okta_group_membership": [add.model_dump(mode="json")],
        "zendesk_tickets": [_solved(employee, priority=priority)],
    }
    before = {"approval_requests": _approved(employee, "WD-FIN")} if approved else None
    assert rules(judge(commit, before=before)) == ({"dashboard-approval"} if blocked else set())
