"""Requirement G25: every statement that could change rows unseen by the row triggers is captured or refused.

An agent with a tool that runs SQL tries each form that changes rows, the
schema, or the capture itself, inside a guarded transaction, on a SQLite
file, on a SQLite world started from an image (the benchmark's in-memory
worlds, whose connection runs on the event loop), and on PostgreSQL (as the
superuser, so the guard's event trigger is in place; the non-superuser case
is in ``test_unjudged_postgres``). Each form ends one of three ways:

* seen: the triggers capture its row changes, and the effects say so;
* refused: the call is a ``permission_denied`` tool error that says why, its
  savepoint is rolled back, and the transaction goes on;
* refused at commit: the call ran, and reading the effects for the gate
  raises, so the commit is blocked (PostgreSQL, where nothing can stop the
  statement before it runs).
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from sqlalchemy import Column, ForeignKey, Integer, MetaData, String, Table, text, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.audit.log import MemoryAudit
from guard.backends.sql import SqlBackend, SqlSession
from guard.clock import FixedClock
from guard.errors import BackendError
from guard.runtime import Runtime, assemble
from guard.settings import GuardSettings
from guard.store.engine import create_engine
from guard.tools import ToolContext, ToolRegistry
from judges import CommitContext, Effect, EffectKind, ErrorClass, Finding, Query, Severity, Verdict
from tests.guard.conftest import agent_client, meta, no_sleep

REFUSED = "is refused inside a guarded transaction"

SCHEMA = (
    "CREATE TABLE items (id INTEGER PRIMARY KEY, name VARCHAR(50) NOT NULL UNIQUE, qty INTEGER NOT NULL)",
    "CREATE TABLE parents (id INTEGER PRIMARY KEY, code VARCHAR(20) NOT NULL UNIQUE)",
    "CREATE TABLE children (id INTEGER PRIMARY KEY, "
    "parent_id INTEGER REFERENCES parents (id) ON DELETE CASCADE, "
    "parent_code VARCHAR(20) REFERENCES parents (code) ON UPDATE CASCADE ON DELETE SET NULL)",
    "CREATE TABLE owners (id INTEGER PRIMARY KEY)",
    # not captured: in the database, not in the backend's metadata
    "CREATE TABLE pets (id INTEGER PRIMARY KEY, owner_id INTEGER REFERENCES owners (id) ON DELETE CASCADE)",
    "CREATE TABLE notes (id INTEGER PRIMARY KEY, body VARCHAR(50))",
)
SEED = (
    "INSERT INTO items VALUES (1, 'one', 1), (2, 'two', 2)",
    "INSERT INTO parents VALUES (1, 'p1'), (2, 'p2')",
    "INSERT INTO children VALUES (1, 1, 'p1'), (2, 2, 'p2'), (3, NULL, 'p2')",
    "INSERT INTO owners VALUES (1)",
    "INSERT INTO pets VALUES (1, 1)",
    "INSERT INTO notes VALUES (1, 'note')",
)

metadata = MetaData()
Table(
    "items",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(50), nullable=False, unique=True),
    Column("qty", Integer, nullable=False),
)
Table("parents", metadata, Column("id", Integer, primary_key=True), Column("code", String(20), unique=True))
Table(
    "children",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("parent_id", Integer, ForeignKey("parents.id")),
    Column("parent_code", String(20), ForeignKey("parents.code")),
)
Table("owners", metadata, Column("id", Integer, primary_key=True))
items = metadata.tables["items"]

tools = ToolRegistry("unjudged")


@tools.tool(write=True)
async def run_sql(ctx: ToolContext, statements: list[str]) -> dict[str, Any]:
    """What an agent with a SQL tool can do: any statement, one after the other, in the call."""
    for statement in statements:
        await ctx.conn.exec_driver_sql(statement)
    return {"ran": len(statements)}


@tools.tool(write=True)
async def rename(ctx: ToolContext, id: int, name: str) -> dict[str, Any]:
    await ctx.conn.execute(update(items).where(items.c.id == id).values(name=name))
    return {"id": id}


@tools.tool(write=True)
async def copy_in(ctx: ToolContext, id: int, name: str) -> dict[str, Any]:
    """PostgreSQL's COPY FROM STDIN, through the driver, inside the call."""
    driver: Any = (await ctx.conn.get_raw_connection()).driver_connection
    await driver.copy_records_to_table("items", records=[(id, name, 1)])
    return {"id": id}


