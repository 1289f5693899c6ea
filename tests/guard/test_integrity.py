"""The guard's own record after crashes and store failures, its limits, and its readiness (SQLite files).

A crash is played in process: the guard dies at a chosen point (an exception
no ``except Exception`` catches), its pinned connections are dropped without
a rollback and its instance name let go, as the operating system does for a
killed process; a second guard then starts on the same files. The real
SIGKILL campaign is ``perf/crash_campaign.py`` (a short run in
``tests/guard/test_crash_campaign.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider

from guard.audit.log import CommitEntry, TxnDetail, TxnRecord
from guard.backends.sql import SqlBackend, SqlSession
from guard.clock import FixedClock
from guard.errors import InstanceInUse, Refused
from guard.runtime import Runtime, build_runtime
from guard.settings import GuardSettings
from guard.store.migrate import upgrade
from guard.store.sql_audit import SqlAudit
from guard.transaction.replies import TxnKey
from tests.guard.conftest import crash, demo_settings, no_sleep, ticket_status


class Died(BaseException):
    """The guard process dying at this point."""


async def started(settings: GuardSettings, clock: FixedClock | None = None) -> Runtime:
    runtime = build_runtime(settings, clock=clock or FixedClock(), provider=TracerProvider(), sleep=no_sleep)
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    await runtime.start()
    return runtime


async def detail(runtime: Runtime, key: str) -> TxnDetail:
    found = await runtime.manager.audit.get_transaction(key)
    assert found is not None
    return found


def agent(key: str, principal: str = "agent-a") -> TxnKey:
    return TxnKey(key, principal)


@contextlib.contextmanager
def write_locked(path: Path) -> Iterator[None]:
    """Another process holding the SQLite file's one write lock."""
    db = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        db.execute("BEGIN IMMEDIATE")
        yield
        db.execute("ROLLBACK")
    finally:
        db.close()


@pytest.fixture
async def guard(settings: GuardSettings) -> AsyncIterator[Runtime]:
    runtime = await started(settings)
    try:
        yield runtime
    finally:
        await runtime.stop()


async def test_a_call_is_durable_in_the_log_before_its_reply(guard: Runtime, settings: GuardSettings) -> None:
    """Requirement G17: once a call is answered, its record is in the audit store (another reader sees it)."""
    reply = await guard.manager.call(agent("c-1"), "update_ticket", {"ticket_id": 21, "status": "pending"})
    assert not reply.is_error
    refused = await guard.manager.call(agent("c-1"), "update_ticket", {"ticket_id": "x", "status": "pending"})
    assert refused.is_error
    path = settings.audit.url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT seq, tool, outcome, error_class FROM guard_calls "
            "WHERE transaction_id = 'c-1' ORDER BY seq"
        ).fetchall()
    assert rows == [(1, "update_ticket", "ok", None), (2, "update_ticket", "error", "invalid_arguments")]


