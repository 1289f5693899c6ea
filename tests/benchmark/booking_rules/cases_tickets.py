"""Wrong booking trajectories about tickets: lifecycle, required fields, requester, tags and type;
the work the ticket documents (refund, outcome, escalation); priority, check-in tags and dates."""

from __future__ import annotations

from tests.benchmark.booking_rules.case import dispute_instead_of_refund, modify_args
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
    repeat,
    stop_before,
)
from tests.benchmark.wrong_cases import WrongCase, blocked

__all__ = ["TICKET_CASES"]

TICKET_CASES: dict[str, WrongCase] = {
    # --- ticket lifecycle and fields (rules.yaml) ---------------------------------------------------
    "ticket left open": blocked(
        "crf_003",
        change_item(UPDATE, -1, status="open"),
        "ticket-status-at-resolution",
        ("ticket 13", "status 'open'", "allowed: pending, hold, solved"),
    ),
    "ticket closed by the agent": blocked(
        "bmd_010",
        change_item(UPDATE, -1, status="closed"),
        "ticket-status-at-resolution",
        ("ticket 13", "status 'closed'", "allowed: pending, hold, solved"),
    ),
    "final ticket update missing": blocked(
        "crf_015",
        drop(UPDATE, -1),
        "ticket-status-at-resolution",
        ("ticket 14", "status 'open'"),
    ),
    "ticket created twice": blocked(
        "bmd_021",
        repeat(CREATE),
        "ticket-status-at-resolution",
        ("ticket 15", "status 'open'"),
    ),
    "ticket deleted": blocked(
        "crf_011",
        add("zendesk_delete_item", {"table": "tickets", "id": "TCK-47321046"}),
        "ticket-not-deleted",
        ("ticket TCK-47321046 deleted", "allowed: keep the ticket"),
    ),
    "comment added to a ticket": blocked(
        "bmd_010",
        add(
            CREATE,
            {"table": "comments", "item": {"ticket_id": "13", "author_id": "AG-83945", "body": "Charged"}},
        ),
        "ticket-no-comments",
        ("added to a ticket", "allowed: no comments"),
    ),
    "agent stops before writing anything": blocked(
        "bmd_015",
        stop_before(CREATE),
        "ticket-every-request",
        (
            "no ticket was created or updated in this commit",
            "allowed: every request creates (zendesk_create_item)",
        ),
    ),
    "agent stops after the cancellation": blocked(
        "crf_010",
        chain(drop(CREATE), drop(UPDATE, -1)),
        "ticket-every-request",
        ("no ticket was created or updated", "bookings BKG-00000006"),
    ),
    "ticket assigned to someone else": blocked(
        "bmd_014",
        change_item(CREATE, assignee_id="AG-83946"),
        "ticket-assignee",
        ("ticket 14", "assignee_id 'AG-83946'", "allowed: AG-83945"),
    ),
    "organization set on a ticket": blocked(
        "bmd_015",
        change_item(CREATE, organization_id="ORG-10000002"),
        "ticket-no-organization",
        ("ticket 13", "organization_id 'ORG-10000002'", "allowed: no organization_id"),
    ),
    "due date set on a ticket": blocked(
        "crf_007",
        change_item(UPDATE, -1, due_at="2025-10-03T14:00:00Z"),
        "ticket-no-due-date",
        ("ticket 14", "due_at '2025-10-03T14:00:00Z'", "allowed: no due_at"),
    ),
    "requester is no Zendesk user": blocked(
        "bmd_017",
        change_item(CREATE, requester_id="CUS-36690967"),
        "ticket-requester-known",
        ("ticket 14", "requester_id 'CUS-36690967'", "no Zendesk user"),
    ),
    "ticket without priority": blocked(
        "crf_014",
        change_item(CREATE, priority=GONE),
        "ticket-fields-at-resolution",
        ("ticket 13", "priority null", "allowed: priority set"),
    ),
    "reopened ticket keeps type problem": blocked(
        "psc_011",
        change_item(UPDATE, -1, type=GONE),
        "ticket-fields-at-resolution",
        ("ticket TCK-50983930", "type problem", "type question, incident or task"),
    ),
    "solved without resolution_action": blocked(
        "crf_005",
        change_item(UPDATE, -1, resolution_action=GONE),
        "ticket-fields-at-resolution",
        ("ticket 13", "resolution_action null", "resolution_action set"),
    ),
    "solved without request_type_detail": blocked(
        "bmd_021",
        change_item(UPDATE, -1, request_type_detail=GONE),
        "ticket-fields-at-resolution",
        ("ticket 14", "request_type_detail null", "request_type_detail set"),
    ),
    "cancellation ticket without check-in date": blocked(
        "crf_008",
        change_item(UPDATE, -1, check_in_date=GONE),
        "ticket-booking-fields",
        ("ticket 13", "cancel-booking", "check_in_date null", "and check_in_date"),
    ),
    "refund recorded without booking value": blocked(
        "bpy_007",
        change_item(UPDATE, -1, booking_value=GONE),
        "ticket-refund-documented",
        ("ticket 14", "refund_amount 65", "booking_value null", "booking_value set"),
    ),
    "cancellation filed as a question": blocked(
        "crf_015",
        change_item(CREATE, type="question"),
        "ticket-type-for-action",
        ("ticket 14", "type 'question'", "cancel-booking", "allowed: task"),
    ),
    "payment failure filed as a task": blocked(
        "bpy_003",
        change_item(CREATE, type="task"),
        "ticket-outcome",
        ("ticket 13", "type 'task' resolved 'information-provided'", "allowed: incident", "question"),
    ),
    "ticket names an unknown hotel": blocked(
        "hpv_005",
        change_item(CREATE, hotel_id="HTL-11592123"),
        "ticket-hotel-known",
        ("ticket 13", "hotel_id 'HTL-11592123' is no partner hotel"),
    ),
    "ticket requested by another user": blocked(
        "psc_005",
        change_item(CREATE, requester_id="USR-10000006"),
        "ticket-requester",
        ("ticket 13", "requester_id 'USR-10000006'", "BKG-61201836", "allowed: the Zendesk user with email"),
    ),
    "receipt request filed by another user": blocked(
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
    "hotel partner's report filed for a traveller": blocked(
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
    "question resolved as a modification": blocked(
        "hpv_001",
        change_item(UPDATE, -1, resolution_action="modification-completed"),
        "ticket-question-informational",
        ("ticket 13", "type 'question' resolved 'modification-completed'", "information-provided"),
    ),
    "escalated-hotel without a reason": blocked(
        "hdr_007",
        change_item(UPDATE, -1, resolution_action="escalated-hotel", status="hold"),
        "ticket-escalated-hotel-reason",
        ("ticket 13", "'escalated-hotel' without an escalation_reason"),
    ),
    "old tags kept on a reopened ticket": blocked(
        "bmd_019",
        change_item(UPDATE, -1, tags=["b2c-customer", "check-in-upcoming", "special-request"]),
        "ticket-tags-known",
        ("ticket TCK-69901627", '["special-request"]', "allowed: b2c-customer"),
    ),
    "two user types": blocked(
        "crf_003",
        change_item(UPDATE, -1, tags=["b2c-customer", "corporate-account", "check-in-upcoming"]),
        "ticket-one-user-type",
        ("ticket 13", "corporate-account", "exactly one of b2c-customer"),
    ),
    "corporate booking tagged b2c": blocked(
        "cbm_005",
        change_item(UPDATE, -1, tags=["b2c-customer", "check-in-upcoming"]),
        "ticket-user-type-matches-booking",
        ("ticket 13", "BKG-22141888", "corporate_account_id CRP-54235733", "allowed: corporate-account"),
    ),
    "ticket names another hotel": blocked(
        "bmd_022",
        change_item(UPDATE, -1, hotel_id="HTL-74829317"),
        "ticket-hotel-matches-booking",
        ("ticket TCK-93745299", "hotel_id 'HTL-74829317'", "allowed: HTL-74829316"),
    ),
    "corporate booking ticket without its account": blocked(
        "ccn_005",
        change_item(UPDATE, -1, corporate_account_id=GONE),
        "ticket-account-matches-booking",
        ("ticket 13", "corporate_account_id null", "allowed: corporate_account_id CRP-11544796"),
    ),
    "group ticket names another group": blocked(
        "gbm_001",
        change_item(UPDATE, -1, group_booking_id="GRP-58441987"),
        "ticket-account-matches-booking",
        ("ticket 13", "group_booking_id GRP-58441987", "allowed:", "group_booking_id GRP-58441986"),
    ),
    "ticket booking value off by 10%": blocked(
        "crf_007",
        change_item(CREATE, booking_value=638.0),
        "ticket-booking-value-matches",
        ("ticket 14", "booking_value 638", "allowed: 580.00"),
    ),
    "group ticket value off by 10%": blocked(
        "gbm_006",
        change_item(UPDATE, -1, booking_value=5940.0),
        "ticket-group-value",
        ("ticket TCK-06594013", "booking_value 5940.00", "GRP-64887719", "allowed:"),
    ),
    # --- the ticket documents the work (judges/tickets.py) -----------------------------------------
    "compensation with no ticket": blocked(
        "psc_007",
        drop(UPDATE, -1),
        "ticket-documents-action",
        ("refund TXN-00000009", "BKG-91022901", "tickets touched: none"),
    ),
    "refund recorded on another booking's ticket": blocked(
        "crf_021",
        change_item(UPDATE, -1, booking_reference="BKG-23091308", hotel_id=GONE),
        "ticket-documents-action",
        ("refund TXN-00000009", "BKG-23091307", "tickets touched: 13"),
    ),
    "ticket refund_amount not the refund": blocked(
        "crf_014",
        change_item(UPDATE, -1, refund_amount=185.0),
        "ticket-refund-amount",
        ("ticket 13", "refund_amount 185.0", "TXN-00000008 170.00", "allowed: 170.00"),
    ),
    "ticket records a refund never made": blocked(
        "crf_001",
        change_item(UPDATE, -1, refund_amount=540.0, resolution_action="refund-full"),
        "ticket-refund-amount",
        ("ticket 13", "refund_amount 540.0", "no refund of that amount", "allowed: 0"),
    ),
    "cancellation filed as a date change": blocked(
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
    "partial refund resolved refund-full": blocked(
        "crf_012",
        change_item(UPDATE, -1, resolution_action="refund-full"),
        "ticket-outcome",
        ("ticket 13", "resolution_action 'refund-full'", "allowed: refund-partial"),
    ),
    "modification resolved as information": blocked(
        "bmd_010",
        change_item(UPDATE, -1, resolution_action="information-provided"),
        "ticket-outcome",
        ("ticket 13", "resolution_action 'information-provided'", "allowed: modification-completed"),
    ),
    "denied request resolved as completed": blocked(
        "bmd_023",
        change_item(CREATE, resolution_action="modification-completed"),
        "ticket-outcome",
        ("ticket 13", "'modification-completed' while this commit changed no booking", "BKG-12419049"),
    ),
    "dispute resolved as a refund": blocked(
        "bpy_007",
        dispute_instead_of_refund("refund-partial"),
        "ticket-outcome",
        (
            "ticket 14",
            "resolution_action 'refund-partial' after the dispute DSP-",
            "allowed: information-provided",
        ),
    ),
    "booking changed on a hotel's word": blocked(
        "hdr_001",
        add(MODIFY, modify_args("BKG-74074821", check_in_date="2025-10-08T15:00:00Z"), before=UPDATE),
        "ticket-hotel-partner-correction",
        (
            "ticket 13",
            "check_in_date change of BKG-74074821",
            "hotel partner",
            "escalation_reason system-error",
        ),
    ),
    "escalated but solved": blocked(
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
    "escalation reason differs from the escalation": blocked(
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
    "escalation reason without an escalation": blocked(
        "gbm_017",
        drop(ESCALATE),
        "ticket-escalation",
        (
            "ticket 13",
            "escalation_reason 'hotel-confirmation-required'",
            "no hotel escalation for BKG-00055001",
        ),
    ),
    "hotel escalated twice": blocked(
        "gbm_012",
        repeat(ESCALATE),
        "ticket-escalation",
        ("hotel escalation ZDSK-00000002 repeats ZDSK-00000001", "BKG-70001001"),
    ),
    # --- ticket fields that follow the booking and the clock (judges/fields.py) --------------------
    "tomorrow's cancellation at normal priority": blocked(
        "crf_003",
        change_item(CREATE, priority="normal"),
        "ticket-priority",
        ("ticket 13", "priority 'normal'", "25 h away", "allowed: high"),
    ),
    "next week's change at urgent priority": blocked(
        "bmd_010",
        change_item(CREATE, priority="urgent"),
        "ticket-priority",
        ("ticket 13", "priority 'urgent'", "allowed: normal"),
    ),
    "same-day cancellation at high priority": blocked(
        "crf_005",
        change_item(CREATE, priority="high"),
        "ticket-priority",
        ("ticket 13", "priority 'high'", "allowed: urgent"),
    ),
    "hotel partner question at normal priority": blocked(
        "hdr_001",
        change_item(CREATE, priority="normal"),
        "ticket-priority",
        ("ticket 13", "priority 'normal'", "hotel partner", "allowed: low"),
    ),
    "post-stay complaint at high priority": blocked(
        "psc_008",
        change_item(CREATE, priority="high"),
        "ticket-priority",
        ("ticket 13", "priority 'high'", "checked_out", "allowed: normal"),
    ),
    "check-in tag one day off": blocked(
        "crf_011",
        change_item(UPDATE, -1, tags=["b2c-customer", "check-in-upcoming"]),
        "ticket-check-in-tag",
        ("ticket TCK-47321046", '["check-in-upcoming"]', "BKG-58815371", "allowed: check-in-24h"),
    ),
    "check-in tag missing": blocked(
        "bmd_010",
        change_item(CREATE, tags=["b2c-customer", "vip-customer"]),
        "ticket-check-in-tag",
        ("ticket 13", "check-in tags []", "allowed: check-in-upcoming"),
    ),
    "check-in tag on a past stay": blocked(
        "psc_003",
        change_item(CREATE, tags=["b2c-customer", "check-in-upcoming"]),
        "ticket-check-in-tag",
        ("ticket 13", "BKG-85149368 is 'checked_out'", "allowed: no check-in tag"),
    ),
    "ticket keeps the old check-in date": blocked(
        "bmd_017",
        change_item(UPDATE, -1, check_in_date="2025-10-15T14:00:00Z"),
        "ticket-check-in-date",
        ("ticket 14", "check_in_date 2025-10-15T14:00:00Z", "allowed: 2025-10-20T14:00:00Z"),
    ),
    "held special request names another check-in": blocked(
        "gsr_004",
        change_item(UPDATE, -1, check_in_date="2025-10-11T15:00:00Z"),
        "ticket-check-in-date",
        ("ticket TCK-69222196", "check_in_date 2025-10-11T15:00:00Z", "allowed: 2025-10-12T15:00:00Z"),
    ),
    "booking moved a day too far": blocked(
        "bmd_017",
        change(MODIFY, check_in_date="2025-10-21T14:00:00Z", check_out_date="2025-10-25T11:00:00Z"),
        "ticket-check-in-date",
        ("ticket 14", "check_in_date 2025-10-20T14:00:00Z", "BKG-36690967 checks in 2025-10-21T14:00:00Z"),
    ),
}
