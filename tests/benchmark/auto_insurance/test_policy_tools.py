"""Policy administration: the record, cancellation, reinstatement, document links, vehicles, drivers."""

from __future__ import annotations

import hashlib

from benchmark.world import World
from tests.benchmark.auto_insurance.test_refusals import DRIVER, LINK, POLICY, VEHICLE
from tests.benchmark.helpers import ok, rows


def _content_id(prefix: str, seed: str, length: int) -> str:
    return prefix + hashlib.sha256(seed.encode()).hexdigest()[:length].upper()


async def _row(world: World, table: str, row_id: str) -> dict[str, object]:
    return next(r for r in await rows(world, table) if r["id"] == row_id)


async def test_policy_details_leave_out_the_lapse_window_and_nulls(seeded: World) -> None:
    details = await ok(seeded, "policy_get_policy_details", {"policy_id": "POL-0033333333"})
    assert details == {
        "policy_id": "POL-0033333333",
        "customer_id": "CUS-00033333",
        "status": "Active",
        "state": "CA",
        "effective_date": "2024-06-01",
        "expiration_date": "2025-06-01",
        "renewal_date": "2025-06-01",
        "named_insured_id": "CUS-00033333",
        "co_insured_id": "CUS-00033334",
        "automatic_extension_days": 14,
        "at_fault_claims_3_years": 0,
        "lapse_flag": True,
    }


async def test_cancellation_and_reinstatement(seeded: World) -> None:
    scheduled = await ok(
        seeded,
        "policy_schedule_cancellation",
        {"policy_id": POLICY, "cancellation_date": "2025-10-31", "cancellation_reason": "Non-Payment"},
    )
    assert scheduled == {"policy_id": POLICY, "status": "Pending Cancellation"}
    policy = await _row(seeded, "policies", POLICY)
    assert (policy["status"], policy["cancellation_date"], policy["cancellation_reason"]) == (
        "Pending Cancellation",
        "2025-10-31",
        "Non-Payment",
    )
    reinstated = await ok(
        seeded,
        "policy_reinstate_policy",
        {"policy_id": POLICY, "lapse_flag": True, "lapse_start": "2025-09-01", "lapse_end": "2025-09-05"},
    )
    assert reinstated == {"policy_id": POLICY, "status": "Active", "lapse_flag": True}
    policy = await _row(seeded, "policies", POLICY)
    assert policy["cancellation_date"] is None
    assert policy["cancellation_reason"] is None
    assert (policy["lapse_start"], policy["lapse_end"]) == ("2025-09-01", "2025-09-05")


async def test_reinstating_without_a_lapse_keeps_an_earlier_lapse_window(seeded: World) -> None:
    await ok(
        seeded,
        "policy_reinstate_policy",
        {"policy_id": "POL-0033333333", "lapse_flag": False, "lapse_start": "2025-01-01"},
    )
    policy = await _row(seeded, "policies", "POL-0033333333")
    assert (policy["lapse_flag"], policy["lapse_start"], policy["lapse_end"]) == (
        False,
        "2024-03-01",
        "2024-05-15",
    )


async def test_document_links_are_content_addressed_and_idempotent(seeded: World) -> None:
    document_id = _content_id("DOC-2-", f"{POLICY}_DocumentType.ID_CARD_6", 8)
    first = await ok(seeded, "policy_generate_document_link", LINK)
    assert first == {
        "document_id": document_id,
        "url": f"https://portal.horizonshield.com/docs/secure/{POLICY}_id_card_6",
        "expires_at": "2025-10-02T13:00:00Z",
    }
    again = await ok(seeded, "policy_generate_document_link", {**LINK, "expiration_date": "2025-12-31"})
    assert again == first
    stored = await _row(seeded, "policy_documents", document_id)
    assert stored["created_at"] == stored["expires_at"] == "2025-10-02T13:00:00Z"
    assert stored["ticket_id"] == "6"
    other = await ok(seeded, "policy_generate_document_link", {**LINK, "ticket_id": "7"})
    assert other["document_id"] != document_id
    assert len(await rows(seeded, "policy_documents")) == 7


