"""A task's world: its own database, holding the task's initial state, and the calls made on it.

Isolation is one database per trial:

* **SQLite in memory** (``url=None``, the default and what golden replays
  use): a private in-memory database on one connection, started as a copy
  of the domain's seeded image (:mod:`benchmark.world.image`).
* **SQLite file** (``url="sqlite:///…/trial.db"``): a new file; the world
  refuses a path that exists, and deletes the file when it closes.
* **PostgreSQL** (``url="postgresql://…"``): a fresh schema
  ``tb_<random>`` in that database; every connection of :attr:`World.engine`
  has ``search_path`` set to it (a connection parameter, so raw SQL and
  triggers see the world's tables unqualified, and rollbacks cannot undo it).
  The schema is dropped when the world closes (``keep=True`` keeps it).

Building a world creates the domain's tables, inserts the seed rows, loads
the scenario's policy sources into the search index and upserts the task's
``data_patch`` row by row by key (a patch row replaces the row with the same
key in place, keeping its list position; an empty list changes nothing).

Statements are compiled once per process: SQLAlchemy keys a compiled
statement by the dialect object, so a cache shared by engines that each have
their own dialect would never hit. The in-memory worlds of one seeded image
therefore share one engine's dialect and compiled cache: each world's engine
is that template's pool recreated (the same creator and connect events, a new
connection, hence a new copy of the image) under the template's dialect,
which was initialised once by the template's first connection.
"""

from __future__ import annotations

import logging
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event, insert, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.util import LRUCache

from benchmark.dataset.model import Scenario, Task
from benchmark.domains import store
from benchmark.domains.base import SEQ, Domain
from benchmark.domains.knowledge import load_documents
from benchmark.errors import WorldError
from benchmark.world.image import seeded_image
from benchmark.world.seed import patch_rows, seed_rows
from benchmark.world.sqlite_plan import sqlite_plan
from guard.clock import FixedClock
from guard.errors import ToolError
from guard.store.engine import create_engine, start_from_image
from guard.tools import ToolContext
from guard.transaction.execute import CallOutcome, execute
from judges.canonical import CanonicalState, canonical_state
from judges.classify import ErrorClass

__all__ = ["World", "dump_state", "open_world"]

logger = logging.getLogger(__name__)

State = dict[str, list[dict[str, Any]]]


async def dump_state(conn: AsyncConnection, domain: Domain) -> State:
    """The graded state: benchmark table name → rows in list order (without ``_seq``)."""
    state: State = {}
    if conn.dialect.name == "sqlite":
        tables = domain.hashed_tables
        read = await sqlite_plan(domain).read(conn, [table.name for table in tables])
        return {table.benchmark_name: rows for table, rows in zip(tables, read, strict=True)}
    for table in domain.hashed_tables:
        sql = domain.sql[table.name]
        result = await conn.execute(select(sql).order_by(sql.c[SEQ]))
        state[table.benchmark_name] = [
            {k: v for k, v in row.items() if k != SEQ} for row in result.mappings()
        ]
    return state


@dataclass(frozen=True, slots=True, eq=False)
class World:
    """One task's database, built and ready for calls.

    ``engine`` reaches the world's tables (on PostgreSQL with ``search_path`` set to the world's
    schema); ``url`` is the database URL (``None`` in memory), ``schema`` the
    PostgreSQL schema.
    """

    domain: Domain
    task: Task
    engine: AsyncEngine
    url: str | None
    schema: str | None

    def context(self, conn: AsyncConnection, tool: str) -> ToolContext:
        return ToolContext(conn=conn, clock=FixedClock(self.domain.scenario_now), tool=tool)

    async def call(self, tool: str, arguments: Mapping[str, Any] | None) -> CallOutcome:
        """Run one tool call in its own transaction and commit it, even when the tool fails.

        This is the benchmark's (unguarded) semantics: a tool that writes and
        then fails keeps its partial write. An unknown tool is a tool error,
        as in the reference (``Unknown tool: <name>``).
        """
        spec = self.domain.registry.get(tool)
        if spec is None:
            return CallOutcome(
                error=ToolError(f"Unknown tool: {tool}", error_class=ErrorClass.INVALID_ARGUMENTS)
            )
        async with self.engine.connect() as conn, conn.begin():
            return await execute(spec, self.context(conn, tool), arguments)

    async def state(self) -> State:
        """The current graded state (see :func:`dump_state`)."""
        async with self.engine.connect() as conn:
            return await dump_state(conn, self.domain)

    async def canonical(self) -> CanonicalState:
        return canonical_state(await self.state(), self.domain.specs)


