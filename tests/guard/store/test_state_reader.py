"""The SQL state reader: one statement per table and column set per round, the same rows as one per query.

Run on SQLite and on the real PostgreSQL server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Integer,
    MetaData,
    Numeric,
    String,
    Table,
    event,
    insert,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from guard.backends.reads import SqlStateReader
from judges import Query, Row

metadata = MetaData()
EMPLOYEES = Table(
    "employees",
    metadata,
    Column("id", String, primary_key=True),
    Column("email", String),
    Column("manager_id", String),
    Column("level", Integer, nullable=False),
    Column("active", Boolean, nullable=False),
    Column("salary", Numeric(10, 2)),
    Column("joined", DateTime(timezone=True)),
)
GRANTS = Table(
    "grants",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("employee_id", String, nullable=False),
    Column("app", String, nullable=False),
)
TABLES = {"employees": EMPLOYEES, "grants": GRANTS}

PEOPLE = [
    {"id": f"E{n}", "email": f"e{n}@x.com" if n % 5 else None, "manager_id": f"E{n // 2}" if n > 1 else None}
    | {"level": n % 4, "active": n % 3 != 0, "salary": Decimal(f"{1000 + n}.50")}
    | {"joined": datetime(2024, 1, 1 + n % 28, tzinfo=UTC)}
    for n in range(1, 40)
]
ACCESS = [{"id": n, "employee_id": f"E{n % 7 + 1}", "app": ("crm", "wiki", "vpn")[n % 3]} for n in range(60)]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, dict[str, Any]]:
    """A URL and connect arguments: a SQLite file, or a fresh schema on the PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'reads.sqlite'}", {}
    schema = request.getfixturevalue("postgres_schema")
    return request.getfixturevalue("postgres_url"), {"server_settings": {"search_path": schema}}


@pytest.fixture
async def engine(database: tuple[str, dict[str, Any]]) -> AsyncIterator[AsyncEngine]:
    url, connect_args = database
    made = create_async_engine(url, connect_args=connect_args)
    async with made.begin() as conn:
        await conn.run_sync(metadata.create_all)
        await conn.execute(insert(EMPLOYEES), PEOPLE[:-1])
        await conn.execute(insert(GRANTS), ACCESS)
    yield made
    await made.dispose()