async def test_a_crash_after_the_decision_to_commit_and_before_commit_is_settled_aborted(
    settings: GuardSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requirements G3, G16: the decision stays in the log; the restart finds no commit mark: aborted."""
    first = await started(settings)
    await first.manager.call(agent("d-1"), "update_ticket", {"ticket_id": 21, "status": "solved"})

    async def dies(self: SqlSession) -> None:
        raise Died

    with monkeypatch.context() as patch:
        patch.setattr(SqlSession, "commit", dies)
        with pytest.raises(Died):
            await first.manager.commit(agent("d-1"), "solved the ticket")
    assert (await detail(first, "d-1")).transaction.status == "committing"
    await crash(first)
    second = await started(settings)
    try:
        found = await detail(second, "d-1")
        assert found.transaction.status == "aborted"
        assert "before the system of record committed; nothing was applied" in (
            found.transaction.close_reason or ""
        )
        (attempt,) = found.commits
        assert (attempt.decision, attempt.status, attempt.summary) == (
            "allow",
            "aborted",
            "solved the ticket",
        )
        assert [(e["table"], e["kind"]) for e in attempt.effects] == [("tickets", "update")]
        assert ticket_status(settings, 21) == "open"
    finally:
        await second.stop()


async def test_a_crash_after_commit_and_before_the_outcome_is_recorded_is_settled_committed(
    settings: GuardSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requirements G3, G16: committed rows are never audited as anything but committed."""
    first = await started(settings)
    await first.manager.call(agent("d-2"), "update_ticket", {"ticket_id": 21, "status": "solved"})
    record_commit = SqlAudit.record_commit

    async def dies_after(self: SqlAudit, entry: CommitEntry, record: TxnRecord) -> None:
        if entry.status != "committing":
            raise Died
        await record_commit(self, entry, record)

    with monkeypatch.context() as patch:
        patch.setattr(SqlAudit, "record_commit", dies_after)
        with pytest.raises(Died):
            await first.manager.commit(agent("d-2"), "solved")
    assert ticket_status(settings, 21) == "solved"
    await crash(first)
    second = await started(settings)
    try:
        found = await detail(second, "d-2")
        assert (found.transaction.status, [c.status for c in found.commits]) == ("committed", ["committed"])
        assert "the system of record has the commit" in (found.transaction.close_reason or "")
        backend = second.manager.backend
        assert isinstance(backend, SqlBackend)
        assert await backend.committed(["d-2"]) == set(), "the settled transaction's mark is dropped"
    finally:
        await second.stop()


async def test_an_audit_store_locked_during_a_commit_commits_nothing_and_frees_nothing_it_should_not(
    tmp_path: Path,
) -> None:
    """Requirement G16: a decision the log cannot record is not carried out; the agent may commit again."""
    settings = demo_settings(tmp_path, audit={"lock_timeout_s": 0.2})
    runtime = await started(settings)
    try:
        await runtime.manager.call(agent("l-1"), "update_ticket", {"ticket_id": 21, "status": "solved"})
        with write_locked(tmp_path / "audit.db"):
            reply = await runtime.manager.commit(agent("l-1"), "solved")
        assert reply.status == "blocked"
        assert "could not record its decision to commit" in reply.message
        assert reply.attempts_left == 3, "the guard's own failure is not one of the agent's attempts"
        assert ticket_status(settings, 21) == "open"
        assert runtime.manager.live("l-1") is not None
        assert (await detail(runtime, "l-1")).transaction.status == "open"
        again = await runtime.manager.commit(agent("l-1"), "solved")
        assert again.status == "committed"
        assert ticket_status(settings, 21) == "solved"
        assert runtime.manager.live_transactions == []
    finally:
        await runtime.stop()
    assert [c.status for c in (await logged_detail(settings)).commits] == ["committed"]


async def logged_detail(settings: GuardSettings, key: str = "l-1") -> TxnDetail:
    runtime = build_runtime(settings, clock=FixedClock(), provider=TracerProvider())
    assert runtime.audit_engine is not None
    try:
        found = await SqlAudit(runtime.audit_engine).get_transaction(key)
    finally:
        await runtime.audit_engine.dispose()
        await runtime.manager.backend.close()
    assert found is not None
    return found


async def test_a_call_the_log_cannot_record_is_not_answered_as_done(tmp_path: Path) -> None:
    """Requirement G17: the transaction is rolled back, the agent told, its slot freed, its end logged."""
    settings = demo_settings(tmp_path, audit={"lock_timeout_s": 0.2})
    runtime = await started(settings)
    try:
        await runtime.manager.call(agent("u-1"), "update_ticket", {"ticket_id": 20, "status": "hold"})
        with write_locked(tmp_path / "audit.db"):
            reply = await runtime.manager.call(
                agent("u-1"), "update_ticket", {"ticket_id": 21, "status": "pending"}
            )
            assert reply.is_error
            assert reply.ended
            assert (
                "could not record this call in its audit log, so it rolled back transaction u-1" in reply.text
            )
            assert runtime.manager.live_transactions == []
            assert runtime.manager.backlog == 1
            assert "audit" in await runtime.ready()
        await runtime.manager.reap()
        assert runtime.manager.backlog == 0
        found = await detail(runtime, "u-1")
        assert found.transaction.status == "aborted"
        assert "could not record call 2" in (found.transaction.close_reason or "")
        assert ticket_status(settings, 20) == "open"
    finally:
        await runtime.stop()


async def test_limits_refuse_clearly_change_nothing_and_leak_nothing(tmp_path: Path) -> None:
    """Requirement G20: open transactions per agent, calls and argument bytes per transaction."""
    settings = demo_settings(
        tmp_path,
        limits={
            "max_open_per_agent": 2,
            "max_calls_per_transaction": 3,
            "max_argument_bytes_per_transaction": 1024,
        },
    )
    runtime = await started(settings)
    manager = runtime.manager
    read = ("get_ticket", {"ticket_id": 20})
    try:
        for key in ("a-1", "a-2"):
            await manager.call(agent(key), *read)
        for _ in range(3):
            with pytest.raises(Refused, match=r"agent 'agent-a' has 2 open transactions, the limit is 2"):
                await manager.call(agent("a-3"), *read)
        assert len(manager._opening) == 0, "a refused open leaves no lock behind"
        assert not (await manager.call(agent("b-1", "agent-b"), *read)).is_error
        await manager.rollback(agent("a-2"), "done")
        assert not (await manager.call(agent("a-3"), *read)).is_error, "the refused key was not used up"

        for _ in range(2):
            await manager.call(agent("a-1"), *read)
        over = await manager.call(agent("a-1"), *read)
        assert over.is_error
        assert "has made 3 calls, the limit is 3" in over.text
        assert "Commit or roll back this transaction" in over.text

        ticket = {"order_id": "ORD-10000021", "subject": "x" * 490}
        assert not (await manager.call(agent("b-1", "agent-b"), "create_ticket", ticket)).is_error
        big = await manager.call(agent("b-1", "agent-b"), "create_ticket", ticket)
        assert big.is_error
        assert "the limit is 1024 (limits.max_argument_bytes_per_transaction)" in big.text
        state = manager.live("b-1")
        assert state is not None
        assert state.calls == 2
        logged = (await detail(runtime, "b-1")).calls[-1]
        assert logged.arguments == ticket
        assert (logged.outcome, logged.error_class) == ("error", "precondition_failed")
    finally:
        await runtime.stop()


async def test_idle_connections_return_to_a_bounded_pool(tmp_path: Path) -> None:
    """Requirement G20: a burst of transactions may open up to ``backend.max_open_transactions``
    connections, but once they end only ``backend.idle_connections`` stay open (1,000 rolled-back SQLite
    transactions left 1,000 connections, each with its temporary triggers)."""
    settings = demo_settings(
        tmp_path,
        backend={"max_open_transactions": 40, "idle_connections": 3},
        limits={"max_open_per_agent": 40},
    )
    runtime = await started(settings)
    manager = runtime.manager
    try:
        keys = [agent(f"burst-{n}") for n in range(25)]
        replies = await asyncio.gather(*(manager.call(key, "get_ticket", {"ticket_id": 20}) for key in keys))
        assert not any(reply.is_error for reply in replies)
        assert len(manager.live_transactions) == 25, "the burst held 25 connections at once"
        for key in keys:
            await manager.rollback(key, "done")
        backend = manager.backend
        assert isinstance(backend, SqlBackend)
        assert backend.engine.sync_engine.pool.checkedin() == 3  # type: ignore[attr-defined]
    finally:
        await runtime.stop()


async def test_a_failed_begin_does_not_use_up_the_key(
    guard: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requirement G29: an open the backend refuses records nothing; the same key opens once it answers."""
    backend = guard.manager.backend
    assert isinstance(backend, SqlBackend)
    begin = backend.begin
    failures = iter([ConnectionRefusedError("the system of record is down")])

    async def flaky(transaction_id: str) -> SqlSession:
        for failure in failures:
            raise failure
        return await begin(transaction_id)

    monkeypatch.setattr(backend, "begin", flaky)
    with pytest.raises(Exception, match="could not open transaction k-1: the backend is unavailable"):
        await guard.manager.call(agent("k-1"), "get_ticket", {"ticket_id": 20})
    assert await guard.manager.audit.status_of("k-1") is None
    assert not (await guard.manager.call(agent("k-1"), "get_ticket", {"ticket_id": 20})).is_error


async def test_readiness_takes_the_write_path_of_a_read_only_backend(tmp_path: Path) -> None:
    """Requirement G29: a system of record that cannot take a write is not ready, whatever SELECT 1 says."""
    writable = await started(demo_settings(tmp_path))
    assert await writable.ready() == {}
    await writable.stop()
    path = tmp_path / "shop.db"
    read_only = demo_settings(
        tmp_path, backend={"url": f"sqlite:///file:{path}?mode=ro&uri=true", "prepare": False}
    )
    runtime = await started(read_only)
    try:
        problems = await runtime.ready()
        assert "readonly" in problems.get("backend", ""), problems
    finally:
        await runtime.stop()


async def test_a_busy_sqlite_backend_is_still_ready(guard: Runtime) -> None:
    """Requirement G29: an open write transaction holding SQLite's lock does not make the guard unready."""
    await guard.manager.call(agent("w-1"), "update_ticket", {"ticket_id": 21, "status": "pending"})
    assert await guard.ready() == {}


async def test_a_second_process_under_a_live_instance_name_is_refused(tmp_path: Path) -> None:
    """Requirement G23: it refuses to start and touches nothing; a crashed holder's name frees at once."""
    settings = demo_settings(tmp_path)
    first = await started(settings)
    await first.manager.call(agent("live-1"), "update_ticket", {"ticket_id": 21, "status": "pending"})
    second = build_runtime(settings, clock=FixedClock(), provider=TracerProvider(), sleep=no_sleep)
    with pytest.raises(InstanceInUse, match=r"instance 'guard-1' is held by another process"):
        await second.start()
    assert (await detail(first, "live-1")).transaction.status == "open"
    assert (await first.manager.commit(agent("live-1"), "pending")).status == "committed"
    other = await started(demo_settings(tmp_path, server={"instance": "guard-2"}))
    await other.stop()
    await crash(first)
    third = await started(settings)
    await third.stop()


@pytest.mark.parametrize(
    ("chain", "named"),
    [
        ([{"judge": "rules", "path": "typo.yaml"}], "judge typo names 'tickts'"),
        (
            [
                {
                    "judge": "non_terminal_status",
                    "tables": {"ticket": {"field": "status", "terminal": ["solved"]}},
                }
            ],
            "judge non_terminal_status names 'ticket'",
        ),
    ],
)
async def test_a_judge_over_a_table_the_backend_lacks_is_refused_at_start(
    tmp_path: Path, chain: list[dict[str, Any]], named: str
) -> None:
    """Requirement G26: a rule that could never fire (its table is not the backend's) stops the start."""
    (tmp_path / "typo.yaml").write_text(
        "name: typo\nrules:\n  - id: no-solved\n    when: {table: tickts, kind: update}\n"
        "    require: effect.after.status != 'solved'\n    decision: block\n    message: 'not solved'\n"
    )
    settings = demo_settings(tmp_path, judges={"chain": chain, "base_dir": str(tmp_path)})
    runtime = build_runtime(settings, clock=FixedClock(), provider=TracerProvider())
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    with pytest.raises(Exception, match=named) as raised:
        await runtime.start()
    assert "(it has orders, shipments, tickets)" in str(raised.value)
