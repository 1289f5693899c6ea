"""Requirement G25 on PostgreSQL: partitions, inheritance children, and a guard role that is no superuser.

Rows written through a partitioned or inherited table live in its
partitions and children, whose row triggers are their own: the guard
captures them under the captured table's name and refuses to TRUNCATE them.
A role that may not create the guard's event trigger (any non-superuser)
still never commits unjudged: its schema changes run, and the commit that
carries them is refused.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import Any

import asyncpg
import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.backends.sql import SqlBackend
from guard.clock import FixedClock
from guard.store.capture_postgres import EVENT_TRIGGER_SCRIPT
from guard.store.engine import create_engine
from tests.guard.store.test_unjudged_writes import (
    SCHEMA,
    SEED,
    AtCommit,
    Expect,
    Refused,
    check,
    seen,
    tools,
)
from tests.guard.store.test_unjudged_writes import metadata as flat_metadata

pytestmark = pytest.mark.postgres

FAMILIES = (
    "CREATE TABLE parts (id INTEGER, region VARCHAR(8), qty INTEGER, PRIMARY KEY (id, region)) "
    "PARTITION BY LIST (region)",
    "CREATE TABLE parts_eu PARTITION OF parts FOR VALUES IN ('eu')",
    "CREATE TABLE parts_us PARTITION OF parts FOR VALUES IN ('us')",
    "CREATE TABLE base (id INTEGER PRIMARY KEY, qty INTEGER)",
    "CREATE TABLE kid (extra VARCHAR(8)) INHERITS (base)",
    "INSERT INTO parts VALUES (1, 'eu', 1), (2, 'us', 2)",
    "INSERT INTO base VALUES (1, 1)",
    "INSERT INTO kid VALUES (2, 2, 'x')",
)

families = MetaData()
Table(
    "parts",
    families,
    Column("id", Integer, primary_key=True),
    Column("region", String(8), primary_key=True),
    Column("qty", Integer),
)
Table("base", families, Column("id", Integer, primary_key=True), Column("qty", Integer))


async def _run(engine: AsyncEngine, statements: tuple[str, ...]) -> None:
    async with engine.begin() as conn:
        for statement in statements:
            await conn.exec_driver_sql(statement)


@pytest.fixture
async def family_engine(postgres_url: str, postgres_schema: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(postgres_url, search_path=postgres_schema)
    await _run(engine, FAMILIES)
    yield engine
    await engine.dispose()


def _family_key(kind: str, table: str, *key: Any) -> tuple[str, str, tuple[Any, ...]]:
    return (kind, table, key)


FAMILY_CASES = [
    pytest.param(
        ("INSERT INTO parts VALUES (3, 'eu', 3)",),
        seen(),
        [_family_key("insert", "parts", 3, "eu")],
        id="insert-through-parent",
    ),
    pytest.param(
        ("UPDATE parts SET qty = 9",),
        seen(),
        [_family_key("update", "parts", 1, "eu"), _family_key("update", "parts", 2, "us")],
        id="update-through-parent",
    ),
    pytest.param(
        ("DELETE FROM parts_eu",), seen(), [_family_key("delete", "parts", 1, "eu")], id="delete-in-partition"
    ),
    pytest.param(
        ("UPDATE parts SET region = 'us' WHERE id = 1",),
        seen(),
        [_family_key("delete", "parts", 1, "eu"), _family_key("insert", "parts", 1, "us")],
        id="row-moves-partition",
    ),
    pytest.param(("TRUNCATE parts",), Refused("TRUNCATE"), [], id="truncate-parent"),
    pytest.param(("TRUNCATE parts_eu",), Refused("TRUNCATE"), [], id="truncate-partition"),
    pytest.param(
        ("UPDATE base SET qty = 5",),
        seen(),
        [_family_key("update", "base", 1), _family_key("update", "base", 2)],
        id="update-through-inheritance-parent",
    ),
    pytest.param(("DELETE FROM kid",), seen(), [_family_key("delete", "base", 2)], id="delete-in-child"),
    pytest.param(("TRUNCATE kid",), Refused("TRUNCATE"), [], id="truncate-child"),
    pytest.param(
        ("CREATE TABLE parts_asia PARTITION OF parts FOR VALUES IN ('asia')",),
        Refused("CREATE TABLE"),
        [],
        id="create-partition",
    ),
]


@pytest.mark.parametrize(("statements", "expected", "effects"), FAMILY_CASES)
async def test_partitions_and_children_are_captured_as_their_table(
    family_engine: AsyncEngine, statements: tuple[str, ...], expected: Expect, effects: list[Any]
) -> None:
    """Requirement G25: a row written through a partitioned or inherited table, or in one of its
    partitions or children directly, is an effect on the captured table; their TRUNCATE is refused."""
    backend = SqlBackend(family_engine, tools, FixedClock(), metadata=families)
    await backend.start()
    session = await backend.begin("t1")
    try:
        outcome = await session.call(tools["run_sql"], {"statements": list(statements)})
        if isinstance(expected, Refused):
            assert outcome.error is not None
            assert expected.says in outcome.error.message
        else:
            assert outcome.ok, outcome.error
            got = sorted((e.kind.value, e.table, tuple(e.key)) for e in await session.effects())
            assert got == sorted(effects)
    finally:
        await session.rollback()
        await backend.close()


async def test_reflected_partitions_start_and_are_captured_once(family_engine: AsyncEngine) -> None:
    """Requirement G25: with the tables reflected (partitions and children among them), the guard starts
    whatever order they come in, and a row written through the parent is captured once."""
    backend = SqlBackend(family_engine, tools, FixedClock())
    await backend.start()
    session = await backend.begin("t1")
    try:
        assert {"parts", "parts_eu", "base", "kid"} <= set(backend.tables)
        outcome = await session.call(
            tools["run_sql"], {"statements": ["UPDATE parts SET qty = 7 WHERE id = 2"]}
        )
        assert outcome.ok, outcome.error
        assert [(e.kind.value, e.table, tuple(e.key)) for e in await session.effects()] == [
            ("update", "parts", (2, "us"))
        ]
    finally:
        await session.rollback()
        await backend.close()


def _admin(url: str, database: str | None = None) -> Callable[..., Coroutine[Any, Any, None]]:
    """Statements run one by one as the test server's superuser, in ``database`` (default: the URL's)."""
    parsed = make_url(url)

    async def run(*statements: str) -> None:
        conn = await asyncpg.connect(
            host=parsed.host,
            port=parsed.port or 5432,
            user=parsed.username,
            database=database or parsed.database,
        )
        try:
            for statement in statements:
                await conn.execute(statement)
        finally:
            await conn.close()

    return run


@pytest.fixture(scope="module")
def plain_database(postgres_url: str) -> Iterator[tuple[str, str]]:
    """A database of its own (no guard has installed the event trigger in it) and a role that is no
    superuser: (the database's name, the role's name)."""
    name = f"guard_plain_{uuid.uuid4().hex[:10]}"
    admin = _admin(postgres_url)
    asyncio.run(admin(f'CREATE ROLE "{name}" LOGIN NOSUPERUSER', f'CREATE DATABASE "{name}"'))
    yield name, name
    asyncio.run(admin(f'DROP DATABASE "{name}" WITH (FORCE)', f'DROP ROLE "{name}"'))


@pytest.fixture
def plain_role(postgres_url: str, plain_database: tuple[str, str]) -> Iterator[tuple[str, str]]:
    """The plain role's URL (its own database) and a fresh schema it owns there."""
    database, role = plain_database
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = _admin(postgres_url, database)
    asyncio.run(admin(f'CREATE SCHEMA "{schema}" AUTHORIZATION "{role}"'))
    url = make_url(postgres_url).set(username=role, database=database)
    yield url.render_as_string(hide_password=False), schema
    asyncio.run(admin(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture
async def plain_backend(
    plain_role: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> AsyncIterator[SqlBackend]:
    url, schema = plain_role
    engine = create_engine(url, search_path=schema)
    await _run(engine, SCHEMA + SEED)
    backend = SqlBackend(engine, tools, FixedClock(), metadata=flat_metadata)
    with caplog.at_level(logging.WARNING, logger="guard.store.capture_postgres"):
        await backend.start()
    yield backend
    await backend.close()


PLAIN_CASES = [
    pytest.param(("DROP TABLE items",), AtCommit(), id="drop-table"),
    pytest.param(("ALTER TABLE items DROP COLUMN qty",), AtCommit(), id="drop-column"),
    pytest.param(
        ("ALTER TABLE items ALTER COLUMN qty TYPE BIGINT USING qty * 2",), AtCommit(), id="alter-type-using"
    ),
    pytest.param(("ALTER TABLE items RENAME TO goods",), AtCommit(), id="rename-table"),
    pytest.param(
        ("ALTER TABLE items DISABLE TRIGGER guard_capture", "DELETE FROM items WHERE id = 1"),
        AtCommit(),
        id="disable-trigger",
    ),
    pytest.param(
        ("DROP TRIGGER guard_capture ON items", "DELETE FROM items WHERE id = 1"),
        AtCommit(),
        id="drop-trigger",
    ),
    pytest.param(
        ("CREATE TABLE sneaky (id INTEGER)", "INSERT INTO sneaky VALUES (1)"),
        AtCommit(),
        id="create-table-then-insert",
    ),
    pytest.param(
        (
            "CREATE OR REPLACE FUNCTION guard_capture() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ BEGIN RETURN NULL; END $$",
            "DELETE FROM items WHERE id = 1",
        ),
        AtCommit(),
        id="replace-capture-function",
    ),
    pytest.param(
        ("SELECT set_config('guard.capture', 'off', true)", "TRUNCATE items"),
        AtCommit(),
        id="truncate-capture-off",
    ),
    pytest.param(("TRUNCATE items",), Refused("TRUNCATE"), id="truncate"),
    pytest.param(
        ("SELECT set_config('guard.capture', 'off', true)", "DELETE FROM items WHERE id = 1"),
        seen(("delete", "items", 1)),
        id="capture-switched-off",
    ),
    pytest.param(
        ("INSERT INTO pg_temp.guard_changes (tbl, op) VALUES ('items', 'insert')",),
        Refused("guard_changes"),
        id="insert-into-capture-table",
    ),
    pytest.param(
        ("DELETE FROM items WHERE id = 1", "DELETE FROM pg_temp.guard_changes"),
        Refused("guard_changes"),
        id="delete-from-capture-table",
    ),
    pytest.param(("INSERT INTO notes VALUES (2, 'x')",), AtCommit(), id="uncaptured-table"),
]


@pytest.mark.parametrize(("statements", "expected"), PLAIN_CASES)
async def test_plain_role_never_commits_a_schema_change_or_an_uncaptured_write(
    plain_backend: SqlBackend, statements: tuple[str, ...], expected: Expect
) -> None:
    """Requirement G25: a guard role that cannot create the event trigger still refuses, at commit, every
    transaction that changed the schema or wrote rows no trigger captured; the rest is as for a superuser."""
    session = await plain_backend.begin("t1")
    try:
        await check(session, statements, expected)
    finally:
        await session.rollback()


async def test_plain_role_is_told_what_it_loses_and_how_to_mend_it(
    plain_backend: SqlBackend,
    postgres_url: str,
    plain_database: tuple[str, str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Requirement G25: starting as a role that may not create the event trigger logs one warning that
    says schema changes are refused only at commit, and the statements a superuser runs once to install
    it; once they have run, that role's guard starts, leaves the trigger as it is, and refuses schema
    changes at the statement, and the role cannot change what the trigger runs."""
    started = caplog.get_records("setup")
    warnings = [
        r for r in started if r.levelno == logging.WARNING and r.name == "guard.store.capture_postgres"
    ]
    assert len(warnings) == 1
    message = warnings[0].getMessage()
    assert "refused at commit, not at the statement" in message
    assert message.endswith("; ".join(EVENT_TRIGGER_SCRIPT))
    superuser = _admin(postgres_url, plain_database[0])
    await superuser(*EVENT_TRIGGER_SCRIPT)
    try:
        await plain_backend.start()
        session = await plain_backend.begin("t1")
        try:
            await check(session, ("DROP TABLE notes",), Refused("DROP TABLE"))
        finally:
            await session.rollback()
        replaced = (
            "CREATE OR REPLACE FUNCTION guard_events.refuse_ddl() RETURNS event_trigger LANGUAGE plpgsql "
            "AS $$ BEGIN END $$"
        )
        with pytest.raises(DBAPIError, match="permission denied for schema guard_events"):
            await _run(plain_backend.engine, (replaced,))
    finally:
        # the database is the module's: its other tests run without the trigger
        await superuser("DROP EVENT TRIGGER guard_refuse_ddl", "DROP SCHEMA guard_events CASCADE")


async def test_superuser_start_installs_the_event_trigger_once(
    postgres_url: str, postgres_schema: str
) -> None:
    """Requirement G25: as a superuser the guard installs the database's event trigger (enabled always, so
    a replica session role does not switch it off; its function in a schema of its own, which outlives any
    one guard's), once however often it starts."""
    engine = create_engine(postgres_url, search_path=postgres_schema)
    try:
        await _run(engine, SCHEMA + SEED)
        for _ in range(2):
            backend = SqlBackend(engine, tools, FixedClock(), metadata=flat_metadata)
            await backend.start()
            await backend.close()
        async with engine.connect() as conn:
            query = text(
                "SELECT evtname, evtenabled::text, evtfoid::regprocedure::text FROM pg_event_trigger "
                "WHERE evtname LIKE 'guard%'"
            )
            rows = [tuple(row) for row in (await conn.execute(query)).all()]
        assert rows == [("guard_refuse_ddl", "A", "guard_events.refuse_ddl()")]
    finally:
        await engine.dispose()


OLD_STYLE = (
    "CREATE FUNCTION guard_capture() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$",
    "CREATE TRIGGER guard_capture AFTER INSERT OR UPDATE OR DELETE ON parts "
    "FOR EACH ROW EXECUTE FUNCTION guard_capture()",
    "CREATE TRIGGER guard_capture AFTER INSERT OR UPDATE OR DELETE ON base "
    "FOR EACH ROW EXECUTE FUNCTION guard_capture()",
)
TRIGGERS = text(
    "SELECT tgrelid::regclass::text AS target, encode(tgargs, 'escape') AS args, tgenabled::text AS enabled "
    "FROM pg_trigger JOIN pg_class ON pg_class.oid = tgrelid "
    "WHERE tgname = 'guard_capture' AND relnamespace = current_schema()::regnamespace ORDER BY 1"
)


async def test_triggers_of_an_earlier_guard_are_brought_up_to_date(family_engine: AsyncEngine) -> None:
    """Requirement G25: capture triggers installed by an earlier guard (no table name, enabled only in the
    origin role) are replaced at start, partitions' clones with them, and the rows are captured."""
    await _run(family_engine, OLD_STYLE)
    backend = SqlBackend(family_engine, tools, FixedClock(), metadata=families)
    await backend.start()
    try:
        async with family_engine.connect() as conn:
            found = (await conn.execute(TRIGGERS)).all()
        assert [tuple(row) for row in found] == [
            ("base", "base\\000", "A"),
            ("kid", "base\\000", "A"),
            ("parts", "parts\\000", "A"),
            ("parts_eu", "parts\\000", "A"),
            ("parts_us", "parts\\000", "A"),
        ]
    finally:
        await backend.close()
