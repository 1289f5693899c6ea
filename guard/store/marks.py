"""Commit marks: the system of record's own word on which guard transactions it committed.

The ``sql`` backend inserts one row into ``guard_commit_marks`` on a
transaction's pinned connection just before its COMMIT, so the row exists
if and only if the transaction committed. The audit log writes the decision
to commit first (status ``committing``); after a crash, recovery asks for the
marks of those transactions and settles each one as committed or aborted by
looking, not by guessing (:mod:`guard.transaction.recovery`). Marks of transactions the
log has settled are deleted in batches; a mark outliving its purpose is
harmless. The table lives beside the tools' tables (the first schema of the
search path on PostgreSQL) and is never captured as an effect (its name
starts with ``guard_``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import Column, DateTime, MetaData, String, Table, delete, insert, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.dml import Insert

__all__ = ["forget", "install", "mark", "marked", "probe_write"]

_CHUNK = 500

marks = Table(
    "guard_commit_marks",
    MetaData(),
    Column("transaction_id", String(128), primary_key=True),
    Column("instance", String(128), nullable=False),
    Column("committed_at", DateTime(timezone=True), nullable=False),
)


async def install(conn: AsyncConnection) -> None:
    """Create the marks table if it is missing (idempotent)."""
    await conn.run_sync(lambda sync: marks.create(sync, checkfirst=True))


def mark(transaction_id: str, instance: str, at: datetime) -> Insert:
    """The statement that marks ``transaction_id`` committed; run it inside the transaction."""
    return insert(marks).values(transaction_id=transaction_id, instance=instance, committed_at=at)


def _chunks(ids: Iterable[str]) -> Iterable[list[str]]:
    batch: list[str] = []
    for ident in ids:
        batch.append(ident)
        if len(batch) == _CHUNK:
            yield batch
            batch = []
    if batch:
        yield batch


async def marked(engine: AsyncEngine, transaction_ids: Iterable[str]) -> set[str]:
    """Which of ``transaction_ids`` the system of record committed."""
    found: set[str] = set()
    async with engine.connect() as conn:
        for batch in _chunks(transaction_ids):
            rows = await conn.execute(select(marks.c.transaction_id).where(marks.c.transaction_id.in_(batch)))
            found.update(str(row[0]) for row in rows)
    return found


async def forget(engine: AsyncEngine, transaction_ids: Iterable[str]) -> None:
    """Delete the marks of transactions whose end the audit log has recorded."""
    async with engine.begin() as conn:
        for batch in _chunks(transaction_ids):
            await conn.execute(delete(marks).where(marks.c.transaction_id.in_(batch)))


async def probe_write(engine: AsyncEngine, at: datetime) -> None:
    """Write a mark and roll it back: raises when the system of record cannot take a write now.

    A SQLite file whose write lock another transaction holds is writable, only busy:
    that is not a failure (the probe does not wait for the lock).
    """
    sqlite = engine.dialect.name == "sqlite"
    async with engine.connect() as conn:
        previous = None
        if sqlite:
            previous = int((await conn.exec_driver_sql("PRAGMA busy_timeout")).scalar() or 0)
            await conn.exec_driver_sql("PRAGMA busy_timeout = 0")
        try:
            await conn.execute(mark(f"probe-{uuid.uuid4().hex}", "probe", at))
        except OperationalError as exc:
            if not (sqlite and "database is locked" in str(exc.orig)):
                raise
        finally:
            await conn.rollback()
            if previous is not None:
                await conn.exec_driver_sql(f"PRAGMA busy_timeout = {previous}")
                await conn.rollback()
