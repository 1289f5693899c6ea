"""Billing, claims, CRM and the VIN lookup."""

from __future__ import annotations

import hashlib

from benchmark.world import World
from tests.benchmark.auto_insurance.conftest import OpenWorld
from tests.benchmark.auto_insurance.test_refusals import FNOL, POLICY
from tests.benchmark.helpers import ok, refused, rows


async def _account(world: World, policy_id: str) -> dict[str, object]:
    return next(a for a in await rows(world, "billing_accounts") if a["policy_id"] == policy_id)


async def test_account_details_and_arrangements(seeded: World) -> None:
    details = await ok(seeded, "billing_get_account_details", {"policy_id": POLICY})
    assert details == {
        "billing_account_id": "BILL-000001",
        "policy_id": POLICY,
        "status": "Past Due",
        "monthly_payment": 25000,
        "past_due_amount": 30000,
        "current_due_date": "2025-01-15",
        "payment_received": False,
        "arrangement_type": "None",
    }
    plan = await ok(
        seeded,
        "billing_create_installment_plan",
        {"policy_id": POLICY, "installment_count": 3, "installment_amount": 10000},
    )
    assert plan == {"billing_account_id": "BILL-000001", "arrangements_12_months": 2}
    extension = await ok(
        seeded, "billing_grant_extension", {"policy_id": POLICY, "new_due_date": "2025-10-11"}
    )
    assert extension == {"billing_account_id": "BILL-000001", "arrangements_12_months": 3}
    account = await _account(seeded, POLICY)
    assert account["arrangement_type"] == "Extension"
    assert (account["current_due_date"], account["new_due_date"]) == ("2025-10-11", "2025-10-11")
    assert (account["installment_count"], account["installment_amount"]) == (None, None)
    history = await ok(seeded, "billing_get_arrangement_history", {"policy_id": POLICY})
    assert history == {"arrangements_12_months": 3}


async def test_resetting_an_account_keeps_its_arrangement_count(seeded: World) -> None:
    reset = await ok(seeded, "billing_reset_account_status", {"policy_id": "POL-0099001122"})
    assert reset == {"billing_account_id": "BILL-000003", "status": "Current"}
    account = await _account(seeded, "POL-0099001122")
    assert account["status"] == "Current"
    assert account["past_due_amount"] == 0
    assert account["arrangement_type"] == "None"
    assert account["arrangements_12_months"] == 2
    assert (account["new_due_date"], account["installment_count"], account["installment_amount"]) == (
        None,
        None,
        None,
    )


async def test_fnol_claims_are_content_addressed_and_idempotent(seeded: World) -> None:
    seed = f"{POLICY}_2025-09-28_VEH-00012345"
    claim_id = "CLM-2" + hashlib.sha256(seed.encode()).hexdigest()[:9].upper()
    first = await ok(seeded, "claims_create_fnol", {**FNOL, "severity": "Major", "has_bodily_injury": True})
    assert first == {"claim_id": claim_id, "claim_stage": "Open – Initial Review"}
    again = await ok(seeded, "claims_create_fnol", {**FNOL, "loss_location": "elsewhere"})
    assert again == first
    stored = next(c for c in await rows(seeded, "claims") if c["id"] == claim_id)
    assert stored["created_date"] == "2025-09-28"
    assert stored["siu_flag"] == "None"
    assert stored["has_bodily_injury"] is True
    assert stored["unlisted_driver_flag"] is False
    assert stored["loss_location"] == "Los Angeles, CA"
    by_vin = await ok(seeded, "claims_create_fnol", {**FNOL, "vehicle_id": "", "vehicle_vin": "VIN-1"})
    without = await ok(seeded, "claims_create_fnol", {**FNOL, "vehicle_id": None})
    assert len({first["claim_id"], by_vin["claim_id"], without["claim_id"]}) == 3
    major = await ok(seeded, "claims_check_open_major_claims", {"policy_id": POLICY})
    assert major == {"has_major_claim": True, "major_claim_count": 1}


async def test_vehicle_and_driver_claims(seeded: World) -> None:
    await ok(seeded, "claims_create_fnol", {**FNOL, "driver_id": "DRV-00012345"})
    vehicle = await ok(seeded, "claims_get_vehicle_claims", {"vehicle_id": "VEH-00012345"})
    assert [c["claim_stage"] for c in vehicle["claims"]] == ["Closed – Paid", "Open – Initial Review"]
    assert vehicle["has_open_claims"] is True
    assert set(vehicle["claims"][0]) == {
        "claim_id",
        "date_of_loss",
        "claim_type",
        "claim_stage",
        "severity",
        "created_date",
    }
    driver = await ok(seeded, "claims_get_driver_claims", {"driver_id": "DRV-00012345", "open_only": True})
    assert len(driver["claims"]) == 1
    closed = await ok(seeded, "claims_get_vehicle_claims", {"vehicle_id": "VEH-00012346", "open_only": True})
    assert closed == {"claims": [], "has_open_claims": False}


