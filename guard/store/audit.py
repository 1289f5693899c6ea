"""The audit log in SQL (SQLite or PostgreSQL), through SQLAlchemy Core."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from sqlalchemy import desc, insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.audit import LIVE_STATUSES, CallEntry, CommitEntry, TxnDetail, TxnRecord
from guard.store.schema import calls, commits, transactions

__all__ = ["SqlAudit"]

log = logging.getLogger(__name__)

_TXN_FIELDS = (
    "principal",
    "instance",
    "backend",
    "status",
    "opened_at",
    "updated_at",
    "closed_at",
    "close_reason",
    "calls",
    "blocked_attempts",
    "summary",
)


def _txn_values(record: TxnRecord) -> dict[str, Any]:
    return {name: getattr(record, name) for name in _TXN_FIELDS}


def _txn(row: Any) -> TxnRecord:
    m = row._mapping
    return TxnRecord(id=m["id"], **{name: m[name] for name in _TXN_FIELDS})


class SqlAudit:
    """Writes transactions and commits at once and call records in batches."""

    def __init__(self, engine: AsyncEngine, *, batch: int = 64) -> None:
        self._engine = engine
        self._pending: list[CallEntry] = []
        self._batch = batch

    async def open_transaction(self, record: TxnRecord) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(insert(transactions).values(id=record.id, **_txn_values(record)))

    async def update_transaction(self, record: TxnRecord) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(
                update(transactions).where(transactions.c.id == record.id).values(**_txn_values(record))
            )

    def record_call(self, entry: CallEntry) -> None:
        self._pending.append(entry)

    async def record_commit(self, entry: CommitEntry) -> None:
        await self.flush()
        async with self._engine.begin() as conn:
            await conn.execute(
                insert(commits).values(
                    transaction_id=entry.transaction_id,
                    attempt=entry.attempt,
                    via=entry.via,
                    decision=entry.decision,
                    status=entry.status,
                    findings=entry.findings,
                    effects=entry.effects,
                    summary=entry.summary,
                    at=entry.at,
                    duration_ms=entry.duration_ms,
                    dispatch=entry.dispatch,
                )
            )

    async def flush(self) -> None:
        if not self._pending:
            return
        batch, self._pending = self._pending, []
        try:
            async with self._engine.begin() as conn:
                await conn.execute(
                    insert(calls),
                    [
                        {
                            "transaction_id": e.transaction_id,
                            "seq": e.seq,
                            "tool": e.tool,
                            "arguments": e.arguments,
                            "write": e.write,
                            "outcome": e.outcome,
                            "error_class": e.error_class,
                            "error_message": e.error_message,
                            "retries": e.retries,
                            "latency_ms": e.latency_ms,
                            "started_at": e.started_at,
                        }
                        for e in batch
                    ],
                )
        except Exception:
            self._pending[:0] = batch
            raise

    @property
    def backlog(self) -> int:
        return len(self._pending)

    async def abort_live(self, instance: str, reason: str, at: datetime) -> list[str]:
        async with self._engine.begin() as conn:
            rows = await conn.execute(
                select(transactions.c.id).where(
                    transactions.c.instance == instance, transactions.c.status.in_(LIVE_STATUSES)
                )
            )
            ids = [r[0] for r in rows]
            if ids:
                await conn.execute(
                    update(transactions)
                    .where(transactions.c.id.in_(ids))
                    .values(status="aborted", close_reason=reason, closed_at=at, updated_at=at)
                )
        return ids

    async def status_of(self, transaction_id: str) -> str | None:
        async with self._engine.connect() as conn:
            row = await conn.execute(select(transactions.c.status).where(transactions.c.id == transaction_id))
            found = row.first()
        return None if found is None else str(found[0])

    async def list_transactions(self, status: str | None = None, limit: int = 100) -> list[TxnRecord]:
        query = select(transactions).order_by(desc(transactions.c.opened_at)).limit(limit)
        if status == "blocked":
            query = query.where(transactions.c.blocked_attempts > 0)
        elif status is not None:
            query = query.where(transactions.c.status == status)
        async with self._engine.connect() as conn:
            return [_txn(row) for row in await conn.execute(query)]

    async def get_transaction(self, transaction_id: str) -> TxnDetail | None:
        await self.flush()
        async with self._engine.connect() as conn:
            found = (
                await conn.execute(select(transactions).where(transactions.c.id == transaction_id))
            ).first()
            if found is None:
                return None
            call_rows = await conn.execute(
                select(calls).where(calls.c.transaction_id == transaction_id).order_by(calls.c.seq)
            )
            commit_rows = await conn.execute(
                select(commits).where(commits.c.transaction_id == transaction_id).order_by(commits.c.attempt)
            )
            call_entries = tuple(
                CallEntry(**{k: v for k, v in r._mapping.items() if k != "id"}) for r in call_rows
            )
            commit_entries = tuple(
                CommitEntry(**{k: v for k, v in r._mapping.items() if k != "id"}) for r in commit_rows
            )
        return TxnDetail(_txn(found), call_entries, commit_entries)

    async def close(self) -> None:
        try:
            await self.flush()
        except Exception:
            log.exception("could not write %d queued call records to the audit log", len(self._pending))
