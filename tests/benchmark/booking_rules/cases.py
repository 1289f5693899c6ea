"""Wrong booking trajectories: a golden trajectory with one mistake an agent makes, and what the gate says.

Each :class:`Wrong` names the task (``crf_003`` for
``external_booking_v1_group1.py:test_crf_003``), the edit, the rule that must
block the commit and words its finding must contain (the record, the field,
the value found and what is allowed). :data:`ALLOWED` are other correct ways
to do a task than its golden one, which must commit too. :data:`WARNED` are mistakes the gate
reports without blocking; :data:`MISSED` are real mistakes the gate cannot
see, each with the reason. Both are replayed too, to keep the counts honest.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.benchmark.booking_rules.conftest import (
    CHARGE,
    CREATE,
    CRM,
    ESCALATE,
    GONE,
    MODIFY,
    REFUND,
    UPDATE,
    Edit,
    add,
    chain,
    change,
    change_item,
    drop,
    repeat,
    stop_before,
)

__all__ = ["ALLOWED", "MISSED", "WARNED", "WRONG", "Wrong"]


@dataclass(frozen=True)
class Wrong:
    task: str
    edit: Edit
    rule: str
    words: tuple[str, ...] = ()
    why: str = ""


def _modify(reference: str, **fields: object) -> dict[str, object]:
    return {"booking_reference": reference, **fields}


_DISPUTE = {
    "transaction_id": "TXN-18699938",
    "dispute_reason": "charged_above_booking",
    "dispute_amount": "65.00",
}


def _dispute_instead_of_refund(resolution: str) -> Edit:
    """bpy_007 with a dispute case opened instead of the overcharge refund."""
    return chain(
        add("payment_api_process_charge_dispute", _DISPUTE, before=REFUND),
        drop(REFUND),
        change_item(
            UPDATE,
            -1,
            resolution_action=resolution,
            refund_amount=0.0,
            escalation_reason=GONE,
            tags=["b2c-customer"],
        ),
    )


def _replace_modify(reference: str, **fields: object) -> Edit:
    """Replace the first booking modification's arguments (a different change to the same booking)."""

    def apply(calls: list[tuple[str, dict[str, object]]]) -> list[tuple[str, dict[str, object]]]:
        i = next(i for i, (tool, _) in enumerate(calls) if tool == MODIFY)
        calls[i] = (MODIFY, _modify(reference, **fields))
        return calls

    return apply


