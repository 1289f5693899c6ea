"""The guard on a real PostgreSQL server: isolation between transactions, lock conflicts, the audit store."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from sqlalchemy import text

from guard.backends.sql import SqlSession
from guard.clock import FixedClock
from guard.errors import InstanceInUse, TransactionClosed
from guard.runtime import Runtime, build_runtime
from guard.settings import GuardSettings
from guard.store.engine import create_engine
from guard.store.migrate import head_revision, upgrade
from guard.store.sql_lease import hold_setup_lock
from guard.transaction.replies import TxnKey
from tests.guard.conftest import agent_client, meta

pytestmark = pytest.mark.postgres


def pg_settings(postgres_url: str, schema: str) -> GuardSettings:
    return GuardSettings.model_validate(
        {
            "backend": {
                "module": "guard.demo.backend",
                "url": postgres_url,
                "search_path": schema,
                "prepare": True,
                "lock_timeout_s": 0.3,
            },
            "audit": {"url": postgres_url, "search_path": schema},
            "commit": {"reap_interval_s": 3600},
            "retry": {"max_attempts": 3, "initial_backoff_s": 0, "max_backoff_s": 0, "jitter_s": 0},
        }
    )


async def start(settings: GuardSettings, sleep: Callable[[float], Awaitable[None]]) -> Runtime:
    runtime = build_runtime(settings, clock=FixedClock(), sleep=sleep)
    await upgrade(runtime.audit_engine)
    await runtime.start()
    return runtime


async def committed_status(settings: GuardSettings, ticket_id: int) -> str:
    engine = create_engine(settings.backend.url, search_path=settings.backend.search_path)
    try:
        async with engine.connect() as conn:
            value = (
                await conn.execute(text("SELECT status FROM tickets WHERE id = :i"), {"i": ticket_id})
            ).scalar_one()
    finally:
        await engine.dispose()
    return str(value)


def body(result: types.CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


async def no_sleep(seconds: float) -> None:
    return None


@pytest.fixture
async def runtime(postgres_url: str, postgres_schema: str) -> AsyncIterator[Runtime]:
    rt = await start(pg_settings(postgres_url, postgres_schema), no_sleep)
    yield rt
    await rt.stop()


async def test_uncommitted_rows_are_invisible_and_a_lock_conflict_is_reported(runtime: Runtime) -> None:
    """Requirements G6, G24: transactions are isolated; a lock another transaction holds is named at once."""
    settings = runtime.settings
    async with agent_client(runtime) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "pending"}, meta=meta("pa"))
        seen = body(await agent.call_tool("get_ticket", {"ticket_id": 21}, meta=meta("pb")))
        assert seen["status"] == "open"
        assert await committed_status(settings, 21) == "open"
        started = time.monotonic()
        conflict = await agent.call_tool(
            "update_ticket", {"ticket_id": 21, "status": "hold"}, meta=meta("pb")
        )
        elapsed = time.monotonic() - started
        assert conflict.is_error is True
        text_ = conflict.content[0].text  # type: ignore[union-attr]
        assert "locked by another open transaction, transaction pa (open " in text_
        assert "nothing was changed" in text_
        assert elapsed < 10, "a lock conflict must end within the lock timeout"
        assert (
            body(await agent.call_tool("guard_commit", {"summary": "a"}, meta=meta("pa")))["status"]
            == "committed"
        )
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "hold"}, meta=meta("pb"))
        reply = body(await agent.call_tool("guard_commit", {"summary": "b"}, meta=meta("pb")))
        assert reply["status"] == "committed"
        assert reply["effects"][0]["before"]["status"] == "pending"
    assert await committed_status(settings, 21) == "hold"
    detail = await runtime.manager.audit.get_transaction("pb")
    assert detail is not None
    assert [(c.tool, c.outcome, c.error_class, c.retries) for c in detail.calls] == [
        ("get_ticket", "ok", None, 0),
        ("update_ticket", "error", "conflict", 0),
        ("update_ticket", "ok", None, 0),
    ]


async def test_a_lock_conflict_that_clears_is_retried_to_success(
    postgres_url: str, postgres_schema: str
) -> None:
    """Requirement G7: a lock another application holds is waited out: savepoint rolled back, call retried."""
    settings = pg_settings(postgres_url, postgres_schema)
    outside = create_engine(postgres_url, search_path=postgres_schema)
    holder = await outside.connect()
    released: list[str] = []

    async def release_on_first_backoff(seconds: float) -> None:
        if not released:
            released.append("outside")
            await holder.commit()

    runtime = await start(settings, release_on_first_backoff)
    try:
        await holder.execute(text("SELECT status FROM tickets WHERE id = 20 FOR UPDATE"))
        async with agent_client(runtime) as agent:
            result = await agent.call_tool(
                "update_ticket", {"ticket_id": 20, "status": "hold"}, meta=meta("pb")
            )
            assert result.is_error is False
            assert (
                body(await agent.call_tool("guard_commit", {"summary": "b"}, meta=meta("pb")))["status"]
                == "committed"
            )
        detail = await runtime.manager.audit.get_transaction("pb")
        assert detail is not None
        assert detail.calls[0].retries == 1
        assert await committed_status(runtime.settings, 20) == "hold"
    finally:
        await runtime.stop()
        await holder.close()
        await outside.dispose()


async def test_audit_store_migrates_on_postgres(
    postgres_url: str, postgres_schema: str, tmp_path: Path
) -> None:
    engine = create_engine(postgres_url, search_path=postgres_schema)
    try:
        assert await upgrade(engine) == head_revision()
        assert await upgrade(engine) == head_revision()
    finally:
        await engine.dispose()


async def test_a_pooled_connection_the_server_dropped_is_replaced_on_checkout(
    postgres_url: str, postgres_schema: str
) -> None:
    """A restart or an operator's pg_terminate_backend: the next user of the pool never sees the dead link."""
    engine = create_engine(postgres_url, search_path=postgres_schema, pool_size=1)
    killer = create_engine(postgres_url)
    try:
        async with engine.connect() as conn:
            first = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        async with killer.connect() as conn:
            assert (
                await conn.execute(text("SELECT pg_terminate_backend(:p)"), {"p": first})
            ).scalar() is True
        async with engine.begin() as conn:
            second = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        assert second != first
    finally:
        await engine.dispose()
        await killer.dispose()


