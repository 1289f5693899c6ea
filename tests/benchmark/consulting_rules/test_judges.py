"""The cross-record judges in memory: which ticket documents an action, and when they stand aside."""

from __future__ import annotations

from typing import Any

from benchmark.domains.consulting import SPEC
from benchmark.domains.consulting.judges import TicketApprovalsJudge, TicketDocumentsJudge, TicketRecordsJudge
from judges import CommitContext, Decision, Effect, EffectKind, Judge, MemoryState, Verdict

USERS = {"zendesk_users": [{"id": "8", "email": "ann@msg.com"}, {"id": "9", "email": "bob@msg.com"}]}


def insert(table: str, key: str, **row: Any) -> Effect:
    changed = tuple(sorted(name for name, value in row.items() if value is not None))
    return Effect(table, (key,), EffectKind.INSERT, None, row, changed)


def ticket(key: str, requester: str = "8", **fields: Any) -> Effect:
    row = {"id": key, "requester_id": requester, "status": "solved", "tags": ["document_access"]} | fields
    return insert("zendesk_tickets", key, **row)


def grant(key: str, folder: str, email: str = "ann@msg.com") -> Effect:
    return insert(
        "box_folder_access_logs", key, folder_id=folder, employee_email=email, permission_level="viewer"
    )


def judge(
    subject: Judge, effects: list[Effect], tables: dict[str, list[dict[str, Any]]] | None = None
) -> Verdict:
    state = MemoryState({**USERS, "approval_approval_requests": [], "box_folders": [], **(tables or {})})
    snapshot = state.snapshot(subject.queries(tuple(effects)))
    return subject(CommitContext("t", tuple(effects), state=snapshot))


def rules(verdict: Verdict) -> list[str | None]:
    return [finding.rule for finding in verdict.findings]


def test_an_action_is_documented_by_the_ticket_naming_its_record() -> None:
    effects = [
        ticket("1", folder_id="FLD-0000001", status="pending"),
        ticket("2", folder_id="FLD-0000002"),
        grant("FAL-1", "FLD-0000002"),
    ]
    assert judge(TicketDocumentsJudge(), effects).decision is Decision.ALLOW
    effects[1] = ticket("2", folder_id="FLD-0000002", status="hold")
    verdict = judge(TicketDocumentsJudge(), effects)
    assert rules(verdict) == ["ticket-status-fulfilled"]
    assert verdict.findings[0].evidence["key"] == "2"


def test_an_action_with_no_ticket_or_no_ticket_of_its_employee_is_blocked() -> None:
    assert rules(judge(TicketDocumentsJudge(), [grant("FAL-1", "FLD-0000001")])) == ["action-without-ticket"]
    verdict = judge(TicketDocumentsJudge(), [ticket("1", requester="9"), grant("FAL-1", "FLD-0000001")])
    assert rules(verdict) == ["action-ticket-requester"]
    assert "bob@msg.com" in verdict.findings[0].message


def test_with_several_tickets_of_the_employee_the_record_must_be_named() -> None:
    effects = [ticket("1"), ticket("2"), grant("FAL-1", "FLD-0000001")]
    verdict = judge(TicketDocumentsJudge(), effects)
    assert rules(verdict) == ["action-ticket-field"]
    assert "none of tickets 1, 2" in verdict.findings[0].message
    okta = insert("okta_application_access_logs", "AAL-1", employee_email="ann@msg.com", app_name="Zoom")
    assert judge(TicketDocumentsJudge(), [ticket("1"), ticket("2", status="hold"), okta]).findings == ()


def test_a_solved_ticket_needs_every_listed_approvers_decision() -> None:
    solved = ticket("1", approval_required="yes", approver_id="a@msg.com,b@msg.com")
    decided = [
        {
            "id": "APR-1",
            "requester_email": "ann@msg.com",
            "approver_email": "a@msg.com",
            "status": "approved",
        },
        {
            "id": "APR-2",
            "requester_email": "ann@msg.com",
            "approver_email": "b@msg.com",
            "status": "rejected",
        },
    ]
    tables = {"approval_approval_requests": decided}
    assert judge(TicketApprovalsJudge(), [solved], tables).findings == ()
    decided[1] = {**decided[1], "status": "pending"}
    verdict = judge(TicketApprovalsJudge(), [solved], tables)
    assert rules(verdict) == ["ticket-solved-undecided-approval"]
    assert "APR-2 by b@msg.com is pending" in verdict.findings[0].message
    decided[1] = {**decided[1], "requester_email": "bob@msg.com"}
    assert (
        "b@msg.com has no approval request of ann@msg.com"
        in judge(TicketApprovalsJudge(), [solved], tables).findings[0].message
    )