WRONG: dict[str, Wrong] = {
    # --- ticket lifecycle and fields (rules.yaml) ---------------------------------------------------
    "ticket left open": Wrong(
        "crf_003",
        change_item(UPDATE, -1, status="open"),
        "ticket-status-at-resolution",
        ("ticket 13", "status 'open'", "allowed: pending, hold, solved"),
    ),
    "ticket closed by the agent": Wrong(
        "bmd_010",
        change_item(UPDATE, -1, status="closed"),
        "ticket-status-at-resolution",
        ("ticket 13", "status 'closed'", "allowed: pending, hold, solved"),
    ),
    "final ticket update missing": Wrong(
        "crf_015",
        drop(UPDATE, -1),
        "ticket-status-at-resolution",
        ("ticket 14", "status 'open'"),
    ),
    "ticket created twice": Wrong(
        "bmd_021",
        repeat(CREATE),
        "ticket-status-at-resolution",
        ("ticket 15", "status 'open'"),
    ),
    "ticket deleted": Wrong(
        "crf_011",
        add("zendesk_delete_item", {"table": "tickets", "id": "TCK-47321046"}),
        "ticket-not-deleted",
        ("ticket TCK-47321046 deleted", "allowed: keep the ticket"),
    ),
    "comment added to a ticket": Wrong(
        "bmd_010",
        add(
            CREATE,
            {"table": "comments", "item": {"ticket_id": "13", "author_id": "AG-83945", "body": "Charged"}},
        ),
        "ticket-no-comments",
        ("added to a ticket", "allowed: no comments"),
    ),
    "agent stops before writing anything": Wrong(
        "bmd_015",
        stop_before(CREATE),
        "ticket-every-request",
        (
            "no ticket was created or updated in this commit",
            "allowed: every request creates (zendesk_create_item)",
        ),
    ),
    "agent stops after the cancellation": Wrong(
        "crf_010",
        chain(drop(CREATE), drop(UPDATE, -1)),
        "ticket-every-request",
        ("no ticket was created or updated", "bookings BKG-00000006"),
    ),
    "ticket assigned to someone else": Wrong(
        "bmd_014",
        change_item(CREATE, assignee_id="AG-83946"),
        "ticket-assignee",
        ("ticket 14", "assignee_id 'AG-83946'", "allowed: AG-83945"),
    ),
    "organization set on a ticket": Wrong(
        "bmd_015",
        change_item(CREATE, organization_id="ORG-10000002"),
        "ticket-no-organization",
        ("ticket 13", "organization_id 'ORG-10000002'", "allowed: no organization_id"),
    ),
    "due date set on a ticket": Wrong(
        "crf_007",
        change_item(UPDATE, -1, due_at="2025-10-03T14:00:00Z"),
        "ticket-no-due-date",
        ("ticket 14", "due_at '2025-10-03T14:00:00Z'", "allowed: no due_at"),
    ),
    "requester is no Zendesk user": Wrong(
        "bmd_017",
        change_item(CREATE, requester_id="CUS-36690967"),
        "ticket-requester-known",
        ("ticket 14", "requester_id 'CUS-36690967'", "no Zendesk user"),
    ),
    "ticket without priority": Wrong(
        "crf_014",
        change_item(CREATE, priority=GONE),
        "ticket-fields-at-resolution",
        ("ticket 13", "priority null", "allowed: priority set"),
    ),
    "reopened ticket keeps type problem": Wrong(
        "psc_011",
        change_item(UPDATE, -1, type=GONE),
        "ticket-fields-at-resolution",
        ("ticket TCK-50983930", "type problem", "type question, incident or task"),
    ),
    "solved without resolution_action": Wrong(
        "crf_005",
        change_item(UPDATE, -1, resolution_action=GONE),
        "ticket-fields-at-resolution",
        ("ticket 13", "resolution_action null", "resolution_action set"),
    ),
    "solved without request_type_detail": Wrong(
        "bmd_021",
        change_item(UPDATE, -1, request_type_detail=GONE),
        "ticket-fields-at-resolution",
        ("ticket 14", "request_type_detail null", "request_type_detail set"),
    ),
    "cancellation ticket without check-in date": Wrong(
        "crf_008",
        change_item(UPDATE, -1, check_in_date=GONE),
        "ticket-booking-fields",
        ("ticket 13", "cancel-booking", "check_in_date null", "and check_in_date"),
    ),
    "refund recorded without booking value": Wrong(
        "bpy_007",
        change_item(UPDATE, -1, booking_value=GONE),
        "ticket-refund-documented",
        ("ticket 14", "refund_amount 65", "booking_value null", "booking_value set"),
    ),
    "cancellation filed as a question": Wrong(
        "crf_015",
        change_item(CREATE, type="question"),
        "ticket-type-for-action",
        ("ticket 14", "type 'question'", "cancel-booking", "allowed: task"),
    ),
    "payment failure filed as a task": Wrong(
        "bpy_003",
        change_item(CREATE, type="task"),
        "ticket-outcome",
        ("ticket 13", "type 'task' resolved 'information-provided'", "allowed: incident", "question"),
    ),
    "ticket names an unknown hotel": Wrong(
        "hpv_005",
        change_item(CREATE, hotel_id="HTL-11592123"),
        "ticket-hotel-known",
        ("ticket 13", "hotel_id 'HTL-11592123' is no partner hotel"),
    ),
    "ticket requested by another user": Wrong(
        "psc_005",
        change_item(CREATE, requester_id="USR-10000006"),
        "ticket-requester",
        ("ticket 13", "requester_id 'USR-10000006'", "BKG-61201836", "allowed: the Zendesk user with email"),
    ),
    "receipt request filed by another user": Wrong(
        "bpy_008",
        change_item(CREATE, requester_id="USR-10000006"),
        "ticket-requester",
        (
            "ticket 13",
            "requester_id 'USR-10000006' is james.anderson@grouptravel.com",
            "not the customer of BKG-38156149",
            "allowed: the Zendesk user with email thomas.reynolds@outlook.com",
        ),
    ),
    "hotel partner's report filed for a traveller": Wrong(
        "hpv_001",
        change_item(CREATE, requester_id="USR-10000001"),
        "ticket-requester",
        (
            "ticket 13",
            "requester_id 'USR-10000001' is sarah.johnson@travelers.com",
            "not the contact of hotel HTL-37735158 of BKG-50643171",
            "allowed: the Zendesk user with email frontdesk@oceanviewresort.com or manager@",
        ),
    ),
    "question resolved as a modification": Wrong(
        "hpv_001",
        change_item(UPDATE, -1, resolution_action="modification-completed"),
        "ticket-question-informational",
        ("ticket 13", "type 'question' resolved 'modification-completed'", "information-provided"),
    ),
    "escalated-hotel without a reason": Wrong(
        "hdr_007",
        change_item(UPDATE, -1, resolution_action="escalated-hotel", status="hold"),
        "ticket-escalated-hotel-reason",
        ("ticket 13", "'escalated-hotel' without an escalation_reason"),
    ),
    "old tags kept on a reopened ticket": Wrong(
        "bmd_019",
        change_item(UPDATE, -1, tags=["b2c-customer", "check-in-upcoming", "special-request"]),
        "ticket-tags-known",
        ("ticket TCK-69901627", '["special-request"]', "allowed: b2c-customer"),
    ),
    "two user types": Wrong(
        "crf_003",
        change_item(UPDATE, -1, tags=["b2c-customer", "corporate-account", "check-in-upcoming"]),
        "ticket-one-user-type",
        ("ticket 13", "corporate-account", "exactly one of b2c-customer"),
    ),
    "corporate booking tagged b2c": Wrong(
        "cbm_005",
        change_item(UPDATE, -1, tags=["b2c-customer", "check-in-upcoming"]),
        "ticket-user-type-matches-booking",
        ("ticket 13", "BKG-22141888", "corporate_account_id CRP-54235733", "allowed: corporate-account"),
    ),
    "ticket names another hotel": Wrong(
        "bmd_022",
        change_item(UPDATE, -1, hotel_id="HTL-74829317"),
        "ticket-hotel-matches-booking",
        ("ticket TCK-93745299", "hotel_id 'HTL-74829317'", "allowed: HTL-74829316"),
    ),
    "corporate booking ticket without its account": Wrong(
        "ccn_005",
        change_item(UPDATE, -1, corporate_account_id=GONE),
        "ticket-account-matches-booking",
        ("ticket 13", "corporate_account_id null", "allowed: corporate_account_id CRP-11544796"),
    ),
    "group ticket names another group": Wrong(
        "gbm_001",
        change_item(UPDATE, -1, group_booking_id="GRP-58441987"),
        "ticket-account-matches-booking",
        ("ticket 13", "group_booking_id GRP-58441987", "allowed:", "group_booking_id GRP-58441986"),
    ),
    "ticket booking value off by 10%": Wrong(
        "crf_007",
        change_item(CREATE, booking_value=638.0),
        "ticket-booking-value-matches",
        ("ticket 14", "booking_value 638", "allowed: 580.00"),
    ),
    "group ticket value off by 10%": Wrong(
        "gbm_006",
        change_item(UPDATE, -1, booking_value=5940.0),
        "ticket-group-value",
        ("ticket TCK-06594013", "booking_value 5940.00", "GRP-64887719", "allowed:"),
    ),
    # --- bookings -----------------------------------------------------------------------------------
    "booking checked in by support": Wrong(
        "crf_001",
        change(MODIFY, booking_status="checked_in"),
        "booking-status-change",
        ("BKG-42258313", "'confirmed' -> 'checked_in'", "allowed: confirmed -> cancelled"),
    ),
    "too many guests for the room": Wrong(
        "bmd_008",
        change(MODIFY, children_count=GONE, adults_count=5),
        "booking-room-capacity",
        ("BKG-56482366", "5 adults", "family_room", "at most 4 adults"),
    ),
    "check-out before check-in": Wrong(
        "bmd_017",
        change(MODIFY, check_out_date="2025-10-19T11:00:00Z"),
        "booking-stay-dates",
        ("BKG-36690967", "check_out_date 2025-10-19T11:00:00Z", "allowed: a check-out after the check-in"),
    ),
    "pet added at a hotel without pets": Wrong(
        "bmd_014",
        change(MODIFY, special_requests=["Pet accommodation for a small dog"]),
        "booking-pets-supported",
        ("BKG-57986872", "HTL-00012350", "supports_pets false"),
    ),
    "accessibility at a hotel without accessible rooms": Wrong(
        "bmd_014",
        change(MODIFY, special_requests=["Wheelchair accessible room"]),
        "booking-accessibility-supported",
        ("BKG-57986872", "accessible_rooms_available false"),
    ),
    "group moved without its bookings": Wrong(
        "gbm_006",
        change("booking_api_modify_group_booking", cascade_to_individual_bookings=False),
        "group-dates-cascade",
        ("group GRP-64887719", "BKG-64887701", "keep other dates"),
    ),
    # --- payments and CRM ---------------------------------------------------------------------------
    "negative refund": Wrong(
        "bmd_020",
        change(REFUND, refund_amount="-85.00"),
        "refund-positive",
        ("amount -85.00", "BKG-20465375", "allowed: more than 0"),
    ),
    "complaint count raised by two": Wrong(
        "psc_001",
        change(CRM, complaint_count=2),
        "complaint-count-increment",
        ("CUS-00000006", "complaint_count 0 -> 2", "allowed: 1"),
    ),
    "loyalty status changed": Wrong(
        "psc_003",
        change(CRM, loyalty_program_status="gold"),
        "profile-protected-fields",
        ("CUS-00000006", "loyalty_program_status", "allowed: no change"),
    ),
    # --- eligibility --------------------------------------------------------------------------------
    "same-day change at a budget hotel": Wrong(
        "crf_010",
        _replace_modify("BKG-59255562", board_type="with_breakfast"),
        "modification-budget-same-day",
        (
            "BKG-59255562",
            "board_type changed 3 h before check-in",
            "budget hotel",
            "allowed: no modification",
        ),
    ),
    "mid-market change without manager approval": Wrong(
        "cbm_006",
        add(
            MODIFY,
            _modify(
                "BKG-29270653", check_in_date="2025-10-12T15:00:00Z", check_out_date="2025-10-15T11:00:00Z"
            ),
            before=UPDATE,
        ),
        "modification-manager-approval",
        ("BKG-29270653", "mid-market corporate booking worth 1250.00", "before a manager approves"),
    ),
    "same-day change without hotel confirmation": Wrong(
        "bmd_001",
        chain(
            drop(ESCALATE),
            add(MODIFY, _modify("BKG-10433218", check_in_date="2025-10-02T15:00:00Z"), before=UPDATE),
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
    "room changed to one that is not available": Wrong(
        "bmd_023",
        chain(
            add(MODIFY, _modify("BKG-12419049", room_type="deluxe_room"), before=UPDATE),
            change_item(CREATE, resolution_action="modification-completed"),
        ),
        "modification-availability",
        ("BKG-12419049", "deluxe_room", "HTL-84739201", "0 available", "allowed: a room and board free"),
    ),
    "large group changed without the hotel": Wrong(
        "gbm_012",
        chain(drop(ESCALATE), add(MODIFY, _modify("BKG-70001001", room_type="deluxe_room"), before=UPDATE)),
        "modification-hotel-confirmation",
        ("BKG-70001001", "group GRP-70348247 of 18 rooms", "before the hotel approves"),
    ),
    # --- money --------------------------------------------------------------------------------------
    "cancellation refund above the 50% window": Wrong(
        "crf_012",
        change(REFUND, refund_amount="137.50"),
        "booking-money-net",
        ("booking BKG-96325953", "refund TXN-00000008 137.50", "allowed: net -122.50"),
    ),
    "service fee not retained": Wrong(
        "crf_007",
        chain(change(REFUND, refund_amount="580.00"), change_item(UPDATE, -1, refund_amount=580.0)),
        "booking-money-net",
        ("booking BKG-81829922", "refund TXN-00000009 580.00", "allowed: net -565.00"),
    ),
    "cancellation refund missing": Wrong(
        "crf_007",
        drop(REFUND),
        "booking-money-net",
        ("booking BKG-81829922", "no charge or refund", "allowed: net -565.00"),
    ),
    "refund after the window closed": Wrong(
        "crf_001",
        add(
            REFUND, {"booking_reference": "BKG-42258313", "refund_amount": "525.00", "reason": "cancellation"}
        ),
        "booking-money-net",
        ("booking BKG-42258313", "refund TXN-00000008 525.00", "allowed: net 0.00"),
    ),
    "refund processed twice": Wrong(
        "crf_003",
        repeat(REFUND),
        "booking-money-net",
        ("booking BKG-83503056", "TXN-00000009 890.00", "allowed: net -890.00"),
    ),
    "modification fee not charged": Wrong(
        "bmd_008",
        drop(CHARGE),
        "booking-money-net",
        ("booking BKG-56482366", "no charge or refund", "allowed: net 65.00", "surcharge 15"),
    ),
    "second-modification surcharge forgotten": Wrong(
        "bmd_022",
        change(CHARGE, charge_amount="105.00"),
        "booking-money-net",
        ("booking BKG-30923271", "charge TXN-00000008 105.00", "allowed: net 120.00"),
    ),
    "platinum customer charged a fee": Wrong(
        "bmd_015",
        change(CHARGE, charge_amount="412.50"),
        "booking-money-net",
        ("booking BKG-47143455", "412.50", "allowed: net 400.00", "waived for a platinum customer"),
    ),
    "charge made twice": Wrong(
        "bmd_010",
        repeat(CHARGE),
        "booking-money-net",
        ("booking BKG-73872148", "TXN-00000009 680.00", "allowed: net 680.00"),
    ),
    "group fee without the hotel multiplier": Wrong(
        "gbm_003",
        change(CHARGE, charge_amount="325.00"),
        "booking-money-net",
        ("group GRP-79740344", "charge TXN-00000008 325.00", "allowed: net 387.50", "budget 1.5"),
    ),
    "early check-in fee doubled": Wrong(
        "bmd_014",
        change(CHARGE, charge_amount="50.00"),
        "booking-money-net",
        ("booking BKG-57986872", "50.00", "allowed: net 25.00", "early check-in"),
    ),
    "late checkout fee missing": Wrong(
        "cbm_010",
        drop(CHARGE),
        "booking-money-net",
        ("booking BKG-28986143", "no charge or refund", "allowed: net 30.00"),
    ),
    "downgrade refund not netted": Wrong(
        "bmd_020",
        change(REFUND, refund_amount="76.50"),
        "booking-money-net",
        ("booking BKG-20465375", "refund TXN-00000009 76.50", "allowed: net -85.00"),
    ),
    "charge on an unchanged booking": Wrong(
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
    "modification dropped, charge kept": Wrong(
        "bmd_010",
        drop(MODIFY),
        "booking-money-unexplained",
        ("TXN-00000008", "680.00 on BKG-73872148"),
    ),
    "billing correction without system-error": Wrong(
        "bpy_010",
        change_item(UPDATE, -1, escalation_reason=GONE),
        "booking-money-unexplained",
        ("booking BKG-10762268", "refund TXN-00000010 15.00", "escalation_reason None", "system-error"),
    ),
    "compensation of the whole stay": Wrong(
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
    "compensation above the late-complaint rate": Wrong(
        "psc_004",
        chain(change(REFUND, refund_amount="155.00"), change_item(UPDATE, -1, refund_amount=155.0)),
        "booking-compensation",
        ("booking BKG-99809402", "compensation 155.00", "allowed: 77.50"),
    ),
    "complaint count not raised": Wrong(
        "psc_009",
        drop(CRM),
        "booking-compensation",
        ("CUS-00000006", "complaint_count 1 left unchanged", "allowed: complaint_count 2"),
    ),
    "refund above the booking value": Wrong(
        "psc_010",
        chain(change(REFUND, refund_amount="250.00"), change_item(UPDATE, -1, refund_amount=250.0)),
        "booking-refund-cap",
        ("booking BKG-89638346", "refunds 250.00 exceed its booking_value 195.00", "allowed: at most 195.00"),
    ),
    "group special request at a budget hotel without the hotel": Wrong(
        "gbm_003",
        add(
            MODIFY, _modify("BKG-00010002", special_requests=["Connecting rooms for the team"]), before=CHARGE
        ),
        "modification-hotel-confirmation",
        ("BKG-00010002", "special request added 49 h before check-in", "GRP-79740344", "budget hotel"),
    ),
    # --- the ticket documents the work (judges/tickets.py) -----------------------------------------
    "compensation with no ticket": Wrong(
        "psc_007",
        drop(UPDATE, -1),
        "ticket-documents-action",
        ("refund TXN-00000009", "BKG-91022901", "tickets touched: none"),
    ),
    "refund recorded on another booking's ticket": Wrong(
        "crf_021",
        change_item(UPDATE, -1, booking_reference="BKG-23091308", hotel_id=GONE),
        "ticket-documents-action",
        ("refund TXN-00000009", "BKG-23091307", "tickets touched: 13"),
    ),
    "ticket refund_amount not the refund": Wrong(
        "crf_014",
        change_item(UPDATE, -1, refund_amount=185.0),
        "ticket-refund-amount",
        ("ticket 13", "refund_amount 185.0", "TXN-00000008 170.00", "allowed: 170.00"),
    ),
    "ticket records a refund never made": Wrong(
        "crf_001",
        change_item(UPDATE, -1, refund_amount=540.0, resolution_action="refund-full"),
        "ticket-refund-amount",
        ("ticket 13", "refund_amount 540.0", "no refund of that amount", "allowed: 0"),
    ),
    "cancellation filed as a date change": Wrong(
        "crf_010",
        change_item(UPDATE, -1, request_type_detail="modify-dates"),
        "ticket-outcome",
        (
            "ticket 13",
            "request_type_detail 'modify-dates'",
            "cancellation of BKG-59255562",
            "allowed: cancel-booking",
        ),
    ),
    "partial refund resolved refund-full": Wrong(
        "crf_012",
        change_item(UPDATE, -1, resolution_action="refund-full"),
        "ticket-outcome",
        ("ticket 13", "resolution_action 'refund-full'", "allowed: refund-partial"),
    ),
    "modification resolved as information": Wrong(
        "bmd_010",
        change_item(UPDATE, -1, resolution_action="information-provided"),
        "ticket-outcome",
        ("ticket 13", "resolution_action 'information-provided'", "allowed: modification-completed"),
    ),
    "denied request resolved as completed": Wrong(
        "bmd_023",
        change_item(CREATE, resolution_action="modification-completed"),
        "ticket-outcome",
        ("ticket 13", "'modification-completed' while this commit changed no booking", "BKG-12419049"),
    ),
    "dispute resolved as a refund": Wrong(
        "bpy_007",
        _dispute_instead_of_refund("refund-partial"),
        "ticket-outcome",
        (
            "ticket 14",
            "resolution_action 'refund-partial' after the dispute DSP-",
            "allowed: information-provided",
        ),
    ),
    "booking changed on a hotel's word": Wrong(
        "hdr_001",
        add(MODIFY, _modify("BKG-74074821", check_in_date="2025-10-08T15:00:00Z"), before=UPDATE),
        "ticket-hotel-partner-correction",
        (
            "ticket 13",
            "check_in_date change of BKG-74074821",
            "hotel partner",
            "escalation_reason system-error",
        ),
    ),
    "escalated but solved": Wrong(
        "psc_016",
        change_item(UPDATE, -1, status="solved", resolution_action="information-provided"),
        "ticket-escalation",
        (
            "ticket 13",
            "status 'solved'",
            "ZDSK-00000001",
            "allowed: status hold, escalation_reason guest-complaint",
        ),
    ),
    "escalation reason differs from the escalation": Wrong(
        "gbi_001",
        change_item(UPDATE, -1, escalation_reason="same-day-modification"),
        "ticket-escalation",
        (
            "ticket 13",
            "escalation_reason same-day-modification",
            "allowed: status hold",
            "hotel-confirmation-required",
        ),
    ),
    "escalation reason without an escalation": Wrong(
        "gbm_017",
        drop(ESCALATE),
        "ticket-escalation",
        (
            "ticket 13",
            "escalation_reason 'hotel-confirmation-required'",
            "no hotel escalation for BKG-00055001",
        ),
    ),
    "hotel escalated twice": Wrong(
        "gbm_012",
        repeat(ESCALATE),
        "ticket-escalation",
        ("hotel escalation ZDSK-00000002 repeats ZDSK-00000001", "BKG-70001001"),
    ),
    # --- ticket fields that follow the booking and the clock (judges/fields.py) --------------------
    "tomorrow's cancellation at normal priority": Wrong(
        "crf_003",
        change_item(CREATE, priority="normal"),
        "ticket-priority",
        ("ticket 13", "priority 'normal'", "25 h away", "allowed: high"),
    ),
    "next week's change at urgent priority": Wrong(
        "bmd_010",
        change_item(CREATE, priority="urgent"),
        "ticket-priority",
        ("ticket 13", "priority 'urgent'", "allowed: normal"),
    ),
    "same-day cancellation at high priority": Wrong(
        "crf_005",
        change_item(CREATE, priority="high"),
        "ticket-priority",
        ("ticket 13", "priority 'high'", "allowed: urgent"),
    ),
    "hotel partner question at normal priority": Wrong(
        "hdr_001",
        change_item(CREATE, priority="normal"),
        "ticket-priority",
        ("ticket 13", "priority 'normal'", "hotel partner", "allowed: low"),
    ),
    "post-stay complaint at high priority": Wrong(
        "psc_008",
        change_item(CREATE, priority="high"),
        "ticket-priority",
        ("ticket 13", "priority 'high'", "checked_out", "allowed: normal"),
    ),
    "check-in tag one day off": Wrong(
        "crf_011",
        change_item(UPDATE, -1, tags=["b2c-customer", "check-in-upcoming"]),
        "ticket-check-in-tag",
        ("ticket TCK-47321046", '["check-in-upcoming"]', "BKG-58815371", "allowed: check-in-24h"),
    ),
    "check-in tag missing": Wrong(
        "bmd_010",
        change_item(CREATE, tags=["b2c-customer", "vip-customer"]),
        "ticket-check-in-tag",
        ("ticket 13", "check-in tags []", "allowed: check-in-upcoming"),
    ),
    "check-in tag on a past stay": Wrong(
        "psc_003",
        change_item(CREATE, tags=["b2c-customer", "check-in-upcoming"]),
        "ticket-check-in-tag",
        ("ticket 13", "BKG-85149368 is 'checked_out'", "allowed: no check-in tag"),
    ),
    "ticket keeps the old check-in date": Wrong(
        "bmd_017",
        change_item(UPDATE, -1, check_in_date="2025-10-15T14:00:00Z"),
        "ticket-check-in-date",
        ("ticket 14", "check_in_date 2025-10-15T14:00:00Z", "allowed: 2025-10-20T14:00:00Z"),
    ),
    "held special request names another check-in": Wrong(
        "gsr_004",
        change_item(UPDATE, -1, check_in_date="2025-10-11T15:00:00Z"),
        "ticket-check-in-date",
        ("ticket TCK-69222196", "check_in_date 2025-10-11T15:00:00Z", "allowed: 2025-10-12T15:00:00Z"),
    ),
    "booking moved a day too far": Wrong(
        "bmd_017",
        change(MODIFY, check_in_date="2025-10-21T14:00:00Z", check_out_date="2025-10-25T11:00:00Z"),
        "ticket-check-in-date",
        ("ticket 14", "check_in_date 2025-10-20T14:00:00Z", "BKG-36690967 checks in 2025-10-21T14:00:00Z"),
    ),
}

ALLOWED: dict[str, Wrong] = {
    "system error: the whole value refunded on cancellation": Wrong(
        "crf_007",
        chain(
            change(REFUND, refund_amount="580.00"),
            change_item(UPDATE, -1, refund_amount=580.0, escalation_reason="system-error"),
        ),
        "",
        why="4.2.3 System Error Exception: 100% of booking_value, service fee waived",
    ),
    "refund failed: cancellation kept, refund held as owed": Wrong(
        "crf_007",
        chain(
            drop(REFUND),
            change_item(
                UPDATE,
                -1,
                status="hold",
                refund_amount=0.0,
                resolution_action=GONE,
                escalation_reason="system-error",
            ),
        ),
        "",
        why="4.2.4: do not reverse the cancellation; hold with system-error",
    ),
    "fee and price difference charged apart": Wrong(
        "cbm_005",
        chain(
            change(CHARGE, charge_amount="160.00", reason="price_difference"),
            add(
                CHARGE,
                {"booking_reference": "BKG-22141888", "charge_amount": "12.50", "reason": "fee"},
                before=UPDATE,
            ),
        ),
        "",
        why="4.1.6 charges the difference and the fee, together or apart",
    ),
    "dispute opened for a contested charge": Wrong(
        "bpy_007",
        _dispute_instead_of_refund("information-provided"),
        "",
        why="4.3.2: a dispute case, billing-inquiry, information-provided, solved",
    ),
}

WARNED: dict[str, Wrong] = {
    "ticket created on hold": Wrong(
        "psc_001",
        change_item(CREATE, status="hold"),
        "ticket-created-open",
        ("a ticket was created with status 'hold'", "allowed: open at creation"),
        why="creation cannot be redone inside the transaction; the ticket's final status is right",
    ),
    "second ticket for the same request": Wrong(
        "hpv_001",
        add(
            CREATE,
            {
                "table": "tickets",
                "item": {
                    "subject": "Booking verification - BKG-50643171",
                    "description": "Verification request from the hotel front desk.",
                    "status": "pending",
                    "priority": "low",
                    "type": "question",
                    "requester_id": "USR-10000007",
                    "assignee_id": "AG-83945",
                    "tags": ["hotel-partner"],
                    "booking_reference": "BKG-50643171",
                    "hotel_id": "HTL-37735158",
                    "booking_value": 675.0,
                    "request_type_detail": "other",
                },
            },
        ),
        "ticket-duplicate-open",
        ("ticket 13", "created for other on BKG-50643171", '["14"]', "allowed: the existing ticket"),
        why="two tickets for one request; which one to keep is for the agent (or a person) to say",
    ),
    "ticket on hold with an outcome": Wrong(
        "cbm_006",
        change_item(UPDATE, -1, resolution_action="policy-applied-no-action"),
        "ticket-hold-unresolved",
        (
            "ticket 14",
            "status 'hold' with resolution_action 'policy-applied-no-action'",
            "until the ticket is solved",
        ),
        why="the policy names no outcome for a waiting ticket, but the goldens leave it empty",
    ),
}

MISSED: dict[str, Wrong] = {
    "escalation with the wrong, consistent reason": Wrong(
        "bmd_001",
        chain(
            change(ESCALATE, issue_type="hotel-confirmation-required"),
            change_item(UPDATE, -1, escalation_reason="hotel-confirmation-required"),
        ),
        "",
        why=(
            "the ticket and the escalation agree; which reason fits (same-day change or hotel confirmation) "
            "depends on why the hotel is asked, which only the conversation shows"
        ),
    ),
    "compensation at the minor-issue rate for a service complaint": Wrong(
        "psc_001",
        chain(change(REFUND, refund_amount="105.00"), change_item(UPDATE, -1, refund_amount=105.0)),
        "",
        why=(
            "25% is the table's rate for a minor room-condition issue, 50% for poor service; the category "
            "and severity are in the customer's words, not in any record"
        ),
    ),
    "receipt request at normal priority": Wrong(
        "bpy_008",
        change_item(CREATE, priority="normal"),
        "",
        why=(
            "a question about a stay more than two days out is low (invoice, verification) or normal (a "
            "policy question about the booking); the ticket does not say which kind of question it is"
        ),
    ),
    "receipt request filed as other": Wrong(
        "bpy_008",
        change_item(CREATE, request_type_detail="other"),
        "",
        why="an information request changes nothing, so no record shows which category it was",
    ),
}
