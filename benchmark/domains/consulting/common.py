"""What the consulting tools share: frozen clocks, new ids, datetime text, the reference's errors.

New ids of the consulting systems take the first unused
``<PREFIX>-{n:06d}`` for n = 0, 1, … (``APR-2-000000`` first). The only
consulting write that stamps a time is ``client_access_api`` ``revoke_vpn``
(:data:`VPN_REVOKED_AT`); Zendesk stamps its own (:mod:`.zendesk`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, TypeVar

from benchmark.domains.reference import iso, reference_errors, row_of
from benchmark.domains.store import first_unused
from guard.errors import InvalidArguments

__all__ = [
    "SCENARIO_NOW",
    "VPN_REVOKED_AT",
    "iso",
    "new_id",
    "reference_errors",
    "require",
    "row_of",
]

SCENARIO_NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)
"""The scenario's "now" (no consulting tool reads the wall clock)."""

VPN_REVOKED_AT = "2025-10-01T00:00:00Z"
"""The reference's frozen ``revoked_at`` of a revoked VPN access (2025-10-01 00:00 UTC), as stored."""

_T = TypeVar("_T")


def new_id(existing: Iterable[Any], prefix: str) -> str:
    """The first ``<prefix>-{n:06d}`` (n = 0, 1, …) not among ``existing``."""
    return first_unused(existing, prefix + "-{:06d}", 0)


def require(value: _T | None, name: str) -> _T:
    """``value``, an argument an action needs; missing, ``None`` or empty is refused as the reference does."""
    if not value:
        raise InvalidArguments(f"Missing required parameter: {name}")
    return value