def test_approvers_are_listed_in_alphabetical_order() -> None:
    verdict = judge(
        TicketApprovalsJudge(), [ticket("1", status="pending", approver_id="Zed@msg.com,amy@msg.com")]
    )
    assert rules(verdict) == ["ticket-approver-order"]
    assert verdict.findings[0].hint == "allowed: amy@msg.com,Zed@msg.com"


def test_records_are_compared_only_when_one_ticket_is_worked_on() -> None:
    approval = insert(
        "approval_approval_requests",
        "APR-1",
        request_type="expense_override",
        requester_email="ann@msg.com",
        approver_email="a@msg.com",
        amount=10,
    )
    tables = {"concur_expense_reports": [{"id": "EXP-0000001", "amount": 12}]}
    one = [ticket("1", expense_report_id="EXP-0000001", status="pending"), approval]
    assert rules(judge(TicketRecordsJudge(), one, tables)) == ["approval-amount-of-record"]
    two = [*one, ticket("2", status="pending")]
    assert judge(TicketRecordsJudge(), two, tables).findings == ()
    assert TicketRecordsJudge().queries(tuple(two)) == []


def test_the_judges_share_the_rule_packs_requester_lookup() -> None:
    effects = (ticket("1"),)
    pack = SPEC.rule_pack().queries(effects)
    assert set(TicketDocumentsJudge().queries(effects)) <= set(pack)


def test_listed_approvers_are_asked_unless_a_prerequisite_comes_first() -> None:
    pending = ticket("1", status="pending", approval_required="yes", approver_id="a@msg.com")
    verdict = judge(TicketApprovalsJudge(), [pending])
    assert rules(verdict) == ["ticket-approver-not-asked"]
    nda = Effect(
        "client_access_nda_record",
        ("ann@msg.com", "CLT-0000001"),
        EffectKind.UPDATE,
        {"employee_email": "ann@msg.com", "client_id": "CLT-0000001", "status": "not_signed"},
        {"employee_email": "ann@msg.com", "client_id": "CLT-0000001", "status": "sent_for_signature"},
        ("status",),
    )
    assert judge(TicketApprovalsJudge(), [pending, nda]).findings == ()


def test_a_non_standard_device_needs_an_approved_hardware_approval() -> None:
    pack = SPEC.rule_pack()
    assignment = insert(
        "asset_management_device_assignments", "ASMT-1", asset_id="MSG00000001", employee_email="ann@msg.com"
    )
    macbook = {"id": "MSG00000001", "model": "MacBook Pro 14", "location": "Chicago", "device_type": "laptop"}
    tables: dict[str, list[dict[str, Any]]] = {
        "asset_management_devices": [macbook],
        "asset_management_device_assignments": [
            {"id": "ASMT-1", "asset_id": "MSG00000001", "returned_at": None}
        ],
        "workday_employees": [{"email": "ann@msg.com", "office_location": "Chicago"}],
    }
    verdict = judge(pack, [assignment], tables)
    assert rules(verdict) == ["device-non-standard-approval"]
    assert "non-standard MacBook Pro 14" in verdict.findings[0].message
    approved = {"id": "APR-1", "requester_email": "ann@msg.com", "request_type": "hardware_replacement"}
    tables["approval_approval_requests"] = [approved | {"status": "approved"}]
    assert judge(pack, [assignment], tables).findings == ()


def test_only_a_flagged_expense_report_is_overridden() -> None:
    before = {
        "id": "EXP-0000001",
        "employee_email": "ann@msg.com",
        "amount": 20,
        "receipt_status": "attached",
    }
    before |= {"rejection_reason": None, "override_approved": False, "override_approved_by": None}
    after = before | {
        "override_approved": True,
        "override_approved_by": "m@msg.com",
        "override_reason": "system_error",
    }
    changed = ("override_approved", "override_approved_by", "override_reason")
    override = Effect("concur_expense_reports", ("EXP-0000001",), EffectKind.UPDATE, before, after, changed)
    ann = {"email": "ann@msg.com", "manager_email": "m@msg.com", "backup_approver_email": None}
    employees = {"workday_employees": [ann]}
    verdict = judge(SPEC.rule_pack(), [override], employees)
    assert rules(verdict) == ["expense-override-flagged"]
    assert verdict.findings[0].message == (
        "expense report EXP-0000001: override_approved true while its rejection_reason is null"
    )
