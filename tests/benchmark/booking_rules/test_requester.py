"""Who requests a ticket about a booking, on hand-made commits in memory, read in rounds.

A ticket alone (nothing else changed) names its booking; the booking's
customer, group and hotel are read in a second round, keyed by the booking
row the first round found.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from benchmark.domains.booking.judges import TicketOutcomeJudge
from judges import CommitContext, Effect, EffectKind, MemoryState, diff_fields, gather_memory

NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)

Row = dict[str, Any]

_TABLES: dict[str, list[Row]] = {
    "zendesk_users": [
        {"id": "USR-1", "email": "Ann@Example.com"},
        {"id": "USR-2", "email": "coordinator@example.com"},
        {"id": "USR-3", "email": "frontdesk@hotel.example"},
        {"id": "USR-4", "email": "someone@example.com"},
    ],
    "bookings": [
        {
            "booking_reference": "BKG-1",
            "customer_id": "CUS-1",
            "hotel_id": "HTL-1",
            "group_booking_id": "GRP-1",
        },
    ],
    "customer_profiles": [{"customer_id": "CUS-1", "email": "ann@example.com"}],
    "group_bookings": [{"group_booking_id": "GRP-1", "coordinator_email": "Coordinator@example.com"}],
    "hotels": [{"hotel_id": "HTL-1", "contact_email": "frontdesk@hotel.example", "escalation_contact": None}],
}


def _ticket(requester: str, *tags: str) -> Effect:
    row = {
        "id": "13",
        "requester_id": requester,
        "booking_reference": "BKG-1",
        "status": "solved",
        "tags": list(tags),
        "request_type_detail": "general-inquiry",
        "resolution_action": "information-provided",
        "type": "question",
    }
    return Effect("zendesk_tickets", ("13",), EffectKind.INSERT, None, row, diff_fields(None, row))


def _requester_findings(effect: Effect) -> list[str]:
    judge = TicketOutcomeJudge()
    gathered = gather_memory([judge], (effect,), MemoryState(_TABLES))
    assert gathered.failures == {}
    assert gathered.rounds == 2
    verdict = judge(CommitContext("t", (effect,), (), "", gathered.snapshot, NOW))
    return [f.message for f in verdict.findings if f.rule == "ticket-requester"]


@pytest.mark.parametrize("requester", ["USR-1", "USR-2"])
def test_the_customer_or_the_group_coordinator_requests_a_ticket_alone(requester: str) -> None:
    assert _requester_findings(_ticket(requester, "b2c-customer")) == []


def test_another_user_is_not_the_requester_of_a_ticket_alone() -> None:
    assert _requester_findings(_ticket("USR-4", "b2c-customer")) == [
        "ticket 13: requester_id 'USR-4' is someone@example.com, not the customer of BKG-1"
    ]


def test_a_hotel_partners_ticket_is_requested_by_the_hotels_contact() -> None:
    assert _requester_findings(_ticket("USR-3", "hotel-partner")) == []
    assert _requester_findings(_ticket("USR-1", "hotel-partner")) == [
        "ticket 13: requester_id 'USR-1' is ann@example.com, not the contact of hotel HTL-1 of BKG-1"
    ]
