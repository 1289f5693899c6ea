"""Wrong airline trajectories: a tau-bench golden with one mistake, and the rule that stops it.

A case's task is ``<i>`` for ``tau_airline/<i>`` (test ``task_<i>``). One
blocked case per clause the tools let through; the clauses the tools refuse
by themselves (payments not adding up, a method not in the profile, a
passenger count changed, insurance added later) cannot reach a commit, and
are tested on hand-made effects in :mod:`.test_pack`.
"""

from __future__ import annotations

import re
from typing import Any

from tests.benchmark.regrade import add, chain, change, drop, replace
from tests.benchmark.wrong_cases import Catalogue, Wording, WrongCase, WrongDomain, blocked, by_name

__all__ = ["CASES", "WRONG_DOMAIN"]

BOOK, FLIGHTS = "book_reservation", "update_reservation_flights"
MIA = {"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}


def _rider(n: int) -> dict[str, Any]:
    return {"first_name": f"Guest{n}", "last_name": "Li", "dob": "1990-01-01"}


def _flight(number: str, date: str) -> dict[str, str]:
    return {"flight_number": number, "date": date}


WRONG: dict[str, WrongCase] = {
    "two credit cards on one booking": blocked(
        "0",
        change(
            BOOK,
            payment_methods=[
                {"payment_id": "certificate_7504069", "amount": 250},
                {"payment_id": "credit_card_4421486", "amount": 3},
                {"payment_id": "credit_card_1955700", "amount": 2},
            ],
        ),
        "payment-method-limits",
        ("reservation HATHAT", "2 credit card(s)", "allowed: at most one certificate, one credit card"),
    ),
    "extra bag not charged": blocked(
        "0",
        change(BOOK, total_baggages=4, nonfree_baggages=0),
        "booking-bags-charged",
        ("reservation HATHAT", "nonfree_baggages 0", "total_baggages 4", "allowed: 1 non-free"),
    ),
    "six passengers": blocked(
        "0",
        change(
            BOOK,
            passengers=[MIA, *(_rider(n) for n in range(5))],
            payment_methods=[
                {"payment_id": "certificate_7504069", "amount": 250},
                {"payment_id": "credit_card_4421486", "amount": 1280},
            ],
        ),
        "passengers-at-most-five",
        ("reservation HATHAT", "passengers 6", "allowed: 1 to 5"),
    ),
    "basic economy flights changed": blocked(
        "22",
        chain(drop(FLIGHTS), change(FLIGHTS, cabin="basic_economy")),
        "basic-economy-flights-unchanged",
        ("reservation OWZ4XL", "cabin 'basic_economy'", "HAT041 2024-05-21", "allowed: the same flights"),
    ),
    "one segment left in another cabin": blocked(
        "22",
        change(
            FLIGHTS,
            1,
            cabin="basic_economy",
            flights=[_flight("HAT202", "2024-05-21"), _flight("HAT232", "2024-05-22")],
        ),
        "cabin-one-across-flights",
        ("reservation OWZ4XL", "different cabins", "HAT202", "allowed: one cabin"),
    ),
    "basic economy flights changed in the call that upgrades them": blocked(
        "22",
        drop(FLIGHTS),
        "basic-economy-upgraded-first",
        (
            "reservation OWZ4XL",
            "basic economy when the transaction began",
            "changed its flights",
            "allowed: change the cabin first",
        ),
    ),
    "destination moved to another city": blocked(
        "7",
        change(FLIGHTS, flights=[_flight("HAT004", "2024-05-24"), _flight("HAT142", "2024-05-24")]),
        "itinerary-whole",
        (
            "reservation M05KNL",
            "one_way ATL to PHL",
            "ATL-DFW DFW-EWR",
            "ends at EWR, not at its destination PHL",
            "allowed: flights that go from ATL to PHL",
        ),
    ),
    "round trip booked without its return": blocked(
        "11",
        change(BOOK, flight_type="round_trip"),
        "itinerary-whole",
        (
            "reservation HATHAT",
            "round_trip DTW to SEA",
            "ends at SEA, not back at its origin DTW",
            "and back",
        ),
    ),
    "bags removed": blocked(
        "14",
        replace(
            "update_reservation_baggages",
            "update_reservation_baggages",
            {
                "reservation_id": "4WQ150",
                "total_baggages": 3,
                "nonfree_baggages": 0,
                "payment_id": "gift_card_3576581",
            },
        ),
        "bags-only-added",
        ("reservation 4WQ150", "total_baggages 3 (was 5)", "allowed: at least 5 bags"),
    ),
    "basic economy cancelled without insurance": blocked(
        "1",
        add("cancel_reservation", {"reservation_id": "FMQD8I"}),
        "cancellation-eligible",
        (
            "reservation FMQD8I",
            "cabin 'basic_economy'",
            "insurance 'no'",
            "allowed: cancellation within 24 h",
        ),
    ),
    "certificate of an unstated amount": blocked(
        "16",
        change("send_certificate", amount=1000),
        "certificate-compensation",
        ("user ethan_martin_2396", "amount 1000", "allowed: silver/gold members"),
    ),
}

CASES: dict[str, WrongCase] = by_name(WRONG)
"""Every airline case, by name."""

WRONG_DOMAIN = WrongDomain(
    name="tau_airline",
    domain="tau_airline",
    cases=CASES,
    catalogue=Catalogue(blocked=11, rules=10, missed=0),
    wording=Wording(
        imperative=re.compile(r"(?i)\b(you must|please|do not|don't|never|should)\b"), evidence=False
    ),
    prefix="task_",
    bench=True,
)
"""The airline's wrong trajectories, for :mod:`tests.benchmark.test_wrong`."""