@dataclass(frozen=True)
class Seen:
    """The triggers see it: the effects are these (kind, table, key), in any order."""

    effects: tuple[tuple[str, str, tuple[int, ...]], ...] = ()


@dataclass(frozen=True)
class Refused:
    """Refused at the statement: a permission_denied tool error whose text names ``says``."""

    says: str


@dataclass(frozen=True)
class AtCommit:
    """The statement ran; reading the effects for the commit refuses the transaction."""


Expect = Seen | Refused | AtCommit


def seen(*effects: tuple[str, str, int]) -> Seen:
    return Seen(tuple((kind, table, (key,)) for kind, table, key in effects))


# (id, statements, on SQLite, on PostgreSQL); None where the form does not exist on that database
CASES: tuple[tuple[str, tuple[str, ...], Expect | None, Expect | None], ...] = (
    # SQLite's REPLACE deletes the conflicting row; its delete triggers fire only under recursive_triggers
    ("replace-into", ("REPLACE INTO items VALUES (1, 'uno', 5)",), seen(("update", "items", 1)), None),
    (
        "insert-or-replace-unique",
        ("INSERT OR REPLACE INTO items VALUES (3, 'one', 5)",),
        seen(("delete", "items", 1), ("insert", "items", 3)),
        None,
    ),
    (
        "update-or-replace",
        ("UPDATE OR REPLACE items SET name = 'two' WHERE id = 1",),
        seen(("delete", "items", 2), ("update", "items", 1)),
        None,
    ),
    ("insert-or-ignore", ("INSERT OR IGNORE INTO items VALUES (1, 'uno', 5)",), seen(), None),
    (
        "upsert-do-update",
        ("INSERT INTO items VALUES (1, 'uno', 5) ON CONFLICT (id) DO UPDATE SET qty = excluded.qty",),
        seen(("update", "items", 1)),
        seen(("update", "items", 1)),
    ),
    (
        "upsert-do-nothing",
        ("INSERT INTO items VALUES (1, 'uno', 5) ON CONFLICT DO NOTHING",),
        seen(),
        seen(),
    ),
    (
        "fk-delete-cascade-and-set-null",
        ("DELETE FROM parents WHERE id = 2",),
        seen(("delete", "parents", 2), ("delete", "children", 2), ("update", "children", 3)),
        seen(("delete", "parents", 2), ("delete", "children", 2), ("update", "children", 3)),
    ),
    (
        "fk-update-cascade",
        ("UPDATE parents SET code = 'p9' WHERE id = 2",),
        seen(("update", "parents", 2), ("update", "children", 2), ("update", "children", 3)),
        seen(("update", "parents", 2), ("update", "children", 2), ("update", "children", 3)),
    ),
    (
        "fk-cascade-into-uncaptured-table",
        ("DELETE FROM owners WHERE id = 1",),
        Refused("pets"),
        AtCommit(),
    ),
    (
        "cte-then-delete",
        (
            "WITH doomed AS (SELECT id FROM items WHERE qty > 1) "
            "DELETE FROM items WHERE id IN (SELECT id FROM doomed)",
        ),
        seen(("delete", "items", 2)),
        seen(("delete", "items", 2)),
    ),
    (
        "writable-cte",
        (
            "WITH moved AS (DELETE FROM items WHERE id = 2 RETURNING *) "
            "INSERT INTO items SELECT id + 10, name, qty FROM moved",
        ),
        None,
        seen(("delete", "items", 2), ("insert", "items", 12)),
    ),
    (
        "merge",
        (
            "MERGE INTO items USING (VALUES (1, 'uno', 5), (3, 'three', 3)) AS v (id, name, qty) "
            "ON items.id = v.id WHEN MATCHED THEN UPDATE SET qty = v.qty "
            "WHEN NOT MATCHED THEN INSERT VALUES (v.id, v.name, v.qty)",
        ),
        None,
        seen(("update", "items", 1), ("insert", "items", 3)),
    ),
    ("uncaptured-table", ("INSERT INTO notes VALUES (2, 'x')",), Refused("notes"), AtCommit()),
    (
        "create-table-then-insert",
        ("CREATE TABLE sneaky (id INTEGER)", "INSERT INTO sneaky VALUES (1)"),
        Refused("CREATE TABLE"),
        Refused("CREATE TABLE"),
    ),
    ("create-temp-table", ("CREATE TEMP TABLE scratch (id INTEGER)",), Refused("CREATE"), Refused("CREATE")),
    ("drop-table", ("DROP TABLE items",), Refused("DROP TABLE"), Refused("DROP TABLE")),
    ("drop-column", ("ALTER TABLE items DROP COLUMN qty",), Refused("ALTER TABLE"), Refused("ALTER TABLE")),
    ("rename-table", ("ALTER TABLE items RENAME TO goods",), Refused("ALTER TABLE"), Refused("ALTER TABLE")),
    (
        "alter-type-using",
        ("ALTER TABLE items ALTER COLUMN qty TYPE BIGINT USING qty * 2",),
        None,
        Refused("ALTER TABLE"),
    ),
    (
        "disable-trigger",
        ("ALTER TABLE items DISABLE TRIGGER guard_capture", "DELETE FROM items WHERE id = 1"),
        None,
        Refused("ALTER TABLE"),
    ),
    (
        "drop-capture-trigger",
        ("DROP TRIGGER temp.guard_delete_items", "DELETE FROM items WHERE id = 1"),
        Refused("DROP TRIGGER"),
        None,
    ),
    (
        "drop-capture-trigger",
        ("DROP TRIGGER guard_capture ON items", "DELETE FROM items WHERE id = 1"),
        None,
        Refused("DROP TRIGGER"),
    ),
    (
        "create-trigger",
        ("CREATE TEMP TRIGGER hush BEFORE DELETE ON items BEGIN SELECT RAISE(IGNORE); END",),
        Refused("CREATE"),
        None,
    ),
    (
        "replace-capture-function",
        (
            "CREATE OR REPLACE FUNCTION guard_capture() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ BEGIN RETURN NULL; END $$",
        ),
        None,
        Refused("CREATE FUNCTION"),
    ),
    (
        "insert-into-capture-table",
        ("INSERT INTO temp.guard_changes (tbl, op, old, new) VALUES ('items', 'insert', NULL, NULL)",),
        Refused("guard_changes"),
        None,
    ),
    (
        "insert-into-capture-table",
        ("INSERT INTO pg_temp.guard_changes (tbl, op) VALUES ('items', 'insert')",),
        None,
        Refused("guard_changes"),
    ),
    (
        "delete-from-capture-table",
        ("DELETE FROM items WHERE id = 1", "DELETE FROM temp.guard_changes"),
        Refused("guard_changes"),
        None,
    ),
    (
        "delete-from-capture-table",
        ("DELETE FROM items WHERE id = 1", "DELETE FROM pg_temp.guard_changes"),
        None,
        Refused("guard_changes"),
    ),
    ("drop-capture-table", ("DROP TABLE pg_temp.guard_changes",), None, Refused("DROP TABLE")),
    ("discard-temp", ("DISCARD TEMP",), None, AtCommit()),
    (
        "update-capture-table",
        ("DELETE FROM items WHERE id = 1", "UPDATE pg_temp.guard_changes SET op = 'insert'"),
        None,
        Refused("guard_changes"),
    ),
    (
        "update-capture-table",
        ("DELETE FROM items WHERE id = 1", "UPDATE temp.guard_changes SET op = 'insert'"),
        Refused("guard_changes"),
        None,
    ),
    (
        "truncate-capture-table",
        ("DELETE FROM items WHERE id = 1", "TRUNCATE pg_temp.guard_changes"),
        None,
        AtCommit(),
    ),
    (
        "capture-switched-off",
        ("SELECT set_config('guard.capture', 'off', true)", "DELETE FROM items WHERE id = 1"),
        None,
        seen(("delete", "items", 1)),
    ),
    (
        "capture-reset",
        ("RESET guard.capture", "DELETE FROM items WHERE id = 1"),
        None,
        seen(("delete", "items", 1)),
    ),
    (
        "replica-role",
        ("SET LOCAL session_replication_role = replica", "DELETE FROM items WHERE id = 1"),
        None,
        seen(("delete", "items", 1)),
    ),
    (
        "recursive-triggers-off",
        ("PRAGMA recursive_triggers = OFF", "REPLACE INTO items VALUES (1, 'uno', 5)"),
        Refused("recursive_triggers"),
        None,
    ),
    ("writable-schema", ("PRAGMA writable_schema = ON",), Refused("writable_schema"), None),
    (
        "journal-mode-off",
        ("PRAGMA journal_mode = OFF", "DELETE FROM items WHERE id = 1"),
        Refused("journal_mode"),
        None,
    ),
    ("attach", ("ATTACH DATABASE ':memory:' AS side",), Refused("ATTACH"), None),
    ("large-object", ("SELECT lo_from_bytea(0, 'kept aside')",), None, AtCommit()),
    (
        "drop-event-trigger-then-ddl",
        ("DROP EVENT TRIGGER guard_refuse_ddl", "ALTER TABLE items DROP COLUMN qty"),
        None,
        AtCommit(),
    ),
    (
        "disable-event-trigger-then-ddl",
        ("ALTER EVENT TRIGGER guard_refuse_ddl DISABLE", "DROP TABLE notes"),
        None,
        AtCommit(),
    ),
)


