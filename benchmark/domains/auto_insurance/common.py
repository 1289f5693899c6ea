"""What the HorizonShield tools share: the clocks, content-hash ids and the reference's error wrapping.

The insurance tools stamp no time of their own: a new claim's
``created_date`` is its ``date_of_loss`` and a document link's
``created_at`` its ``expiration_date``. Only the Zendesk copy writes frozen
times (see :mod:`.schema`). New policy records get content-hash ids, so
repeating a create finds the row it made before (:func:`create_once`).
"""

from __future__ import annotations

import hashlib
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from benchmark.domains import reference, store
from benchmark.domains.auto_insurance.schema import sql
from guard.tools import ToolContext

__all__ = ["SCENARIO_NOW", "content_id", "create_once", "reference_errors"]

SCENARIO_NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)
"""The scenario's "now" (no insurance tool reads a clock)."""


def content_id(prefix: str, seed: str, length: int) -> str:
    """``prefix`` + the first ``length`` hex digits (upper case) of SHA-256 of ``seed``."""
    return prefix + hashlib.sha256(seed.encode()).hexdigest()[:length].upper()


async def create_once(
    ctx: ToolContext, table: str, model: type[BaseModel], /, **fields: Any
) -> dict[str, Any]:
    """The row of ``table`` with the id ``fields["id"]``: the one made before, or a new one stored now."""
    existing = await store.first_row(ctx.conn, sql[table], id=fields["id"])
    if existing is not None:
        return existing
    row = reference.row_of(model, **fields)
    await store.insert_row(ctx.conn, sql[table], row)
    return row


def reference_errors() -> AbstractContextManager[None]:
    """Report an unexpected failure as the reference does: a tool error carrying its bare text.

    A duplicate key is a failed precondition; anything else (a model's
    refusal too) an internal error. Tool errors pass unchanged; database
    errors propagate so that the caller can classify them.
    """
    return reference.reference_errors(invalid_models=False)
