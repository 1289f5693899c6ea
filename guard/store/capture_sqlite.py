"""SQLite's half of the capture: temporary triggers, recursive triggers, and an authorizer for the rest.

Each of the guard's connections gets, once, a temporary change table and
temporary ``AFTER`` triggers on every captured table (they fire only for that
connection and leave nothing in the database file), ``recursive_triggers``
on (without it the rows a ``REPLACE`` deletes fire no delete trigger: ``INSERT
OR REPLACE``, ``UPDATE OR REPLACE``, a constraint ``ON CONFLICT REPLACE``), and
an authorizer (``sqlite3.Connection.set_authorizer``) that refuses, as a
statement is prepared:

* a schema change (``CREATE``, ``DROP``, ``ALTER``), ``ATTACH`` and ``DETACH``;
* setting ``recursive_triggers``, ``writable_schema``, ``schema_version`` or
  ``journal_mode`` (``OFF`` makes a rollback undo nothing);
* a write to a table it does not capture, a foreign-key action's included (so
  any ``DELETE`` on a table an uncaptured table references ``ON DELETE
  CASCADE``, and a write through a view), and a write to
  ``temp.guard_changes`` other than by the guard's triggers;
* while a tool's call runs, ``BEGIN``, ``COMMIT`` and ``ROLLBACK``: only the
  guard ends its transaction.

Recursive triggers also let an application's trigger fire itself: one that
writes its own table must stop by its ``WHEN`` clause, or its statement fails
("too many levels of trigger recursion").

SQLite authorizes a statement once, when it prepares it, and the driver keeps
prepared statements by their text. So the guard never runs a statement the
authorizer would refuse to a tool through the statement cache: it clears the
change table before ``BEGIN`` with ``executescript``, which keeps nothing, and
its ``COMMIT`` and ``ROLLBACK`` (the driver prepares them anew each time) run
outside any call. The benchmark's in-memory worlds (:class:`guard.store.engine._InlineConnection`)
take the same path: the authorizer is set through the driver either way.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Table
from sqlalchemy.ext.asyncio import AsyncConnection

from guard.store.refusals import REFUSED, Gate, ending_refusal, gate_of

__all__ = ["SqliteCapture", "refusal_of"]

_MARKS = "guard_commit_marks"
_AUTHORIZED = "guard_capture_authorizer"
_CHANGES = "guard_changes"
_SCRIPTS: dict[tuple[int, ...], tuple[tuple[Table, ...], str]] = {}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _script(tables: tuple[Table, ...]) -> str:
    """The script that installs the temporary change table and triggers for ``tables``, written once.

    Every connection of a SQLite database runs it (the benchmark: every trial's world), and writing
    it for a domain's tables cost a millisecond or two each time. An entry holds its tables, so
    that their ``id`` in its key is never another table's.
    """
    key = tuple(id(table) for table in tables)
    entry = _SCRIPTS.get(key)
    if entry is None:
        statements = [
            # REPLACE's implicit deletes fire delete triggers only under recursive triggers
            "PRAGMA recursive_triggers = ON",
            "CREATE TEMP TABLE IF NOT EXISTS guard_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
            "tbl TEXT NOT NULL, op TEXT NOT NULL, old TEXT, new TEXT)",
        ]
        for table in tables:
            statements.extend(_triggers(table))
        entry = _SCRIPTS[key] = (tables, ";\n".join(statements) + ";")
    return entry[1]


def _triggers(table: Table) -> list[str]:
    name = table.name

    def image(alias: str) -> str:
        pairs = ", ".join(f"'{c.name}', {alias}.{_quote(c.name)}" for c in table.columns)
        return f"json_object({pairs})"

    statements = []
    for op, old, new in (
        ("insert", "NULL", image("NEW")),
        ("update", image("OLD"), image("NEW")),
        ("delete", image("OLD"), "NULL"),
    ):
        trigger = _quote(f"guard_{op}_{name}")
        statements.append(f"DROP TRIGGER IF EXISTS temp.{trigger}")
        statements.append(
            f"CREATE TEMP TRIGGER {trigger} AFTER {op.upper()} ON main.{_quote(name)} BEGIN "
            "INSERT INTO guard_changes (tbl, op, old, new) "
            f"VALUES ('{name}', '{op}', {old}, {new}); END"
        )
    return statements


_SCHEMA_CHANGES: dict[int, str] = {
    sqlite3.SQLITE_CREATE_INDEX: "CREATE INDEX",
    sqlite3.SQLITE_CREATE_TABLE: "CREATE TABLE",
    sqlite3.SQLITE_CREATE_TEMP_INDEX: "CREATE INDEX",
    sqlite3.SQLITE_CREATE_TEMP_TABLE: "CREATE TEMP TABLE",
    sqlite3.SQLITE_CREATE_TEMP_TRIGGER: "CREATE TRIGGER",
    sqlite3.SQLITE_CREATE_TEMP_VIEW: "CREATE VIEW",
    sqlite3.SQLITE_CREATE_TRIGGER: "CREATE TRIGGER",
    sqlite3.SQLITE_CREATE_VIEW: "CREATE VIEW",
    sqlite3.SQLITE_CREATE_VTABLE: "CREATE VIRTUAL TABLE",
    sqlite3.SQLITE_DROP_INDEX: "DROP INDEX",
    sqlite3.SQLITE_DROP_TABLE: "DROP TABLE",
    sqlite3.SQLITE_DROP_TEMP_INDEX: "DROP INDEX",
    sqlite3.SQLITE_DROP_TEMP_TABLE: "DROP TABLE",
    sqlite3.SQLITE_DROP_TEMP_TRIGGER: "DROP TRIGGER",
    sqlite3.SQLITE_DROP_TEMP_VIEW: "DROP VIEW",
    sqlite3.SQLITE_DROP_TRIGGER: "DROP TRIGGER",
    sqlite3.SQLITE_DROP_VIEW: "DROP VIEW",
    sqlite3.SQLITE_DROP_VTABLE: "DROP VIRTUAL TABLE",
    sqlite3.SQLITE_ALTER_TABLE: "ALTER TABLE",
    sqlite3.SQLITE_ATTACH: "ATTACH",
    sqlite3.SQLITE_DETACH: "DETACH",
}
_WRITES = {
    sqlite3.SQLITE_INSERT: "INSERT INTO",
    sqlite3.SQLITE_UPDATE: "UPDATE",
    sqlite3.SQLITE_DELETE: "DELETE FROM",
}
# the capture depends on these, or a rollback does: journal_mode = OFF makes ROLLBACK undo nothing
_GUARDED_PRAGMAS = frozenset({"recursive_triggers", "writable_schema", "schema_version", "journal_mode"})
# what nearly every statement asks about (a column read above all), answered before anything else
_ALWAYS = frozenset(
    {
        sqlite3.SQLITE_READ,
        sqlite3.SQLITE_SELECT,
        sqlite3.SQLITE_FUNCTION,
        sqlite3.SQLITE_SAVEPOINT,
        sqlite3.SQLITE_RECURSIVE,
    }
)


def _write_refusal(
    tables: frozenset[str], verb: str, name: str, db: str | None, trigger: str | None
) -> str | None:
    if db == "main" and (name in tables or name == _MARKS or name.startswith("sqlite_")):
        return None
    if db == "temp" and name == _CHANGES:
        if trigger is not None and trigger.startswith("guard_"):
            return None
        return f"writing temp.guard_changes {REFUSED}: it is the guard's record of the transaction's changes"
    if db == "temp" and name.startswith("sqlite_"):
        return None
    return (
        f"{verb} {db}.{name} {REFUSED}: the guard does not capture that table, so it cannot judge the change"
    )


def refusal_of(
    gate: Gate, action: int, arg1: str | None, arg2: str | None, db: str | None, trigger: str | None
) -> str | None:
    """Why the guard refuses an action SQLite asks its authorizer about, or None to allow it."""
    if action == sqlite3.SQLITE_TRANSACTION:
        # BEGIN, COMMIT, ROLLBACK: the guard's own run outside its calls
        return ending_refusal(f"{arg1}") if gate.calling else None
    label = _SCHEMA_CHANGES.get(action)
    if label is not None:
        named = f"{label} {arg2 if action == sqlite3.SQLITE_ALTER_TABLE else arg1}"
        return f"{named} {REFUSED}: a schema change cannot be judged; make it outside the guard"
    if action == sqlite3.SQLITE_PRAGMA:
        if arg1 in _GUARDED_PRAGMAS and arg2 is not None:
            return f"PRAGMA {arg1} = {arg2} {REFUSED}: the guard's capture and undo of changes depend on it"
        return None
    verb = _WRITES.get(action)
    if verb is None or arg1 is None:
        return None
    return _write_refusal(gate.tables, verb, arg1, db, trigger)


def _authorizer(gate: Gate) -> Callable[[int, str | None, str | None, str | None, str | None], int]:
    always, ok, deny = _ALWAYS, sqlite3.SQLITE_OK, sqlite3.SQLITE_DENY

    def authorize(
        action: int, arg1: str | None, arg2: str | None, db: str | None, trigger: str | None
    ) -> int:
        if action in always or gate.privileged:
            return ok
        reason = refusal_of(gate, action, arg1, arg2, db, trigger)
        if reason is None:
            return ok
        gate.refused = reason
        return deny

    return authorize


async def _driver(conn: AsyncConnection) -> Any:
    driver = (await conn.get_raw_connection()).driver_connection
    assert driver is not None
    return driver


async def _privileged(conn: AsyncConnection, gate: Gate, script: str) -> None:
    """Run the guard's own ``script`` past the authorizer, through ``executescript``: it keeps no prepared
    statement whose text a tool could send to reuse the guard's permission."""
    gate.privileged = True
    try:
        await (await _driver(conn)).executescript(script)
    finally:
        gate.privileged = False


class SqliteCapture:
    """The capture of ``tables`` on the guard's SQLite connections."""

    def __init__(self, tables: Sequence[Table]) -> None:
        self._tables = tuple(tables)
        self._names = frozenset(t.name for t in tables)

    async def install(self, conn: AsyncConnection) -> None:
        """Nothing is shared: every connection installs its own (:meth:`prepare`)."""

    async def prepare(self, conn: AsyncConnection, info: dict[Any, Any]) -> None:
        """Once per connection, outside a transaction: the change table, triggers, recursive triggers and
        the authorizer (the script again, past the authorizer, for another set of tables)."""
        if conn.in_transaction():
            raise RuntimeError("capture must be prepared before the connection's transaction begins")
        script = _script(self._tables)
        gate = gate_of(info)
        gate.tables = self._names
        if info.get(_AUTHORIZED):
            await _privileged(conn, gate, script)
            return
        # one script, one trip to the driver's thread, instead of a few hundred statements
        driver = await _driver(conn)
        await driver.executescript(script)
        await driver.set_authorizer(_authorizer(gate))
        info[_AUTHORIZED] = True

    async def begin(self, conn: AsyncConnection) -> None:
        """Clear the last transaction's changes, then BEGIN."""
        await _privileged(conn, gate_of(conn.info), "DELETE FROM temp.guard_changes")
        await conn.begin()

    async def rows(self, conn: AsyncConnection, start: object) -> Sequence[Sequence[Any]]:
        """The transaction's captured changes, in order, as (table, op, old, new); the authorizer leaves
        nothing to check at commit."""
        return (await conn.exec_driver_sql("SELECT tbl, op, old, new FROM guard_changes ORDER BY seq")).all()

    @staticmethod
    def refusal(conn: AsyncConnection, error: BaseException) -> str | None:
        """The reason the authorizer gave for the refusal ``error`` reports (read once), else None."""
        current: BaseException | None = error
        while current is not None and getattr(current, "sqlite_errorname", None) != "SQLITE_AUTH":
            current = getattr(current, "orig", None) or current.__cause__
        gate = gate_of(conn.info)
        if current is None or gate.refused is None:
            return None
        reason, gate.refused = gate.refused, None
        return reason
