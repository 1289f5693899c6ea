"""Wrong booking trajectories about money: refunds, charges and fees, compensation, and the
customer's CRM record (complaint count, protected profile fields)."""

from __future__ import annotations

from tests.benchmark.booking_rules.case import modify_args
from tests.benchmark.booking_rules.conftest import (
    CHARGE,
    CRM,
    GONE,
    MODIFY,
    REFUND,
    UPDATE,
    add,
    chain,
    change,
    change_item,
    drop,
    repeat,
)
from tests.benchmark.wrong_cases import WrongCase, blocked

__all__ = ["MONEY_CASES"]

MONEY_CASES: dict[str, WrongCase] = {
    # --- payments and CRM ---------------------------------------------------------------------------
    "negative refund": blocked(
        "bmd_020",
        change(REFUND, refund_amount="-85.00"),
        "refund-positive",
        ("amount -85.00", "BKG-20465375", "allowed: more than 0"),
    ),
    "complaint count raised by two": blocked(
        "psc_001",
        change(CRM, complaint_count=2),
        "complaint-count-increment",
        ("CUS-00000006", "complaint_count 0 -> 2", "allowed: 1"),
    ),
    "loyalty status changed": blocked(
        "psc_003",
        change(CRM, loyalty_program_status="gold"),
        "profile-protected-fields",
        ("CUS-00000006", "loyalty_program_status", "allowed: no change"),
    ),
    # --- money --------------------------------------------------------------------------------------
    "cancellation refund above the 50% window": blocked(
        "crf_012",
        change(REFUND, refund_amount="137.50"),
        "booking-money-net",
        ("booking BKG-96325953", "refund TXN-00000008 137.50", "allowed: net -122.50"),
    ),
    "service fee not retained": blocked(
        "crf_007",
        chain(change(REFUND, refund_amount="580.00"), change_item(UPDATE, -1, refund_amount=580.0)),
        "booking-money-net",
        ("booking BKG-81829922", "refund TXN-00000009 580.00", "allowed: net -565.00"),
    ),
    "cancellation refund missing": blocked(
        "crf_007",
        drop(REFUND),
        "booking-money-net",
        ("booking BKG-81829922", "no charge or refund", "allowed: net -565.00"),
    ),
    "refund after the window closed": blocked(
        "crf_001",
        add(
            REFUND, {"booking_reference": "BKG-42258313", "refund_amount": "525.00", "reason": "cancellation"}
        ),
        "booking-money-net",
        ("booking BKG-42258313", "refund TXN-00000008 525.00", "allowed: net 0.00"),
    ),
    "refund processed twice": blocked(
        "crf_003",
        repeat(REFUND),
        "booking-money-net",
        ("booking BKG-83503056", "TXN-00000009 890.00", "allowed: net -890.00"),
    ),
    "modification fee not charged": blocked(
        "bmd_008",
        drop(CHARGE),
        "booking-money-net",
        ("booking BKG-56482366", "no charge or refund", "allowed: net 65.00", "surcharge 15"),
    ),
    "second-modification surcharge forgotten": blocked(
        "bmd_022",
        change(CHARGE, charge_amount="105.00"),
        "booking-money-net",
        ("booking BKG-30923271", "charge TXN-00000008 105.00", "allowed: net 120.00"),
    ),
    "platinum customer charged a fee": blocked(
        "bmd_015",
        change(CHARGE, charge_amount="412.50"),
        "booking-money-net",
        ("booking BKG-47143455", "412.50", "allowed: net 400.00", "waived for a platinum customer"),
    ),
    "charge made twice": blocked(
        "bmd_010",
        repeat(CHARGE),
        "booking-money-net",
        ("booking BKG-73872148", "TXN-00000009 680.00", "allowed: net 680.00"),
    ),
    "group fee without the hotel multiplier": blocked(
        "gbm_003",
        change(CHARGE, charge_amount="325.00"),
        "booking-money-net",
        ("group GRP-79740344", "charge TXN-00000008 325.00", "allowed: net 387.50", "budget 1.5"),
    ),
    "early check-in fee doubled": blocked(
        "bmd_014",
        change(CHARGE, charge_amount="50.00"),
        "booking-money-net",
        ("booking BKG-57986872", "50.00", "allowed: net 25.00", "early check-in"),
    ),
    "late checkout fee missing": blocked(
        "cbm_010",
        drop(CHARGE),
        "booking-money-net",
        ("booking BKG-28986143", "no charge or refund", "allowed: net 30.00"),
    ),
    "downgrade refund not netted": blocked(
        "bmd_020",
        change(REFUND, refund_amount="76.50"),
        "booking-money-net",
        ("booking BKG-20465375", "refund TXN-00000009 76.50", "allowed: net -85.00"),
    ),
    "charge on an unchanged booking": blocked(
        "bpy_002",
        add(
            CHARGE,
            {"booking_reference": "BKG-50752735", "charge_amount": "25.00", "reason": "fee"},
            before=UPDATE,
            nth=-1,
        ),
        "booking-money-unexplained",
        ("charge TXN-00000009", "25.00 on BKG-50752735", "did not modify"),
    ),
    "modification dropped, charge kept": blocked(
        "bmd_010",
        drop(MODIFY),
        "booking-money-unexplained",
        ("TXN-00000008", "680.00 on BKG-73872148"),
    ),
    "billing correction without system-error": blocked(
        "bpy_010",
        change_item(UPDATE, -1, escalation_reason=GONE),
        "booking-money-unexplained",
        ("booking BKG-10762268", "refund TXN-00000010 15.00", "escalation_reason None", "system-error"),
    ),
    "compensation of the whole stay": blocked(
        "psc_001",
        chain(change(REFUND, refund_amount="420.00"), change_item(UPDATE, -1, refund_amount=420.0)),
        "booking-compensation",
        (
            "booking BKG-01845146",
            "compensation 420.00",
            "standard customer",
            "allowed: 105.00, 210.00, 315.00",
        ),
    ),
    "compensation above the late-complaint rate": blocked(
        "psc_004",
        chain(change(REFUND, refund_amount="155.00"), change_item(UPDATE, -1, refund_amount=155.0)),
        "booking-compensation",
        ("booking BKG-99809402", "compensation 155.00", "allowed: 77.50"),
    ),
    "complaint count not raised": blocked(
        "psc_009",
        drop(CRM),
        "booking-compensation",
        ("CUS-00000006", "complaint_count 1 left unchanged", "allowed: complaint_count 2"),
    ),
    "refund above the booking value": blocked(
        "psc_010",
        chain(change(REFUND, refund_amount="250.00"), change_item(UPDATE, -1, refund_amount=250.0)),
        "booking-refund-cap",
        ("booking BKG-89638346", "refunds 250.00 exceed its booking_value 195.00", "allowed: at most 195.00"),
    ),
    "group special request at a budget hotel without the hotel": blocked(
        "gbm_003",
        add(
            MODIFY,
            modify_args("BKG-00010002", special_requests=["Connecting rooms for the team"]),
            before=CHARGE,
        ),
        "modification-hotel-confirmation",
        ("BKG-00010002", "special request added 49 h before check-in", "GRP-79740344", "budget hotel"),
    ),
}
