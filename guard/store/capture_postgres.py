"""PostgreSQL's half of the capture: shared triggers, an event trigger, a statement filter, a check at commit.

Installed once (:meth:`PostgresCapture.install`, needs DDL rights on the tables):

* ``guard_capture()`` and an ``AFTER INSERT OR UPDATE OR DELETE ... FOR EACH
  ROW`` trigger on every captured table and on each inheritance child (a
  partition gets its partitioned table's), enabled ``ALWAYS`` so that a
  replica ``session_replication_role`` does not silence it. Each names its
  captured table as its argument, so a row of a partition or child is an
  effect on the table the judges know. The function records into
  ``pg_temp.guard_changes`` (created per connection ``ON COMMIT DELETE ROWS``)
  when the transaction set ``guard.capture``, or when the session has that
  table: other applications writing the same tables pay a settings lookup, and
  a tool that switches ``guard.capture`` off is recorded all the same.
* ``BEFORE TRUNCATE`` statement triggers on the same tables and every
  descendant (row triggers never fire for ``TRUNCATE``).
* an event trigger on ``ddl_command_start``, one for the database (its
  function in the schema ``guard_events``), that refuses schema changes in
  guarded transactions; it needs a superuser. A role that may not create it
  is warned once at start (with the statements a superuser runs once), and its
  schema changes are refused at commit instead (below).

Per connection, the change table keeps out every row its capture function did
not write and every update (a check on ``pg_trigger_depth()``), and a rule
refuses a delete from it (its truncation changes the catalog, below). While a
tool's call runs, a ``before_cursor_execute`` listener on the engine refuses
``COMMIT``, ``ROLLBACK`` and ``PREPARE TRANSACTION``: only the guard ends its
transaction.

At commit (:meth:`PostgresCapture.rows`, one round trip before the changes are
read) the transaction must not have changed a catalog row (any schema
change, a large object), by its own statistics (``pg_stat_get_xact_*``) against
their value when it began, and must hold no write lock on a table without an
enabled capture trigger (a table the guard does not capture, a foreign-key
cascade into one, a foreign table); else :class:`UncapturedChanges` is raised
and the gate blocks the commit. A call's rolled-back savepoint gives up its
locks, so a refused write does not stay against the transaction; a schema
change does (its statistics stay), even one that failed. Every name in these
statements is qualified: a tool may have changed ``search_path``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table, event, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection

from guard.errors import ConfigError
from guard.store.refusals import (
    OWN_CHANGES_CHECK,
    OWN_CHANGES_TEXT,
    REFUSAL_SQLSTATE,
    REFUSED,
    StatementRefused,
    UncapturedChanges,
    ending_refusal,
    gate_of,
    refusal,
)

__all__ = ["EVENT_TRIGGER_SCRIPT", "PostgresCapture", "Tally", "unjudged"]

log = logging.getLogger(__name__)

_CAPTURE_FUNCTION = """
CREATE OR REPLACE FUNCTION guard_capture() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- a guard connection has the change table: it records even if a statement switched guard.capture off
  IF current_setting('guard.capture', true) = 'on'
     OR (pg_my_temp_schema() <> 0 AND to_regclass('pg_temp.guard_changes') IS NOT NULL) THEN
    INSERT INTO pg_temp.guard_changes (tbl, op, old, new) VALUES (
      coalesce(TG_ARGV[0], TG_TABLE_NAME), lower(TG_OP),
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
    RAISE EXCEPTION USING ERRCODE = '{REFUSAL_SQLSTATE}', MESSAGE = format(
      'TRUNCATE of %s {REFUSED}: its rows cannot be judged; '
      'delete them with DELETE instead', TG_TABLE_NAME);
  END IF;
  RETURN NULL;
END $$
"""
_REFUSE_CHANGE_FUNCTION = f"""
CREATE OR REPLACE FUNCTION guard_refuse_change() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = '{REFUSAL_SQLSTATE}', MESSAGE = '{OWN_CHANGES_TEXT.replace("'", "''")}';
END $$
"""
# one event trigger for the database, its function in a schema of its own: it outlives any one guard's
# schema (a benchmark world's comes and goes), since a function dropped while another session's schema
# change is about to call it fails that session's statement ("cache lookup failed for function")
_EVENTS = "guard_events"
_EVENT_TRIGGER_NAME = "guard_refuse_ddl"
_REFUSE_DDL_FUNCTION = (
    f"CREATE OR REPLACE FUNCTION {_EVENTS}.refuse_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN "
    "IF current_setting('guard.capture', true) = 'on' "
    f"THEN RAISE EXCEPTION USING ERRCODE = '{REFUSAL_SQLSTATE}', MESSAGE = format("
    f"'%s {REFUSED}: a schema change cannot be judged; make it outside the guard', tg_tag); "
    "END IF; END $$"
)
_CHANGE_TABLE = (
    "CREATE TEMP TABLE IF NOT EXISTS guard_changes "
    "(seq BIGSERIAL PRIMARY KEY, tbl TEXT NOT NULL, op TEXT NOT NULL, old JSONB, new JSONB, "
    f"CONSTRAINT {OWN_CHANGES_CHECK} CHECK (pg_catalog.pg_trigger_depth() > 0)) ON COMMIT DELETE ROWS",
    # a rule, not a trigger: a trigger on the table made every COMMIT half a millisecond slower
    "CREATE OR REPLACE RULE guard_changes_kept AS ON DELETE TO pg_temp.guard_changes "
    "DO INSTEAD SELECT guard_refuse_change()",
)
_EVENT_TRIGGER = text(
    f"SELECT evtenabled::text FROM pg_event_trigger WHERE evtname = '{_EVENT_TRIGGER_NAME}'"
)
_CHANGES = "SELECT tbl, op, old, new FROM pg_temp.guard_changes ORDER BY seq"
_CATALOGS = text("SELECT oid FROM pg_class WHERE relnamespace = 'pg_catalog'::regnamespace AND relkind = 'r'")

# A table and its inheritance descendants (partitions among them), parents first, and the guard's
# triggers on each. ``ancestors`` orders captured partitions after their partitioned parents.
_FAMILY = text(
    """
WITH RECURSIVE family (relid, depth) AS (
  SELECT to_regclass(:target)::oid, 0
  UNION ALL SELECT i.inhrelid, f.depth + 1 FROM pg_inherits i JOIN family f ON i.inhparent = f.relid)
SELECT f.relid::regclass::text AS target, f.depth, c.relispartition AS partition,
  (SELECT count(*) FROM pg_partition_ancestors(f.relid)) AS ancestors,
  t.tgargs AS capture_args, t.tgenabled::text AS capture_enabled, t.tgparentid <> 0 AS capture_cloned,
  EXISTS (SELECT FROM pg_trigger r WHERE r.tgrelid = f.relid AND r.tgname = 'guard_refuse_truncate')
    AS refuses_truncate
FROM family f JOIN pg_class c ON c.oid = f.relid
LEFT JOIN pg_trigger t ON t.tgrelid = f.relid AND t.tgname = 'guard_capture'
ORDER BY f.depth, f.relid
"""
)


def _op(symbol: str) -> str:
    return f"OPERATOR(pg_catalog.{symbol})"


def _catalog_rows(catalogs: Sequence[int]) -> str:
    """The row changes the session's statistics count in the system catalogs (fixed tables: listed once,
    so that no statement scans ``pg_class``, which grows with the database)."""
    listed = "'{" + ",".join(str(oid) for oid in catalogs) + "}'::pg_catalog.oid[]"
    counts = f" {_op('+')} ".join(
        f"pg_catalog.pg_stat_get_xact_tuples_{kind}(o)" for kind in ("inserted", "updated", "deleted")
    )
    return f"(SELECT pg_catalog.sum({counts}) FROM pg_catalog.unnest({listed}) AS o)"


# the tables (not temporary, not the guard's marks, not catalogs) this transaction holds a write lock on
# that no enabled capture trigger watches; a rolled-back savepoint has given up its locks
_UNCAPTURED = f"""
SELECT pg_catalog.array_agg(c.oid::pg_catalog.regclass::pg_catalog.text ORDER BY c.oid) AS uncaptured
FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_class c ON c.oid {_op("=")} l.relation
WHERE l.pid {_op("=")} pg_catalog.pg_backend_pid() AND l.locktype {_op("=")} 'relation'
  AND l.mode {_op("<>")} ALL ('{{AccessShareLock,RowShareLock}}'::pg_catalog.text[])
  AND c.relkind {_op("=")} ANY ('{{r,p,f,m}}'::pg_catalog."char"[]) AND c.relpersistence {_op("<>")} 't'
  AND c.relnamespace {_op("<>")} 'pg_catalog'::pg_catalog.regnamespace
  AND c.relname {_op("<>")} 'guard_commit_marks'
  AND NOT EXISTS (SELECT FROM pg_catalog.pg_trigger t WHERE t.tgrelid {_op("=")} c.oid
    AND t.tgname {_op("=")} 'guard_capture' AND t.tgenabled {_op("=")} 'A')
