"""The error classifier on errors produced by really running SQL: SQLite, and PostgreSQL via asyncpg.

Every error here comes from SQLAlchemy (or the driver) doing real work:
lock contention, integrity violations, serialization failures, deadlocks,
lock and statement timeouts.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Iterator
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from judges import ErrorClass, classify, retryable

C = ErrorClass


@pytest.fixture
def sqlite_engine(tmp_path: Path) -> Iterator[sa.Engine]:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'db.sqlite'}", connect_args={"timeout": 0.05})
    with engine.begin() as conn:
        conn.exec_driver_sql("PRAGMA foreign_keys = ON")
        conn.exec_driver_sql("CREATE TABLE customers (id TEXT PRIMARY KEY)")
        conn.exec_driver_sql(
            "CREATE TABLE orders (id TEXT PRIMARY KEY, customer TEXT NOT NULL REFERENCES customers(id),"
            " total REAL CHECK (total >= 0))"
        )
        conn.exec_driver_sql("INSERT INTO customers VALUES ('C1')")
        conn.exec_driver_sql("INSERT INTO orders VALUES ('O1', 'C1', 10)")
    yield engine
    engine.dispose()


class TestSqlite:
    def test_lock_contention_is_transient(self, sqlite_engine: sa.Engine) -> None:
        with sqlite_engine.connect() as holder, sqlite_engine.connect() as waiter:
            holder.exec_driver_sql("BEGIN IMMEDIATE")
            holder.exec_driver_sql("UPDATE orders SET total = 11 WHERE id = 'O1'")
            with pytest.raises(OperationalError) as caught:
                waiter.exec_driver_sql("UPDATE orders SET total = 12 WHERE id = 'O1'")
            holder.rollback()
        assert isinstance(caught.value.orig, sqlite3.OperationalError)
        assert "database is locked" in str(caught.value)
        found = classify(caught.value)
        assert found.error_class is C.TRANSIENT
        assert found.reason.startswith("SQLITE_BUSY")
        assert retryable(found.error_class, in_transaction=False, idempotent=False)

    def test_a_stale_snapshot_is_a_conflict_not_a_retry(self, tmp_path: Path) -> None:
        path = tmp_path / "wal.sqlite"
        reader = sqlite3.connect(path, isolation_level=None, timeout=0.05)
        writer = sqlite3.connect(path, isolation_level=None, timeout=0.05)
        try:
            writer.execute("PRAGMA journal_mode = WAL")
            writer.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)")
            writer.execute("INSERT INTO t VALUES (1, 1)")
            reader.execute("BEGIN")
            reader.execute("SELECT v FROM t").fetchall()
            writer.execute("UPDATE t SET v = 2")
            with pytest.raises(sqlite3.OperationalError) as caught:
                reader.execute("UPDATE t SET v = 3")
        finally:
            reader.close()
            writer.close()
        found = classify(caught.value)
        assert found.error_class is C.PRECONDITION_FAILED
        assert found.reason.startswith("SQLITE_BUSY_SNAPSHOT")
        assert not retryable(found.error_class, in_transaction=True, idempotent=True)

    @pytest.mark.parametrize(
        ("statement", "kind", "name"),
        [
            (
                "INSERT INTO orders VALUES ('O1', 'C1', 1)",
                C.PRECONDITION_FAILED,
                "SQLITE_CONSTRAINT_PRIMARYKEY",
            ),
            (
                "INSERT INTO orders VALUES ('O2', 'C9', 1)",
                C.PRECONDITION_FAILED,
                "SQLITE_CONSTRAINT_FOREIGNKEY",
            ),
            ("INSERT INTO orders VALUES ('O2', NULL, 1)", C.INVALID_ARGUMENTS, "SQLITE_CONSTRAINT_NOTNULL"),
            ("INSERT INTO orders VALUES ('O2', 'C1', -5)", C.INVALID_ARGUMENTS, "SQLITE_CONSTRAINT_CHECK"),
        ],
    )
    def test_integrity_errors(
        self, sqlite_engine: sa.Engine, statement: str, kind: ErrorClass, name: str
    ) -> None:
        with sqlite_engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA foreign_keys = ON")
            with pytest.raises(IntegrityError) as caught:
                conn.exec_driver_sql(statement)
        found = classify(caught.value)
        assert found.error_class is kind
        assert found.reason.startswith(name)
        assert not retryable(found.error_class, in_transaction=True, idempotent=True)

    def test_a_syntax_error_is_internal(self, sqlite_engine: sa.Engine) -> None:
        with sqlite_engine.connect() as conn, pytest.raises(OperationalError) as caught:
            conn.exec_driver_sql("SELEC 1")
        assert classify(caught.value).error_class is C.INTERNAL

    def test_a_read_only_database_is_permission_denied(
        self, tmp_path: Path, sqlite_engine: sa.Engine
    ) -> None:
        url = f"sqlite:///file:{tmp_path / 'db.sqlite'}?mode=ro&uri=true"
        engine = sa.create_engine(url)
        try:
            with engine.connect() as conn, pytest.raises(OperationalError) as caught:
                conn.exec_driver_sql("DELETE FROM orders")
        finally:
            engine.dispose()
        assert classify(caught.value).error_class is C.PERMISSION_DENIED

    async def test_lock_contention_through_aiosqlite(self, tmp_path: Path) -> None:
        engine = create_async_engine(
            f"sqlite+aiosqlite:///{tmp_path / 'async.sqlite'}", connect_args={"timeout": 0.05}
        )
        try:
            async with engine.begin() as conn:
                await conn.exec_driver_sql("CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER)")
                await conn.exec_driver_sql("INSERT INTO t VALUES (1, 0)")
            async with engine.connect() as holder, engine.connect() as waiter:
                await holder.exec_driver_sql("BEGIN IMMEDIATE")
                await holder.exec_driver_sql("UPDATE t SET n = 1")
                with pytest.raises(OperationalError) as caught:
                    await waiter.exec_driver_sql("UPDATE t SET n = 2")
                await holder.rollback()
        finally:
            await engine.dispose()
        assert classify(caught.value).error_class is C.TRANSIENT


@pytest.fixture
async def pg(postgres_url: str, postgres_schema: str) -> AsyncIterator[AsyncEngine]:
    engine = create_async_engine(
        postgres_url, connect_args={"server_settings": {"search_path": postgres_schema}}, pool_size=4
    )
    async with engine.begin() as conn:
        await conn.exec_driver_sql("CREATE TABLE accounts (id INT PRIMARY KEY, balance INT NOT NULL)")
        await conn.exec_driver_sql("INSERT INTO accounts VALUES (1, 100), (2, 100)")
    yield engine
    await engine.dispose()


async def _expect_dbapi_error(*steps: Awaitable[object]) -> DBAPIError:
    """Run concurrent steps; exactly the failures matter: return the one DBAPIError raised."""
    outcomes = await asyncio.gather(*steps, return_exceptions=True)
    errors = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    assert len(errors) == 1, outcomes
    assert isinstance(errors[0], DBAPIError), errors[0]
    return errors[0]


@pytest.mark.postgres
class TestPostgres:
    async def test_serialization_failure_is_transient(self, pg: AsyncEngine) -> None:
        async with pg.connect() as first, pg.connect() as second:
            for conn in (first, second):
                await conn.exec_driver_sql("BEGIN ISOLATION LEVEL SERIALIZABLE")
                await conn.exec_driver_sql("SELECT sum(balance) FROM accounts")
            await first.exec_driver_sql("UPDATE accounts SET balance = balance - 150 WHERE id = 1")
            await second.exec_driver_sql("UPDATE accounts SET balance = balance - 150 WHERE id = 2")
            await first.exec_driver_sql("COMMIT")
            with pytest.raises(DBAPIError) as caught:
                await second.exec_driver_sql("COMMIT")
            await second.rollback()
        found = classify(caught.value)
        assert isinstance(caught.value.orig.__cause__, asyncpg.SerializationError)  # type: ignore[union-attr]
        assert found.error_class is C.TRANSIENT
        assert found.reason.startswith("SQLSTATE 40001")

    async def test_deadlock_is_transient(self, pg: AsyncEngine) -> None:
        async with pg.connect() as first, pg.connect() as second:
            for conn in (first, second):
                await conn.exec_driver_sql("SET deadlock_timeout = '20ms'")
                await conn.exec_driver_sql("BEGIN")
            await first.exec_driver_sql("UPDATE accounts SET balance = 1 WHERE id = 1")
            await second.exec_driver_sql("UPDATE accounts SET balance = 2 WHERE id = 2")
            error = await _expect_dbapi_error(
                _then_rollback(first, "UPDATE accounts SET balance = 1 WHERE id = 2"),
                _then_rollback(second, "UPDATE accounts SET balance = 2 WHERE id = 1"),
            )
        found = classify(error)
        assert found.error_class is C.TRANSIENT
        assert found.reason.startswith("SQLSTATE 40P01")

    async def test_lock_timeout_is_transient(self, pg: AsyncEngine) -> None:
        async with pg.connect() as holder, pg.connect() as waiter:
            await holder.exec_driver_sql("BEGIN")
            await holder.exec_driver_sql("SELECT * FROM accounts WHERE id = 1 FOR UPDATE")
            await waiter.exec_driver_sql("BEGIN")
            await waiter.exec_driver_sql("SET LOCAL lock_timeout = '20ms'")
            with pytest.raises(DBAPIError) as caught:
                await waiter.exec_driver_sql("UPDATE accounts SET balance = 0 WHERE id = 1")
            await waiter.rollback()
            await holder.rollback()
        found = classify(caught.value)
        assert found.error_class is C.TRANSIENT
        assert found.reason.startswith("SQLSTATE 55P03")

    async def test_statement_timeout_is_a_timeout(self, pg: AsyncEngine) -> None:
        async with pg.connect() as conn:
            await conn.exec_driver_sql("BEGIN")
            await conn.exec_driver_sql("SET LOCAL statement_timeout = '20ms'")
            with pytest.raises(DBAPIError) as caught:
                await conn.exec_driver_sql("SELECT pg_sleep(5)")
            await conn.rollback()
        found = classify(caught.value)
        assert found.error_class is C.TIMEOUT
        assert found.reason.startswith("SQLSTATE 57014")
        assert retryable(found.error_class, in_transaction=True, idempotent=False)
        assert not retryable(found.error_class, in_transaction=False, idempotent=False)

    @pytest.mark.parametrize(
        ("statement", "kind", "state"),
        [
            ("INSERT INTO accounts VALUES (1, 5)", C.PRECONDITION_FAILED, "23505"),
            ("INSERT INTO accounts VALUES (3, NULL)", C.INVALID_ARGUMENTS, "23502"),
            ("INSERT INTO accounts VALUES (3, 'lots')", C.INVALID_ARGUMENTS, "22P02"),
            ("SELECT * FROM missing_table", C.INTERNAL, "42P01"),
        ],
    )
    async def test_statement_errors(
        self, pg: AsyncEngine, statement: str, kind: ErrorClass, state: str
    ) -> None:
        async with pg.connect() as conn:
            with pytest.raises(DBAPIError) as caught:
                await conn.exec_driver_sql(statement)
            await conn.rollback()
        found = classify(caught.value)
        assert (found.error_class, found.reason[:14]) == (kind, f"SQLSTATE {state}")

    async def test_a_raw_asyncpg_error(self, postgres_url: str, postgres_schema: str) -> None:
        url = make_url(postgres_url)
        conn = await asyncpg.connect(
            host=url.host, port=url.port or 5432, user=url.username, database=url.database
        )
        try:
            with pytest.raises(asyncpg.PostgresError) as caught:
                await conn.execute(f'CREATE TABLE "{postgres_schema}".x (id int); SELECT 1/0')
        finally:
            await conn.close()
        found = classify(caught.value)
        assert found.error_class is C.INVALID_ARGUMENTS
        assert found.reason.startswith("SQLSTATE 22012")


async def _then_rollback(conn: AsyncConnection, statement: str) -> None:
    try:
        await conn.exec_driver_sql(statement)
    finally:
        await conn.rollback()
