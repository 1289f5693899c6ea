"""Wrong booking trajectories about the bookings themselves: status, guests, dates and requests;
whether a modification is allowed (budget hotels, manager approval, hotel confirmation, availability)."""

from __future__ import annotations

from tests.benchmark.booking_rules.case import modify_args, replace_modify
from tests.benchmark.booking_rules.conftest import (
    CREATE,
    ESCALATE,
    GONE,
    MODIFY,
    UPDATE,
    add,
    chain,
    change,
    change_item,
    drop,
)
from tests.benchmark.wrong_cases import WrongCase, blocked

__all__ = ["BOOKING_CASES"]

BOOKING_CASES: dict[str, WrongCase] = {
    # --- bookings -----------------------------------------------------------------------------------
    "booking checked in by support": blocked(
        "crf_001",
        change(MODIFY, booking_status="checked_in"),
        "booking-status-change",
        ("BKG-42258313", "'confirmed' -> 'checked_in'", "allowed: confirmed -> cancelled"),
    ),
    "too many guests for the room": blocked(
        "bmd_008",
        change(MODIFY, children_count=GONE, adults_count=5),
        "booking-room-capacity",
        ("BKG-56482366", "5 adults", "family_room", "at most 4 adults"),
    ),
    "check-out before check-in": blocked(
        "bmd_017",
        change(MODIFY, check_out_date="2025-10-19T11:00:00Z"),
        "booking-stay-dates",
        ("BKG-36690967", "check_out_date 2025-10-19T11:00:00Z", "allowed: a check-out after the check-in"),
    ),
    "pet added at a hotel without pets": blocked(
        "bmd_014",
        change(MODIFY, special_requests=["Pet accommodation for a small dog"]),
        "booking-pets-supported",
        ("BKG-57986872", "HTL-00012350", "supports_pets false"),
    ),
    "accessibility at a hotel without accessible rooms": blocked(
        "bmd_014",
        change(MODIFY, special_requests=["Wheelchair accessible room"]),
        "booking-accessibility-supported",
        ("BKG-57986872", "accessible_rooms_available false"),
    ),
    "group moved without its bookings": blocked(
        "gbm_006",
        change("booking_api_modify_group_booking", cascade_to_individual_bookings=False),
        "group-dates-cascade",
        ("group GRP-64887719", "BKG-64887701", "keep other dates"),
    ),
    # --- eligibility --------------------------------------------------------------------------------
    "same-day change at a budget hotel": blocked(
        "crf_010",
        replace_modify("BKG-59255562", board_type="with_breakfast"),
        "modification-budget-same-day",
        (
            "BKG-59255562",
            "board_type changed 3 h before check-in",
            "budget hotel",
            "allowed: no modification",
        ),
    ),
    "mid-market change without manager approval": blocked(
        "cbm_006",
        add(
            MODIFY,
            modify_args(
                "BKG-29270653", check_in_date="2025-10-12T15:00:00Z", check_out_date="2025-10-15T11:00:00Z"
            ),
            before=UPDATE,
        ),
        "modification-manager-approval",
        ("BKG-29270653", "mid-market corporate booking worth 1250.00", "before a manager approves"),
    ),
    "same-day change without hotel confirmation": blocked(
        "bmd_001",
        chain(
            drop(ESCALATE),
            add(MODIFY, modify_args("BKG-10433218", check_in_date="2025-10-02T15:00:00Z"), before=UPDATE),
            change_item(
                UPDATE,
                -1,
                escalation_reason=GONE,
                status="solved",
                resolution_action="modification-completed",
            ),
        ),
        "modification-hotel-confirmation",
        ("BKG-10433218", "2 h before check-in", "standard-tier customer", "before the hotel confirms"),
    ),
    "room changed to one that is not available": blocked(
        "bmd_023",
        chain(
            add(MODIFY, modify_args("BKG-12419049", room_type="deluxe_room"), before=UPDATE),
            change_item(CREATE, resolution_action="modification-completed"),
        ),
        "modification-availability",
        ("BKG-12419049", "deluxe_room", "HTL-84739201", "0 available", "allowed: a room and board free"),
    ),
    "large group changed without the hotel": blocked(
        "gbm_012",
        chain(
            drop(ESCALATE), add(MODIFY, modify_args("BKG-70001001", room_type="deluxe_room"), before=UPDATE)
        ),
        "modification-hotel-confirmation",
        ("BKG-70001001", "group GRP-70348247 of 18 rooms", "before the hotel approves"),
    ),
}
