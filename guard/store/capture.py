"""Row-change capture inside the transaction, by triggers.

Every insert, update and delete on a captured table appends the old and new
row to a per-connection temporary table, in order, inside the same
transaction: a savepoint rollback removes what it undoes, and nothing
survives the transaction. The effects are read from there at commit time, so
the gate never scans a business table.

* SQLite: temporary triggers (they fire only for the guard's own connection,
  and leave nothing in the database file) write to ``temp.guard_changes``.
* PostgreSQL: one trigger function and an ``AFTER ... FOR EACH ROW`` trigger
  per table, installed once; the function records only when the transaction
  set ``guard.capture`` (so other applications writing the same tables pay a
  settings lookup and nothing else), into a ``pg_temp`` table created
  ``ON COMMIT DELETE ROWS`` per connection.

A statement whose row changes no trigger sees is refused inside a guarded
transaction, so nothing reaches the commit unjudged. On PostgreSQL that is
``TRUNCATE`` (row triggers never fire for it): a ``BEFORE TRUNCATE ... FOR
EACH STATEMENT`` trigger per captured table raises when ``guard.capture`` is
on, with SQLSTATE ``42501`` (insufficient_privilege), which the error
classifier reads as ``permission_denied``: never retried, the call's
savepoint is rolled back and the agent gets a tool error; the message says to
use ``DELETE`` (:func:`truncate_refusal` reads it back out of the error).
Other sessions (``guard.capture`` unset) truncate as before.
SQLite has no ``TRUNCATE``, and its truncate optimisation of an unqualified
``DELETE`` is off for a table with triggers, so the temporary triggers see
every deleted row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Float, Table, text
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection

from judges import EffectKind, RowChange

__all__ = ["TRUNCATE_SQLSTATE", "Capture", "jsonable", "truncate_refusal"]

_OPS = {"insert": EffectKind.INSERT, "update": EffectKind.UPDATE, "delete": EffectKind.DELETE}
_INSTALLED = "guard_capture_tables"
TRUNCATE_SQLSTATE = "42501"
"""The SQLSTATE of a refused ``TRUNCATE`` (insufficient_privilege: classified ``permission_denied``)."""
_REFUSED = "is refused inside a guarded transaction"

_CAPTURE_FUNCTION = """
CREATE OR REPLACE FUNCTION guard_capture() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('guard.capture', true) = 'on' THEN
    INSERT INTO pg_temp.guard_changes (tbl, op, old, new) VALUES (
      TG_TABLE_NAME, lower(TG_OP),
      CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) END,
      CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) END);
  END IF;
  RETURN NULL;
END $$
"""
_REFUSE_TRUNCATE_FUNCTION = f"""
CREATE OR REPLACE FUNCTION guard_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('guard.capture', true) = 'on' THEN
    RAISE EXCEPTION USING ERRCODE = '{TRUNCATE_SQLSTATE}', MESSAGE = format(
      'TRUNCATE of %s {_REFUSED}: its rows cannot be judged; '
      'delete them with DELETE instead', TG_TABLE_NAME);
  END IF;
  RETURN NULL;
