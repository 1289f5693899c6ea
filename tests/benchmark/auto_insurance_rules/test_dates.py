"""The date rules at other commit times: "today" is the commit's, never a date written into the rules."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from benchmark.domains.auto_insurance import SPEC
from benchmark.domains.auto_insurance.judges import DateRulesJudge
from judges import Effect
from tests.benchmark.auto_insurance_rules.records import inserted, judge, updated

SPRING = "2026-03-01T09:30:00+00:00"


def rules(at: str, *effects: Effect, **tables: Any) -> list[str | None]:
    verdict = judge(DateRulesJudge(), effects, tables, now=datetime.fromisoformat(at))
    return [finding.rule for finding in verdict.findings]


def _extension(due: str) -> Effect:
    account = {"id": "BILL-1", "policy_id": "POL-1", "arrangement_type": "None", "arrangements_12_months": 0}
    return updated(
        "billing_accounts", account, arrangement_type="Extension", arrangements_12_months=1, new_due_date=due
    )


def test_an_extension_is_due_ten_days_after_the_clocks_today() -> None:
    assert rules(SPRING, _extension("2026-03-11")) == []
    assert rules(SPRING, _extension("2025-10-11")) == ["extension-due-date"]


def _reinstated(cancelled: str, **lapse: Any) -> Effect:
    policy = {
        "id": "POL-1",
        "customer_id": "CUST-1",
        "status": "Cancelled for Non-Payment",
        "cancellation_date": cancelled,
        "lapse_flag": False,
        "lapse_start": None,
        "lapse_end": None,
    }
    return updated("policies", policy, status="Active", cancellation_date=None, **lapse)


@pytest.mark.parametrize(
    ("tier", "cancelled", "window_ok"),
    [
        ("Standard", "2026-02-14", True),
        ("Standard", "2026-02-13", False),
        ("Preferred", "2026-01-30", True),
        ("Premium", "2026-01-15", True),
        ("Premium", "2026-01-14", False),
    ],
)
def test_the_reinstatement_window_follows_the_tier(tier: str, cancelled: str, window_ok: bool) -> None:
    lapse = {"lapse_flag": True, "lapse_start": cancelled, "lapse_end": "2026-03-01"}
    found = rules(SPRING, _reinstated(cancelled, **lapse), customers=[{"id": "CUST-1", "tier": tier}])
    assert found == ([] if window_ok else ["reinstatement-window"])


def test_a_lapse_is_recorded_only_after_the_cancellation_date() -> None:
    customers = [{"id": "CUST-1", "tier": "Standard"}]
    assert rules(SPRING, _reinstated("2026-03-05", lapse_flag=False), customers=customers) == []
    late = _reinstated("2026-03-05", lapse_flag=True, lapse_start="2026-03-05", lapse_end="2026-03-01")
    assert rules(SPRING, late, customers=customers) == ["reinstatement-lapse"]
    assert rules(SPRING, _reinstated("2026-03-01", lapse_flag=False), customers=customers) == []


@pytest.mark.parametrize(
    ("expires", "ok"),
    [
        ("2026-03-02T09:30:00Z", True),
        ("2026-03-02T09:45:05Z", True),
        ("2026-03-02T11:30:00Z", False),
        ("2026-03-02", False),
        ("tomorrow", False),
    ],
)
def test_a_document_link_expires_a_day_from_now(expires: str, ok: bool) -> None:
    link = {"id": "DOC-1", "policy_id": "POL-1", "ticket_id": "6", "expires_at": expires}
    assert rules(SPRING, inserted("policy_documents", link)) == ([] if ok else ["document-link-expiry"])


def _claim(**fields: Any) -> Effect:
    claim = {
        "id": "CLM-NEW",
        "policy_id": "POL-1",
        "vehicle_id": "VEH-1",
        "date_of_loss": "2026-02-27",
        "claim_type": "Comprehensive – Theft",
        "siu_flag": "None",
    }
    return inserted("claims", {**claim, **fields})


def test_siu_triggers_count_recent_claims_and_look_at_the_stolen_vehicle() -> None:
    vehicles = [{"id": "VEH-1", "policy_id": "POL-1", "year": 2020, "date_added_to_policy": "2024-05-01"}]
    recent = [{"id": f"CLM-{n}", "policy_id": "POL-1", "created_date": f"2025-0{n}-01"} for n in (1, 2, 3)]
    old = [{"id": "CLM-0", "policy_id": "POL-1", "created_date": "2023-12-01"}]
    assert rules(SPRING, _claim(), claims=recent[:2] + old, vehicles=vehicles) == []
    assert rules(SPRING, _claim(), claims=recent, vehicles=vehicles) == ["claim-siu-triggers"]
    assert (
        rules(SPRING, _claim(siu_flag="Suspicious Activity Flagged"), claims=recent, vehicles=vehicles) == []
    )
    fresh = [{**vehicles[0], "date_added_to_policy": "2026-02-10"}]
    assert rules(SPRING, _claim(), claims=[], vehicles=fresh) == ["claim-siu-triggers"]
    assert rules(SPRING, _claim(claim_type="Comprehensive – Weather"), claims=[], vehicles=fresh) == []


def test_backdating_a_vehicle_follows_the_state_and_the_window() -> None:
    def vehicle(day: str) -> Effect:
        return inserted("vehicles", {"id": "VEH-2", "policy_id": "POL-1", "effective_date": day})

    texas = [{"id": "POL-1", "state": "TX", "automatic_extension_days": 10}]
    california = [{"id": "POL-1", "state": "CA", "automatic_extension_days": 10}]
    assert rules(SPRING, vehicle("2026-02-19"), policies=texas) == []
    assert rules(SPRING, vehicle("2026-02-18"), policies=texas) == ["vehicle-effective-date"]
    assert rules(SPRING, vehicle("2026-03-01"), policies=california) == []
    assert rules(SPRING, vehicle("2026-02-28"), policies=california) == ["vehicle-effective-date"]


def test_the_date_judge_asks_for_the_rows_the_pack_already_looks_up() -> None:
    added = inserted("vehicles", {"id": "VEH-2", "policy_id": "POL-1", "effective_date": "2026-03-01"})
    pack_queries = set(SPEC.rule_pack().queries((added,)))
    date_queries = DateRulesJudge().queries((added,))
    assert set(date_queries) <= pack_queries
