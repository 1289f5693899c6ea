"""The conversation in the audit store (Requirement G44): migration 0004 on SQLite and PostgreSQL, from a log
written at 0003 and back, ``guard db upgrade`` from 0003, and ``guard transactions show`` printing the turns
as text (Requirement G28)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.audit.log import CallEntry, CommitEntry, TxnRecord
from guard.store.engine import create_engine
from guard.store.migrate import alembic_config, current_revision, head_revision, upgrade
from guard.store.sql_audit import SqlAudit
from guard.transaction.state import CommitStatus, Status
from judges import Decision
from tests.guard.test_cli import HOSTILE, SHOWN, guard, only_printable, write_config

NOW = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
BEFORE = "0003"


@pytest.fixture
async def engine(store: tuple[str, str | None]) -> AsyncIterator[AsyncEngine]:
    url, schema = store
    engine = create_engine(url, search_path=schema)
    yield engine
    await engine.dispose()


async def _old_rows(engine: AsyncEngine) -> None:
    """A transaction with a call and a commit attempt, as a guard at revision 0003 wrote them."""
    stamp = {"at": NOW}
    async with engine.begin() as conn:
        await conn.execute(
            text(
                "INSERT INTO guard_transactions (id, principal, instance, backend, status, opened_at, "
                "updated_at, calls, blocked_attempts) VALUES ('old-1', 'a', 'guard-1', 'shop', 'committed', "
                ":at, :at, 1, 0)"
            ),
            stamp,
        )
        await conn.execute(
            text(
                "INSERT INTO guard_calls (transaction_id, seq, tool, arguments, write, outcome, retries, "
                "latency_ms, started_at) VALUES ('old-1', 1, 'get_ticket', '{}', false, 'ok', 0, 1.0, :at)"
            ),
            stamp,
        )
        await conn.execute(
            text(
                "INSERT INTO guard_commits (transaction_id, attempt, via, decision, status, findings, "
                "effects, at, duration_ms) VALUES ('old-1', 1, 'tool', 'allow', 'committed', '[]', '[]', "
                ":at, 1.0)"
            ),
            stamp,
        )


async def _downgrade(engine: AsyncEngine, revision: str) -> None:
    config = alembic_config(engine.url.render_as_string(hide_password=False))

    def run(connection: Connection) -> None:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)

    async with engine.begin() as conn:
        await conn.run_sync(run)


async def test_migration_0004_adds_the_turns_to_a_log_written_before_it(engine: AsyncEngine) -> None:
    """Requirement G44, on both stores: rows written at 0003 read back with no turns (None: none handed
    over), new rows keep theirs, and the migration goes back to 0003 and forth again."""
    assert await upgrade(engine, BEFORE) == BEFORE
    await _old_rows(engine)
    assert await upgrade(engine) == head_revision()
    audit = SqlAudit(engine)
    try:
        old = await audit.get_transaction("old-1")
        assert old is not None
        assert (old.calls[0].turns, old.commits[0].turns, old.transaction.rollback_turns) == (
            None,
            None,
            None,
        )
        turns = [{"role": "user", "text": "yes"}]
        record = replace(old.transaction, id="new-1", rollback_turns=turns)
        await audit.open_transaction(record)
        await audit.record_call(replace(old.calls[0], transaction_id="new-1", turns=turns))
        await audit.record_commit(replace(old.commits[0], transaction_id="new-1", turns=[]), record)
        new = await audit.get_transaction("new-1")
        assert new is not None
        assert (new.calls[0].turns, new.commits[0].turns, new.transaction.rollback_turns) == (
            turns,
            [],
            turns,
        )
    finally:
        await audit.close()
    await _downgrade(engine, BEFORE)
    assert await current_revision(engine) == BEFORE
    assert await upgrade(engine) == head_revision()


async def test_guard_db_upgrade_takes_a_store_at_0003_to_0004(tmp_path: Path) -> None:
    """Requirement G44: ``guard db upgrade`` migrates a store an earlier guard made."""
    config = write_config(tmp_path)
    engine = create_engine(f"sqlite:///{tmp_path / 'audit.db'}")
    try:
        await upgrade(engine, BEFORE)
        await _old_rows(engine)
    finally:
        await engine.dispose()
    done = guard("db", "upgrade", "--config", str(config))
    assert done.returncode == 0, done.stderr
    assert f"is at revision {head_revision()}" in done.stdout
    shown = guard("transactions", "show", "old-1", "--config", str(config))
    assert shown.returncode == 0, shown.stderr
    assert "said before" not in shown.stdout


@pytest.fixture
async def talkative_log(tmp_path: Path) -> Path:
    """A migrated store with one rolled-back transaction whose turns are :data:`HOSTILE` (one redacted)."""
    config = write_config(tmp_path)
    engine = create_engine(f"sqlite:///{tmp_path / 'audit.db'}")
    audit = SqlAudit(engine)
    hostile = [{"role": "user", "text": HOSTILE}, {"role": "assistant", "text": f"{HOSTILE}\nsecond line"}]
    record = TxnRecord(
        id="t-1",
        principal="agent-a",
        instance="guard-1",
        backend="shop",
        status=Status.OPEN,
        opened_at=NOW,
        updated_at=NOW,
    )
    try:
        await upgrade(engine)
        await audit.open_transaction(record)
        for seq, turns in ((1, hostile), (2, [])):
            call = CallEntry(
                transaction_id="t-1",
                seq=seq,
                tool="update_ticket",
                arguments={},
                write=True,
                outcome="ok",
                error_class=None,
                error_message=None,
                retries=0,
                latency_ms=1.0,
                started_at=NOW,
                turns=turns,
            )
            await audit.record_call(call)
        attempt = CommitEntry(
            transaction_id="t-1",
            attempt=1,
            via="tool",
            decision=Decision.BLOCK,
            status=CommitStatus.BLOCKED,
            findings=[],
            effects=[],
            summary="s",
            at=NOW,
            turns=[{"role": "user", "text": "[redacted]", "length": 12}],
        )
        ended = replace(record, status=Status.ROLLED_BACK, closed_at=NOW, rollback_turns=hostile[:1])
        await audit.record_commit(attempt, ended)
    finally:
        await audit.close()
        await engine.dispose()
    return config


def test_transactions_show_prints_the_turns_as_text(talkative_log: Path) -> None:
    """Requirements G28, G44: each call's turns, each commit attempt's and the rollback's are printed where
    they were said, markup and terminal escapes shown and never interpreted, a line break as ``\\n``; a
    redacted turn as its role and length."""
    shown = guard("transactions", "show", "t-1", "--config", str(talkative_log), env={"COLUMNS": "400"})
    assert shown.returncode == 0, shown.stderr
    assert shown.stderr == ""
    assert only_printable(shown.stdout)
    lines = shown.stdout.splitlines()
    said = lines.index("   said before call #1 update_ticket:")
    assert lines[said + 1 : said + 3] == [f"     user: {SHOWN}", f"     assistant: {SHOWN}\\nsecond line"]
    assert "   said before call #2 update_ticket:" not in lines  # nothing said: not shown
    rollback = lines.index("   said before the rollback:")
    assert lines[rollback + 1] == f"     user: {SHOWN}"
    commit = lines.index("   said before this commit:")
    assert lines[commit + 1] == "     user: [redacted] (12 characters)"
