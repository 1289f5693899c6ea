"""The ``sql`` backend: tool functions run by the guard inside its own database transaction.

One pinned connection per transaction, one SAVEPOINT per call (a failed call,
or one that raised, rolls back only itself, so a retry is always safe), row
changes captured by triggers (:mod:`guard.store.capture`), and COMMIT or
ROLLBACK at the end. The tool module names its tables with a SQLAlchemy
``metadata``; without one, the database's tables are reflected. The judges
read the pending state through :class:`~guard.backends.reads.SqlStateReader`.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from sqlalchemy import MetaData, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from guard.backends.base import UpstreamReport
from guard.backends.reads import SqlStateReader
from guard.clock import Clock
from guard.errors import ConfigError
from guard.execute import CallOutcome, execute
from guard.store.capture import Capture
from guard.tools import ToolContext, ToolRegistry, ToolSpec
from judges import Effect, Judge, fold_changes

__all__ = ["SqlBackend", "SqlSession", "SqlStateReader", "load_tool_module"]

log = logging.getLogger(__name__)

_OWN_TABLES = ("guard_", "alembic_", "sqlite_")
_SAVEPOINT = "guard_call"


def load_tool_module(path: str) -> ModuleType:
    """Import the module a config names and check it exposes a ``tools`` registry."""
    try:
        module = importlib.import_module(path)
    except ImportError as exc:
        raise ConfigError(f"cannot import backend module {path!r}: {exc}") from exc
    if not isinstance(getattr(module, "tools", None), ToolRegistry):
        raise ConfigError(f"backend module {path!r} has no `tools` (a guard.ToolRegistry)")
    return module


class SqlSession:
    def __init__(self, backend: SqlBackend, conn: AsyncConnection, transaction_id: str) -> None:
        self._backend = backend
        self._conn = conn
        self._ctx_base = (backend.clock, transaction_id)
        self.reader = SqlStateReader(conn, backend.capture.tables)

    async def call(self, spec: ToolSpec, arguments: Mapping[str, Any]) -> CallOutcome:
        clock, transaction_id = self._ctx_base
        ctx = ToolContext(self._conn, clock, spec.name, transaction_id)
        # plain SQL with one fixed name: calls never nest, and a fixed statement is never compiled again
        await self._conn.exec_driver_sql(f"SAVEPOINT {_SAVEPOINT}")
        try:
            outcome = await execute(spec, ctx, arguments)
        except BaseException:
            await self._undo_call()
            raise
        if outcome.ok:
            await self._conn.exec_driver_sql(f"RELEASE SAVEPOINT {_SAVEPOINT}")
        else:
            await self._undo_call()
        return outcome

    async def _undo_call(self) -> None:
        await self._conn.exec_driver_sql(f"ROLLBACK TO SAVEPOINT {_SAVEPOINT}")
        await self._conn.exec_driver_sql(f"RELEASE SAVEPOINT {_SAVEPOINT}")

    async def effects(self) -> list[Effect]:
        changes = await self._backend.capture.changes(self._conn)
        return fold_changes(changes, self._backend.capture.keys)

    async def commit(self) -> None:
        try:
            await self._conn.commit()
        finally:
            await self._release()

    async def rollback(self) -> None:
        try:
            await self._conn.rollback()
        finally:
            await self._release()

    async def _release(self) -> None:
        self._backend._open.discard(self)
        await self._conn.close()


class SqlBackend:
    """Tools from a Python module, run on the system of record's own transactions."""

    def __init__(
        self,
        engine: AsyncEngine,
        registry: ToolRegistry,
        clock: Clock,
        *,
        metadata: MetaData | None = None,
        judges: Sequence[Judge] = (),
        prepare: Callable[[AsyncConnection], Awaitable[None]] | None = None,
        name: str | None = None,
    ) -> None:
        self.engine = engine
        self.registry = registry
        self.clock = clock
        self.name = name or registry.name
        self.error_text = registry.error_text
        self._metadata = metadata
        self._judges = tuple(judges)
        self._prepare = prepare
        self._capture: Capture | None = None
        # sessions begun and not yet ended: close() rolls them back, so a caller that stops
        # early (a failed test, an embedding that forgets one) never leaves row locks behind
        self._open: set[SqlSession] = set()

    @classmethod
    def from_module(
        cls, engine: AsyncEngine, module_path: str, clock: Clock, *, prepare: bool = False
    ) -> SqlBackend:
        module = load_tool_module(module_path)
        hook = getattr(module, "prepare", None)
        if prepare and hook is None:
            raise ConfigError(f"backend.prepare is set but {module_path!r} has no `prepare(conn)`")
        return cls(
            engine,
            module.tools,
            clock,
            metadata=getattr(module, "metadata", None),
            judges=tuple(getattr(module, "judges", ())),
            prepare=hook if prepare else None,
            name=module_path,
        )

    async def ping(self) -> None:
        async with self.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))

    @property
    def tools(self) -> Sequence[ToolSpec]:
        return list(self.registry)

    @property
    def judges(self) -> Sequence[Judge]:
        return self._judges

    @property
    def capture(self) -> Capture:
        if self._capture is None:
            raise RuntimeError("SqlBackend.start() was not awaited")
        return self._capture

    async def start(self) -> None:
        async with self.engine.begin() as conn:
            if self._prepare is not None:
                await self._prepare(conn)
            metadata = self._metadata
            if metadata is None:
                metadata = MetaData()
                await conn.run_sync(lambda sync: metadata.reflect(sync))
            tables = [t for t in metadata.sorted_tables if not t.name.startswith(_OWN_TABLES)]
            self._capture = Capture(tables, self.engine.dialect)
            await self._capture.install_shared(conn)
        log.info("sql backend %s: %d tools, capturing %d tables", self.name, len(self.registry), len(tables))

    async def begin(self, transaction_id: str) -> SqlSession:
        conn = await self.engine.connect()
        try:
            await self.capture.prepare_connection(conn)
            if conn.in_transaction():
                await conn.commit()
            await conn.begin()
            await self.capture.begin(conn)
        except BaseException:
            await conn.close()
            raise
        session = SqlSession(self, conn, transaction_id)
        self._open.add(session)
        return session

    async def recover(self, *, restarted: bool) -> list[UpstreamReport]:
        """Nothing to finish: the database discards an interrupted transaction by itself."""
        return []

    async def close(self) -> None:
        """Roll back every session still open, then close the pool."""
        for session in list(self._open):
            with contextlib.suppress(Exception):
                await session.rollback()
        await self.engine.dispose()
