"""What the neobank tools share: frozen clocks, datetime text, employee lookup, counter ids, errors.

The reference's tools do not agree on "now", and neither matches the
prompts' 2025-10-01: device ages and retirements are measured at
2025-12-17T10:00Z (:data:`ASSET_NOW`), security operations and the incident
window at 2025-12-18T10:00Z (:data:`SECURITY_NOW`). Both are graded (they
reach stored rows) and are copied exactly.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from benchmark.domains import store
from benchmark.domains.neobank.schema import sql
from benchmark.domains.reference import parse_datetime, reference_errors, row_of
from guard.errors import NotFound
from guard.tools import ToolContext

__all__ = [
    "ASSET_NOW",
    "SCENARIO_NOW",
    "SECURITY_NOW",
    "employee_by_email",
    "insert_counted",
    "parse_datetime",
    "reference_errors",
]

ASSET_NOW = datetime(2025, 12, 17, 10, 0, tzinfo=UTC)
"""The reference's frozen "now" of the asset tools (device age, retirement time)."""

SECURITY_NOW = datetime(2025, 12, 18, 10, 0, tzinfo=UTC)
"""The reference's frozen "now" of the Okta security audit and the incident window."""

SCENARIO_NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)
"""The scenario's "now" (no neobank tool reads the wall clock)."""


async def insert_counted(
    ctx: ToolContext, table: str, template: str, model: type[BaseModel], **fields: Any
) -> dict[str, Any]:
    """Append a new row whose id is ``template`` formatted with the table's row count + 1; returns it.

    These are the reference's counter ids: a patched row can make the new id collide
    (:class:`~benchmark.domains.store.DuplicateKey`, nothing written).
    """
    count = await store.count_rows(ctx.conn, sql[table])
    row = row_of(model, id=template.format(count + 1), **fields)
    await store.insert_row(ctx.conn, sql[table], row)
    return row


async def employee_by_email(ctx: ToolContext, email: str, missing: str) -> dict[str, Any]:
    """The first employee with ``email``; ``missing`` (formatted with the email) when there is none."""
    employee = await store.first_row(ctx.conn, sql["employees"], email=email)
    if employee is None:
        raise NotFound(missing.format(email))
    return employee
