"""Two replicas on one audit log: a key's transaction is the replica's that opened it (Requirement G33).

Each test starts two runtimes with their own instance names over one system of record and one
audit log: SQLite files for the fast case, one PostgreSQL schema for the deployment's.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from guard.errors import HeldElsewhere, TransactionClosed
from guard.runtime import Runtime, build_runtime
from guard.settings import GuardSettings
from guard.store.migrate import upgrade
from guard.transaction.replies import TxnKey
from tests.guard.conftest import agent_client, demo_settings, meta, no_sleep
from tests.guard.test_postgres import pg_settings


async def _start(settings: GuardSettings, instance: str) -> Runtime:
    named = settings.model_copy(update={"server": settings.server.model_copy(update={"instance": instance})})
    runtime = build_runtime(named, sleep=no_sleep)
    await upgrade(runtime.audit_engine)
    await runtime.start()
    return runtime


async def _pair(settings: GuardSettings) -> AsyncIterator[tuple[Runtime, Runtime]]:
    first = await _start(settings, "guard-1")
    second = await _start(settings, "guard-2")
    try:
        yield first, second
    finally:
        await second.stop()
        await first.stop()


@pytest.fixture
async def replicas(tmp_path: Path) -> AsyncIterator[tuple[Runtime, Runtime]]:
    async for pair in _pair(demo_settings(tmp_path)):
        yield pair


@pytest.fixture
async def pg_replicas(postgres_url: str, postgres_schema: str) -> AsyncIterator[tuple[Runtime, Runtime]]:
    async for pair in _pair(pg_settings(postgres_url, postgres_schema)):
        yield pair


def _text(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


async def _call(runtime: Runtime, key: str, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
    async with agent_client(runtime) as agent:
        return await agent.call_tool(tool, arguments, meta=meta(key))


async def _refused_by_second(first: Runtime, second: Runtime) -> None:
    opened = await _call(first, "k-own", "update_ticket", {"ticket_id": 21, "status": "pending"})
    assert not opened.is_error

    for tool, arguments in (
        ("get_ticket", {"ticket_id": 21}),
        ("update_ticket", {"ticket_id": 21, "status": "solved"}),
        (second.manager.commit_tool, {"summary": "done"}),
    ):
        refused = await _call(second, "k-own", tool, arguments)
        assert refused.is_error, tool
        assert "held by replica guard-1" in _text(refused)
        assert "Guard-Transaction" in _text(refused)
        assert "/mcp/t/k-own" in _text(refused)

    assert second.manager.live("k-own") is None
    owner = await second.manager.audit.owner_of("k-own")
    assert owner is not None
    assert owner.instance == "guard-1"
    detail = await first.manager.audit.get_transaction("k-own")
    assert detail is not None
    assert [c.tool for c in detail.calls] == ["update_ticket"]

    committed = await _call(first, "k-own", first.manager.commit_tool, {"summary": "ticket 21 pending"})
    assert not committed.is_error
    # once it has ended, the key is spent everywhere: "use a new key", not "held by"
    after = await _call(second, "k-own", "get_ticket", {"ticket_id": 21})
    assert after.is_error
    assert "use a new transaction key" in _text(after)


async def test_a_key_open_on_another_replica_is_refused_naming_it(replicas: tuple[Runtime, Runtime]) -> None:
    """Requirement G33: the second replica opens nothing and names the first."""
    await _refused_by_second(*replicas)


@pytest.mark.postgres
async def test_a_key_open_on_another_replica_is_refused_on_postgres(
    pg_replicas: tuple[Runtime, Runtime],
) -> None:
    """Requirement G33, on one PostgreSQL for both replicas (the deployment's store)."""
    await _refused_by_second(*pg_replicas)


async def _race(first: Runtime, second: Runtime) -> None:
    key = TxnKey("k-race", "agent-a", None)
    outcomes = await asyncio.gather(
        first.manager.call(key, "get_ticket", {"ticket_id": 20}),
        second.manager.call(key, "get_ticket", {"ticket_id": 20}),
        return_exceptions=True,
    )
    won = [o for o in outcomes if not isinstance(o, BaseException)]
    lost = [o for o in outcomes if isinstance(o, BaseException)]
    assert (len(won), len(lost)) == (1, 1), outcomes
    assert isinstance(lost[0], HeldElsewhere)
    holder = first if first.manager.live("k-race") is not None else second
    other = second if holder is first else first
    assert other.manager.live("k-race") is None
    assert lost[0].owner == holder.settings.server.instance
    with pytest.raises(HeldElsewhere):
        await other.manager.commit(key, "mine")


async def test_two_replicas_racing_for_one_key_open_one_transaction(
    replicas: tuple[Runtime, Runtime],
) -> None:
    """Requirement G33: a race to open one key leaves one transaction and one clear refusal."""
    await _race(*replicas)


@pytest.mark.postgres
async def test_two_replicas_racing_for_one_key_on_postgres(pg_replicas: tuple[Runtime, Runtime]) -> None:
    """Requirement G33, the race on PostgreSQL."""
    await _race(*pg_replicas)


async def test_a_key_of_this_replica_that_ended_is_closed_not_held(replicas: tuple[Runtime, Runtime]) -> None:
    first, _ = replicas
    key = TxnKey("k-mine", "agent-a", None)
    await first.manager.call(key, "get_ticket", {"ticket_id": 20})
    await first.manager.rollback(key, "not needed", via="tool")
    with pytest.raises(TransactionClosed):
        await first.manager.call(key, "get_ticket", {"ticket_id": 20})
