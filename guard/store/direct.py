"""Statements on the driver, each compiled once: SQLite reads and savepoints, and the audit log's writes on
PostgreSQL.

On an in-memory SQLite database a keyed ``SELECT`` takes a few microseconds,
and running it through ``AsyncConnection.execute`` (the greenlet bridge, the
execution context, the result object) about ninety; the benchmark's tools and
the commit gate's reads run thousands of them. :func:`read_rows` compiles a
statement once per dialect (its SQL, the order of its parameters, and the
bind and result processors of its types, as SQLAlchemy would apply them) and
runs it on the connection's driver, inside whatever transaction the
connection has open. A driver error comes back wrapped as SQLAlchemy wraps
it (:class:`sqlalchemy.exc.DBAPIError` and its subclasses), so callers see
the same exceptions either way.

The audit log writes a row or two for every call and every commit, each on a pooled connection of its
own, in autocommit. Through ``AsyncConnection`` on PostgreSQL that is the connection object, the greenlet
bridge, the execution context and the result, about three quarters of a millisecond of CPU for a write
that asyncpg sends in a tenth of that. :func:`write_rows` checks a raw connection out of the engine's
pool (its checkout ping replaces a dead one, as for every connection), runs the compiled ``INSERT`` or
``UPDATE`` on asyncpg, one row or several in one atomic ``executemany``, and returns the connection.
A driver error comes back as asyncpg raises it.

Other databases, statements whose SQL depends on their parameters
(expanding ``IN`` lists, values rendered at execution), and connections
whose statements someone watches (a ``before_cursor_execute`` or
``after_cursor_execute`` listener, such as OpenTelemetry's SQLAlchemy
instrumentation, or ``echo``) take the ordinary ``execute``, so that every
statement is seen.
"""

from __future__ import annotations

import logging
import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Executable
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.compiler import SQLCompiler

__all__ = ["PlainStatements", "Writer", "read_rows", "write_rows"]

log = logging.getLogger(__name__)

Processor = Callable[[Any], Any] | None


@dataclass(frozen=True, slots=True)
class _Compiled:
    sql: str
    names: tuple[str, ...]
    fixed: Mapping[str, Any]
    binds: tuple[Processor, ...]
    keys: tuple[str, ...]
    results: tuple[Processor, ...]

    def parameters(self, given: Mapping[str, Any] | None) -> tuple[Any, ...] | None:
        """The driver's positional parameters; None if one is missing (``execute`` says which)."""
        values = self.fixed if not given else {**self.fixed, **given}
        try:
            ordered = [values[name] for name in self.names]
        except KeyError:
            return None
        return tuple(
            value if process is None else process(value)
            for value, process in zip(ordered, self.binds, strict=True)
        )

    def row(self, values: Sequence[Any]) -> dict[str, Any]:
        return {
            key: value if process is None else process(value)
            for key, value, process in zip(self.keys, values, self.results, strict=True)
        }


_COMPILED: OrderedDict[tuple[int, int], tuple[Executable, Dialect, _Compiled | None]] = OrderedDict()
_KEPT = 4096
"""Compiled statements kept (callers build each statement shape once: a domain's tools use a few hundred)."""


def _compiled(statement: Executable, dialect: Dialect) -> _Compiled | None:
    """``statement`` compiled for ``dialect``, once; None if it cannot run as fixed SQL."""
    key = (id(statement), id(dialect))
    entry = _COMPILED.get(key)
    if entry is None or entry[0] is not statement or entry[1] is not dialect:
        entry = _COMPILED[key] = (statement, dialect, _compile(statement, dialect))
        if len(_COMPILED) > _KEPT:
            _COMPILED.popitem(last=False)
    return entry[2]


def _compile(statement: Executable, dialect: Dialect) -> _Compiled | None:
    """A ``SELECT`` with its result columns, or a write that returns nothing; None for anything else."""
    compiled = statement.compile(dialect=dialect)  # type: ignore[attr-defined]
    if not isinstance(compiled, SQLCompiler):
        return None
    if compiled.post_compile_params or compiled.literal_execute_params or compiled.positiontup is None:
        return None
    names = tuple(compiled.positiontup)
    binds = tuple(compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names)
    fixed = {
        name: compiled.binds[name].effective_value for name in names if not compiled.binds[name].required
    }
    columns = compiled._result_columns
    if compiled.isinsert or compiled.isupdate or compiled.isdelete:
        return None if columns else _Compiled(compiled.string, names, fixed, binds, (), ())
    if not columns:
        return None
    keys = tuple(column.keyname for column in columns)
    if len(set(keys)) != len(keys):
        return None
    results = tuple(column.type.dialect_impl(dialect).result_processor(dialect, None) for column in columns)
    return _Compiled(compiled.string, names, fixed, binds, keys, results)


