"""The airline's fixed clock, id rules and error replies, as tau-bench's airline environment has them.

* Time stands still at 2024-05-15 15:00 EST: a booking is stamped
  ``2024-05-15T15:00:00`` (:data:`BOOKED_AT`, no zone, as the reference writes it),
  and the scenario's "now" (the guard's clock) is that instant, 20:00 UTC.
* Ids are not random: a new reservation takes the first of ``HATHAT``,
  ``HATHAU``, ``HATHAV`` not yet taken (the third is used even when taken,
  overwriting it, as in the reference), and a certificate the first of
  ``certificate_3221322`` … ``certificate_3221324`` the user does not hold.
* A refusal is a :class:`~guard.errors.ToolError` carrying the reference's
  text after ``Error: ``; :func:`error_text` renders it as the reference's
  tool result, ``Error: <message>``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from guard.errors import ToolError

__all__ = [
    "BOOKED_AT",
    "CERTIFICATE_IDS",
    "RESERVATION_IDS",
    "SCENARIO_NOW",
    "certificate_id",
    "error_text",
    "reservation_id",
]

SCENARIO_NOW = datetime(2024, 5, 15, 20, 0, tzinfo=UTC)
"""2024-05-15 15:00 EST: the airline's "now"."""

BOOKED_AT = "2024-05-15T15:00:00"
"""``created_at`` of every reservation booked during a task."""

RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
CERTIFICATE_IDS = tuple(f"certificate_{n}" for n in (3221322, 3221323, 3221324))


def reservation_id(taken: Iterable[str]) -> str:
    """The id a new reservation gets: the first free of :data:`RESERVATION_IDS`, else the last one."""
    used = set(taken)
    return next((rid for rid in RESERVATION_IDS[:-1] if rid not in used), RESERVATION_IDS[-1])


def certificate_id(held: Iterable[str]) -> str | None:
    """The id a new certificate gets; None when the user holds all three (the reference then does nothing)."""
    used = set(held)
    return next((cid for cid in CERTIFICATE_IDS if cid not in used), None)


def error_text(tool: str, error: ToolError) -> str:
    """The reference's tool result for a refusal."""
    del tool
    return f"Error: {error.message}"
