"""What the booking tools share: the frozen clocks, money, ISO dates and error wrapping.

The reference's booking tools run on their own frozen "now", not the
scenario's 2025-10-01T13:00Z: 2025-11-25T10:00Z for booking changes,
charges, refunds and invoices, 2025-11-30T10:00Z for disputes and hotel
escalations, and a CRM update stamps ``updated_at`` 2025-01-01. The stamps
are written in the reference's two spellings (``…Z`` and ``…+00:00``).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal

from benchmark.domains import reference
from benchmark.domains.reference import row_of

__all__ = [
    "CRM_UPDATED_AT",
    "DISPUTED_AT",
    "ESCALATED_AT",
    "INVOICE_STAMP",
    "MODIFIED_AT",
    "PAID_AT",
    "SCENARIO_NOW",
    "money",
    "parse_iso",
    "reference_errors",
    "row_of",
]

SCENARIO_NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)
"""The scenario's "now" (the prompts say 2025-10-01T13:00Z); no booking tool reads the wall clock."""

_CHANGE_NOW = datetime(2025, 11, 25, 10, 0, tzinfo=UTC)
_DISPUTE_NOW = datetime(2025, 11, 30, 10, 0, tzinfo=UTC)

MODIFIED_AT = _CHANGE_NOW.isoformat().replace("+00:00", "Z")
"""Booking and group changes: ``updated_at`` and the modification-history prefix."""

PAID_AT = _CHANGE_NOW.isoformat()
"""Charges and refunds: ``created_at``/``updated_at`` (``+00:00`` spelling)."""

INVOICE_STAMP = _CHANGE_NOW.strftime("%Y%m%d%H%M%S")
"""The timestamp inside generated invoice ids and URLs."""

DISPUTED_AT = _DISPUTE_NOW.isoformat()
"""Dispute transactions: ``created_at``/``updated_at``."""

ESCALATED_AT = _DISPUTE_NOW.isoformat().replace("+00:00", "Z")
"""Hotel escalation tickets: ``created_at``/``updated_at``."""

CRM_UPDATED_AT = datetime(2025, 1, 1, tzinfo=UTC)
"""What a CRM profile update writes into ``updated_at``."""

_CENTS = Decimal("0.01")


def money(value: Decimal) -> Decimal:
    """``value`` rounded half-up to cents, as every booking amount is."""
    return value.quantize(_CENTS, rounding=ROUND_HALF_UP)


def parse_iso(text: str) -> datetime:
    """An ISO 8601 text as the reference parses it (``Z`` read as UTC); ``ValueError`` if it is not one."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def reference_errors() -> AbstractContextManager[None]:
    """Report an unexpected failure as the reference does: a tool error carrying its bare text.

    A duplicate key is a failed precondition; anything else (a model's
    refusal too) an internal error. Tool errors pass unchanged; database
    errors propagate so that the caller can classify them.
    """
    return reference.reference_errors(invalid_models=False)
