"""The airline's tables: users, reservations and flights, seeded from the tau-bench data folder.

Their benchmark names are the reference's database keys (``users``,
``reservations``, ``flights``); each seed file is the reference's JSON object
of records keyed by id, relative to the data folder given with ``--data``.
Flights are seeded but left out of the graded state: as in the reference,
no tool changes them (a booking takes no seat), so they are the seed's in
every state, and dumping them would only slow grading down.
"""

from __future__ import annotations

from sqlalchemy import MetaData

from benchmark.domains.base import TableDef
from benchmark.domains.declare import Tables
from benchmark.domains.tau_airline import models as m

__all__ = ["TABLES", "sql"]

metadata = MetaData()

TABLES = Tables.of(
    metadata,
    (
        TableDef("users", "users", m.User, key=("user_id",), seed="users.json"),
        TableDef(
            "reservations",
            "reservations",
            m.Reservation,
            key=("reservation_id",),
            seed="reservations.json",
            indexes=(("user_id",),),
        ),
        TableDef(
            "flights",
            "flights",
            m.Flight,
            key=("flight_number",),
            seed="flights.json",
            hashed=False,  # no tool writes a flight: its rows are always the seed's
            indexes=(("origin",), ("destination",)),
        ),
    ),
)
"""The tables in creation order."""

sql = TABLES.sql
"""SQL tables by our table name."""
