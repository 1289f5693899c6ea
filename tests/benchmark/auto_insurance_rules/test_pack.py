"""The ``auto_insurance`` rule pack on hand-made changes: the rules no golden edit reaches, and edges."""

from __future__ import annotations

from typing import Any

import pytest

from benchmark.domains.auto_insurance import SPEC
from judges import RulePack
from tests.benchmark.auto_insurance_rules.records import inserted, judge, ticket, updated

USERS = {"zendesk_users": [{"id": "847291"}]}
POLICY = {
    "id": "POL-1",
    "customer_id": "CUST-1",
    "state": "TX",
    "status": "Active",
    "effective_date": "2025-01-01",
    "expiration_date": "2026-01-01",
    "cancellation_date": None,
    "lapse_flag": False,
    "lapse_start": None,
    "lapse_end": None,
    "at_fault_claims_3_years": 0,
}
VEHICLE = {"id": "VEH-1", "policy_id": "POL-1", "vin": "1HGCV1F30KA123456", "status": "Active"}
DRIVER = {
    "id": "DRV-1",
    "policy_id": "POL-1",
    "status": "Rated",
    "is_named_insured": False,
    "is_co_insured": False,
}


@pytest.fixture(scope="module")
def pack() -> RulePack:
    return SPEC.rule_pack()


def fired(pack: RulePack, *effects: Any, **tables: Any) -> list[tuple[str | None, str]]:
    verdict = judge(pack, effects, {**USERS, **tables})
    return [(finding.rule, finding.message) for finding in verdict.findings]


def test_a_ticket_as_the_policy_wants_it_passes(pack: RulePack) -> None:
    assert fired(pack, inserted("zendesk_tickets", ticket())) == []


@pytest.mark.parametrize(
    ("fields", "rule", "words"),
    [
        ({"description": None}, "ticket-description-at-creation", "created with no description"),
        ({"organization_id": "ORG-1"}, "ticket-no-organization", "organization_id 'ORG-1'"),
        ({"due_at": "2025-10-05T00:00:00Z"}, "ticket-no-deadline", "due_at '2025-10-05T00:00:00Z'"),
        ({"user_type": "Customer"}, "ticket-user-type", "user_type 'Customer'"),
        (
            {"internal_review_type": "Manager"},
            "ticket-internal-review-type",
            "internal_review_type 'Manager'",
        ),
        (
            {"claims_action_type": "FNOL - Theft", "request_category": "Claims"},
            "ticket-claims-action-type",
            "claims_action_type 'FNOL - Theft'",
        ),
    ],
)
def test_a_ticket_field_out_of_policy_fires_its_rule(
    pack: RulePack, fields: dict[str, Any], rule: str, words: str
) -> None:
    found = fired(pack, inserted("zendesk_tickets", ticket(**fields)))
    assert any(name == rule and words in message for name, message in found), found


def test_a_closed_ticket_is_not_reopened_but_an_untouched_field_is_not_judged(pack: RulePack) -> None:
    closed = ticket(status="closed", organization_id="ORG-1")
    assert ("ticket-closed-not-reopened", "ticket 6: closed ticket changed (status now 'solved')") in fired(
        pack, updated("zendesk_tickets", closed, status="solved")
    )
    solved = ticket(organization_id="ORG-1")
    assert fired(pack, updated("zendesk_tickets", solved, description="More details.")) == []


@pytest.mark.parametrize(("status", "ok"), [("hold", True), ("solved", True), ("pending", False)])
def test_a_referral_is_solved_or_on_hold(pack: RulePack, status: str, ok: bool) -> None:
    found = fired(pack, inserted("zendesk_tickets", ticket(status=status, outcome_summary="Referred")))
    assert (found == []) is ok, found


@pytest.mark.parametrize(
    ("past_due", "monthly", "count", "amount"),
    [(350, 175, 2, 17500), (48000, 24000, 2, 24000), (500, 200, 3, 16667), (50000, 20000, 3, 16666)],
)
def test_installments_add_up_in_cents_for_accounts_in_cents_or_whole_dollars(
    pack: RulePack, past_due: int, monthly: int, count: int, amount: int
) -> None:
    account = {
        "id": "BILL-1",
        "policy_id": "POL-1",
        "customer_id": "CUST-1",
        "status": "Past Due",
        "monthly_payment": monthly,
        "past_due_amount": past_due,
        "arrangement_type": "None",
        "arrangements_12_months": 0,
        "installment_count": None,
        "installment_amount": None,
    }
    effect = updated(
        "billing_accounts",
        account,
        arrangement_type="Installment Plan",
        arrangements_12_months=1,
        installment_count=count,
        installment_amount=amount,
    )
    assert fired(pack, effect, customers=[], claims=[]) == []


def test_an_unknown_customer_gets_the_standard_arrangement_limit(pack: RulePack) -> None:
    account = {
        "id": "BILL-1",
        "policy_id": "POL-1",
        "customer_id": "CUST-404",
        "status": "Past Due",
        "monthly_payment": 100,
        "past_due_amount": 100,
        "arrangement_type": "None",
        "arrangements_12_months": 1,
    }
    effect = updated("billing_accounts", account, arrangement_type="Extension", arrangements_12_months=2)
    found = fired(pack, effect, customers=[], claims=[])
    assert [rule for rule, _ in found] == ["arrangement-tier-limit"]


