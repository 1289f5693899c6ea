"""Row changes are captured inside the transaction: savepoints, types, and both databases.

A whole number in a double column is captured as a float on both databases
(PostgreSQL's ``to_jsonb`` would write it as an integer), so a judge comparing
an effect with a read of the same row sees the same value."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Double,
    Integer,
    MetaData,
    String,
    Table,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.backends.sql import SqlBackend
from guard.clock import FixedClock
from guard.errors import PreconditionFailed
from guard.store.engine import create_engine
from guard.tools import ToolContext, ToolRegistry
from judges import EffectKind, Query

metadata = MetaData()
items = Table(
    "items",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(50), nullable=False),
    Column("active", Boolean, nullable=False),
    Column("tags", JSON, nullable=False),
    Column("price", Double, nullable=False),
)

tools = ToolRegistry("capture")


@tools.tool(write=True)
async def add(ctx: ToolContext, id: int, name: str, tags: list[str]) -> dict[str, Any]:
    await ctx.conn.execute(insert(items).values(id=id, name=name, active=True, tags=tags, price=10.0))
    return {"id": id}


@tools.tool(write=True)
async def rename(ctx: ToolContext, id: int, name: str) -> dict[str, Any]:
    await ctx.conn.execute(update(items).where(items.c.id == id).values(name=name))
    return {"id": id}


@tools.tool(write=True)
async def reprice(ctx: ToolContext, id: int, price: float) -> dict[str, Any]:
    await ctx.conn.execute(update(items).where(items.c.id == id).values(price=price))
    return {"id": id}


@tools.tool(write=True)
async def remove(ctx: ToolContext, id: int) -> dict[str, Any]:
    await ctx.conn.execute(delete(items).where(items.c.id == id))
    return {"id": id}


@tools.tool(write=True)
async def rename_then_refuse(ctx: ToolContext, id: int, name: str) -> dict[str, Any]:
    await ctx.conn.execute(update(items).where(items.c.id == id).values(name=name))
    raise PreconditionFailed("refused after writing")


@tools.tool(write=True)
async def rename_then_crash(ctx: ToolContext, id: int, name: str) -> dict[str, Any]:
    await ctx.conn.execute(update(items).where(items.c.id == id).values(name=name))
    raise RuntimeError("bug after writing")


async def seeded_backend(engine: AsyncEngine) -> SqlBackend:
    async with engine.begin() as conn:
        await conn.run_sync(metadata.create_all)
        await conn.execute(
            insert(items), [{"id": 1, "name": "one", "active": True, "tags": ["a"], "price": 2.5}]
        )
    backend = SqlBackend(engine, tools, FixedClock(), metadata=metadata)
    await backend.start()
    return backend


@pytest.fixture
async def sqlite_backend(tmp_path: Path) -> AsyncIterator[SqlBackend]:
    backend = await seeded_backend(create_engine(f"sqlite:///{tmp_path / 'c.db'}"))
    yield backend
    await backend.close()


@pytest.fixture
async def pg_backend(postgres_url: str, postgres_schema: str) -> AsyncIterator[SqlBackend]:
    engine = create_engine(postgres_url, search_path=postgres_schema)
    backend = await seeded_backend(engine)
    yield backend
    await backend.close()


async def _exercise(backend: SqlBackend) -> None:
    session = await backend.begin("t1")
    await session.call(tools["add"], {"id": 2, "name": "two", "tags": ["x", "y"]})
    await session.call(tools["rename"], {"id": 1, "name": "uno"})
    await session.call(tools["rename"], {"id": 2, "name": "dos"})
    await session.call(tools["reprice"], {"id": 1, "price": 7})
    refused = await session.call(tools["rename_then_refuse"], {"id": 1, "name": "never"})
    assert refused.error_class == "precondition_failed"
    with pytest.raises(RuntimeError):
        await session.call(tools["rename_then_crash"], {"id": 1, "name": "never"})
    effects = {e.key: e for e in await session.effects()}
    assert set(effects) == {(1,), (2,)}
    renamed = effects[(1,)]
    assert renamed.kind is EffectKind.UPDATE
    assert renamed.changed_fields == ("name", "price")
    assert renamed.before == {"id": 1, "name": "one", "active": True, "tags": ["a"], "price": 2.5}
    assert renamed.after is not None
    assert renamed.after["name"] == "uno"
    assert renamed.after["price"] == 7.0
    assert type(renamed.after["price"]) is float
    added = effects[(2,)]
    assert added.kind is EffectKind.INSERT
    assert added.after == {"id": 2, "name": "dos", "active": True, "tags": ["x", "y"], "price": 10.0}
    assert type(added.after["price"]) is float
    snapshot = await session.reader.fetch([Query.of("items", None, id=1)])
    read = snapshot.get("items", id=1)
    assert read == renamed.after
    assert read is not None
    assert type(read["price"]) is float
    await session.commit()

    session = await backend.begin("t2")
    assert await session.effects() == []
    await session.call(tools["remove"], {"id": 2})
    await session.call(tools["add"], {"id": 3, "name": "three", "tags": []})
    await session.call(tools["remove"], {"id": 3})
    (removed,) = await session.effects()
    assert removed.kind is EffectKind.DELETE
    assert removed.key == (2,)
    await session.rollback()


async def test_sqlite_capture(sqlite_backend: SqlBackend) -> None:
    await _exercise(sqlite_backend)


@pytest.mark.postgres
async def test_postgres_capture(pg_backend: SqlBackend) -> None:
    await _exercise(pg_backend)


async def _close_with_a_session_open(backend: SqlBackend) -> None:
    session = await backend.begin("left-open")
    await session.call(tools["rename"], {"id": 1, "name": "never committed"})
    await backend.close()
    async with backend.engine.begin() as conn:
        # the open session's row lock is gone (PostgreSQL would wait on it here) and so is its write
        await conn.execute(update(items).where(items.c.id == 1).values(active=False))
        name = (await conn.execute(select(items.c.name).where(items.c.id == 1))).scalar_one()
    assert name == "one"
    await backend.engine.dispose()


async def test_sqlite_close_rolls_back_a_session_left_open(sqlite_backend: SqlBackend) -> None:
    await _close_with_a_session_open(sqlite_backend)


@pytest.mark.postgres
async def test_postgres_close_rolls_back_a_session_left_open(pg_backend: SqlBackend) -> None:
    await _close_with_a_session_open(pg_backend)
