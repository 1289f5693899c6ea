"""Requirements G3, G13 and G16: after a crash, the log's unsettled transactions are settled by looking.

:func:`settle` is the pure rule; :func:`settle_interrupted` drives it over the
in-memory audit log and a real ``sql`` backend on a SQLite file whose commit
marks the test writes as a crashed guard would have; :func:`record_recovered`
records what a backend finished after the crash.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

import pytest
from sqlalchemy import MetaData

from guard.audit.log import CommitEntry, MemoryAudit, TxnRecord
from guard.backends.base import UpstreamReport
from guard.backends.sql import SqlBackend
from guard.clock import FixedClock
from guard.store import marks
from guard.store.engine import create_engine
from guard.tools import ToolRegistry
from guard.transaction.recovery import record_recovered, settle, settle_interrupted
from guard.transaction.state import CommitStatus, Status
from judges import Decision

OPENED = datetime(2026, 12, 5, 0, 0, tzinfo=UTC)
RESTART = OPENED + timedelta(minutes=5)
EFFECT = {"table": "tickets", "kind": "update", "key": 1}


def _record(ident: str, status: Status, instance: str = "guard-1") -> TxnRecord:
    return replace(
        TxnRecord.opened(ident, "agent-a", instance, "sql", OPENED), status=status, summary=f"{ident} work"
    )


def _intent(ident: str, attempt: int = 1, effects: list[dict[str, object]] | None = None) -> CommitEntry:
    """The decision to commit, as the log writes it before the system of record commits."""
    return CommitEntry(
        transaction_id=ident,
        attempt=attempt,
        via="tool",
        decision=Decision.ALLOW,
        status=CommitStatus.COMMITTING,
        findings=[],
        effects=[EFFECT] if effects is None else effects,
        summary=f"{ident} work",
        at=OPENED + timedelta(seconds=attempt),
    )


async def _log(audit: MemoryAudit, record: TxnRecord, *attempts: CommitEntry) -> None:
    await audit.open_transaction(record)
    for attempt in attempts:
        await audit.record_commit(attempt, record)


@pytest.fixture
async def backend(tmp_path: Path) -> AsyncIterator[SqlBackend]:
    """A started ``sql`` backend (no tools) on a SQLite file: its commit marks are installed."""
    made = SqlBackend(
        create_engine(f"sqlite:///{tmp_path / 'record.db'}"),
        ToolRegistry("recovery"),
        FixedClock(RESTART),
        metadata=MetaData(),
        instance="guard-1",
    )
    await made.start()
    yield made
    await made.close()


async def _committed_by_the_crashed_guard(backend: SqlBackend, *ids: str) -> None:
    async with backend.engine.begin() as conn:
        for ident in ids:
            await conn.execute(marks.mark(ident, "guard-1", OPENED))


async def _commit_statuses(audit: MemoryAudit, ident: str) -> list[CommitStatus]:
    detail = await audit.get_transaction(ident)
    assert detail is not None
    return [c.status for c in detail.commits]


def test_settle_ends_an_open_transaction_aborted_without_an_attempt() -> None:
    """Requirement G3: a transaction that never reached its commit was discarded by the database."""
    for status in (Status.OPEN, Status.PENDING_APPROVAL):
        ended, attempt = settle(_record("t", status), None, True, RESTART)
        assert (ended.status, ended.closed_at, ended.updated_at, attempt) == (
            Status.ABORTED,
            RESTART,
            RESTART,
            None,
        )
        assert ended.close_reason == (
            "the guard stopped with the transaction open; the database discarded its changes"
        )


def test_settle_ends_a_committing_transaction_by_whether_it_was_applied() -> None:
    """Requirement G16: applied, the transaction and its decided attempt end committed; not applied,
    both end aborted; the attempt keeps its decision and effects either way."""
    record, intent = _record("t", Status.COMMITTING), _intent("t")
    ended, attempt = settle(record, intent, True, RESTART)
    assert ended.status is Status.COMMITTED
    assert attempt == replace(intent, status=CommitStatus.COMMITTED)
    assert (ended.close_reason or "").startswith("committed: the guard stopped before recording")
    ended, attempt = settle(record, intent, False, RESTART)
    assert ended.status is Status.ABORTED
    assert attempt == replace(intent, status=CommitStatus.ABORTED)
    assert (ended.close_reason or "").endswith("nothing was applied")


def test_settle_counts_a_decided_commit_of_no_effects_as_committed() -> None:
    """Requirement G16: with nothing to apply, no mark is needed for the commit to be complete."""
    ended, attempt = settle(_record("t", Status.COMMITTING), _intent("t", effects=[]), False, RESTART)
    assert ended.status is Status.COMMITTED
    assert attempt is not None
    assert attempt.status is CommitStatus.COMMITTED


def test_settle_without_an_intent_on_record_follows_the_mark() -> None:
    """Requirement G16: a committing transaction whose attempt the log lacks ends by its mark alone."""
    record = _record("t", Status.COMMITTING)
    assert [settle(record, None, applied, RESTART)[0].status for applied in (True, False)] == [
        Status.COMMITTED,
        Status.ABORTED,
    ]
    assert settle(record, None, True, RESTART)[1] is None


async def test_committing_transactions_settle_by_their_marks(backend: SqlBackend) -> None:
    """Requirement G16: a marked committing transaction ends committed, an unmarked one aborted, each
    with its decided attempt; an open one aborted; the marks of the applied ones are then forgotten."""
    audit = MemoryAudit()
    await _log(audit, _record("applied", Status.COMMITTING), _intent("applied"))
    await _log(audit, _record("lost", Status.COMMITTING), _intent("lost"))
    await _log(audit, _record("open", Status.OPEN))
    await _committed_by_the_crashed_guard(backend, "applied")

    settled = await settle_interrupted(audit, backend, "guard-1", RESTART)

    assert {r.id: r.status for r in settled} == {
        "applied": Status.COMMITTED,
        "lost": Status.ABORTED,
        "open": Status.ABORTED,
    }
    assert {ident: r.status for ident, r in audit.transactions.items()} == {
        "applied": Status.COMMITTED,
        "lost": Status.ABORTED,
        "open": Status.ABORTED,
    }
    assert await _commit_statuses(audit, "applied") == [CommitStatus.COMMITTED]
    assert await _commit_statuses(audit, "lost") == [CommitStatus.ABORTED]
    assert await _commit_statuses(audit, "open") == []
    assert await audit.unsettled("guard-1") == []
    assert await marks.marked(backend.engine, ["applied"]) == set()


async def test_only_the_last_decided_attempt_takes_the_outcome(backend: SqlBackend) -> None:
    """Requirement G16: earlier attempts (a blocked one) keep their outcome; the committing one settles."""
    audit = MemoryAudit()
    blocked = replace(_intent("t", 1), decision=Decision.BLOCK, status=CommitStatus.BLOCKED)
    await _log(audit, _record("t", Status.COMMITTING), blocked, _intent("t", 2))
    await _committed_by_the_crashed_guard(backend, "t")
    await settle_interrupted(audit, backend, "guard-1", RESTART)
    assert await _commit_statuses(audit, "t") == [CommitStatus.BLOCKED, CommitStatus.COMMITTED]


async def test_settling_leaves_other_instances_and_settled_transactions_alone(backend: SqlBackend) -> None:
    """Requirement G16: recovery is per instance; what the log has settled stays as it is."""
    audit = MemoryAudit()
    await _log(audit, _record("theirs", Status.COMMITTING, instance="guard-2"), _intent("theirs"))
    await _log(audit, _record("done", Status.ROLLED_BACK))
    await _committed_by_the_crashed_guard(backend, "theirs")
    before = dict(audit.transactions)

    assert await settle_interrupted(audit, backend, "guard-1", RESTART) == []

    assert audit.transactions == before
    assert await marks.marked(backend.engine, ["theirs"]) == {"theirs"}


async def test_settling_only_some_and_skipping_others(backend: SqlBackend) -> None:
    """Requirement G16: ``only`` and ``skip`` bound what is settled; the marks of the others are kept."""
    audit = MemoryAudit()
    for ident in ("a", "b", "c"):
        await _log(audit, _record(ident, Status.COMMITTING), _intent(ident))
    await _committed_by_the_crashed_guard(backend, "a", "b", "c")

    settled = await settle_interrupted(audit, backend, "guard-1", RESTART, only={"a", "b"}, skip={"b"})

    assert [r.id for r in settled] == ["a"]
    assert {ident: r.status for ident, r in audit.transactions.items()} == {
        "a": Status.COMMITTED,
        "b": Status.COMMITTING,
        "c": Status.COMMITTING,
    }
    assert await marks.marked(backend.engine, ["a", "b", "c"]) == {"b", "c"}


def _report(ident: str, action: Literal["commit", "rollback"], complete: bool) -> UpstreamReport:
    writes = ({"seq": 1, "tool": "create_ticket", "outcome": "applied"},)
    return UpstreamReport(ident, action, complete, writes, f"{action} of {ident} finished")


@pytest.mark.parametrize(("complete", "status"), [(True, Status.COMMITTED), (False, Status.PARTIAL)])
async def test_a_commit_finished_after_the_crash_is_recorded_via_recovery(
    complete: bool, status: Status
) -> None:
    """Requirement G13: a finished commit becomes an attempt ``via recovery`` with what it dispatched;
    the interrupted attempt takes the same outcome and the transaction ends committed or partial."""
    audit = MemoryAudit()
    await _log(audit, _record("t", Status.COMMITTING), _intent("t"))
    clock = FixedClock(RESTART)

    await record_recovered(audit, [_report("t", "commit", complete)], clock, "guard-2")

    detail = await audit.get_transaction("t")
    assert detail is not None
    assert detail.transaction.status is status
    assert detail.transaction.closed_at == RESTART
    assert (
        detail.transaction.close_reason
        == "commit finished by guard-2 after an interruption: commit of t finished"
    )
    interrupted, recovered = detail.commits
    assert interrupted.status is CommitStatus(status.value)
    assert (recovered.attempt, recovered.via, recovered.status, recovered.summary, recovered.at) == (
        2,
        "recovery",
        CommitStatus(status.value),
        "t work",
        RESTART,
    )
    assert recovered.dispatch == [{"seq": 1, "tool": "create_ticket", "outcome": "applied"}]


async def test_a_rollback_finished_after_the_crash_adds_to_the_close_reason() -> None:
    """Requirement G13: a rollback's report is appended to why the transaction ended; no attempt added."""
    audit = MemoryAudit()
    aborted = replace(_record("t", Status.ABORTED), close_reason="the guard stopped")
    await _log(audit, aborted)

    await record_recovered(audit, [_report("t", "rollback", False)], FixedClock(RESTART), "guard-1")

    detail = await audit.get_transaction("t")
    assert detail is not None
    assert detail.transaction.status is Status.ABORTED
    assert detail.transaction.close_reason == "the guard stopped; rollback of t finished"
    assert detail.commits == ()


async def test_a_report_of_a_transaction_the_log_lacks_records_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Requirement G13: an unknown transaction is logged as a warning; the audit log is untouched."""
    audit = MemoryAudit()
    await record_recovered(audit, [_report("ghost", "commit", True)], FixedClock(RESTART), "guard-1")
    assert audit.transactions == {}
    assert audit.commits == {}
    assert "recovered transaction ghost is not in the audit log" in caplog.text
