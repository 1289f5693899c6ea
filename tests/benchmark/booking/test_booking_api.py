"""booking_api: look-ups, modifications (re-pricing, history, partial writes), groups, availability.

Seed facts used here: booking BKG-00012345 (BKG-00000001) is a confirmed
deluxe/with-breakfast stay at HTL-00012345, 2025-12-15 → 18, worth 457.5,
and the inventory prices those three nights at 152.5 each; the hotel row of
HTL-00012345 has the internal id HTL-00000001.
"""

from __future__ import annotations

from typing import Any

from benchmark.world import World
from tests.benchmark.booking.conftest import STAY, OpenBookingWorld
from tests.benchmark.helpers import ok, refused, rows

NIGHT = {
    "hotel_id": "HTL-00012345",
    "room_type": "deluxe_room",
    "board_type": "with_breakfast",
    "available_count": 2,
    "created_at": "2025-01-01T10:00:00Z",
    "updated_at": "2025-01-01T10:00:00Z",
}


async def _booking(world: World, reference: str) -> dict[str, Any]:
    return next(b for b in await rows(world, "bookings") if b["booking_reference"] == reference)


async def test_bookings_are_found_by_reference_or_customer(seeded: World) -> None:
    by_reference = await ok(seeded, "booking_api_get_booking", {"booking_reference": "BKG-00012345"})
    assert by_reference["booking_data"]["booking_value"] == "457.5"
    assert by_reference["booking_data"]["corporate_account_id"] is None
    first = await ok(seeded, "booking_api_get_booking", {"customer_id": "CUS-00000001"})
    assert first["booking_data"]["id"] == "BKG-00000001"
    history = await ok(seeded, "booking_api_get_booking_history", {"customer_id": "CUS-00000001"})
    assert [b["booking_reference"] for b in history["bookings"]] == [
        "BKG-00012345",
        "BKG-00012346",
        "BKG-00012347",
    ]
    assert await ok(seeded, "booking_api_get_booking_history", {"customer_id": "CUS-404"}) == {"bookings": []}


async def test_a_modification_reprices_the_stay_and_logs_every_change(seeded: World) -> None:
    result = await ok(
        seeded,
        "booking_api_modify_booking",
        {
            "booking_reference": "BKG-00012345",
            "check_in_date": "2025-12-16T15:00:00Z",
            "adults_count": 3,
            "special_requests": ["crib"],
        },
    )
    assert result["price_difference"] == "-152.50"
    stored = await _booking(seeded, "BKG-00012345")
    assert result["updated_booking"] == stored
    assert stored["booking_value"] == "305.00"
    assert stored["updated_at"] == "2025-11-25T10:00:00Z"
    assert stored["modification_history"] == [
        "2025-11-25T10:00:00Z: check_in_date: 2025-12-15T15:00:00Z -> 2025-12-16T15:00:00Z; "
        "adults_count: 2 -> 3; special_requests updated"
    ]


async def test_a_no_change_reprices_in_place_and_an_unpriced_change_keeps_the_value(seeded: World) -> None:
    before = await _booking(seeded, "BKG-00012345")
    same = await ok(
        seeded,
        "booking_api_modify_booking",
        {"booking_reference": "BKG-00012345", "check_in_date": "2025-12-15T15:00:00Z"},
    )
    after = await _booking(seeded, "BKG-00012345")
    assert same["price_difference"] == "0.00"
    assert (before["booking_value"], after["booking_value"]) == ("457.5", "457.50")
    assert after["modification_history"] == before["modification_history"] == []
    assert after["updated_at"] == before["updated_at"]
    unpriced = await ok(
        seeded,
        "booking_api_modify_booking",
        {"booking_reference": "BKG-00012345", "board_type": "half_board"},
    )
    assert unpriced["price_difference"] == "0.00"
    assert unpriced["updated_booking"]["booking_value"] == "457.50"
    assert unpriced["updated_booking"]["modification_history"] == [
        "2025-11-25T10:00:00Z: board_type: with_breakfast -> half_board"
    ]


async def test_cancelled_bookings_cannot_be_modified_again(seeded: World) -> None:
    await ok(
        seeded,
        "booking_api_modify_booking",
        {"booking_reference": "BKG-00012348", "booking_status": "cancelled"},
    )
    history = (await _booking(seeded, "BKG-00012348"))["modification_history"]
    assert history == ["2025-11-25T10:00:00Z: booking_status: confirmed -> cancelled"]
    assert await refused(seeded, "booking_api_modify_booking", {"booking_reference": "BKG-00012348"}) == (
        "Booking cannot be modified. Current status is 'cancelled', must be 'confirmed'"
    )


async def test_a_failed_repricing_keeps_the_fields_already_changed(
    make_booking_world: OpenBookingWorld,
) -> None:
    huge = {**NIGHT, "id": "INV-HUGE", "date": "2026-01-10", "price_per_night": "1E+30"}
    async with make_booking_world(patch={"booking_api_hotel_inventory": [huge]}) as world:
        message = await refused(
            world,
            "booking_api_modify_booking",
            {
                "booking_reference": "BKG-00012345",
                "check_in_date": "2026-01-10T15:00:00Z",
                "check_out_date": "2026-01-11T11:00:00Z",
                "adults_count": 4,
            },
        )
        assert message == "[<class 'decimal.InvalidOperation'>]"
        stored = await _booking(world, "BKG-00012345")
        assert (stored["check_in_date"], stored["adults_count"]) == ("2026-01-10T15:00:00Z", 4)
        assert (stored["booking_value"], stored["modification_history"]) == ("457.5", [])


