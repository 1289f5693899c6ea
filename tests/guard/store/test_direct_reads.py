"""SQLite reads on the driver (guard.store.direct): the same rows and errors as SQLAlchemy's execute."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import AsyncIterator
from decimal import Decimal

import pytest
from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Integer,
    MetaData,
    Numeric,
    String,
    Table,
    bindparam,
    event,
    func,
    select,
    text,
)
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.store.direct import read_rows
from guard.store.engine import create_engine

metadata = MetaData()
items = Table(
    "items",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("label", String, key="name"),
    Column("at", DateTime),
    Column("price", Numeric(10, 2)),
    Column("active", Boolean),
    Column("extra", JSON),
)


def _image() -> bytes:
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT, at DATETIME, price NUMERIC, "
        "active BOOLEAN, extra JSON)"
    )
    db.execute("INSERT INTO items VALUES (1, 'one', '2025-10-01 13:00:05.000000', 9.5, 1, '{\"a\": [1, 2]}')")
    db.execute("INSERT INTO items VALUES (2, NULL, NULL, NULL, 0, 'null')")
    db.execute("INSERT INTO items VALUES (3, 'three', NULL, 3, NULL, NULL)")
    db.commit()
    image = db.serialize()
    db.close()
    return image


STATEMENTS = [
    (select(items).order_by(items.c.id), None),
    (select(items).where(items.c.id == bindparam("k")).limit(1), {"k": 1}),
    (
        select(items.c.name, items.c.price).where(items.c.price >= bindparam("p", type_=Numeric())),
        {"p": Decimal("3")},
    ),
    (select(func.count()).select_from(items), None),
    (select(items).where(items.c.extra == bindparam("e", type_=JSON)), {"e": {"a": [1, 2]}}),
]


@pytest.fixture
async def engine() -> AsyncIterator[AsyncEngine]:
    """An in-memory copy of the items image."""
    engine = create_engine("sqlite+aiosqlite://", sqlite_image=_image())
    yield engine
    await engine.dispose()


@pytest.mark.parametrize(("statement", "parameters"), STATEMENTS)
async def test_rows_match_sqlalchemys_execute_types_keys_and_all(
    engine: AsyncEngine, statement: object, parameters: dict[str, object] | None
) -> None:
    async with engine.connect() as conn:
        expected = [dict(row) for row in (await conn.execute(statement, parameters)).mappings()]  # type: ignore[call-overload]
        got = await read_rows(conn, statement, parameters)  # type: ignore[arg-type]
    assert got == expected
    assert [[type(v) for v in row.values()] for row in got] == [
        [type(v) for v in row.values()] for row in expected
    ]


async def test_the_first_row_has_the_types_of_its_columns(engine: AsyncEngine) -> None:
    async with engine.connect() as conn:
        (row,) = await read_rows(conn, select(items).where(items.c.id == bindparam("k")), {"k": 1})
    assert row == {
        "id": 1,
        "label": "one",
        "at": dt.datetime(2025, 10, 1, 13, 0, 5),
        "price": Decimal("9.50"),
        "active": True,
        "extra": {"a": [1, 2]},
    }


async def test_reads_see_the_connections_open_transaction(engine: AsyncEngine) -> None:
    async with engine.connect() as conn:
        await conn.begin()
        await conn.execute(text("DELETE FROM items WHERE id = 1"))
        assert [row["id"] for row in await read_rows(conn, select(items.c.id))] == [2, 3]
        await conn.rollback()
        assert [row["id"] for row in await read_rows(conn, select(items.c.id))] == [1, 2, 3]


async def test_a_driver_error_is_wrapped_as_sqlalchemy_wraps_it(engine: AsyncEngine) -> None:
    missing = Table("missing", MetaData(), Column("id", Integer))
    async with engine.connect() as conn:
        with pytest.raises(OperationalError, match="no such table: missing"):
            await read_rows(conn, select(missing))


async def test_a_missing_parameter_fails_as_execute_does(engine: AsyncEngine) -> None:
    async with engine.connect() as conn:
        with pytest.raises(Exception, match="'k'") as through_execute:
            await conn.execute(select(items).where(items.c.id == bindparam("k")))
        with pytest.raises(type(through_execute.value), match="'k'"):
            await read_rows(conn, select(items).where(items.c.id == bindparam("k")), {})


async def test_a_statement_listener_sees_every_read(engine: AsyncEngine) -> None:
    seen: list[str] = []
    event.listen(engine.sync_engine, "before_cursor_execute", lambda *args: seen.append(args[2]))
    async with engine.connect() as conn:
        rows = await read_rows(conn, select(items.c.id).where(items.c.id == bindparam("k")), {"k": 2})
    assert rows == [{"id": 2}]
    assert [sql for sql in seen if sql.startswith("SELECT")] == [
        "SELECT items.id \nFROM items \nWHERE items.id = ?"
    ]
