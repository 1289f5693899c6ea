"""Wrong booking trajectories, and what the gate says about each.

:data:`WRONG` must be blocked by the named rule (:mod:`.cases_tickets`,
:mod:`.cases_bookings`, :mod:`.cases_money`; each a blocked :class:`~tests.benchmark.wrong_cases.WrongCase`).
:data:`ALLOWED` are other correct ways to do a task than its golden one, which
must commit too. :data:`WARNED` are mistakes the gate reports without blocking;
:data:`MISSED` are real mistakes the gate cannot see, each with the reason.
Both are replayed too, to keep the counts honest.
"""

from __future__ import annotations

from tests.benchmark.booking_rules.case import dispute_instead_of_refund
from tests.benchmark.booking_rules.cases_bookings import BOOKING_CASES
from tests.benchmark.booking_rules.cases_money import MONEY_CASES
from tests.benchmark.booking_rules.cases_tickets import TICKET_CASES
from tests.benchmark.booking_rules.conftest import (
    BOOKING,
    CHARGE,
    CREATE,
    ESCALATE,
    GONE,
    REFUND,
    UPDATE,
    add,
    chain,
    change,
    change_item,
    drop,
)
from tests.benchmark.wrong_cases import (
    Catalogue,
    WrongCase,
    WrongDomain,
    allowed,
    by_name,
    missed,
    warned,
)

__all__ = ["CASES", "WRONG_DOMAIN"]

WRONG: dict[str, WrongCase] = by_name(TICKET_CASES, BOOKING_CASES, MONEY_CASES)

ALLOWED: dict[str, WrongCase] = {
    "system error: the whole value refunded on cancellation": allowed(
        "crf_007",
        chain(
            change(REFUND, refund_amount="580.00"),
            change_item(UPDATE, -1, refund_amount=580.0, escalation_reason="system-error"),
        ),
        "",
        why="4.2.3 System Error Exception: 100% of booking_value, service fee waived",
    ),
    "refund failed: cancellation kept, refund held as owed": allowed(
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
    "fee and price difference charged apart": allowed(
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
    "dispute opened for a contested charge": allowed(
        "bpy_007",
        dispute_instead_of_refund("information-provided"),
        "",
        why="4.3.2: a dispute case, billing-inquiry, information-provided, solved",
    ),
}

WARNED: dict[str, WrongCase] = {
    "ticket created on hold": warned(
        "psc_001",
        change_item(CREATE, status="hold"),
        "ticket-created-open",
        ("a ticket was created with status 'hold'", "allowed: open at creation"),
        why="creation cannot be redone inside the transaction; the ticket's final status is right",
    ),
    "second ticket for the same request": warned(
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
    "ticket on hold with an outcome": warned(
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

MISSED: dict[str, WrongCase] = {
    "escalation with the wrong, consistent reason": missed(
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
    "compensation at the minor-issue rate for a service complaint": missed(
        "psc_001",
        chain(change(REFUND, refund_amount="105.00"), change_item(UPDATE, -1, refund_amount=105.0)),
        "",
        why=(
            "25% is the table's rate for a minor room-condition issue, 50% for poor service; the category "
            "and severity are in the customer's words, not in any record"
        ),
    ),
    "receipt request at normal priority": missed(
        "bpy_008",
        change_item(CREATE, priority="normal"),
        "",
        why=(
            "a question about a stay more than two days out is low (invoice, verification) or normal (a "
            "policy question about the booking); the ticket does not say which kind of question it is"
        ),
    ),
    "receipt request filed as other": missed(
        "bpy_008",
        change_item(CREATE, request_type_detail="other"),
        "",
        why="an information request changes nothing, so no record shows which category it was",
    ),
}

CASES = by_name(WRONG, ALLOWED, WARNED, MISSED)

WRONG_DOMAIN = WrongDomain(
    name="booking",
    domain=BOOKING,
    cases=CASES,
    catalogue=Catalogue(
        blocked=60,
        families=frozenset({"ticket", "booking", "modification", "refund", "complaint", "profile", "group"}),
    ),
)
