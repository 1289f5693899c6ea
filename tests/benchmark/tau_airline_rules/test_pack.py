"""The airline's rule pack and booking judge on hand-made changes: the clauses its tools refuse by themselves.

A payment total that does not add up, a method not in the profile, a changed
passenger count and insurance added after booking never reach a commit
through tau-bench's tools (they refuse the call); the gate still stops them
for any other way of writing the rows (Requirement G1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from benchmark.domains.tau_airline import SPEC
from benchmark.domains.tau_airline.common import SCENARIO_NOW
from benchmark.domains.tau_airline.judges import BookingJudge
from judges import CommitContext, Effect, EffectKind, Judge, MemoryState, diff_fields, gather_memory

Row = dict[str, Any]

USER: Row = {
    "user_id": "u1",
    "membership": "regular",
    "payment_methods": {"credit_card_1": {"source": "credit_card", "id": "credit_card_1"}},
}
FLIGHT: Row = {
    "flight_number": "HAT001",
    "dates": {
        "2024-05-20": {
            "status": "available",
            "prices": {"basic_economy": 50, "economy": 100, "business": 400},
        }
    },
}
BOOKED: Row = {
    "reservation_id": "R1",
    "user_id": "u1",
    "cabin": "economy",
    "flights": [{"flight_number": "HAT001", "date": "2024-05-20", "price": 100}],
    "passengers": [{"first_name": "A", "last_name": "B", "dob": "1990-01-01"}],
    "payment_history": [{"payment_id": "credit_card_1", "amount": 100}],
    "created_at": "2024-05-01T10:00:00",
    "total_baggages": 1,
    "nonfree_baggages": 0,
    "insurance": "no",
    "status": None,
}


def _findings(effects: Sequence[Effect]) -> list[str]:
    state = MemoryState({"users": [USER], "flights": [FLIGHT], "reservations": [BOOKED]})
    chain: list[Judge] = [SPEC.rule_pack(), BookingJudge()]
    gathered = gather_memory(chain, tuple(effects), state)
    assert gathered.failures == {}
    context = CommitContext("t", tuple(effects), (), "", gathered.snapshot, SCENARIO_NOW)
    return [str(f.rule) for judge in chain for f in judge(context).findings]


def _insert(**changes: Any) -> Effect:
    row = {**BOOKED, **changes}
    return Effect("reservations", ("R1",), EffectKind.INSERT, None, row, diff_fields(None, row))


def _update(before: Row = BOOKED, **changes: Any) -> Effect:
    after = {**before, **changes}
    return Effect("reservations", ("R1",), EffectKind.UPDATE, before, after, diff_fields(before, after))


def test_a_booking_that_adds_up_from_the_profile_passes() -> None:
    assert _findings([_insert()]) == []


@pytest.mark.parametrize(
    ("effect", "rule"),
    [
        (_insert(payment_history=[{"payment_id": "credit_card_1", "amount": 90}]), "booking-payments-add-up"),
        (
            _insert(payment_history=[{"payment_id": "gift_card_9", "amount": 100}]),
            "payment-method-in-profile",
        ),
        (_update(passengers=[*BOOKED["passengers"], *BOOKED["passengers"]]), "passengers-count-unchanged"),
        (_update(insurance="yes"), "insurance-not-added"),
        (
            _update(
                payment_history=[*BOOKED["payment_history"], {"payment_id": "certificate_1", "amount": 5}]
            ),
            "payment-change-method",
        ),
    ],
    ids=[
        "payments short",
        "method not in profile",
        "passenger added",
        "insurance added",
        "change by certificate",
    ],
)
def test_a_change_the_tools_refuse_is_stopped_by_its_clause(effect: Effect, rule: str) -> None:
    assert rule in _findings([effect])


def test_an_insured_or_recent_cancellation_passes_and_an_old_uninsured_one_is_reported() -> None:
    cancelled = {"status": "cancelled"}
    assert _findings([_update({**BOOKED, "insurance": "yes"}, **cancelled)]) == []
    assert _findings([_update({**BOOKED, "created_at": "2024-05-15T01:00:00"}, **cancelled)]) == []
    assert _findings([_update(**cancelled)]) == ["cancellation-economy-uninsured"]
