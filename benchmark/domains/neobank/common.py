"""What the neobank tools share: frozen clocks, datetime text, employee lookup, counter ids, errors.

The reference's tools do not agree on "now", and neither matches the
prompts' 2025-10-01: device ages and retirements are measured at
2025-12-17T10:00Z (:data:`ASSET_NOW`), security operations and the incident
window at 2025-12-18T10:00Z (:data:`SECURITY_NOW`). Both are graded (they
reach stored rows) and are copied exactly.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from sqlalchemy.exc import SQLAlchemyError

from benchmark.domains import store
from benchmark.domains.neobank.schema import sql
from benchmark.domains.store import DuplicateKey
from guard.errors import NotFound, ToolError
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

_DATETIME: TypeAdapter[datetime] = TypeAdapter(datetime)


def parse_datetime(text: str) -> datetime:
    """A stored datetime (the reference's JSON text) as the reference's model holds it."""
    return _DATETIME.validate_python(text)


async def insert_counted(
    ctx: ToolContext, table: str, template: str, model: type[BaseModel], **fields: Any
) -> dict[str, Any]:
    """Append a new row whose id is ``template`` formatted with the table's row count + 1; returns it.

    These are the reference's counter ids: a patched row can make the new id collide
    (:class:`~benchmark.domains.store.DuplicateKey`, nothing written).
    """
    count = await store.count_rows(ctx.conn, sql[table])
    row = model(id=template.format(count + 1), **fields).model_dump(mode="json")
    await store.insert_row(ctx.conn, sql[table], row)
    return row


async def employee_by_email(ctx: ToolContext, email: str, missing: str) -> dict[str, Any]:
    """The first employee with ``email``; ``missing`` (formatted with the email) when there is none."""
    employee = await store.first_row(ctx.conn, sql["employees"], email=email)
    if employee is None:
        raise NotFound(missing.format(email))
    return employee


@contextmanager
def reference_errors(action: str | None = None) -> Iterator[None]:
    """Turn an unexpected failure into a tool error with the reference's text.

    With ``action`` the text is ``Failed to <action>: <error>`` (the tools
    that wrap their failures); without, it is the bare error (the tools that
    let them through). Tool errors pass through unchanged; database errors
    propagate so that the caller can classify them.
    """
    prefix = "" if action is None else f"Failed to {action}: "
    try:
        yield
    except (ToolError, SQLAlchemyError):
        raise
    except ValidationError as exc:
        raise ToolError(f"{prefix}{exc}", error_class="invalid_arguments") from exc
    except DuplicateKey as exc:
        raise ToolError(f"{prefix}{exc}", error_class="precondition_failed") from exc
    except Exception as exc:
        raise ToolError(f"{prefix}{exc}") from exc
