"""Row-change capture inside the transaction, by triggers, and the refusal of every change they cannot see.

Every insert, update and delete on a captured table appends the old and new
row to a per-connection temporary table, in order, inside the same
transaction: a savepoint rollback removes what it undoes, and nothing
survives the transaction. The effects are read from there at commit time, so
the gate never scans a business table.

* SQLite (:mod:`guard.store.capture_sqlite`): temporary triggers, which fire
  only for the guard's own connection and leave nothing in the database file,
  write to ``temp.guard_changes``.
* PostgreSQL (:mod:`guard.store.capture_postgres`): one trigger function and
  a row trigger per captured table and inheritance child, installed once,
  which record into a ``pg_temp`` table created ``ON COMMIT DELETE ROWS`` per
  connection; other applications writing the same tables pay a settings
  lookup and leave no rows behind.

Every other way a statement can change rows without a row trigger seeing
them, or end the transaction before the judges, is captured or refused, so
nothing reaches the commit unjudged (requirement G25):

* captured: SQLite's ``REPLACE`` (``INSERT``/``UPDATE OR REPLACE``; recursive
  triggers fire the delete triggers of the rows it replaces); on PostgreSQL
  the rows of partitions and inheritance children (as their table's), and
  writes after a tool switched ``guard.capture`` off or the session role to
  ``replica``. UPSERT, ``MERGE``, writable CTEs, ``COPY`` and foreign-key
  cascades fire the row triggers on either database.
* refused at the statement: schema changes (SQLite's authorizer; PostgreSQL's
  event trigger, where the guard's role may create one), a write to a table
  the guard does not capture and ``ATTACH`` (SQLite), ``TRUNCATE``
  (PostgreSQL's statement triggers), writes to the change table, the
  ``PRAGMA`` settings the capture depends on, and a tool's ``COMMIT``,
  ``ROLLBACK`` or ``PREPARE TRANSACTION``.
* refused at commit (PostgreSQL): schema changes made without the event
  trigger, a large object, and a write to a table no capture trigger watches
  (a foreign-key cascade into one included).

A refusal at the statement is a tool error the agent reads (``permission_denied``,
:meth:`Capture.refusal`), its call's savepoint rolled back, and the transaction
goes on; a refusal at commit raises :class:`UncapturedChanges` from
:meth:`Capture.changes`, and the gate blocks the commit. Sessions outside the
guard (``guard.capture`` unset, another SQLite connection) are unaffected.

Not contained: a superuser tool role (it can switch off the statistics the
commit check reads, ``track_counts``, or write from another session with
``COPY ... TO PROGRAM``); statements a tool sends on the driver's connection
itself, past SQLAlchemy (PostgreSQL's statement filter does not see them); and
``guard_commit_marks``, the guard's own table, which the guard writes on the
same connections and so neither captures nor refuses.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Protocol

from sqlalchemy import Float, Table
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection

from guard.store.capture_postgres import PostgresCapture, Tally, unjudged
from guard.store.capture_sqlite import SqliteCapture
from guard.store.refusals import REFUSAL_SQLSTATE, Gate, UncapturedChanges, gate_of, refusal
from judges import EffectKind, RowChange

__all__ = [
    "REFUSAL_SQLSTATE",
    "Capture",
    "Tally",
    "UncapturedChanges",
    "jsonable",
    "refusal",
    "unjudged",
]

_OPS = {"insert": EffectKind.INSERT, "update": EffectKind.UPDATE, "delete": EffectKind.DELETE}
_INSTALLED = "guard_capture_tables"


class _Side(Protocol):
    """One database's capture: what :class:`Capture` asks of SQLite's and of PostgreSQL's."""

    async def install(self, conn: AsyncConnection) -> None: ...

    async def prepare(self, conn: AsyncConnection, info: dict[Any, Any]) -> None: ...

    async def begin(self, conn: AsyncConnection) -> Tally | None: ...

    async def rows(self, conn: AsyncConnection, start: object) -> Sequence[Sequence[Any]]: ...

    def refusal(self, conn: AsyncConnection, error: BaseException) -> str | None: ...


def jsonable(value: Any) -> Any:
    """A database value as JSON data (datetimes as ISO text, decimals as numbers)."""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


class Capture:
    """Installs capture for a set of tables, starts guarded transactions, and reads what they changed."""

    def __init__(self, tables: Sequence[Table], dialect: Dialect) -> None:
        self.tables = {t.name: t for t in tables}
        self.dialect = dialect
        self.sqlite = dialect.name == "sqlite"
        self._side: _Side = SqliteCapture(tables) if self.sqlite else PostgresCapture(tables)
        self._processors = {
            t.name: {c.name: c.type.result_processor(dialect, None) for c in t.columns} for t in tables
        }
        # PostgreSQL's to_jsonb writes a whole double as an integer (10.0 as 10); a judge
        # must see the float a read of the same row returns, on either database.
        self._floats = {
            t.name: frozenset(c.name for c in t.columns if isinstance(c.type, Float)) for t in tables
        }

    @property
    def keys(self) -> dict[str, tuple[str, ...]]:
        return {
            name: tuple(c.name for c in t.primary_key.columns) or tuple(c.name for c in t.columns)
            for name, t in self.tables.items()
        }

    async def install_shared(self, conn: AsyncConnection) -> None:
        """What every connection shares (PostgreSQL: functions, triggers, the event trigger; idempotent,
        needs DDL rights); run before any transaction begins."""
        await self._side.install(conn)

    async def prepare_connection(self, conn: AsyncConnection) -> None:
        """Per connection, once, before its transaction begins: the temporary change table (on SQLite also
        the temporary triggers and the authorizer)."""
        info = (await conn.get_raw_connection()).info
        wanted = frozenset(self.tables)
        if info.get(_INSTALLED) == wanted:
            return
        await self._side.prepare(conn, info)
        info[_INSTALLED] = wanted

    async def begin(self, conn: AsyncConnection) -> Tally | None:
        """Start the connection's guarded transaction; on PostgreSQL, the tally :meth:`changes` checks."""
        return await self._side.begin(conn)

    async def changes(self, conn: AsyncConnection, start: Tally | None = None) -> list[RowChange]:
        """Every captured row change of the transaction so far, in order.

        Raises :class:`UncapturedChanges` (PostgreSQL) when the transaction
        changed the schema since ``start``, or wrote a table no trigger captures.
        """
        return [
            RowChange(table, _OPS[op], self._decode(table, old), self._decode(table, new))
            for table, op, old, new in await self._side.rows(conn, start)
        ]

    @staticmethod
    def gate(conn: AsyncConnection) -> Gate:
        """``conn``'s refusal state: set ``calling`` while a tool's call runs on it, so that its statements
        may not end the transaction."""
        return gate_of(conn.info)

    def refusal(self, conn: AsyncConnection, error: BaseException) -> str | None:
        """The text of the guard's refusal in ``error``, raised by a statement on ``conn``, else None."""
        return self._side.refusal(conn, error)

    def _decode(self, table: str, image: Any) -> dict[str, Any] | None:
        if image is None:
            return None
        raw = json.loads(image) if isinstance(image, str) else image
        if not self.sqlite:
            floats = self._floats.get(table, frozenset())
            return {
                k: float(v) if k in floats and isinstance(v, int) and not isinstance(v, bool) else jsonable(v)
                for k, v in raw.items()
            }
        processors = self._processors.get(table, {})
        out: dict[str, Any] = {}
        for column, value in raw.items():
            processor = processors.get(column)
            out[column] = jsonable(processor(value) if processor is not None and value is not None else value)
        return out