def cases(database: str) -> list[Any]:
    column = 2 if database == "sqlite" else 3
    return [pytest.param(case[1], case[column], id=case[0]) for case in CASES if case[column] is not None]


def _sqlite_seeded(target: sqlite3.Connection) -> sqlite3.Connection:
    target.execute("PRAGMA foreign_keys = ON")
    for statement in SCHEMA + SEED:
        target.execute(statement)
    target.commit()
    return target


async def _postgres_seeded(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        for statement in SCHEMA + SEED:
            await conn.exec_driver_sql(statement)


@pytest.fixture(params=["file", "image"])
async def sqlite_backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SqlBackend]:
    """A SQLite file, or an in-memory world started from an image (as the benchmark builds them)."""
    if request.param == "file":
        _sqlite_seeded(sqlite3.connect(tmp_path / "world.db")).close()
        engine = create_engine(f"sqlite:///{tmp_path / 'world.db'}")
    else:
        source = _sqlite_seeded(sqlite3.connect(":memory:"))
        engine = create_engine("sqlite+aiosqlite://", sqlite_image=source.serialize())
        source.close()
    backend = SqlBackend(engine, tools, FixedClock(), metadata=metadata)
    await backend.start()
    yield backend
    await backend.close()


@pytest.fixture
async def pg_backend(postgres_url: str, postgres_schema: str) -> AsyncIterator[SqlBackend]:
    engine = create_engine(postgres_url, search_path=postgres_schema)
    await _postgres_seeded(engine)
    backend = SqlBackend(engine, tools, FixedClock(), metadata=metadata)
    await backend.start()
    yield backend
    await backend.close()


