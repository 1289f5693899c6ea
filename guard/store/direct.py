"""SQLite reads on the driver, each statement compiled once: the rows SQLAlchemy gives, in a tenth the time.

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

Other databases, statements whose SQL depends on their parameters
(expanding ``IN`` lists, values rendered at execution), and connections
whose statements someone watches (a ``before_cursor_execute`` or
``after_cursor_execute`` listener, such as OpenTelemetry's SQLAlchemy
instrumentation, or ``echo``) take the ordinary ``execute``, so that every
statement is seen.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Executable
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.compiler import SQLCompiler

__all__ = ["read_rows"]

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
    compiled = statement.compile(dialect=dialect)  # type: ignore[attr-defined]
    if not isinstance(compiled, SQLCompiler) or compiled.isinsert or compiled.isupdate or compiled.isdelete:
        return None
    if compiled.post_compile_params or compiled.literal_execute_params or compiled.positiontup is None:
        return None
    names = tuple(compiled.positiontup)
    binds = tuple(compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names)
    columns = compiled._result_columns
    if not columns:
        return None
    keys = tuple(column.keyname for column in columns)
    if len(set(keys)) != len(keys):
        return None
    results = tuple(column.type.dialect_impl(dialect).result_processor(dialect, None) for column in columns)
    fixed = {
        name: compiled.binds[name].effective_value for name in names if not compiled.binds[name].required
    }
    return _Compiled(compiled.string, names, fixed, binds, keys, results)


async def read_rows(
    conn: AsyncConnection, statement: Executable, parameters: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The rows of ``statement`` (a ``SELECT``) as dicts by column key, as ``conn.execute`` gives them."""
    compiled = _compiled(statement, conn.dialect) if _unobserved_sqlite(conn) else None
    values = None if compiled is None else compiled.parameters(parameters)
    if compiled is None or values is None:
        result = await conn.execute(statement, parameters)
        return [dict(row) for row in result.mappings()]
    driver: Any = (await conn.get_raw_connection()).driver_connection
    try:
        rows = await driver.execute_fetchall(compiled.sql, values)
    except sqlite3.Error as exc:
        raise DBAPIError.instance(compiled.sql, values, exc, sqlite3.Error) from exc
    return [compiled.row(row) for row in rows]


def _unobserved_sqlite(conn: AsyncConnection) -> bool:
    """SQLite, with nothing that watches statements (cursor events: instrumentation, tests; ``echo``)."""
    if conn.dialect.name != "sqlite":
        return False
    sync = conn.sync_connection
    if sync is None:
        return False
    events = sync.dispatch
    return not (events.before_cursor_execute or events.after_cursor_execute or conn.sync_engine.echo)