async def test_replicas_starting_together_on_a_fresh_schema_all_start(
    postgres_url: str, postgres_schema: str
) -> None:
    """Each replica creates the demo's tables, capture functions and triggers: one at a time, none fails."""
    settings = pg_settings(postgres_url, postgres_schema)
    replicas = [
        build_runtime(
            settings.model_copy(
                update={"server": settings.server.model_copy(update={"instance": f"guard-{n}"})}
            ),
            clock=FixedClock(),
            sleep=no_sleep,
        )
        for n in range(1, 5)
    ]
    await upgrade(replicas[0].audit_engine)
    try:
        await asyncio.gather(*(replica.start() for replica in replicas))
        replies = [
            await replica.manager.call(TxnKey(f"read-{n}", "agent-a"), "get_ticket", {"ticket_id": 20})
            for n, replica in enumerate(replicas)
        ]
        assert [reply.is_error for reply in replies] == [False] * 4
    finally:
        for replica in replicas:
            await replica.stop()


async def test_a_replica_waits_out_a_slow_setup_past_the_tools_lock_timeout(postgres_url: str) -> None:
    """The setup lock waits longer than ``lock_timeout_s`` (a loaded machine's DDL), then gives it back."""
    holder_engine = create_engine(postgres_url)
    waiter_engine = create_engine(postgres_url, lock_timeout_s=0.3, statement_timeout_s=0.4)
    try:
        async with holder_engine.begin() as holder, waiter_engine.begin() as waiter:
            await hold_setup_lock(holder)
            waiting = asyncio.create_task(hold_setup_lock(waiter))
            await asyncio.sleep(1.0)  # three of the waiter's lock timeouts
            assert not waiting.done()
            await holder.commit()
            await asyncio.wait_for(waiting, 10)
            assert (await waiter.execute(text("SHOW lock_timeout"))).scalar_one() == "300ms"
            assert (await waiter.execute(text("SHOW statement_timeout"))).scalar_one() == "400ms"
    finally:
        await holder_engine.dispose()
        await waiter_engine.dispose()