def summary(effects: Sequence[Effect]) -> list[tuple[str, str, tuple[Any, ...]]]:
    return sorted((e.kind.value, e.table, tuple(e.key)) for e in effects)


async def check(session: SqlSession, statements: Sequence[str], expected: Expect) -> None:
    """Run ``statements`` in one call of ``session`` and assert that they end as ``expected`` says."""
    outcome = await session.call(tools["run_sql"], {"statements": list(statements)})
    if isinstance(expected, Refused):
        assert outcome.error is not None, "the statement ran inside the guarded transaction"
        assert outcome.error.error_class is ErrorClass.PERMISSION_DENIED
        assert REFUSED in outcome.error.message
        assert expected.says in outcome.error.message
        # the call was undone and the transaction goes on
        assert (await session.call(tools["rename"], {"id": 1, "name": "after"})).ok
        assert summary(await session.effects()) == [("update", "items", (1,))]
    elif isinstance(expected, AtCommit):
        assert outcome.ok, outcome.error
        with pytest.raises(BackendError):
            await session.effects()
    else:
        assert outcome.ok, outcome.error
        assert summary(await session.effects()) == sorted(expected.effects)


@pytest.mark.parametrize(("statements", "expected"), cases("sqlite"))
async def test_sqlite_statement_is_seen_or_refused(
    sqlite_backend: SqlBackend, statements: tuple[str, ...], expected: Expect
) -> None:
    """Requirement G25: on SQLite (a file, and an in-memory world on an image), each statement form that
    changes rows is captured (REPLACE's implicit deletes included) or refused at the statement."""
    session = await sqlite_backend.begin("t1")
    try:
        await check(session, statements, expected)
    finally:
        await session.rollback()


