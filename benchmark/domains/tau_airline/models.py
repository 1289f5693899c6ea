"""Row models of the airline's three tables, field for field as tau-bench's JSON records are.

The reference keeps users, reservations and flights as JSON objects keyed by
their id; a row here is one record with its key as a column (a user's
record has no id of its own, so its key is added as ``user_id``, first).
Whatever the reference nests — names, addresses, payment methods, flight
segments, passengers, payments, a flight's per-date status, seats and
prices — is kept as JSON, key order included, so a row turns back into the
reference's record exactly (:func:`benchmark.domains.tau_airline.records`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["Flight", "Reservation", "User"]


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid")


class User(_Row):
    user_id: str
    name: dict[str, Any]
    address: dict[str, Any]
    email: str
    dob: str
    payment_methods: dict[str, Any]
    saved_passengers: list[dict[str, Any]]
    membership: str
    reservations: list[str]


class Reservation(_Row):
    reservation_id: str
    user_id: str
    origin: str
    destination: str
    flight_type: str
    cabin: str
    flights: list[dict[str, Any]]
    passengers: list[dict[str, Any]]
    payment_history: list[dict[str, Any]]
    created_at: str
    total_baggages: int
    nonfree_baggages: int
    insurance: str
    status: str | None = None
    """Set to ``cancelled`` by a cancellation; absent (null) before."""


class Flight(_Row):
    flight_number: str
    origin: str
    destination: str
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str
    dates: dict[str, Any]
