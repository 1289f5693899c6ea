"""The audit store's commit records on SQLite and on PostgreSQL: each attempt written whole, over what an
earlier write of the same attempt said, with the transaction's row, in one atomic write."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import event, select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.audit.log import CommitEntry, TxnRecord
from guard.store.engine import create_engine
from guard.store.migrate import upgrade
from guard.store.sql_audit import SqlAudit
from guard.store.tables import commits, transactions
from guard.transaction.state import CommitStatus, Status
from judges import Decision

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


@pytest.fixture
async def engine(store: tuple[str, str | None]) -> AsyncIterator[AsyncEngine]:
    url, schema = store
    engine = create_engine(url, search_path=schema)
    await upgrade(engine)
    yield engine
    await engine.dispose()


def _record(status: Status, **changes: object) -> TxnRecord:
    record = TxnRecord(
        id="t-1",
        principal="agent",
        instance="guard-1",
        backend="sql",
        status=status,
        opened_at=NOW,
        updated_at=NOW,
    )
    return replace(record, **changes)


def _attempt(attempt: int, status: CommitStatus, decision: Decision = Decision.ALLOW) -> CommitEntry:
    return CommitEntry(
        transaction_id="t-1",
        attempt=attempt,
        via="tool",
        decision=decision,
        status=status,
        findings=[],
        effects=[{"table": "tickets", "kind": "update", "key": attempt}],
        summary=f"attempt {attempt} {status.value}",
        at=NOW + timedelta(seconds=attempt),
        duration_ms=float(attempt),
    )


async def _rows(engine: AsyncEngine) -> tuple[list[tuple[object, ...]], tuple[object, ...]]:
    async with engine.connect() as conn:
        query = select(commits.c.attempt, commits.c.status, commits.c.summary, commits.c.decision)
        attempts = [tuple(r) for r in await conn.execute(query.order_by(commits.c.attempt))]
        txn = (await conn.execute(select(transactions.c.status, transactions.c.blocked_attempts))).one()
    return attempts, tuple(txn)


async def test_an_attempt_is_recorded_then_overwritten_by_its_end_with_the_transaction(
    engine: AsyncEngine,
) -> None:
    audit = SqlAudit(engine)
    try:
        await audit.open_transaction(_record(Status.OPEN))
        blocked = _attempt(1, CommitStatus.BLOCKED, Decision.BLOCK)
        await audit.record_commit(blocked, _record(Status.OPEN, blocked_attempts=1))
        committing = _record(Status.COMMITTING, blocked_attempts=1)
        await audit.record_commit(_attempt(2, CommitStatus.COMMITTING), committing)
        assert await _rows(engine) == (
            [
                (1, "blocked", "attempt 1 blocked", "block"),
                (2, "committing", "attempt 2 committing", "allow"),
            ],
            ("committing", 1),
        )
        # the end of attempt 2, and attempt 1 rewritten in the same write (as recovery settles several)
        settled = replace(blocked, summary="attempt 1 settled")
        done = _record(Status.COMMITTED, blocked_attempts=1, closed_at=NOW)
        statements: list[str] = []
        event.listen(engine.sync_engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
        await audit.record_commit(_attempt(2, CommitStatus.COMMITTED), done, settled, settled)
        # PostgreSQL: one autocommitted statement (one round trip); SQLite: the upsert, then the row
        written = [statement for statement in statements if statement != "BEGIN"]
        assert len(written) == (1 if engine.dialect.name == "postgresql" else 2), statements
        assert await _rows(engine) == (
            [
                (1, "blocked", "attempt 1 settled", "block"),
                (2, "committed", "attempt 2 committed", "allow"),
            ],
            ("committed", 1),
        )
    finally:
        await audit.close()


async def test_a_commit_record_that_cannot_be_written_changes_nothing(engine: AsyncEngine) -> None:
    """The attempt and the transaction's row are one write: an attempt of a transaction the log does not
    hold is refused (its foreign key), and neither row is touched."""
    audit = SqlAudit(engine)
    try:
        await audit.open_transaction(_record(Status.OPEN))
        stray = replace(_attempt(1, CommitStatus.COMMITTED), transaction_id="t-unknown")
        with pytest.raises(Exception, match=r"(?i)foreign key"):
            await audit.record_commit(_attempt(1, CommitStatus.COMMITTED), _record(Status.COMMITTED), stray)
        assert await _rows(engine) == ([], ("open", 0))
    finally:
        await audit.close()
        async with engine.connect() as conn:
            assert (await conn.execute(text("SELECT count(*) FROM guard_commits"))).scalar_one() == 0
