"""Rows ↔ the reference's records, and a whole state ↔ the reference's database dict.

A row is its record plus its key column; a user's record has no id field,
so ``user_id`` is dropped when turned back, and a reservation's ``status``
exists in the reference only once it has been cancelled (null here before).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["database", "record", "row"]

_KEYS = {"users": "user_id", "reservations": "reservation_id", "flights": "flight_number"}


def record(table: str, row: Mapping[str, Any]) -> dict[str, Any]:
    """The reference's record of a stored row of ``table`` (``users``, ``reservations``, ``flights``)."""
    out = {k: v for k, v in row.items() if not (table == "users" and k == "user_id")}
    if table == "reservations" and out.get("status") is None:
        out.pop("status", None)
    return out


def row(table: str, key: str, value: Mapping[str, Any]) -> dict[str, Any]:
    """The row of the reference's record ``value`` stored under ``key`` in ``table``."""
    column = _KEYS[table]
    return dict(value) if column in value else {column: key, **value}


def database(state: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, dict[str, Any]]:
    """The reference's database (``flights``, ``reservations``, ``users``: records by key) of a state."""
    return {
        table: {r[column]: record(table, r) for r in state.get(table, ())}
        for table, column in sorted(_KEYS.items())
    }