@pytest.mark.postgres
@pytest.mark.parametrize(("statements", "expected"), cases("postgres"))
async def test_postgres_statement_is_seen_or_refused(
    pg_backend: SqlBackend, statements: tuple[str, ...], expected: Expect
) -> None:
    """Requirement G25: on PostgreSQL (as a superuser, with the guard's event trigger), each statement form
    that changes rows, the schema or the capture is captured, refused at the statement, or refused at
    commit; the capture cannot be switched off from inside the transaction."""
    session = await pg_backend.begin("t1")
    try:
        await check(session, statements, expected)
    finally:
        await session.rollback()


@pytest.mark.postgres
async def test_postgres_copy_from_stdin_is_captured(pg_backend: SqlBackend) -> None:
    """Requirement G25: COPY ... FROM STDIN fires the row triggers; its rows are effects."""
    session = await pg_backend.begin("t1")
    try:
        assert (await session.call(tools["copy_in"], {"id": 7, "name": "copied"})).ok
        assert summary(await session.effects()) == [("insert", "items", (7,))]
    finally:
        await session.rollback()


async def _outside_the_guard(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        await conn.exec_driver_sql("CREATE TABLE scratch (id INTEGER)")
        await conn.exec_driver_sql("INSERT INTO notes VALUES (5, 'outside')")
        await conn.exec_driver_sql("DROP TABLE scratch")
        await conn.exec_driver_sql("DELETE FROM items WHERE id = 2")
        rows = (await conn.execute(text("SELECT id FROM items ORDER BY id"))).scalars().all()
    assert rows == [1]


async def test_sqlite_sessions_outside_the_guard_are_unchanged(tmp_path: Path) -> None:
    """Requirement G25: another connection to the guard's SQLite file still changes the schema and writes
    any table while the guard runs."""
    _sqlite_seeded(sqlite3.connect(tmp_path / "world.db")).close()
    guarded = create_engine(f"sqlite:///{tmp_path / 'world.db'}")
    backend = SqlBackend(guarded, tools, FixedClock(), metadata=metadata)
    await backend.start()
    session = await backend.begin("t1")
    await session.rollback()
    plain = create_engine(f"sqlite:///{tmp_path / 'world.db'}")
    try:
        await _outside_the_guard(plain)
    finally:
        await plain.dispose()
        await backend.close()


@pytest.mark.postgres
async def test_postgres_sessions_outside_the_guard_are_unchanged(pg_backend: SqlBackend) -> None:
    """Requirement G25: a session that did not set guard.capture changes the schema and writes any table,
    while a guarded transaction is open."""
    session = await pg_backend.begin("t1")
    try:
        await _outside_the_guard(pg_backend.engine)
    finally:
        await session.rollback()


@dataclass(frozen=True)
class NoRewrites:
    """A rule pack that lets records be added and nothing else: deletes and updates block the commit."""

    name: str = "no-rewrites"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        rewritten = [e for e in context.effects if e.kind is not EffectKind.INSERT]
        if not rewritten:
            return Verdict.allow()
        return Verdict.of([Finding(self.name, Severity.BLOCK, f"{len(rewritten)} records rewritten")])


@asynccontextmanager
async def guarded(engine: AsyncEngine) -> AsyncIterator[Runtime]:
    settings = GuardSettings.model_validate(
        {
            "commit": {"reap_interval_s": 3600},
            "retry": {"max_attempts": 3, "initial_backoff_s": 0, "max_backoff_s": 0, "jitter_s": 0},
        }
    )
    backend = SqlBackend(engine, tools, FixedClock(), metadata=metadata, judges=[NoRewrites()])
    runtime = assemble(settings, backend, MemoryAudit(), clock=FixedClock(), sleep=no_sleep)
    await runtime.start()
    try:
        yield runtime
    finally:
        await runtime.stop()


def body(result: types.CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


async def item_rows(engine: AsyncEngine) -> list[tuple[Any, ...]]:
    async with engine.connect() as conn:
        return [tuple(row) for row in await conn.execute(text("SELECT id, name, qty FROM items ORDER BY id"))]


@pytest.mark.parametrize(
    "statement",
    ["REPLACE INTO items VALUES (1, 'uno', 5)", "INSERT OR REPLACE INTO items VALUES (3, 'one', 5)"],
    ids=["replace-into", "insert-or-replace"],
)
async def test_sqlite_replace_is_judged_as_the_rewrite_it_is(tmp_path: Path, statement: str) -> None:
    """Requirement G25 (issue 25): a REPLACE that rewrites a record reaches the judges as the update or
    delete it is, so a rule pack that lets only inserts through blocks it, and nothing is committed."""
    _sqlite_seeded(sqlite3.connect(tmp_path / "world.db")).close()
    engine = create_engine(f"sqlite:///{tmp_path / 'world.db'}")
    try:
        async with guarded(engine) as runtime, agent_client(runtime) as agent:
            done = await agent.call_tool("run_sql", {"statements": [statement]}, meta=meta("t1"))
            assert done.is_error is False
            reply = body(await agent.call_tool("guard_commit", {"summary": "rewrite"}, meta=meta("t1")))
            assert reply["status"] == "blocked"
            assert any(e["kind"] in ("update", "delete") for e in reply["effects"])
        assert await item_rows(engine) == [(1, "one", 1), (2, "two", 2)]
    finally:
        await engine.dispose()


@pytest.mark.postgres
async def test_postgres_uncaptured_write_blocks_the_commit(postgres_url: str, postgres_schema: str) -> None:
    """Requirement G25: a write no trigger captured (here to a table the backend does not capture) blocks
    the commit through the gate, and nothing of the transaction is committed."""
    engine = create_engine(postgres_url, search_path=postgres_schema)
    await _postgres_seeded(engine)
    try:
        async with guarded(engine) as runtime, agent_client(runtime) as agent:
            statements = ["INSERT INTO items VALUES (3, 'three', 3)", "UPDATE notes SET body = 'unjudged'"]
            done = await agent.call_tool("run_sql", {"statements": statements}, meta=meta("t1"))
            assert done.is_error is False
            reply = body(await agent.call_tool("guard_commit", {"summary": "note"}, meta=meta("t1")))
            assert reply["status"] == "blocked"
            (finding,) = reply["findings"]
            assert finding["message"].startswith("the commit gate failed: the transaction cannot be judged: ")
            assert finding["message"].endswith("; roll it back"), "the agent reads why and what to do"
        assert await item_rows(engine) == [(1, "one", 1), (2, "two", 2)]
        async with engine.connect() as conn:
            assert (await conn.execute(text("SELECT body FROM notes"))).scalar_one() == "note"
    finally:
        await engine.dispose()


TRANSACTION_CONTROL = [
    pytest.param(("DELETE FROM items WHERE id = 1", "COMMIT"), id="commit"),
    pytest.param(("DELETE FROM items WHERE id = 1", "END"), id="end"),
    pytest.param(("ROLLBACK", "DELETE FROM items WHERE id = 1"), id="rollback-then-write"),
    pytest.param(("DELETE FROM items WHERE id = 1", "/* a comment */ COMMIT"), id="commented-commit"),
]
POSTGRES_TRANSACTION_CONTROL = [
    *TRANSACTION_CONTROL,
    pytest.param(
        ("DELETE FROM items WHERE id = 1", "/* a /* nested */ comment */ COMMIT"), id="nested-comment"
    ),
    pytest.param(("DELETE FROM items WHERE id = 1", "ABORT"), id="abort"),
    pytest.param(("DELETE FROM items WHERE id = 1", "PREPARE TRANSACTION 'later'"), id="prepare-transaction"),
]


async def _transaction_control(backend: SqlBackend, statements: tuple[str, ...]) -> None:
    session = await backend.begin("t1")
    try:
        outcome = await session.call(tools["run_sql"], {"statements": list(statements)})
        assert outcome.error is not None, "a tool ended the guarded transaction"
        assert outcome.error.error_class is ErrorClass.PERMISSION_DENIED
        assert REFUSED in outcome.error.message
        assert (await session.call(tools["rename"], {"id": 2, "name": "after"})).ok
        assert summary(await session.effects()) == [("update", "items", (2,))]
    finally:
        await session.rollback()
    assert await item_rows(backend.engine) == [(1, "one", 1), (2, "two", 2)]


@pytest.mark.parametrize("statements", TRANSACTION_CONTROL)
async def test_sqlite_tool_cannot_end_the_transaction(
    sqlite_backend: SqlBackend, statements: tuple[str, ...]
) -> None:
    """Requirement G37: a tool's COMMIT (or ROLLBACK, after which its writes would autocommit) is refused:
    only the guard ends its transaction, after the judges."""
    await _transaction_control(sqlite_backend, statements)


@pytest.mark.postgres
@pytest.mark.parametrize("statements", POSTGRES_TRANSACTION_CONTROL)
async def test_postgres_tool_cannot_end_the_transaction(
    pg_backend: SqlBackend, statements: tuple[str, ...]
) -> None:
    """Requirement G37: a tool's COMMIT (or ROLLBACK, after which its writes would autocommit) is refused:
    only the guard ends its transaction, after the judges."""
    await _transaction_control(pg_backend, statements)


async def _release_guard_savepoint(backend: SqlBackend) -> None:
    session = await backend.begin("t1")
    try:
        statements = ["DELETE FROM items WHERE id = 1", "RELEASE SAVEPOINT guard_call", "COMMIT"]
        with pytest.raises(DBAPIError, match="savepoint"):
            await session.call(tools["run_sql"], {"statements": statements})
        assert (await session.call(tools["rename"], {"id": 2, "name": "after"})).ok
        assert summary(await session.effects()) == [("update", "items", (2,))]
    finally:
        await session.rollback()
    assert await item_rows(backend.engine) == [(1, "one", 1), (2, "two", 2)]


async def test_sqlite_tool_cannot_release_the_guards_savepoint(sqlite_backend: SqlBackend) -> None:
    """Requirement G37: the guard's savepoint has a name no tool knows: releasing "guard_call" fails, the
    guard still undoes the call, and the transaction goes on."""
    await _release_guard_savepoint(sqlite_backend)


@pytest.mark.postgres
async def test_postgres_tool_cannot_release_the_guards_savepoint(pg_backend: SqlBackend) -> None:
    """Requirement G37: the guard's savepoint has a name no tool knows: releasing "guard_call" fails, the
    guard still undoes the call, and the transaction goes on."""
    await _release_guard_savepoint(pg_backend)


APP_TRIGGERS = (
    "CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, touched INTEGER NOT NULL)",
    "CREATE TABLE loops (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)",
    # stops by its WHEN clause: its own update changes `touched`
    "CREATE TRIGGER stamp AFTER UPDATE ON counters WHEN NEW.touched = OLD.touched "
    "BEGIN UPDATE counters SET touched = touched + 1 WHERE id = NEW.id; END",
    # fired itself once without recursive triggers; now it would never stop
    "CREATE TRIGGER runaway AFTER UPDATE ON loops BEGIN UPDATE loops SET n = n + 1 WHERE id = NEW.id; END",
    "INSERT INTO counters VALUES (1, 0, 0)",
    "INSERT INTO loops VALUES (1, 0)",
)
apps = MetaData()
Table(
    "counters",
    apps,
    Column("id", Integer, primary_key=True),
    Column("n", Integer, nullable=False),
    Column("touched", Integer, nullable=False),
)
Table("loops", apps, Column("id", Integer, primary_key=True), Column("n", Integer, nullable=False))


async def test_sqlite_application_triggers_under_recursive_triggers(tmp_path: Path) -> None:
    """Requirement G25: with recursive triggers on (for REPLACE), an application trigger that writes its
    own table is captured to its last write when its WHEN clause stops it; one that does not stop fails
    its statement, the call is undone, and the transaction goes on."""
    world = sqlite3.connect(tmp_path / "apps.db")
    for statement in APP_TRIGGERS:
        world.execute(statement)
    world.commit()
    world.close()
    backend = SqlBackend(
        create_engine(f"sqlite:///{tmp_path / 'apps.db'}"), tools, FixedClock(), metadata=apps
    )
    await backend.start()
    session = await backend.begin("t1")
    try:
        assert (await session.call(tools["run_sql"], {"statements": ["UPDATE counters SET n = 5"]})).ok
        with pytest.raises(DBAPIError, match="too many levels of trigger recursion"):
            await session.call(tools["run_sql"], {"statements": ["UPDATE loops SET n = 1"]})
        (effect,) = await session.effects()
        assert (effect.table, effect.after) == ("counters", {"id": 1, "n": 5, "touched": 1})
    finally:
        await session.rollback()
        await backend.close()


async def _failed_call_between_good_ones(backend: SqlBackend) -> None:
    session = await backend.begin("t1")
    try:
        assert (await session.call(tools["rename"], {"id": 1, "name": "first"})).ok
        with pytest.raises(DBAPIError):
            await session.call(
                tools["run_sql"],
                {"statements": ["UPDATE items SET name = 'lost' WHERE id = 2", "SELECT nope"]},
            )
        assert (await session.call(tools["rename"], {"id": 2, "name": "third"})).ok
        assert summary(await session.effects()) == [("update", "items", (1,)), ("update", "items", (2,))]
        await session.commit()
    finally:
        await session.rollback()
    rows = await item_rows(backend.engine)
    assert [(row[0], row[1]) for row in rows] == [(1, "first"), (2, "third")]


async def test_sqlite_a_failed_call_undoes_only_itself_between_calls_that_kept_theirs(
    sqlite_backend: SqlBackend,
) -> None:
    """Requirement G7: a call that succeeded keeps its savepoint until the next call releases it (one round
    trip for both); a failed call between two good ones undoes only its own writes."""
    await _failed_call_between_good_ones(sqlite_backend)


@pytest.mark.postgres
async def test_postgres_a_failed_call_undoes_only_itself_between_calls_that_kept_theirs(
    pg_backend: SqlBackend,
) -> None:
    """Requirement G7: as on SQLite; on asyncpg the release and the next savepoint go in one round trip."""
    await _failed_call_between_good_ones(pg_backend)