def test_vehicles_and_drivers_change_only_on_an_active_or_grace_policy(pack: RulePack) -> None:
    cancelled = {**POLICY, "status": "Cancelled for Non-Payment"}
    tables = {"policies": [cancelled], "vehicles": [VEHICLE, {**VEHICLE, "id": "VEH-2"}], "claims": []}
    removed_vehicle = updated("vehicles", VEHICLE, status="Removed", removal_date="2025-10-01")
    new_driver = inserted("drivers", {**DRIVER, "id": "DRV-2", "exclusion_form_required": False})
    removed_driver = updated("drivers", DRIVER, status="Removed")
    rules = [rule for rule, _ in fired(pack, removed_vehicle, new_driver, removed_driver, **tables)]
    assert rules == [
        "vehicle-remove-policy-status",
        "driver-add-policy-status",
        "driver-remove-policy-status",
    ]
    tables["policies"] = [{**POLICY, "status": "In Grace Period"}]
    assert fired(pack, removed_vehicle, new_driver, removed_driver, **tables) == []


def _claim(**fields: Any) -> dict[str, Any]:
    claim = {
        "id": "CLM-1",
        "policy_id": "POL-1",
        "vehicle_id": "VEH-1",
        "vehicle_vin": "1HGCV1F30KA123456",
        "driver_id": "DRV-1",
        "date_of_loss": "2025-09-30",
        "claim_type": "Collision – Single Vehicle",
        "severity": "Moderate",
        "has_bodily_injury": False,
        "police_report_required": False,
        "unlisted_driver_flag": False,
    }
    return {**claim, **fields}


def test_a_claim_names_a_vehicle_of_its_policy(pack: RulePack) -> None:
    coverage = {"collision_coverage": True, "comprehensive_coverage": True}
    tables = {
        "policies": [POLICY],
        "vehicles": [{**VEHICLE, **coverage}, {**VEHICLE, **coverage, "id": "VEH-9", "policy_id": "POL-9"}],
        "drivers": [DRIVER],
    }
    assert fired(pack, inserted("claims", _claim()), **tables) == []
    found = fired(pack, inserted("claims", _claim(vehicle_id="VEH-9")), **tables)
    assert [rule for rule, _ in found] == ["claim-vehicle-on-policy"]
    assert "the vehicle record is on policy POL-9" in found[0][1]


def test_a_loss_before_the_cancellation_of_a_now_cancelled_policy_is_covered(pack: RulePack) -> None:
    coverage = {"collision_coverage": True, "comprehensive_coverage": True}
    cancelled = {**POLICY, "status": "Cancelled for Non-Payment", "cancellation_date": "2025-09-20"}
    tables = {"policies": [cancelled], "vehicles": [{**VEHICLE, **coverage}], "drivers": [DRIVER]}
    assert fired(pack, inserted("claims", _claim(date_of_loss="2025-09-15")), **tables) == []
    found = fired(pack, inserted("claims", _claim(date_of_loss="2025-09-25")), **tables)
    assert [rule for rule, _ in found] == ["claim-policy-in-force"]
    lapsed = {**POLICY, "lapse_flag": True, "lapse_start": "2025-09-01", "lapse_end": "2025-09-10"}
    tables["policies"] = [lapsed]
    found = fired(pack, inserted("claims", _claim(date_of_loss="2025-09-05")), **tables)
    assert [rule for rule, _ in found] == ["claim-policy-in-force"]


def test_an_unverified_user_leaves_the_user_type_empty(pack: RulePack) -> None:
    assert fired(pack, inserted("zendesk_tickets", ticket(user_type=None, outcome_summary="Declined"))) == []


@pytest.mark.parametrize(
    ("claim_type", "injury", "required", "ok"),
    [
        ("Comprehensive – Theft", False, True, True),
        ("Comprehensive – Theft", False, False, False),
        ("Collision – Single Vehicle", True, False, False),
        ("Comprehensive – Weather", False, True, False),
        ("Collision – Parked Vehicle", False, True, True),
        ("Collision – Parked Vehicle", False, False, True),
    ],
)
def test_a_police_report_is_required_where_the_knowledge_base_says(
    pack: RulePack, claim_type: str, injury: bool, required: bool, ok: bool
) -> None:
    coverage = {"collision_coverage": True, "comprehensive_coverage": True}
    tables = {"policies": [POLICY], "vehicles": [{**VEHICLE, **coverage}], "drivers": [DRIVER]}
    severity = "Major" if injury else "Moderate"
    claim = _claim(
        claim_type=claim_type, has_bodily_injury=injury, police_report_required=required, severity=severity
    )
    assert (fired(pack, inserted("claims", claim), **tables) == []) is ok


@pytest.mark.parametrize(
    ("driver", "flag", "ok"),
    [
        (DRIVER, False, True),
        (DRIVER, True, False),
        ({**DRIVER, "policy_id": "POL-9"}, True, True),
        ({**DRIVER, "policy_id": "POL-9"}, False, False),
        ({**DRIVER, "status": "Removed"}, True, True),
        ({**DRIVER, "status": "Removed"}, False, True),
    ],
)
def test_the_unlisted_driver_flag_follows_the_policys_driver_list(
    pack: RulePack, driver: dict[str, Any], flag: bool, ok: bool
) -> None:
    coverage = {"collision_coverage": True, "comprehensive_coverage": True}
    tables = {"policies": [POLICY], "vehicles": [{**VEHICLE, **coverage}], "drivers": [driver]}
    claim = _claim(unlisted_driver_flag=flag)
    assert (fired(pack, inserted("claims", claim), **tables) == []) is ok
