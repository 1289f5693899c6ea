"""What the consulting tools share: frozen clocks, new ids, datetime text, the reference's errors.

New ids of the consulting systems take the first unused
``<PREFIX>-{n:06d}`` for n = 0, 1, … (``APR-2-000000`` first; :func:`append_row`). The only
consulting write that stamps a time is ``client_access_api`` ``revoke_vpn``
(:data:`VPN_REVOKED_AT`); Zendesk stamps its own (:mod:`.zendesk`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import BaseModel

from benchmark.domains import store
from benchmark.domains.consulting.schema import sql
from benchmark.domains.reference import iso, reference_errors, row_of
from guard.errors import InvalidArguments
from guard.tools import ToolContext

__all__ = [
    "SCENARIO_NOW",
    "VPN_REVOKED_AT",
    "append_row",
    "iso",
    "reference_errors",
    "require",
    "row_of",
]

SCENARIO_NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)
"""The scenario's "now" (no consulting tool reads the wall clock)."""

VPN_REVOKED_AT = "2025-10-01T00:00:00Z"
"""The reference's frozen ``revoked_at`` of a revoked VPN access (2025-10-01 00:00 UTC), as stored."""

_T = TypeVar("_T")


async def append_row(
    ctx: ToolContext, table: str, prefix: str, model: type[BaseModel], /, **fields: Any
) -> dict[str, Any]:
    """Append a new row of ``table``, built by ``model``, with the first unused id ``<prefix>-{n:06d}``.

    Returns the stored row.
    """
    existing = await store.all_rows(ctx.conn, sql[table])
    row = row_of(model, id=store.first_unused((r["id"] for r in existing), prefix + "-{:06d}", 0), **fields)
    await store.insert_row(ctx.conn, sql[table], row)
    return row


def require(value: _T | None, name: str) -> _T:
    """``value``, an argument an action needs; missing, ``None`` or empty is refused as the reference does."""
    if not value:
        raise InvalidArguments(f"Missing required parameter: {name}")
    return value
