"""Approval routing (§2.11): who may approve an employee's request, judged on single commits in memory."""

from __future__ import annotations

from typing import Any

import pytest

from benchmark.domains.neobank import models as m
from tests.benchmark.neobank_rules.office import judge, rules, ticket


def _request(requester: str, approver: str, **extra: Any) -> dict[str, Any]:
    return m.ApprovalRequest(
        id="APR-1",
        request_type=extra.pop("request_type", "access_request"),
        requester_id=requester,
        approver_id=approver,
        status="pending",
        urgency="standard",
        details="GitHub (write)",
        ticket_id="T-1",
        **extra,
    ).model_dump(mode="json")


def _commit(requester: str, approver: str, *, before: dict[str, Any] | None = None) -> list[Any]:
    pending = ticket(
        "T-1",
        requester,
        "pending",
        approval_required="yes",
        approval_status="pending",
        approver_id=approver,
        approval_request_ids="APR-1",
    )
    return judge(
        {"zendesk_tickets": [pending], "approval_requests": [_request(requester, approver)]}, before=before
    )


@pytest.mark.parametrize(
    ("requester", "approver"),
    [
        ("WD-DEV", "WD-MGR"),  # the direct manager
        ("WD-DEV", "WD-DIR"),  # the next manager up (director)
        ("WD-DEV", "WD-SEC"),  # IT Security's designated approver
        ("WD-DEV", "WD-FIN"),  # Finance & Accounting's designated approver
        ("WD-ANALYST", "WD-COMP"),  # Compliance's designated approver, outside the chain
    ],
)
def test_an_approver_in_the_chain_or_designated_passes(requester: str, approver: str) -> None:
    assert _commit(requester, approver) == []


@pytest.mark.parametrize(
    ("requester", "approver"),
    [
        ("WD-DEV", "WD-PEER"),  # a colleague
        ("WD-DEV", "WD-SECENG"),  # IT Security, but not its designated approver
        ("WD-DEV", "WD-ANALYST"),  # someone unrelated
        ("WD-MGR", "WD-DEV"),  # a report of the requester
    ],
)
def test_an_approver_outside_the_chain_is_blocked(requester: str, approver: str) -> None:
    findings = _commit(requester, approver)
    assert rules(findings) == {"approval-approver-in-chain"}
    [finding] = findings
    assert f"approver {approver}" in finding.message
    assert "WD-SEC" in str(finding.hint)


def test_a_director_deeper_than_two_levels_is_reported_without_blocking() -> None:
    findings = _commit("WD-JR", "WD-DIR")
    assert rules(findings) == set()
    assert rules(findings, "warn") == {"approval-approver-deep-chain"}


def test_the_backup_of_a_designated_approver_on_leave_passes_and_the_absent_one_is_blocked() -> None:
    on_leave = {"employees": [{"id": "WD-SEC", "employment_status": "on_leave"}]}
    assert _commit("WD-DEV", "WD-CEO", before=on_leave) == []
    assert rules(_commit("WD-DEV", "WD-SEC", before=on_leave)) == {"approval-approver-available"}


def test_the_urgency_follows_the_ticket_priority() -> None:
    pending = ticket(
        "T-1",
        "WD-DEV",
        "pending",
        priority="high",
        approval_required="yes",
        approval_status="pending",
        approver_id="WD-MGR",
        approval_request_ids="APR-1",
    )
    findings = judge({"zendesk_tickets": [pending], "approval_requests": [_request("WD-DEV", "WD-MGR")]})
    assert rules(findings) == {"approval-urgency"}
    assert findings[0].hint == "allowed: urgent"


def _hardware(requester: str, approver: str, *, before: dict[str, Any] | None = None) -> list[Any]:
    pending = ticket(
        "T-1",
        requester,
        "pending",
        approval_required="yes",
        approval_status="pending",
        approver_id=approver,
        approval_request_ids="APR-1",
    )
    request = _request(requester, approver, request_type="hardware_purchase")
    return judge({"zendesk_tickets": [pending], "approval_requests": [request]}, before=before)


def test_a_hardware_approval_goes_to_the_manager_or_past_them_when_they_are_on_leave() -> None:
    """The manager's own manager is read through a chained lookup (requester, then requester_manager)."""
    assert rules(_hardware("WD-DEV", "WD-MGR")) == set()
    assert rules(_hardware("WD-DEV", "WD-DIR")) == {"approval-hardware-manager"}
    on_leave = {"employees": [{"id": "WD-MGR", "employment_status": "on_leave"}]}
    assert rules(_hardware("WD-DEV", "WD-DIR", before=on_leave)) == set()
    assert rules(_hardware("WD-DEV", "WD-VP", before=on_leave)) == {"approval-hardware-manager"}
