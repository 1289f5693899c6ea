"""The outbox in SQL (SQLite or PostgreSQL), in the guard's own database, through SQLAlchemy Core.

Each method is one short database transaction, so that no agent transaction
holds a lock on the guard's database between its calls (SQLite has one
writer). Sealing a commit is one transaction: every entry of it is stamped
at once, or none is. Claiming a transaction is a conditional UPDATE, so that
of two replicas racing for an expired lease exactly one wins.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.backends.outbox import UNSETTLED, EntryStatus, OutboxEntry
from guard.store.tables import outbox
from judges.classify import ErrorClass

__all__ = ["SqlOutbox"]

_FIELDS = (
    "transaction_id",
    "seq",
    "tool",
    "arguments",
    "mode",
    "status",
    "instance",
    "attempts",
    "error_class",
    "error",
    "result",
    "created_at",
    "updated_at",
    "committed_at",
    "lease_until",
)
_UNSETTLED = [status.value for status in UNSETTLED]
_OPEN = [EntryStatus.HELD.value, EntryStatus.SENDING.value, EntryStatus.APPLIED.value]


def _values(entry: OutboxEntry) -> dict[str, Any]:
    values = {name: getattr(entry, name) for name in _FIELDS}
    values["status"] = entry.status.value
    return values


def _entry(row: Any) -> OutboxEntry:
    m = row._mapping
    fields = {name: m[name] for name in _FIELDS}
    fields["status"] = EntryStatus(fields["status"])
    fields["error_class"] = None if fields["error_class"] is None else ErrorClass(fields["error_class"])
    return OutboxEntry(key=m["key"], **fields)


class SqlOutbox:
    """An :class:`guard.backends.outbox.Outbox` in the ``guard_outbox`` table."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def add(self, entry: OutboxEntry) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(insert(outbox).values(key=entry.key, **_values(entry)))

    async def save(self, entry: OutboxEntry) -> None:
        async with self._engine.begin() as conn:
            done = await conn.execute(
                update(outbox).where(outbox.c.key == entry.key).values(**_values(entry))
            )
            if done.rowcount != 1:
                raise KeyError(f"no outbox entry {entry.key}")

    async def swap(self, was: EntryStatus, entry: OutboxEntry) -> bool:
        async with self._engine.begin() as conn:
            done = await conn.execute(
                update(outbox)
                .where(outbox.c.key == entry.key, outbox.c.status == was.value)
                .values(**_values(entry))
            )
            return bool(done.rowcount == 1)

    async def entries(self, transaction_id: str) -> list[OutboxEntry]:
        query = select(outbox).where(outbox.c.transaction_id == transaction_id).order_by(outbox.c.seq)
        async with self._engine.connect() as conn:
            return [_entry(row) for row in await conn.execute(query)]

    async def seal(self, transaction_id: str, instance: str, at: datetime, lease_until: datetime) -> None:
        mine = outbox.c.transaction_id == transaction_id
        async with self._engine.begin() as conn:
            await conn.execute(
                update(outbox)
                .where(mine, outbox.c.status == EntryStatus.HELD.value)
                .values(status=EntryStatus.READY.value)
            )
            await conn.execute(
                update(outbox)
                .where(mine)
                .values(committed_at=at, instance=instance, lease_until=lease_until, updated_at=at)
            )

    async def claim(self, instance: str, now: datetime, lease_until: datetime, *, own: bool) -> list[str]:
        takeable: ColumnElement[bool] = or_(outbox.c.lease_until.is_(None), outbox.c.lease_until < now)
        if own:
            takeable = or_(takeable, outbox.c.instance == instance)
        candidates = (
            select(outbox.c.transaction_id)
            .where(outbox.c.status.in_(_UNSETTLED), takeable)
            .group_by(outbox.c.transaction_id)
            .order_by(outbox.c.transaction_id)
        )
        async with self._engine.connect() as conn:
            found = [str(row[0]) for row in await conn.execute(candidates)]
        claimed = []
        for ident in found:
            async with self._engine.begin() as conn:
                done = await conn.execute(
                    update(outbox)
                    .where(outbox.c.transaction_id == ident, outbox.c.status.in_(_UNSETTLED), takeable)
                    .values(instance=instance, lease_until=lease_until)
                )
            if done.rowcount:
                claimed.append(ident)
        return claimed

    async def orphans(self, instance: str) -> list[str]:
        query = (
            select(outbox.c.transaction_id)
            .where(
                outbox.c.instance == instance,
                outbox.c.committed_at.is_(None),
                outbox.c.status.in_(_OPEN),
            )
            .group_by(outbox.c.transaction_id)
            .order_by(outbox.c.transaction_id)
        )
        async with self._engine.connect() as conn:
            return [str(row[0]) for row in await conn.execute(query)]

    async def close(self) -> None:
        return None