async def _populate(
    conn: AsyncConnection, domain: Domain, data_dir: Path, task: Task, scenario: Scenario | None
) -> None:
    if conn.dialect.name == "sqlite":
        await _populate_sqlite(conn, domain, data_dir, task, scenario)
        return
    await conn.run_sync(lambda sync: domain.metadata.create_all(sync, checkfirst=False))
    for name, rows in seed_rows(data_dir, domain).items():
        if rows:
            sql = domain.sql[name]
            await conn.execute(insert(sql), [{**row, SEQ: n} for n, row in enumerate(rows, start=1)])
    if scenario is not None:
        await load_documents(conn, domain.documents, scenario.sources)
    for name, rows in patch_rows(domain, task).items():
        for row in rows:
            await store.upsert_row(conn, domain.sql[name], row)


_TEMPLATES: dict[int, tuple[bytes, AsyncEngine, LRUCache[Any, Any]]] = {}
_STATEMENTS = 2000
"""Compiled statements kept per seeded image (a domain's tools compile a few hundred)."""


async def _memory_engine(image: bytes, start: bytes | None = None) -> AsyncEngine:
    """A new in-memory world engine on a copy of ``start`` (default ``image``), compiling through
    ``image``'s shared cache (``start`` is ``image`` with a task's rows patched in)."""
    entry = _TEMPLATES.get(id(image))
    if entry is None or entry[0] is not image:
        template = create_engine("sqlite+aiosqlite://", sqlite_image=image)
        # the first connection initialises the dialect every world of this image shares
        async with template.connect():
            pass
        # and the template keeps no connection open: worlds get their own
        await template.dispose()
        entry = (image, template, LRUCache(_STATEMENTS))
        _TEMPLATES[id(image)] = entry
    _, template, cache = entry
    sync = template.sync_engine
    engine = Engine(sync.pool.recreate(), sync.dialect, sync.url, execution_options={"compiled_cache": cache})
    # the engine-level listeners (SQLite's explicit BEGIN) come along, as Engine.execution_options does
    engine.dispatch._update(sync.dispatch, only_propagate=False)
    engine._has_events = sync._has_events
    world = AsyncEngine(engine)
    if start is not None and start is not image:
        start_from_image(world, start)
    return world


_TASK_IMAGES: OrderedDict[tuple[int, int], tuple[bytes, Task, bytes]] = OrderedDict()
_TASK_IMAGE_BUDGET = 256 * 2**20
"""Bytes of task images kept per process (about 0.4 MB a task: every task of a worker fits)."""


def _task_image(task: Task, seeded: bytes) -> bytes | None:
    """``seeded`` with ``task``'s data patch applied, when a world of the task kept it (or needs none).

    Every trial of a task, both arms and its golden replay start from the same rows; validating
    and upserting the patch was a tenth of a replayed trial, so the first world of a task keeps
    its patched image (:func:`_keep_image`) and the others start from a copy of it.
    """
    if not task.data_patch:
        return seeded
    entry = _TASK_IMAGES.get((id(seeded), id(task)))
    if entry is None or entry[0] is not seeded or entry[1] is not task:
        return None
    _TASK_IMAGES.move_to_end((id(seeded), id(task)))
    return entry[2]