async def read_rows(
    conn: AsyncConnection, statement: Executable, parameters: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The rows of ``statement`` (a ``SELECT``) as dicts by column key, as ``conn.execute`` gives them."""
    compiled = _compiled(statement, conn.dialect) if _unobserved_sqlite(conn) else None
    values = None if compiled is None or not compiled.keys else compiled.parameters(parameters)
    if compiled is None or values is None:
        result = await conn.execute(statement, parameters)
        return [dict(row) for row in result.mappings()]
    driver: Any = (await conn.get_raw_connection()).driver_connection
    try:
        rows = await driver.execute_fetchall(compiled.sql, values)
    except sqlite3.Error as exc:
        raise DBAPIError.instance(compiled.sql, values, exc, sqlite3.Error) from exc
    return [compiled.row(row) for row in rows]


class PlainStatements:
    """Statements without parameters or rows (``SAVEPOINT``, ``RELEASE``, ``ROLLBACK TO``) in one
    connection's transaction, on the driver when nothing watches the connection's statements: one call
    each (on SQLite one hop to its thread, where ``exec_driver_sql`` makes three: cursor, execute, close;
    on PostgreSQL one asyncpg ``execute``, without the execution context and result); else, and again
    for a statement the driver refused (so that the error, and a broken connection, are what SQLAlchemy
    makes of them), ``exec_driver_sql``. Whether the connection is watched is decided at its first
    statement."""

    def __init__(self, conn: AsyncConnection) -> None:
        self._conn = conn
        self._driver: Any = None
        self._direct: bool | None = None
        self._together = conn.dialect.name == "postgresql"
        """asyncpg runs statements without parameters together in one round trip (the simple protocol)."""

    async def run(self, *statements: str) -> None:
        """``statements`` in order: on asyncpg in one round trip, on SQLite one driver call each."""
        if self._direct is None:
            self._direct = _unobserved(self._conn)
            if self._direct:
                self._driver = (await self._conn.get_raw_connection()).driver_connection
        if self._direct:
            try:
                if self._together:
                    await self._driver.execute("; ".join(statements))
                else:
                    for sql in statements:
                        await self._driver.execute(sql)
                return
            except Exception:
                log.debug("%s failed on the driver; again through SQLAlchemy", statements, exc_info=True)
        for sql in statements:
            await self._conn.exec_driver_sql(sql)


class Writer:
    """Writes of :func:`write_rows`, on one pooled connection held from the first write until ``close``.

    A writer that writes batch after batch (the audit log's group commit) checks a connection out (and
    pings it) once for them all. A failed write gives its connection up (invalidated: it may be broken
    or in the middle of a statement); the next write checks out another.
    """

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._direct = _driver_writes(engine)
        self._pooled: Any = None

    async def write(self, statement: Executable, rows: Sequence[Mapping[str, Any]]) -> None:
        """``statement`` (an ``INSERT`` or ``UPDATE``) once for each of ``rows``, atomically, committed."""
        compiled = _compiled(statement, self._engine.dialect) if self._direct else None
        given = [] if compiled is None else [compiled.parameters(row) for row in rows]
        values = [row for row in given if row is not None]
        if compiled is None or len(values) < len(rows):
            await _write_through_sqlalchemy(self._engine, statement, rows)
            return
        if self._pooled is None:
            self._pooled = await self._engine.raw_connection()
        driver = self._pooled.driver_connection
        try:
            if len(values) == 1:
                await driver.execute(compiled.sql, *values[0])
            else:
                await driver.executemany(compiled.sql, values)
        except BaseException:
            pooled, self._pooled = self._pooled, None
            pooled.invalidate()
            raise

    def close(self) -> None:
        """Return the held connection to the pool."""
        pooled, self._pooled = self._pooled, None
        if pooled is not None:
            pooled.close()


async def write_rows(engine: AsyncEngine, statement: Executable, rows: Sequence[Mapping[str, Any]]) -> None:
    """``statement`` (an ``INSERT`` or ``UPDATE``) once for each of ``rows``, atomically, committed.

    On PostgreSQL with nothing watching the engine's statements, on asyncpg (see above); else through
    SQLAlchemy, one row in autocommit on PostgreSQL (one round trip), several in one transaction.
    """
    writer = Writer(engine)
    try:
        await writer.write(statement, rows)
    finally:
        writer.close()


async def _write_through_sqlalchemy(
    engine: AsyncEngine, statement: Executable, rows: Sequence[Mapping[str, Any]]
) -> None:
    if len(rows) == 1 and engine.dialect.name == "postgresql":
        async with engine.execution_options(isolation_level="AUTOCOMMIT").connect() as conn:
            await conn.execute(statement, rows[0])
        return
    async with engine.begin() as conn:
        await conn.execute(statement, list(rows))


def _driver_writes(engine: AsyncEngine) -> bool:
    """PostgreSQL on asyncpg, with nothing that watches statements."""
    if engine.dialect.name != "postgresql" or engine.dialect.driver != "asyncpg":
        return False
    events = engine.sync_engine.dispatch
    return not (events.before_cursor_execute or events.after_cursor_execute or engine.sync_engine.echo)


def _unobserved(conn: AsyncConnection) -> bool:
    """SQLite, or PostgreSQL on asyncpg, with nothing that watches statements."""
    dialect = conn.dialect
    return (dialect.name == "sqlite" or (dialect.name, dialect.driver) == ("postgresql", "asyncpg")) and (
        _unwatched(conn)
    )


def _unobserved_sqlite(conn: AsyncConnection) -> bool:
    """SQLite, with nothing that watches statements (cursor events: instrumentation, tests; ``echo``)."""
    return conn.dialect.name == "sqlite" and _unwatched(conn)


def _unwatched(conn: AsyncConnection) -> bool:
    sync = conn.sync_connection
    if sync is None:
        return False
    events = sync.dispatch
    return not (events.before_cursor_execute or events.after_cursor_execute or conn.sync_engine.echo)