"""


@dataclass(frozen=True, slots=True)
class Tally:
    """What PostgreSQL says a session changed unseen by the capture: catalog rows its statistics counted
    (pending counts of earlier transactions included: only a difference says what one did), and the
    tables it holds a write lock on that no capture trigger watches."""

    catalog: int
    uncaptured: tuple[str, ...] = ()


def unjudged(start: Tally, end: Tally) -> str | None:
    """Why a transaction whose tally went from ``start`` to ``end`` must not commit, or None."""
    reasons = []
    if end.catalog > start.catalog:
        reasons.append(f"it changed the schema ({end.catalog - start.catalog} catalog rows)")
    if end.uncaptured:
        reasons.append(f"it wrote {', '.join(end.uncaptured)}, which the guard does not capture")
    return "; ".join(reasons) or None


@dataclass(frozen=True, slots=True)
class _Member:
    """One relation of a captured table's family, and the guard's triggers on it."""

    target: str
    depth: int
    partition: bool
    ancestors: int
    capture_args: bytes | None
    capture_enabled: str | None
    capture_cloned: bool | None
    refuses_truncate: bool

    def captures_as(self, name: str) -> bool:
        """Its capture trigger records its rows as ``name``'s, whatever the session's role."""
        return self.capture_args == name.encode() + b"\x00" and self.capture_enabled == "A"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _target(table: Table) -> str:
    return _quote(table.name) if table.schema is None else f"{_quote(table.schema)}.{_quote(table.name)}"


async def _family(conn: AsyncConnection, table: Table) -> list[_Member]:
    rows = (await conn.execute(_FAMILY, {"target": _target(table)})).all()
    if not rows:
        raise ConfigError(f"the captured table {_target(table)} is not in the database")
    return [_Member(*row) for row in rows]


async def _capture_as(conn: AsyncConnection, target: str, name: str) -> None:
    """The capture trigger on ``target``, recording rows as ``name``'s, enabled always."""
    argument = "'" + name.replace("'", "''") + "'"
    await conn.exec_driver_sql(
        "CREATE OR REPLACE TRIGGER guard_capture AFTER INSERT OR UPDATE OR DELETE "
        f"ON {target} FOR EACH ROW EXECUTE FUNCTION guard_capture({argument})"
    )
    await conn.exec_driver_sql(f"ALTER TABLE {target} ENABLE ALWAYS TRIGGER guard_capture")


