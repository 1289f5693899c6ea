"""The ticket-agreement judge on hand-made commits: which ticket documents a change, and whether it agrees."""

from __future__ import annotations

from typing import Any

from benchmark.domains.auto_insurance.judges import TicketAgreementJudge
from judges import Verdict
from tests.benchmark.auto_insurance_rules.records import inserted, judge, ticket, updated

ACCOUNT = {
    "id": "BILL-1",
    "policy_id": "POL-1",
    "status": "Past Due",
    "arrangement_type": "None",
    "arrangements_12_months": 0,
    "new_due_date": None,
}
EXTENSION = updated(
    "billing_accounts",
    ACCOUNT,
    arrangement_type="Extension",
    arrangements_12_months=1,
    new_due_date="2025-10-11",
)
SERVICING = {"request_category": "Policy Servicing", "effective_date_of_change": "2025-10-01"}


def verdict(*effects: Any) -> Verdict:
    return judge(TicketAgreementJudge(), effects)


def rules(found: Verdict) -> list[str | None]:
    return [finding.rule for finding in found.findings]


def _vehicle(key: str, uw_pending: bool) -> dict[str, Any]:
    return {"id": key, "policy_id": "POL-1", "effective_date": "2025-10-01", "uw_pending": uw_pending}


def test_an_extension_on_its_solved_task_ticket_agrees() -> None:
    assert verdict(EXTENSION, inserted("zendesk_tickets", ticket())).findings == ()


def test_a_declined_request_beside_the_completed_one_is_fine() -> None:
    declined = ticket("7", outcome_summary="Declined")
    assert (
        verdict(
            EXTENSION, inserted("zendesk_tickets", declined), inserted("zendesk_tickets", ticket())
        ).findings
        == ()
    )
    found = verdict(EXTENSION, inserted("zendesk_tickets", declined))
    assert rules(found) == ["action-ticket-agrees"]
    assert "ticket 7 has outcome_summary 'Declined'" in found.findings[0].message


def test_one_ticket_on_hold_documents_a_flagged_and_an_unflagged_vehicle() -> None:
    hold = ticket(
        status="hold",
        outcome_summary="Pending – Internal Review",
        internal_review_type="Underwriting",
        **SERVICING,
    )
    effects = (inserted("vehicles", _vehicle("VEH-1", True)), inserted("vehicles", _vehicle("VEH-2", False)))
    assert verdict(*effects, inserted("zendesk_tickets", hold)).findings == ()
    found = verdict(effects[1], inserted("zendesk_tickets", hold))
    assert rules(found) == ["action-ticket-agrees", "ticket-review-without-change"]


def test_an_siu_claim_waits_on_hold_for_siu() -> None:
    claim = {
        "id": "CLM-1",
        "policy_id": "POL-1",
        "claim_type": "Comprehensive – Theft",
        "severity": "Moderate",
        "siu_flag": "Suspicious Activity Flagged",
        "police_report_required": True,
        "police_report_number": "NYPD-1",
    }
    fields = {"request_category": "Claims", "claims_action_type": "FNOL – Comprehensive", "type": "incident"}
    solved = ticket(**fields)
    found = verdict(inserted("claims", claim), inserted("zendesk_tickets", solved))
    assert rules(found) == ["action-ticket-agrees"]
    assert found.findings[0].hint == (
        "allowed: status hold; outcome_summary Pending – Internal Review; internal_review_type SIU"
    )
    hold = ticket(
        status="hold", outcome_summary="Pending – Internal Review", internal_review_type="SIU", **fields
    )
    assert verdict(inserted("claims", claim), inserted("zendesk_tickets", hold)).findings == ()


def test_a_change_with_no_ticket_of_its_category_or_no_ticket_at_all() -> None:
    found = verdict(EXTENSION, inserted("zendesk_tickets", ticket(**SERVICING)))
    assert "action-documented" in rules(found)
    empty = verdict()
    assert rules(empty) == ["interaction-documented"]
    assert empty.findings[0].message == "no ticket created or updated in this transaction"
    assert empty.findings[0].evidence["tools"] == ["zendesk_create_item", "zendesk_update_item"]


def test_a_completed_task_needs_its_change_unless_the_ticket_was_only_annotated() -> None:
    found = verdict(inserted("zendesk_tickets", ticket()))
    assert rules(found) == ["ticket-completed-without-change"]
    assert found.findings[0].evidence["tools"] == [
        "billing_grant_extension",
        "billing_create_installment_plan",
    ]
    annotated = updated("zendesk_tickets", ticket(), description="Customer called back to say thanks.")
    assert verdict(annotated).findings == ()
    question = inserted("zendesk_tickets", ticket(type="question", priority="low"))
    assert verdict(question).findings == ()


def test_a_reinstatement_has_no_effective_date_of_change() -> None:
    policy = {"id": "POL-1", "status": "Cancelled for Non-Payment", "cancellation_date": "2025-09-21"}
    reinstated = updated("policies", policy, status="Active", cancellation_date=None)
    dated = ticket(**SERVICING)
    found = verdict(reinstated, inserted("zendesk_tickets", dated))
    assert rules(found) == ["action-ticket-agrees"]
    assert "not applicable to a reinstatement" in found.findings[0].message
    undated = ticket(request_category="Policy Servicing")
    assert verdict(reinstated, inserted("zendesk_tickets", undated)).findings == ()
