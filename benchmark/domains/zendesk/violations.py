"""The hidden ticket-status audit of the auto-insurance, consulting and neobank Zendesk copies.

A ticket created with any status but ``open`` (a missing status is ``new``)
adds ``VIOLATION-<n+1>`` (n = the audit table's rows) to
``zendesk_ticket_status_violations``, after the ticket is stored and stamped
with the Zendesk create time. When that id is taken, the call fails with the
ticket already written: the reference's partial write. The table is graded,
so a ticket created in the wrong status fails its task even if it is fixed
later.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from sqlalchemy import MetaData, Table
from sqlalchemy.ext.asyncio import AsyncConnection

from benchmark.domains import store
from benchmark.domains.base import TableDef, sql_table
from benchmark.domains.zendesk import models as m
from benchmark.domains.zendesk.variant import CREATED_AT, TicketHook
from guard.errors import PreconditionFailed

__all__ = [
    "VIOLATIONS_TABLE",
    "TicketStatusViolation",
    "status_violation_audit",
    "status_violations",
    "violations_table_def",
]

VIOLATIONS_TABLE = "zendesk_ticket_status_violations"


class TicketStatusViolation(BaseModel):
    """The audit row of a ticket created with a status other than ``open``."""

    id: str
    ticket_id: str
    created_status: m.TicketStatus
    created_at: str


def violations_table_def(seed_dir: str) -> TableDef:
    """The audit table's definition; ``seed_dir`` holds the domain's Zendesk seed files."""
    return TableDef(
        name=VIOLATIONS_TABLE,
        benchmark_name=VIOLATIONS_TABLE,
        model=TicketStatusViolation,
        seed=f"{seed_dir}/ticket_status_violations.json",
    )


def status_violation_audit(table: Table, created_at: str = CREATED_AT) -> TicketHook:
    """The ``after_ticket_create`` hook that writes the audit rows into ``table``."""

    async def record(conn: AsyncConnection, ticket: dict[str, Any]) -> None:
        if ticket["status"] == m.TicketStatus.OPEN.value:
            return
        count = await store.count_rows(conn, table)
        row = TicketStatusViolation(
            id=f"VIOLATION-{count + 1}",
            ticket_id=ticket["id"],
            created_status=ticket["status"],
            created_at=created_at,
        ).model_dump(mode="json")
        try:
            await store.insert_row(conn, table, row)
        except store.DuplicateKey as exc:
            raise PreconditionFailed(str(exc)) from exc

    return record


def status_violations(seed_dir: str, metadata: MetaData) -> tuple[TableDef, TicketHook]:
    """The audit table's definition (its table made in ``metadata``) and the hook that writes it."""
    definition = violations_table_def(seed_dir)
    return definition, status_violation_audit(sql_table(definition, metadata))