async def _install_family(
    conn: AsyncConnection, name: str, family: Sequence[_Member], captured: set[str]
) -> None:
    """The triggers of one captured table (``family[0]``) and of its descendants that are not captured
    themselves. A trigger in place is left alone: creating one locks its table against writers, so a
    guard starting beside another one's open transactions (a replica, a restart) would wait on them."""
    for member in family:
        if member.depth > 0 and member.target in captured:
            continue
        # a partition (or a captured partition's clone of its parent's trigger) records as its parent does
        inherited = member.partition if member.depth > 0 else bool(member.capture_cloned)
        if not inherited and not member.captures_as(name):
            await _capture_as(conn, member.target, name)
        if not member.refuses_truncate:
            await conn.exec_driver_sql(
                f"CREATE OR REPLACE TRIGGER guard_refuse_truncate BEFORE TRUNCATE ON {member.target} "
                "FOR EACH STATEMENT EXECUTE FUNCTION guard_refuse_truncate()"
            )


EVENT_TRIGGER_SCRIPT = (
    f"CREATE SCHEMA IF NOT EXISTS {_EVENTS}",
    _REFUSE_DDL_FUNCTION,
    f"ALTER FUNCTION {_EVENTS}.refuse_ddl() OWNER TO CURRENT_USER",
    f"CREATE EVENT TRIGGER {_EVENT_TRIGGER_NAME} ON ddl_command_start "
    f"EXECUTE FUNCTION {_EVENTS}.refuse_ddl()",
    f"ALTER EVENT TRIGGER {_EVENT_TRIGGER_NAME} ENABLE ALWAYS",
)
"""The statements that install the database's event trigger against schema changes in guarded
transactions. Its function runs for every session's schema change, so whoever runs them owns it (a
superuser), not a guard's role."""