async def test_months_back_counts_from_the_newest_claim_in_the_table(seeded: World) -> None:
    everything = await ok(seeded, "claims_get_policy_claims", {"policy_id": POLICY, "months_back": 0})
    assert everything["total_count"] == 1
    recent = await ok(seeded, "claims_get_policy_claims", {"policy_id": POLICY, "months_back": 9})
    assert recent["total_count"] == 1
    await ok(seeded, "claims_create_fnol", {**FNOL, "date_of_loss": "2025-09-28"})
    newer = await ok(seeded, "claims_get_policy_claims", {"policy_id": POLICY, "months_back": 9})
    assert [c["created_date"] for c in newer["claims"]] == ["2025-09-28"]
    assert newer["total_count"] == 1


async def test_a_claim_date_that_is_not_iso_breaks_months_back(seeded: World) -> None:
    await ok(seeded, "claims_create_fnol", {**FNOL, "date_of_loss": "Sept 28"})
    message = await refused(seeded, "claims_get_policy_claims", {"policy_id": POLICY, "months_back": 2})
    assert message == "time data 'Sept 28' does not match format '%Y-%m-%d'"
    assert (await ok(seeded, "claims_get_policy_claims", {"policy_id": POLICY}))["total_count"] == 2


async def test_customers(maria: World) -> None:
    found = await ok(maria, "crm_get_customer_by_email", {"email": "MARIA.Rodriguez@gmail.com"})
    assert found == {"customer_id": "CUST-847291", "first_name": "Maria", "last_name": "Rodriguez"}
    profile = await ok(maria, "crm_get_customer_profile", {"customer_id": "CUST-847291"})
    assert profile == {
        "customer_id": "CUST-847291",
        "email": "maria.rodriguez@gmail.com",
        "first_name": "Maria",
        "last_name": "Rodriguez",
        "date_of_birth": "1987-03-15",
        "phone": "(415) 892-3847",
        "tier": "Standard",
        "fraud_flag": False,
        "has_ssn_on_file": True,
    }


async def test_identity_checks_prefer_the_ssn(seeded: World) -> None:
    robert = "CUS-00012345"
    checks = [
        ({"ssn_last_4": "1234"}, {"verified": True, "verification_method": "ssn"}),
        (
            {"ssn_last_4": "0000", "security_answer": "Fluffy"},
            {"verified": False, "verification_method": "ssn"},
        ),
        (
            {"ssn_last_4": "", "security_answer": "fLUFFY"},
            {"verified": True, "verification_method": "security_question"},
        ),
        ({"security_answer": "Rex"}, {"verified": False, "verification_method": "security_question"}),
    ]
    for arguments, expected in checks:
        assert await ok(seeded, "crm_verify_identity", {"customer_id": robert, **arguments}) == expected
    no_answer = await ok(
        seeded, "crm_verify_identity", {"customer_id": "CUS-00056789", "security_answer": "x"}
    )
    assert no_answer["verified"] is False


async def test_the_mock_vin_decoder(seeded: World) -> None:
    assert await ok(seeded, "lookup_validate_vin", {"vin": " 1hgcm82633a123456 "}) == {
        "valid": True,
        "make": "Honda",
        "model": "Accord",
    }
    assert await ok(seeded, "lookup_validate_vin", {"vin": "5YJ3E1EA7KF317000"}) == {
        "valid": True,
        "year": 2019,
        "make": "Tesla",
        "model": "Model S",
    }
    assert await ok(seeded, "lookup_validate_vin", {"vin": "2HGFA165XHH123456"}) == {
        "valid": True,
        "year": 2017,
        "make": "Honda Canada",
    }
    assert await ok(seeded, "lookup_validate_vin", {"vin": "ZZZ00000000000000"}) == {"valid": True}


async def test_policy_search_reads_the_scenarios_sources(
    make_auto_world: OpenWorld, auto_scenario: object
) -> None:
    async with make_auto_world(scenario=auto_scenario) as world:
        hits = await ok(
            world,
            "knowledge_base_search_policy",
            {"query": "payment extension grace period", "max_results": 2},
        )
        assert len(hits["snippets"]) == 2
        assert {"source", "score", "text"} == set(hits["snippets"][0])