async def terminate(settings: GuardSettings, pid: int) -> None:
    """The database drops one connection, as a restart does for all of them."""
    engine = create_engine(settings.backend.url, search_path=settings.backend.search_path)
    try:
        async with engine.connect() as conn:
            assert (await conn.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid})).scalar() is True
    finally:
        await engine.dispose()


def server_pid(runtime: Runtime, key: str) -> int:
    session = runtime.manager._live[key].session  # which server process holds it: what an operator looks up
    assert isinstance(session, SqlSession)
    assert session.server_pid is not None
    return session.server_pid


async def test_a_transaction_whose_connection_died_is_reported_lost_and_audited(runtime: Runtime) -> None:
    """Requirement G21: the agent is told to start over (on a call and on commit); the log says aborted."""
    manager = runtime.manager
    for key in ("lost-1", "lost-2"):
        await manager.call(TxnKey(key, "agent-a"), "update_ticket", {"ticket_id": 21, "status": "pending"})
        if key == "lost-1":
            await manager.commit(TxnKey(key, "agent-a"), "parked")
    assert await committed_status(runtime.settings, 21) == "pending"
    await manager.call(TxnKey("lost-3", "agent-a"), "update_ticket", {"ticket_id": 20, "status": "hold"})
    await terminate(runtime.settings, server_pid(runtime, "lost-2"))
    await terminate(runtime.settings, server_pid(runtime, "lost-3"))

    reply = await manager.call(TxnKey("lost-2", "agent-a"), "get_ticket", {"ticket_id": 20})
    assert reply.is_error
    assert reply.ended
    assert "transaction lost-2 is lost: its database connection broke" in reply.text
    assert "earlier calls included; nothing was committed. Start a new transaction" in reply.text
    committed = await manager.commit(TxnKey("lost-3", "agent-a"), "on hold")
    assert committed.status == "aborted"
    assert "transaction lost-3 is lost" in committed.message
    assert manager.live_transactions == []
    for key in ("lost-2", "lost-3"):
        found = await manager.audit.get_transaction(key)
        assert found is not None
        assert found.transaction.status == "aborted"
        assert (found.transaction.close_reason or "").startswith("lost: its database connection broke")
        with pytest.raises(
            TransactionClosed, match=f"transaction {key} is aborted; use a new transaction key"
        ):
            await manager.call(TxnKey(key, "agent-a"), "get_ticket", {"ticket_id": 20})
    assert await committed_status(runtime.settings, 20) == "open"
    assert not (await manager.call(TxnKey("lost-4", "agent-a"), "get_ticket", {"ticket_id": 20})).is_error


async def test_a_second_guard_under_a_live_instance_name_is_refused(
    postgres_url: str, postgres_schema: str
) -> None:
    """Requirement G23: the advisory lock names the live holder; another name, or this one stopped, starts."""
    settings = pg_settings(postgres_url, postgres_schema)
    first = await start(settings, no_sleep)
    try:
        await first.manager.call(
            TxnKey("keep-1", "agent-a"), "update_ticket", {"ticket_id": 21, "status": "hold"}
        )
        second = build_runtime(settings, clock=FixedClock(), sleep=no_sleep)
        with pytest.raises(
            InstanceInUse, match=r"instance 'guard-1' is live in another process: process \d+ on "
        ):
            await second.start()
        found = await first.manager.audit.get_transaction("keep-1")
        assert found is not None
        assert found.transaction.status == "open"
        other = settings.model_copy(
            update={"server": settings.server.model_copy(update={"instance": "guard-2"})}
        )
        await (await start(other, no_sleep)).stop()
    finally:
        await first.stop()
    await (await start(settings, no_sleep)).stop()
