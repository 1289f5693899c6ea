"""The guard on a real PostgreSQL server: isolation between transactions, lock conflicts, the audit store."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from sqlalchemy import text

from guard.clock import FixedClock
from guard.runtime import Runtime, build_runtime
from guard.settings import GuardSettings
from guard.store.engine import create_engine
from guard.store.migrate import upgrade
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
    """Requirements G6, G7: transactions are isolated; a lock conflict is retried, reported, never hung."""
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
        assert (
            "temporarily unavailable (transient, 3 attempts); nothing was changed" in conflict.content[0].text
        )  # type: ignore[union-attr]
        assert elapsed < 10, "a lock conflict must end within the lock timeout times the attempts"
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
        ("update_ticket", "error", "transient", 2),
        ("update_ticket", "ok", None, 0),
    ]


async def test_a_lock_conflict_that_clears_is_retried_to_success(
    postgres_url: str, postgres_schema: str
) -> None:
    """Requirement G7: the call's savepoint is rolled back and the call retried; the retry succeeds."""
    holder: dict[str, Runtime] = {}
    released: list[str] = []

    async def release_on_first_backoff(seconds: float) -> None:
        if not released:
            released.append("pa")
            async with agent_client(holder["rt"]) as other:
                reply = body(await other.call_tool("guard_commit", {"summary": "a"}, meta=meta("pa")))
                assert reply["status"] == "committed"

    runtime = await start(pg_settings(postgres_url, postgres_schema), release_on_first_backoff)
    holder["rt"] = runtime
    try:
        async with agent_client(runtime) as agent:
            await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "pending"}, meta=meta("pa"))
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


async def test_audit_store_migrates_on_postgres(
    postgres_url: str, postgres_schema: str, tmp_path: Path
) -> None:
    engine = create_engine(postgres_url, search_path=postgres_schema)
    try:
        assert await upgrade(engine) == "0002"
        assert await upgrade(engine) == "0002"
    finally:
        await engine.dispose()