async def test_group_changes_cascade_to_the_groups_bookings(seeded: World) -> None:
    result = await ok(
        seeded,
        "booking_api_modify_group_booking",
        {
            "group_booking_id": "GRP-00012345",
            "modification_details": {"check_in_date": "2025-12-16T15:00:00Z", "check_out_date": ""},
            "cascade_to_individual_bookings": True,
        },
    )
    assert result["modified_booking_references"] == [
        "BKG-00012345",
        "BKG-00012346",
        "BKG-00012347",
        "BKG-00012348",
        "BKG-00012349",
    ]
    assert result["total_price_difference"] == "-152.50"
    assert result["updated_group_booking"]["check_in_date"] == "2025-12-16T15:00:00Z"
    assert result["updated_group_booking"]["updated_at"] == "2025-11-25T10:00:00Z"
    priced = await _booking(seeded, "BKG-00012345")
    assert priced["booking_value"] == "305.00"
    assert priced["modification_history"] == [
        "2025-11-25T10:00:00Z: check_in_date updated via group booking GRP-00012345"
    ]
    unpriced = await _booking(seeded, "BKG-00012349")
    assert (unpriced["booking_value"], unpriced["check_in_date"]) == ("927.6", "2025-12-16T15:00:00Z")
    again = await ok(
        seeded,
        "booking_api_modify_group_booking",
        {
            "group_booking_id": "GRP-00012345",
            "modification_details": {"check_in_date": "2025-12-16T15:00:00Z"},
            "cascade_to_individual_bookings": True,
        },
    )
    assert again["modified_booking_references"] == []


async def test_a_group_change_without_cascade_moves_only_the_group(seeded: World) -> None:
    before = await rows(seeded, "bookings")
    result = await ok(
        seeded,
        "booking_api_modify_group_booking",
        {
            "group_booking_id": "GRP-00033333",
            "modification_details": {"check_out_date": "2026-01-09T11:00:00Z"},
            "cascade_to_individual_bookings": False,
        },
    )
    assert result["updated_group_booking"]["check_out_date"] == "2026-01-09T11:00:00Z"
    assert result["total_price_difference"] == "0.00"
    assert await rows(seeded, "bookings") == before
    group = await ok(seeded, "booking_api_get_group_booking", {"group_booking_id": "GRP-00033333"})
    assert group["group_booking_data"] == result["updated_group_booking"]


async def test_availability_finds_the_hotel_by_its_internal_id(make_booking_world: OpenBookingWorld) -> None:
    twin = {
        "id": "HTL-00012345",
        "hotel_id": "HTL-00012345",
        "hotel_name": "Twin Plaza",
        "location": "New York",
        "partner_tier": "standard",
        "contact_name": "Ann",
        "contact_email": "ann@twin.example",
        "contact_phone": "1",
        "created_at": "2025-01-01T10:00:00Z",
        "updated_at": "2025-01-01T10:00:00Z",
    }
    extra = {
        **NIGHT,
        "id": "INV-HALF",
        "board_type": "half_board",
        "date": "2025-12-16",
        "price_per_night": "99.995",
    }
    patch = {"hotel_partner_api_hotels": [twin], "booking_api_hotel_inventory": [extra]}
    async with make_booking_world(patch=patch) as world:
        seen = await ok(world, "booking_api_check_hotel_availability", {"hotel_id": "HTL-00012345", **STAY})
        assert seen == {
            "available_count": 5,
            "available_board_types": ["half_board", "with_breakfast"],
            "price_per_night": "152.50",
        }
        half = await ok(
            world,
            "booking_api_check_hotel_availability",
            {"hotel_id": "HTL-00012345", **STAY, "board_type": "half_board"},
        )
        assert (half["available_count"], half["price_per_night"]) == (2, "100.00")
        by_internal_id = await ok(
            world, "booking_api_check_hotel_availability", {"hotel_id": "HTL-00000001", **STAY}
        )
        assert by_internal_id == {
            "available_count": 0,
            "available_board_types": [],
            "price_per_night": "0.00",
        }


async def test_hotels_are_searched_by_location_with_average_prices(seeded: World) -> None:
    found = await ok(seeded, "booking_api_search_hotels_by_location", {"location": "new YORK", **STAY})
    assert found == {
        "hotels": [
            {
                "hotel_id": "HTL-00012345",
                "hotel_name": "Grand Plaza Hotel",
                "location": "New York",
                "partner_tier": "premium",
                "available_count": 5,
                "price_per_night": "152.50",
            },
            {
                "hotel_id": "HTL-00012346",
                "hotel_name": "City Center Inn",
                "location": "New York",
                "partner_tier": "standard",
                "available_count": 3,
                "price_per_night": "119.75",
            },
        ]
    }
    assert await ok(seeded, "booking_api_search_hotels_by_location", {"location": "Paris", **STAY}) == {
        "hotels": []
    }