async def test_vehicles(seeded: World) -> None:
    vehicle_id = _content_id("VEH-2-", f"{POLICY}_{VEHICLE['vin']}", 8)
    assert await ok(seeded, "policy_add_vehicle", {**VEHICLE, "uw_pending": True}) == {
        "vehicle_id": vehicle_id
    }
    details = await ok(seeded, "policy_get_vehicle_details", {"vehicle_id": vehicle_id})
    assert details == {
        "vehicle_id": vehicle_id,
        "policy_id": POLICY,
        "vin": VEHICLE["vin"],
        "year": 2019,
        "make": "Tesla",
        "model": "Model 3",
        "status": "Active",
        "effective_date": "2025-10-01",
        "date_added_to_policy": "2025-10-01",
        "collision_coverage": True,
        "comprehensive_coverage": True,
        "rental_coverage": False,
        "uw_pending": True,
    }
    removed = await ok(
        seeded,
        "policy_update_vehicle_status",
        {"vehicle_id": "VEH-00012345", "new_status": "Removed", "effective_date": "2025-10-05"},
    )
    assert removed == {"vehicle_id": "VEH-00012345", "status": "Removed"}
    await ok(
        seeded,
        "policy_update_vehicle_status",
        {"vehicle_id": "VEH-00012346", "new_status": "Active", "effective_date": "2025-10-06"},
    )
    stored = {v["id"]: v for v in await rows(seeded, "vehicles")}
    assert stored["VEH-00012345"]["removal_date"] == "2025-10-05"
    assert stored["VEH-00012346"]["effective_date"] == "2024-03-15"
    every = await ok(seeded, "policy_get_policy_vehicles", {"policy_id": POLICY})
    active = await ok(seeded, "policy_get_policy_vehicles", {"policy_id": POLICY, "active_only": True})
    assert [v["id"] for v in every["vehicles"]] == ["VEH-00012345", "VEH-00012346", vehicle_id]
    assert [v["id"] for v in active["vehicles"]] == ["VEH-00012346", vehicle_id]
    assert active["vehicle_count"] == 2
    assert set(active["vehicles"][0]) == {"id", "vin", "year", "make", "model", "status", "effective_date"}


async def test_a_removed_vehicles_vin_still_blocks_adding_it_again(seeded: World) -> None:
    await ok(
        seeded,
        "policy_update_vehicle_status",
        {"vehicle_id": "VEH-00012345", "new_status": "Removed", "effective_date": "2025-10-05"},
    )
    outcome = await seeded.call("policy_add_vehicle", {**VEHICLE, "vin": "1HGCM82633A123456"})
    assert outcome.error is not None
    assert outcome.error.message == "VIN '1HGCM82633A123456' already exists on this policy"


async def test_drivers(seeded: World) -> None:
    driver_id = _content_id("DRV-2-", f"{POLICY}_Lily Smith_2008-02-02", 8)
    added = await ok(
        seeded,
        "policy_add_driver",
        {**DRIVER, "status": "Excluded", "exclusion_form_required": True, "uw_pending": None},
    )
    assert added == {"driver_id": driver_id, "status": "Excluded"}
    stored = await _row(seeded, "drivers", driver_id)
    assert stored["is_named_insured"] is False
    assert stored["exclusion_form_required"] is True
    assert stored["uw_pending"] is False
    assert stored["removal_date"] is None
    removed = await ok(
        seeded,
        "policy_update_driver_status",
        {"driver_id": "DRV-00012346", "new_status": "Removed", "effective_date": "2025-10-03"},
    )
    assert removed == {"driver_id": "DRV-00012346", "status": "Removed"}
    sarah = await _row(seeded, "drivers", "DRV-00012346")
    assert (sarah["effective_date"], sarah["removal_date"]) == ("2025-10-03", "2025-10-03")
    every = await ok(seeded, "policy_get_policy_drivers", {"policy_id": POLICY})
    active = await ok(seeded, "policy_get_policy_drivers", {"policy_id": POLICY, "active_only": True})
    assert [d["id"] for d in every["drivers"]] == ["DRV-00012345", "DRV-00012346", driver_id]
    assert [d["status"] for d in active["drivers"]] == ["Rated", "Excluded"]
    assert active["driver_count"] == 2