async def _keep_image(engine: AsyncEngine, task: Task, seeded: bytes) -> None:
    """Keep the committed state of ``engine``'s world as ``task``'s image; least recently used go first."""
    async with engine.connect() as conn:
        driver: Any = (await conn.get_raw_connection()).driver_connection
        image: bytes = driver.serialize()
    _TASK_IMAGES[(id(seeded), id(task))] = (seeded, task, image)
    size = sum(len(held) for _, _, held in _TASK_IMAGES.values())
    while size > _TASK_IMAGE_BUDGET and len(_TASK_IMAGES) > 1:
        _, (_, _, dropped) = _TASK_IMAGES.popitem(last=False)
        size -= len(dropped)


def _pin_search_path(engine: AsyncEngine, schema: str) -> None:
    """Every connection of ``engine`` sees only ``schema`` (a connection parameter: rollbacks keep it)."""

    @event.listens_for(engine.sync_engine, "do_connect")
    def _connect(_dialect: Any, _record: Any, _args: Any, params: dict[str, Any]) -> None:
        params.setdefault("server_settings", {})["search_path"] = schema


def _remove_database_files(file: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{file}{suffix}").unlink(missing_ok=True)


async def _populate_sqlite(
    conn: AsyncConnection, domain: Domain, data_dir: Path, task: Task, scenario: Scenario | None
) -> None:
    plan = sqlite_plan(domain)
    await plan.create(conn)
    for name, rows in seed_rows(data_dir, domain).items():
        if rows:
            await plan.insert(conn, name, rows)
    if scenario is not None:
        await load_documents(conn, domain.documents, scenario.sources)
    await _patch(conn, domain, task)


async def _patch(conn: AsyncConnection, domain: Domain, task: Task) -> None:
    plan = sqlite_plan(domain)
    for name, rows in patch_rows(domain, task).items():
        if rows:
            await plan.upsert(conn, name, rows)


@asynccontextmanager
async def open_world(
    domain: Domain,
    task: Task,
    *,
    data_dir: Path,
    scenario: Scenario | None = None,
    url: str | None = None,
    keep: bool = False,
) -> AsyncIterator[World]:
    """Build ``task``'s initial state in a new database and yield the :class:`World` on it.

    ``scenario`` supplies the policy sources for the search tool (without it,
    the search tool answers "Search service is not available", like the
    reference without sources).
    """
    if task.domain != domain.name:
        raise WorldError(f"task belongs to domain {task.domain}, not {domain.name}", task=task.id)
    schema: str | None = None
    file: Path | None = None
    seeded: bytes | None = None
    patched: bytes | None = None
    if url is None:
        seeded = await seeded_image(domain, data_dir, scenario)
        patched = _task_image(task, seeded)
        engine = await _memory_engine(seeded, patched)
    else:
        parsed = make_url(url)
        if parsed.get_backend_name() == "sqlite":
            if not parsed.database or parsed.database == ":memory:":
                raise WorldError("give a SQLite file path, or no URL for an in-memory world", task=task.id)
            file = Path(parsed.database)
            if file.exists():
                raise WorldError(f"refusing to build a world over an existing file {file}", task=task.id)
            engine = create_engine(url)
        elif parsed.get_backend_name() == "postgresql":
            schema = f"tb_{uuid.uuid4().hex[:16]}"
            engine = create_engine(url, pool_size=2)
            _pin_search_path(engine, schema)
            async with engine.begin() as conn:
                await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        else:
            raise WorldError(f"unsupported database URL {url!r} (SQLite or PostgreSQL)", task=task.id)
    try:
        if seeded is None:
            async with engine.begin() as conn:
                await _populate(conn, domain, data_dir, task, scenario)
        elif patched is None:
            async with engine.begin() as conn:
                await _patch(conn, domain, task)
            await _keep_image(engine, task, seeded)
        yield World(domain=domain, task=task, engine=engine, url=url, schema=schema)
    finally:
        if schema is not None and not keep:
            async with engine.begin() as conn:
                await conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        await engine.dispose()
        if file is not None and not keep:
            _remove_database_files(file)