@pytest.fixture
async def conn(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A transaction with one pending row the judges must see (the last employee, not yet committed)."""
    async with engine.connect() as connection:
        await connection.begin()
        await connection.execute(insert(EMPLOYEES), [PEOPLE[-1]])
        yield connection
        await connection.rollback()


class Statements:
    """Counts the statements run on an engine."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.count = 0
        event.listen(engine.sync_engine, "before_cursor_execute", self._seen)

    def _seen(self, *args: Any) -> None:
        self.count += 1


ROUND = [
    *(Query.of("employees", 1, id=f"E{n}") for n in (1, 2, 39, 99)),
    Query.of("employees", None, id="E2"),
    *(Query.of("employees", None, manager_id=f"E{n}") for n in (1, 3, 7, 30)),
    Query.of("employees", 2, manager_id="E4"),
    Query.of("employees", None, email="e3@x.com"),
    *(Query.of("grants", None, app=a, employee_id=e) for a in ("crm", "vpn") for e in ("E1", "E2", "E9")),
    Query.of("grants", 3, app="wiki", employee_id="E3"),
    Query.of("employees", None, active=False, level=0),
    Query.of("employees", None, active=True, level=2),
]


def _sorted(rows: Sequence[Row]) -> list[Row]:
    return sorted(rows, key=lambda row: str(row["id"]))


async def test_a_round_is_one_statement_per_table_and_column_set_with_the_rows_of_one_each(
    engine: AsyncEngine, conn: AsyncConnection
) -> None:
    reader = SqlStateReader(conn, TABLES)
    one_by_one = {query: (await reader.fetch([query])).rows(query) for query in ROUND}
    statements = Statements(engine)
    batched = await reader.fetch(ROUND)
    assert statements.count == 5
    assert set(batched.answers) == set(ROUND)
    for query in ROUND:
        rows = batched.rows(query)
        if query.limit is None:
            assert _sorted(rows) == _sorted(one_by_one[query]), query
        else:
            expected = await reader.fetch([Query(query.table, query.where)])
            assert len(rows) == min(query.limit, len(expected.rows(Query(query.table, query.where))))
            assert all(row in expected.rows(Query(query.table, query.where)) for row in rows)
    pending = batched.rows(Query.of("employees", 1, id="E39"))[0]
    assert pending | {"joined": pending["joined"][:19]} == {
        "id": "E39",
        "email": "e39@x.com",
        "manager_id": "E19",
        "level": 3,
        "active": False,
        "salary": 1039.5,
        "joined": "2024-01-12T00:00:00",
    }
    assert [row["id"] for row in batched.rows(Query.of("employees", 1, id="E2"))] == ["E2"]
    assert batched.rows(Query.of("employees", 1, id="E99")) == ()
    assert len(batched.rows(Query.of("employees", 2, manager_id="E4"))) == 2


async def test_null_keys_are_answered_without_a_statement(engine: AsyncEngine, conn: AsyncConnection) -> None:
    reader = SqlStateReader(conn, TABLES)
    statements = Statements(engine)
    queries = [Query.of("employees", None, email=None), Query.of("grants", 1, app="crm", employee_id=None)]
    snapshot = await reader.fetch(queries)
    assert statements.count == 0
    assert [snapshot.rows(query) for query in queries] == [(), ()]


async def test_large_rounds_are_chunked(engine: AsyncEngine, conn: AsyncConnection) -> None:
    reader = SqlStateReader(conn, TABLES)
    queries = [Query.of("grants", None, id=n) for n in range(300)]
    statements = Statements(engine)
    snapshot = await reader.fetch(queries)
    assert statements.count == 3
    assert [len(snapshot.rows(query)) for query in queries] == [1] * 60 + [0] * 240


async def test_unknown_tables_and_columns_are_errors(conn: AsyncConnection) -> None:
    reader = SqlStateReader(conn, TABLES)
    with pytest.raises(KeyError, match="unknown table 'nope'"):
        await reader.fetch([Query.of("nope", None, id=1)])
    with pytest.raises(KeyError, match=r"unknown column grants\.colour"):
        await reader.fetch([Query.of("grants", None, colour="red")])


async def test_sqlite_keys_coerce_as_in_a_where_clause(tmp_path: Path) -> None:
    """SQLite compares an int key with a TEXT column as text, batched or not."""
    made = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'coerce.sqlite'}")
    try:
        async with made.begin() as connection:
            await connection.run_sync(metadata.create_all)
            await connection.execute(insert(GRANTS), [{"id": 1, "employee_id": "7", "app": "crm"}])
            reader = SqlStateReader(connection, TABLES)
            queries = [Query.of("grants", None, employee_id=7), Query.of("grants", None, employee_id=8)]
            batched = await reader.fetch(queries)
            alone = await reader.fetch(queries[:1])
    finally:
        await made.dispose()
    expected = ({"id": 1, "employee_id": "7", "app": "crm"},)
    assert batched.rows(queries[0]) == alone.rows(queries[0]) == expected


async def test_a_single_query_binds_its_value_as_a_literal_in_its_place_would(conn: AsyncConnection) -> None:
    """A statement prepared once per shape types a float against an integer column as a float (no truncation).

    On PostgreSQL a parameter typed as the integer column would turn 1.5 into 1 and match level 1.
    """
    reader = SqlStateReader(conn, TABLES)
    for value, expected in ((1, 10), (1.5, 0), (1, 10), (1.0, 10)):
        query = Query.of("employees", None, level=value)
        rows = (await reader.fetch([query])).rows(query)
        assert len(rows) == expected, (value, len(rows))
        assert all(row["level"] == 1 for row in rows)
    limited = Query.of("employees", 2**40, level=1)  # beyond a 32-bit LIMIT parameter
    assert len((await reader.fetch([limited])).rows(limited)) == 10
