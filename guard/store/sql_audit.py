"""The audit log in SQL (SQLite or PostgreSQL), through SQLAlchemy Core.

Calls are written by group commit: :meth:`SqlAudit.record_call` queues its
entry and returns once a writer task has committed it; the calls that arrive
while one batch is being written go together in the next, so that under load
the log costs one database transaction per batch, not per call, and no call
is answered before it is durable. On a SQLite file a batch is written by a
connection of its own on the event loop's thread when the file's write lock
is free (a WAL append, tens of microseconds), and through the engine's
worker thread, waiting for the lock, when it is not: every hop to a worker
thread costs more than the write itself.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import Text, bindparam, cast, desc, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DataError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from guard.audit.log import (
    BLOCKED,
    UNSETTLED_STATUSES,
    WOULD_BLOCK,
    CallEntry,
    CommitEntry,
    TxnDetail,
    TxnOwner,
    TxnRecord,
    would_block,
)
from guard.errors import AuditError, RecordRefused
from guard.store.direct import Writer, write_rows
from guard.store.engine import sqlite_file
from guard.store.storable import storable_json
from guard.store.tables import calls, commits, transactions
from guard.transaction.state import CommitStatus, Status, Via
from judges import Decision
from judges.classify import ErrorClass

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
    "rollback_turns",
    "claims",
)
_CALL_FIELDS = (
    "transaction_id",
    "seq",
    "tool",
    "arguments",
    "write",
    "outcome",
    "error_class",
    "error_message",
    "retries",
    "latency_ms",
    "started_at",
    "turns",
)
_COMMIT_FIELDS = (
    "via",
    "decision",
    "status",
    "findings",
    "effects",
    "summary",
    "at",
    "duration_ms",
    "dispatch",
    "turns",
)


def _txn_values(record: TxnRecord) -> dict[str, Any]:
    return {name: getattr(record, name) for name in _TXN_FIELDS}


def _txn(row: Any) -> TxnRecord:
    m = row._mapping
    fields = {name: m[name] for name in _TXN_FIELDS}
    fields["status"] = Status(fields["status"])
    return TxnRecord(id=m["id"], **fields)


def _call(row: Any) -> CallEntry:
    fields = {name: value for name, value in row._mapping.items() if name != "id"}
    if fields["error_class"] is not None:
        fields["error_class"] = ErrorClass(fields["error_class"])
    return CallEntry(**fields)


def _commit(row: Any) -> CommitEntry:
    fields = {name: value for name, value in row._mapping.items() if name != "id"}
    fields["decision"] = Decision(fields["decision"])
    fields["status"] = CommitStatus(fields["status"])
    fields["via"] = Via(fields["via"])
    return CommitEntry(**fields)


_REFUSED = (DataError, IntegrityError, sqlite3.DataError, sqlite3.IntegrityError, ValueError, TypeError)
"""What a store (or a bind processor on the way to it) raises for a record it will never take."""
_REFUSED_SQLSTATES = ("22", "23")
"""PostgreSQL's classes of the same: data exception, integrity constraint violation (asyncpg's own errors)."""


def _refusal(exc: BaseException) -> tuple[str, str] | None:
    """Why the store refused a record for what it holds, as (a short name, the store's words), or None
    when it failed otherwise (down, busy). The short name never quotes the record (the store's words may)."""
    for cause in (getattr(exc, "orig", None), exc.__cause__, exc):
        if cause is None:
            continue
        sqlstate = str(getattr(cause, "sqlstate", "") or "")
        if isinstance(cause, _REFUSED) or sqlstate[:2] in _REFUSED_SQLSTATES:
            short = type(cause).__name__ + (f" (SQLSTATE {sqlstate})" if sqlstate else "")
            return short, " ".join(str(cause).split())[:300]
    return None


@asynccontextmanager
async def _refusals(record: Callable[[], Any]) -> AsyncIterator[None]:
    """Translate a refusal into :class:`RecordRefused`, with ``record()`` (the record's data) for the log."""
    try:
        yield
    except Exception as exc:
        refusal = _refusal(exc)
        if refusal is None:
            raise
        short, words = refusal
        raise RecordRefused(
            f"the audit store refused the record: {words}", reason=short, record=storable_json(record())
        ) from exc


# The write statements are built once: a statement object used again skips SQLAlchemy's cache-key walk and
# its compilation (a fresh multi-row INSERT, or an ON CONFLICT's ``excluded`` alias, costs a millisecond).
_TXN_PREFIX = "txn_"
"""Bound names of the transaction row's columns, apart from the commit attempt's (both have ``status``)."""


def _bound(table: Any, names: tuple[str, ...], prefix: str = "") -> dict[str, Any]:
    return {name: bindparam(prefix + name, type_=table.c[name].type) for name in names}


_OPEN_TRANSACTION = insert(transactions).values(_bound(transactions, ("id", *_TXN_FIELDS)))
_UPDATE_TRANSACTION = (
    update(transactions)
    .where(transactions.c.id == bindparam(f"{_TXN_PREFIX}id", type_=transactions.c.id.type))
    .values(_bound(transactions, _TXN_FIELDS, _TXN_PREFIX))
)
_INSERT_CALLS = insert(calls).values(_bound(calls, _CALL_FIELDS)).inline()  # no RETURNING of the new id


def _transaction_params(record: TxnRecord) -> dict[str, Any]:
    return {f"{_TXN_PREFIX}{name}": value for name, value in _txn_values(record).items()} | {
        f"{_TXN_PREFIX}id": record.id
    }


def _upsert_attempt(dialect_insert: Any) -> Any:
    """One commit attempt written whole, over what an earlier write of it said (a decision, then its end)."""
    upsert = dialect_insert(commits).values(_bound(commits, ("transaction_id", "attempt", *_COMMIT_FIELDS)))
    return upsert.on_conflict_do_update(
        index_elements=[commits.c.transaction_id, commits.c.attempt],
        set_={name: upsert.excluded[name] for name in _COMMIT_FIELDS},
    )


# PostgreSQL runs a data-modifying WITH to completion whatever the outer statement reads: an attempt and its
# transaction's row in one autocommitted statement, one round trip
_PG_RECORD_COMMIT = _UPDATE_TRANSACTION.add_cte(
    _upsert_attempt(postgresql.insert).returning(commits.c.attempt).cte("attempts")
)
_SQLITE_UPSERT_ATTEMPT = _upsert_attempt(sqlite.insert)


class _InlineCalls:
    """Call records into a SQLite file on the caller's thread; False, not a wait, when the lock is taken."""

    def __init__(self, engine: AsyncEngine, path: str) -> None:
        dialect = engine.dialect
        columns = [calls.c[name] for name in _CALL_FIELDS]
        self._processors = [c.type.dialect_impl(dialect).bind_processor(dialect) for c in columns]
        self._sql = (
            f"INSERT INTO {calls.name} ({', '.join(_CALL_FIELDS)}) VALUES ({', '.join('?' * len(columns))})"
        )
        self._path = path
        self._conn: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA busy_timeout = 0")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
            self._conn = conn
        return self._conn

    def write(self, entries: list[CallEntry]) -> bool:
        rows = [
            tuple(
                value if process is None else process(value)
                for process, value in zip(
                    self._processors, (getattr(e, n) for n in _CALL_FIELDS), strict=True
                )
            )
            for e in entries
        ]
        conn = self._connection()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                return False
            raise
        try:
            conn.executemany(self._sql, rows)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return True

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _settle(waiter: asyncio.Future[None], failure: Exception | None) -> None:
    if waiter.done():
        return
    if failure is None:
        waiter.set_result(None)
    else:
        waiter.set_exception(AuditError(f"the audit log refused the call record: {failure}"))


class SqlAudit:
    """Writes every record before it returns; calls in group-committed batches."""

    @property
    def engine(self) -> AsyncEngine:
        """The store's engine, which the outbox of an ``mcp`` backend shares."""
        return self._engine

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._queue: list[tuple[CallEntry, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None
        path = sqlite_file(engine.url.render_as_string(hide_password=False))
        self._inline = _InlineCalls(engine, path) if path is not None else None
        # One statement needs no transaction of its own: on PostgreSQL it runs in autocommit, one round
        # trip instead of three (BEGIN, the statement, COMMIT); it is as atomic and as durable.
        postgres = engine.dialect.name == "postgresql"
        self._autocommit = engine.execution_options(isolation_level="AUTOCOMMIT") if postgres else None

    @asynccontextmanager
    async def _one_statement(self) -> AsyncIterator[AsyncConnection]:
        """A connection for one write or one read, committed when it is done."""
        if self._autocommit is None:
            async with self._engine.begin() as conn:
                yield conn
        else:
            async with self._autocommit.connect() as conn:
                yield conn

    async def open_transaction(self, record: TxnRecord) -> None:
        await write_rows(self._engine, _OPEN_TRANSACTION, [{"id": record.id, **_txn_values(record)}])

    async def update_transaction(self, record: TxnRecord) -> None:
        async with _refusals(record.to_dict):
            await write_rows(self._engine, _UPDATE_TRANSACTION, [_transaction_params(record)])

    async def record_call(self, entry: CallEntry) -> None:
        if self._inline is not None and not self._queue:
            try:
                if self._inline.write([entry]):
                    return
            except Exception as exc:
                raise AuditError(f"the audit log refused the call record: {exc}") from exc
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append((entry, done))
        if self._writer is None:
            self._writer = asyncio.create_task(self._write_calls(), name="guard-audit-calls")
        await done

    async def _write_calls(self) -> None:
        writer = Writer(self._engine)  # one connection for the batches that follow each other
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                failure = await self._write_batch(writer, [entry for entry, _ in batch])
                if failure is not None and len(batch) > 1 and _refusal(failure) is not None:
                    # a record the store refuses must not fail the others written beside it
                    for entry, waiter in batch:
                        _settle(waiter, await self._write_batch(writer, [entry]))
                    continue
                for _, waiter in batch:
                    _settle(waiter, failure)
        finally:
            writer.close()
            self._writer = None

    async def _write_batch(self, writer: Writer, entries: list[CallEntry]) -> Exception | None:
        """Write ``entries`` in one transaction; the failure, or None."""
        try:
            if self._inline is None or not self._inline.write(entries):
                rows = [{n: getattr(e, n) for n in _CALL_FIELDS} for e in entries]
                await writer.write(_INSERT_CALLS, rows)
        except Exception as exc:
            log.error("could not write %d call record(s) to the audit log: %r", len(entries), exc)
            return exc
        return None

    async def record_commit(self, entry: CommitEntry, record: TxnRecord, *more: CommitEntry) -> None:
        # an attempt written twice in one call (a decision and its end) is written once, as it ends
        attempts = {(each.transaction_id, each.attempt): each for each in (entry, *more)}

        def shown() -> dict[str, Any]:
            return {"transaction": record.to_dict(), "attempts": [a.to_dict() for a in attempts.values()]}

        async with _refusals(shown):
            await self._record_commit(attempts.values(), record)

    async def _record_commit(self, attempts: Iterable[CommitEntry], record: TxnRecord) -> None:
        rows = [
            {"transaction_id": each.transaction_id, "attempt": each.attempt}
            | {name: getattr(each, name) for name in _COMMIT_FIELDS}
            for each in attempts
        ]
        transaction = _transaction_params(record)
        if self._autocommit is not None:
            await write_rows(self._engine, _PG_RECORD_COMMIT, [row | transaction for row in rows])
            return
        async with self._engine.begin() as conn:
            await conn.execute(_SQLITE_UPSERT_ATTEMPT, rows)
            await conn.execute(_UPDATE_TRANSACTION, transaction)

    async def unsettled(self, instance: str) -> list[TxnRecord]:
        query = (
            select(transactions)
            .where(transactions.c.instance == instance, transactions.c.status.in_(UNSETTLED_STATUSES))
            .order_by(transactions.c.opened_at)
        )
        async with self._engine.connect() as conn:
            return [_txn(row) for row in await conn.execute(query)]

    async def status_of(self, transaction_id: str) -> Status | None:
        async with self._one_statement() as conn:
            row = await conn.execute(select(transactions.c.status).where(transactions.c.id == transaction_id))
            found = row.first()
        return None if found is None else Status(found[0])

    async def owner_of(self, transaction_id: str) -> TxnOwner | None:
        query = select(transactions.c.instance, transactions.c.status).where(
            transactions.c.id == transaction_id
        )
        async with self._one_statement() as conn:
            found = (await conn.execute(query)).first()
        return None if found is None else TxnOwner(found[0], Status(found[1]))

    async def list_transactions(self, status: str | None = None, limit: int = 100) -> list[TxnRecord]:
        if status == WOULD_BLOCK:
            return await self._would_block(limit)
        query = select(transactions).order_by(desc(transactions.c.opened_at)).limit(limit)
        if status == BLOCKED:
            query = query.where(transactions.c.blocked_attempts > 0)
        elif status is not None:
            query = query.where(transactions.c.status == status)
        async with self._engine.connect() as conn:
            return [_txn(row) for row in await conn.execute(query)]

    async def _would_block(self, limit: int) -> list[TxnRecord]:
        """Transactions with a would-block attempt: SQL narrows to committed attempts that name a
        shadowed finding, :func:`~guard.audit.log.would_block` decides (one definition, no column)."""
        query = (
            select(transactions, commits.c.findings.label("attempt_findings"))
            .join(commits, commits.c.transaction_id == transactions.c.id)
            .where(
                commits.c.status == CommitStatus.COMMITTED.value,
                cast(commits.c.findings, Text).like('%"shadow"%'),
            )
            .order_by(desc(transactions.c.opened_at), transactions.c.id)
        )
        found: dict[str, TxnRecord] = {}
        async with self._engine.connect() as conn:
            for row in await conn.execute(query):
                if row.id not in found and would_block(CommitStatus.COMMITTED, row.attempt_findings):
                    found[row.id] = _txn(row)
                    if len(found) == limit:
                        break
        return list(found.values())

    async def get_transaction(self, transaction_id: str) -> TxnDetail | None:
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
            call_entries = tuple(_call(r) for r in call_rows)
            commit_entries = tuple(_commit(r) for r in commit_rows)
        return TxnDetail(_txn(found), call_entries, commit_entries)

    async def close(self) -> None:
        writer = self._writer
        if writer is not None:
            await asyncio.gather(writer, return_exceptions=True)
        if self._inline is not None:
            self._inline.close()