async def _install_event_trigger(conn: AsyncConnection) -> None:
    """The database's event trigger that refuses schema changes in guarded transactions. One in place is
    left as it is (a superuser may have installed it for a guard whose role may not); a role that may not
    create it is told what it loses, and how to mend it."""
    if (await conn.execute(_EVENT_TRIGGER)).scalar() == "A":
        return
    try:
        async with conn.begin_nested():
            await conn.exec_driver_sql(f"DROP EVENT TRIGGER IF EXISTS {_EVENT_TRIGGER_NAME}")
            for statement in EVENT_TRIGGER_SCRIPT:
                await conn.exec_driver_sql(statement)
    except DBAPIError as exc:
        if getattr(exc.orig, "sqlstate", None) != REFUSAL_SQLSTATE:
            raise
        log.warning(
            "the guard's database role may not create event triggers: a schema change inside a guarded "
            "transaction runs, and the transaction is refused at commit, not at the statement. To refuse it "
            "at the statement, have a superuser run once in this database: %s",
            "; ".join(EVENT_TRIGGER_SCRIPT),
        )


def _refuse_ending(
    conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool
) -> None:
    """``before_cursor_execute``: while a tool's call runs, a statement that would end the transaction
    (no trigger fires for it) is refused before it is sent."""
    if gate_of(conn.info).calling:
        reason = ending_refusal(statement)
        if reason is not None:
            raise StatementRefused(reason)


async def _fetch(conn: AsyncConnection, sql: str) -> Sequence[Sequence[Any]]:
    """The rows of the fixed query ``sql``, on the driver, inside ``conn``'s transaction (SQLAlchemy's
    execution path cost more than these queries). A driver error runs the query again through SQLAlchemy,
    which raises it wrapped as everywhere else and marks a connection that died invalidated (the session
    is then reported lost)."""
    driver = (await conn.get_raw_connection()).driver_connection
    assert driver is not None
    try:
        rows: Sequence[Sequence[Any]] = await driver.fetch(sql)
    except Exception:
        return (await conn.exec_driver_sql(sql)).all()
    return rows


class PostgresCapture:
    """The capture of ``tables`` on PostgreSQL."""

    def __init__(self, tables: Sequence[Table]) -> None:
        self._tables = tuple(tables)
        self._begin = self._check = ""

    async def install(self, conn: AsyncConnection) -> None:
        """The functions, the event trigger, the statement filter and each table's triggers (idempotent)."""
        for function in (_CAPTURE_FUNCTION, _REFUSE_TRUNCATE_FUNCTION, _REFUSE_CHANGE_FUNCTION):
            await conn.exec_driver_sql(function)
        await _install_event_trigger(conn)
        engine = conn.sync_engine
        if not event.contains(engine, "before_cursor_execute", _refuse_ending):
            event.listen(engine, "before_cursor_execute", _refuse_ending)
        heads = {table.name: (await _family(conn, table))[0] for table in self._tables}
        captured = {head.target for head in heads.values()}
        # a partitioned table before its partitions, which then have the trigger it hands down
        for table in sorted(self._tables, key=lambda t: heads[t.name].ancestors):
            await _install_family(conn, table.name, await _family(conn, table), captured)
        catalog = _catalog_rows([int(oid) for oid in (await conn.execute(_CATALOGS)).scalars()])
        self._begin = f"SELECT pg_catalog.set_config('guard.capture', 'on', true), {catalog} AS catalog"
        self._check = f"SELECT {catalog} AS catalog, u.uncaptured FROM ({_UNCAPTURED}) u"

    async def prepare(self, conn: AsyncConnection, info: dict[Any, Any]) -> None:
        """Once per connection: the change table, which keeps out rows no capture trigger wrote."""
        for statement in _CHANGE_TABLE:
            await conn.exec_driver_sql(statement)
        gate_of(info)

    async def begin(self, conn: AsyncConnection) -> Tally:
        """BEGIN, switch capture on, and count the catalog rows changed so far."""
        if not self._begin:
            raise RuntimeError("the PostgreSQL capture was not installed")
        await conn.begin()
        row = (await conn.exec_driver_sql(self._begin)).one()
        return Tally(int(row.catalog or 0))

    async def rows(self, conn: AsyncConnection, start: object) -> Sequence[Sequence[Any]]:
        """The transaction's captured changes, in order, as (table, op, old, new); raises
        :class:`UncapturedChanges` when it changed the schema since ``start`` (its :meth:`begin`'s tally)
        or holds a write the capture does not see.

        Two statements: a plan that reads the change table is made again in every transaction (the commit
        empties it), and the check's plan took a third of a millisecond to make.
        """
        (catalog, uncaptured), *_ = await _fetch(conn, self._check)
        before = start if isinstance(start, Tally) else Tally(0)
        reason = unjudged(before, Tally(int(catalog or 0), tuple(uncaptured or ())))
        if reason is not None:
            raise UncapturedChanges(f"the transaction cannot be judged: {reason}; roll it back")
        return await _fetch(conn, _CHANGES)

    @staticmethod
    def refusal(conn: AsyncConnection, error: BaseException) -> str | None:
        return refusal(error)
