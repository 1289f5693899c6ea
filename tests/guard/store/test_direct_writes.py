"""Writes on the driver (guard.store.direct.write_rows, Writer): on PostgreSQL through asyncpg, the same rows
as SQLAlchemy writes, atomically; through SQLAlchemy wherever something watches the statements."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    bindparam,
    event,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.store.direct import Writer, write_rows
from guard.store.engine import create_engine

metadata = MetaData()
parents = Table("parents", metadata, Column("id", Integer, primary_key=True))
rows_table = Table(
    "rows",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("parent", Integer, ForeignKey("parents.id"), nullable=False),
    Column("name", String),
    Column("at", DateTime(timezone=True)),
    Column("ratio", Float),
    Column("flag", Boolean),
    Column("extra", JSON),
)
_FIELDS = ("parent", "name", "at", "ratio", "flag", "extra")
INSERT = insert(rows_table).values({n: bindparam(n, type_=rows_table.c[n].type) for n in _FIELDS}).inline()
RENAME = update(rows_table).where(rows_table.c.parent == bindparam("p")).values(name=bindparam("new_name"))
AT = dt.datetime(2026, 12, 2, 17, 0, 5, 250000, tzinfo=dt.UTC)


def _row(parent: int = 1, **changes: Any) -> dict[str, Any]:
    row = {"parent": parent, "name": "one", "at": AT, "ratio": 0.5, "flag": True, "extra": {"a": [1, None]}}
    return row | changes


@pytest.fixture
async def engine(store: tuple[str, str | None]) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(store[0], search_path=store[1])
    async with engine.begin() as conn:
        await conn.run_sync(metadata.create_all)
        await conn.execute(insert(parents), [{"id": 1}, {"id": 2}])
    yield engine
    await engine.dispose()


async def _stored(engine: AsyncEngine) -> list[dict[str, Any]]:
    async with engine.connect() as conn:
        query = select(*(rows_table.c[n] for n in _FIELDS)).order_by(rows_table.c.id)
        return [dict(row) for row in (await conn.execute(query)).mappings()]


def _watch(engine: AsyncEngine) -> list[str]:
    seen: list[str] = []
    event.listen(engine.sync_engine, "before_cursor_execute", lambda *args: seen.append(args[2]))
    return seen


async def test_written_rows_read_back_as_sqlalchemy_writes_them(engine: AsyncEngine) -> None:
    given = [_row(), _row(2, name=None, at=None, ratio=None, flag=False, extra=None)]
    await write_rows(engine, INSERT, given[:1])
    await write_rows(engine, INSERT, given[1:])
    direct = await _stored(engine)
    _watch(engine)  # from here through SQLAlchemy's execute
    await write_rows(engine, INSERT, given)
    assert await _stored(engine) == direct + direct
    assert direct[0] | {"at": None} == _row(at=None)
    assert direct[1]["extra"] is None
    assert direct[0]["at"].replace(tzinfo=None) == AT.replace(tzinfo=None)  # SQLite keeps no zone


async def test_several_rows_are_written_all_or_none(engine: AsyncEngine) -> None:
    with pytest.raises(Exception, match=r"(?i)foreign key"):
        await write_rows(engine, INSERT, [_row(1), _row(2), _row(99)])
    assert await _stored(engine) == []
    await write_rows(engine, INSERT, [_row(1), _row(2)])
    await write_rows(engine, RENAME, [{"p": 1, "new_name": "first"}, {"p": 2, "new_name": "second"}])
    assert [row["name"] for row in await _stored(engine)] == ["first", "second"]


@pytest.mark.postgres
async def test_on_postgresql_the_driver_writes_and_a_listener_sees_every_write(
    postgres_url: str, postgres_schema: str
) -> None:
    engine = create_engine(postgres_url, search_path=postgres_schema)
    async with engine.begin() as conn:
        await conn.run_sync(metadata.create_all)
    try:
        assert Writer(engine)._direct
        seen = _watch(engine)
        assert not Writer(engine)._direct
        await write_rows(engine, insert(parents).values(id=bindparam("id")), [{"id": 1}])
        assert [sql for sql in seen if sql.startswith("INSERT")] == [
            "INSERT INTO parents (id) VALUES ($1::INTEGER)"
        ], "an observed engine's writes go through SQLAlchemy, where listeners see them"
    finally:
        await engine.dispose()


@pytest.mark.postgres
async def test_a_writer_holds_one_connection_and_gives_up_a_broken_one(
    postgres_url: str, postgres_schema: str
) -> None:
    engine = create_engine(postgres_url, search_path=postgres_schema)
    checkouts: list[object] = []
    event.listen(engine.sync_engine.pool, "checkout", lambda conn, *_: checkouts.append(conn))
    try:
        async with engine.begin() as conn:
            await conn.run_sync(metadata.create_all)
            await conn.execute(insert(parents), [{"id": 1}, {"id": 2}])
        checkouts.clear()
        writer = Writer(engine)
        try:
            for parent in (1, 2, 1):
                await writer.write(INSERT, [_row(parent)])
            assert len(checkouts) == 1, "batch after batch on the connection checked out first"
            held = writer._pooled.driver_connection
            async with engine.connect() as conn:
                await conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": held.get_server_pid()})
            checkouts.clear()
            with pytest.raises(Exception, match=r"(?i)terminat|closed|connection|operation"):
                await writer.write(INSERT, [_row(2)])
            assert writer._pooled is None
            await writer.write(INSERT, [_row(2, name="after")])
            assert len(checkouts) == 1
        finally:
            writer.close()
        assert [row["name"] for row in await _stored(engine)] == ["one", "one", "one", "after"]
        assert engine.sync_engine.pool.checkedout() == 0
    finally:
        await engine.dispose()
