"""Requirement G25: a statement whose row changes cannot be captured is refused inside a guarded transaction.

PostgreSQL's ``TRUNCATE`` fires no row trigger, so inside a guarded
transaction a per-table statement trigger refuses it (the call gets a tool
error, its savepoint is rolled back, the transaction goes on); other sessions
still truncate. SQLite has no ``TRUNCATE``, and an unqualified ``DELETE`` on a
table with the guard's temporary triggers is captured row by row, so a judge
that blocks deletes sees every row it removes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, func, insert, select, text, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.audit.log import MemoryAudit
from guard.backends.sql import SqlBackend
from guard.clock import FixedClock
from guard.runtime import Runtime, assemble
from guard.settings import GuardSettings
from guard.store.capture import REFUSAL_SQLSTATE, refusal
from guard.store.engine import create_engine
from guard.tools import ToolContext, ToolRegistry
from judges import CommitContext, Effect, EffectKind, ErrorClass, Finding, Query, Severity, Verdict, classify
from tests.guard.conftest import agent_client, meta, no_sleep

metadata = MetaData()
items = Table(
    "items",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(50), nullable=False),
)

tools = ToolRegistry("truncate")


@tools.tool(write=True)
async def rename(ctx: ToolContext, id: int, name: str) -> dict[str, Any]:
    await ctx.conn.execute(update(items).where(items.c.id == id).values(name=name))
    return {"id": id}


@tools.tool(write=True)
async def truncate_items(ctx: ToolContext) -> dict[str, Any]:
    await ctx.conn.exec_driver_sql("TRUNCATE items")
    return {"truncated": "items"}


@tools.tool(write=True)
async def delete_all_items(ctx: ToolContext) -> dict[str, Any]:
    await ctx.conn.exec_driver_sql("DELETE FROM items")
    return {"deleted": "items"}


@dataclass(frozen=True)
class NoDeletes:
    """Blocks every commit that deletes a row."""

    name: str = "no-deletes"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        deleted = [e for e in context.effects if e.kind is EffectKind.DELETE]
        if not deleted:
            return Verdict.allow()
        return Verdict.of([Finding(self.name, Severity.BLOCK, f"{len(deleted)} rows deleted")])


REFUSAL = (
    "TRUNCATE of items is refused inside a guarded transaction: its rows cannot be judged; "
    "delete them with DELETE instead"
)


async def seeded_backend(engine: AsyncEngine) -> SqlBackend:
    async with engine.begin() as conn:
        await conn.run_sync(metadata.create_all)
        await conn.execute(insert(items), [{"id": i, "name": f"item {i}"} for i in (1, 2, 3)])
    return SqlBackend(engine, tools, FixedClock(), metadata=metadata, judges=[NoDeletes()])


@asynccontextmanager
async def guarded(engine: AsyncEngine) -> AsyncIterator[Runtime]:
    settings = GuardSettings.model_validate(
        {
            "commit": {"reap_interval_s": 3600},
            "retry": {"max_attempts": 3, "initial_backoff_s": 0, "max_backoff_s": 0, "jitter_s": 0},
        }
    )
    backend = await seeded_backend(engine)
    runtime = assemble(settings, backend, MemoryAudit(), clock=FixedClock(), sleep=no_sleep)
    await runtime.start()
    try:
        yield runtime
    finally:
        await runtime.stop()


async def names(engine: AsyncEngine) -> dict[int, str]:
    async with engine.connect() as conn:
        rows = (await conn.execute(select(items.c.id, items.c.name))).all()
    return {row.id: row.name for row in rows}


def body(result: types.CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


@pytest.fixture
async def pg_engine(postgres_url: str, postgres_schema: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(postgres_url, search_path=postgres_schema)
    yield engine
    await engine.dispose()


@pytest.mark.postgres
async def test_postgres_truncate_is_refused_by_the_database_and_the_call_is_undone(
    pg_engine: AsyncEngine,
) -> None:
    """Requirement G25: TRUNCATE in a guarded transaction raises SQLSTATE 42501 (permission_denied, not
    retried) with a message naming the table and DELETE; the call's savepoint is rolled back and the
    transaction goes on. Installing the triggers again is harmless."""
    backend = await seeded_backend(pg_engine)
    await backend.start()
    await backend.start()
    try:
        session = await backend.begin("t1")
        assert (await session.call(tools["rename"], {"id": 1, "name": "renamed"})).ok
        outcome = await session.call(tools["truncate_items"], {})
        assert outcome.error is not None
        assert outcome.error.message == f"truncate_items: {REFUSAL}; nothing was changed"
        assert outcome.error.error_class == ErrorClass.PERMISSION_DENIED
        refused = outcome.error.__cause__
        assert isinstance(refused, DBAPIError)
        assert refusal(refused) == REFUSAL
        assert refusal(RuntimeError(REFUSAL)) is None
        assert getattr(refused.orig, "sqlstate", None) == REFUSAL_SQLSTATE
        assert classify(refused).error_class is ErrorClass.PERMISSION_DENIED
        assert (await session.call(tools["rename"], {"id": 2, "name": "also renamed"})).ok
        effects = await session.effects()
        assert [(e.kind, e.key) for e in effects] == [(EffectKind.UPDATE, (1,)), (EffectKind.UPDATE, (2,))]
        await session.commit()
    finally:
        await backend.close()
    assert await names(pg_engine) == {1: "renamed", 2: "also renamed", 3: "item 3"}


@pytest.mark.postgres
async def test_postgres_truncate_gets_a_tool_error_and_changes_nothing(pg_engine: AsyncEngine) -> None:
    """Requirement G25: an agent's TRUNCATE is a tool error (permission_denied, one attempt), the rows
    stay, the transaction commits the rest; a session outside the guard still truncates."""
    async with guarded(pg_engine) as runtime, agent_client(runtime) as agent:
        await agent.call_tool("rename", {"id": 1, "name": "renamed"}, meta=meta("t1"))
        refused = await agent.call_tool("truncate_items", {}, meta=meta("t1"))
        assert refused.is_error is True
        content = refused.content[0]
        assert isinstance(content, types.TextContent)
        # the refusal itself once the backend passes it on (refusal), else the generic text
        assert REFUSAL in content.text or "(permission_denied, 1 attempts)" in content.text
        reply = body(await agent.call_tool("guard_commit", {"summary": "rename"}, meta=meta("t1")))
        assert reply["status"] == "committed"
        assert [e["kind"] for e in reply["effects"]] == ["update"]
    assert await names(pg_engine) == {1: "renamed", 2: "item 2", 3: "item 3"}
    async with pg_engine.begin() as conn:
        triggers = await conn.execute(
            text("SELECT tgname FROM pg_trigger WHERE tgrelid = 'items'::regclass AND NOT tgisinternal")
        )
        assert sorted(triggers.scalars()) == ["guard_capture", "guard_refuse_truncate"]
        await conn.exec_driver_sql("TRUNCATE items")
        assert (await conn.execute(select(func.count()).select_from(items))).scalar_one() == 0


async def test_sqlite_delete_without_where_is_captured_row_by_row(tmp_path: Path) -> None:
    """Requirement G25: on SQLite an unqualified DELETE (its truncate optimisation is off for a table
    with triggers) is captured as one delete per row, so a judge blocking deletes blocks it."""
    engine = create_engine(f"sqlite:///{tmp_path / 'items.db'}")
    try:
        async with guarded(engine) as runtime, agent_client(runtime) as agent:
            done = await agent.call_tool("delete_all_items", {}, meta=meta("t1"))
            assert done.is_error is False
            reply = body(await agent.call_tool("guard_commit", {"summary": "clear"}, meta=meta("t1")))
            assert reply["status"] == "blocked"
            assert [(e["kind"], e["key"]) for e in reply["effects"]] == [
                ("delete", "1"),
                ("delete", "2"),
                ("delete", "3"),
            ]
            assert [f["message"] for f in reply["findings"]] == ["3 rows deleted"]
        assert await names(engine) == {1: "item 1", 2: "item 2", 3: "item 3"}
    finally:
        await engine.dispose()