END $$
"""


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


def truncate_refusal(error: BaseException) -> str | None:
    """The refusal's text when ``error`` is the guard's refused ``TRUNCATE`` (as the driver or SQLAlchemy
    raised it), else None: for a caller that wants the agent to read it."""
    for candidate in (error, getattr(error, "orig", None)):
        if getattr(candidate, "sqlstate", None) == TRUNCATE_SQLSTATE and _REFUSED in str(candidate):
            return str(candidate).splitlines()[0]
    return None


_PRESENT_TRIGGERS = text(
    "SELECT tgname FROM pg_trigger WHERE tgrelid = to_regclass(:target) "
    "AND tgname IN ('guard_capture', 'guard_refuse_truncate') AND NOT tgisinternal"
)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


_SCRIPTS: dict[tuple[int, ...], tuple[tuple[Table, ...], str]] = {}


def _sqlite_script(tables: tuple[Table, ...]) -> str:
    """The script that installs the temporary change table and triggers for ``tables``, written once.

    Every connection of a SQLite database runs it (the benchmark: every trial's world), and writing
    it for a domain's tables cost a millisecond or two each time. An entry holds its tables, so
    that their ``id`` in its key is never another table's.
    """
    key = tuple(id(table) for table in tables)
    entry = _SCRIPTS.get(key)
    if entry is None:
        statements = [
            "CREATE TEMP TABLE IF NOT EXISTS guard_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
            "tbl TEXT NOT NULL, op TEXT NOT NULL, old TEXT, new TEXT)"
        ]
        for table in tables:
            statements.extend(_sqlite_triggers(table))
        entry = _SCRIPTS[key] = (tables, ";\n".join(statements) + ";")
    return entry[1]


def _sqlite_triggers(table: Table) -> list[str]:
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


class Capture:
    """Installs capture for a set of tables and reads what a transaction changed."""

    def __init__(self, tables: Sequence[Table], dialect: Dialect) -> None:
        self.tables = {t.name: t for t in tables}
        self.dialect = dialect
        self.sqlite = dialect.name == "sqlite"
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
        """PostgreSQL: the trigger functions and the per-table triggers (idempotent; needs DDL rights).

        A trigger already in place is left alone: creating one locks its table
        against writers, so a guard starting beside another one's open write
        transactions (a second replica, a restart) would wait on them.
        """
        if self.sqlite or not self.tables:
            return
        await conn.execute(text(_CAPTURE_FUNCTION))
        await conn.execute(text(_REFUSE_TRUNCATE_FUNCTION))
        for table in self.tables.values():
            target = (
                _quote(table.name) if table.schema is None else f"{_quote(table.schema)}.{_quote(table.name)}"
            )
            present = set((await conn.execute(_PRESENT_TRIGGERS, {"target": target})).scalars().all())
            if "guard_capture" not in present:
                await conn.execute(
                    text(
                        "CREATE OR REPLACE TRIGGER guard_capture AFTER INSERT OR UPDATE OR DELETE "
                        f"ON {target} FOR EACH ROW EXECUTE FUNCTION guard_capture()"
                    )
                )
            if "guard_refuse_truncate" not in present:
                await conn.execute(
                    text(
                        f"CREATE OR REPLACE TRIGGER guard_refuse_truncate BEFORE TRUNCATE ON {target} "
                        "FOR EACH STATEMENT EXECUTE FUNCTION guard_refuse_truncate()"
                    )
                )

    async def prepare_connection(self, conn: AsyncConnection) -> None:
        """Per connection, once: the temporary change table (and on SQLite the temporary triggers)."""
        info = (await conn.get_raw_connection()).info
        wanted = frozenset(self.tables)
        if info.get(_INSTALLED) == wanted:
            return
        if self.sqlite:
            if conn.in_transaction():
                raise RuntimeError("capture must be prepared before the connection's transaction begins")
            # one script, one trip to the driver's thread, instead of a few hundred statements
            driver = (await conn.get_raw_connection()).driver_connection
            assert driver is not None
            await driver.executescript(_sqlite_script(tuple(self.tables.values())))
        else:
            await conn.exec_driver_sql(
                "CREATE TEMP TABLE IF NOT EXISTS guard_changes "
                "(seq BIGSERIAL PRIMARY KEY, tbl TEXT NOT NULL, op TEXT NOT NULL, old JSONB, new JSONB) "
                "ON COMMIT DELETE ROWS"
            )
        info[_INSTALLED] = wanted

    async def begin(self, conn: AsyncConnection) -> None:
        """At the start of each transaction, after BEGIN."""
        if self.sqlite:
            await conn.exec_driver_sql("DELETE FROM temp.guard_changes")
        else:
            await conn.exec_driver_sql("SELECT set_config('guard.capture', 'on', true)")

    async def changes(self, conn: AsyncConnection) -> list[RowChange]:
        """Every captured row change of the transaction so far, in order."""
        rows = await conn.exec_driver_sql("SELECT tbl, op, old, new FROM guard_changes ORDER BY seq")
        return [
            RowChange(row.tbl, _OPS[row.op], self._decode(row.tbl, row.old), self._decode(row.tbl, row.new))
            for row in rows
        ]

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
