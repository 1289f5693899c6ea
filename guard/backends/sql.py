"""The ``sql`` backend: tool functions run by the guard inside its own database transaction.

One pinned connection per transaction, one SAVEPOINT per call (a failed call,
or one that raised, rolls back only itself, so a retry is always safe; a call
that succeeded keeps its savepoint until the next call releases it in the same
round trip as its own, or the transaction ends), row
changes captured by triggers (:mod:`guard.store.capture`), and COMMIT or
ROLLBACK at the end. A commit writes the transaction's commit mark on the same
connection just before COMMIT (:mod:`guard.store.marks`), so that the system
of record itself says which transactions it committed. The tool module names
its tables with a SQLAlchemy ``metadata``; without one, the database's tables
are reflected. The judges read the pending state through
:class:`~guard.backends.reads.SqlStateReader`.

Three failures are told apart from the rest. A statement whose changes no
trigger would capture (TRUNCATE, a schema change, SQLite's writes to a table
it does not capture...) or that would end the transaction (COMMIT) is refused
as it runs (:mod:`guard.store.capture`), and the agent reads that refusal; a
tool runs with the guard's refusal state set (``Gate.calling``). A session
whose connection died (the database restarted under it) has lost its
transaction: every later use
raises :class:`~guard.errors.TransactionLost`. A call that waited for a lock
another guard transaction holds ends with a ``conflict`` error naming that
transaction, instead of being retried blindly: the holder is the session
that has written (SQLite has one writer) or, on PostgreSQL, the session whose
server process ``pg_blocking_pids`` named while the call was waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable, Sequence
from types import ModuleType

from pydantic import BaseModel
from sqlalchemy import MetaData, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from guard.backends.base import UpstreamReport
from guard.backends.reads import SqlStateReader
from guard.clock import Clock
from guard.errors import ConfigError, ToolError, TransactionLost
from guard.store import marks
from guard.store.capture import Capture, Tally
from guard.store.direct import PlainStatements
from guard.store.sql_lease import hold_setup_lock
from guard.tools import Arguments, FunctionTool, Tool, ToolContext, ToolRegistry
from guard.transaction.execute import CallOutcome, run_tool
from judges import Effect, Finding, Judge, fold_changes
from judges.classify import ErrorClass, is_lock_wait

__all__ = ["SqlBackend", "SqlSession", "SqlStateReader", "load_tool_module"]

log = logging.getLogger(__name__)

_OWN_TABLES = ("guard_", "alembic_", "sqlite_")
# one name per process, so that a call's statement is never compiled again, and no tool's SQL can name it
# (releasing it would leave the guard unable to undo the call)
_SAVEPOINT = f"guard_call_{secrets.token_hex(8)}"
_SAVE, _RELEASE = f"SAVEPOINT {_SAVEPOINT}", f"RELEASE SAVEPOINT {_SAVEPOINT}"
_ROLLBACK_TO = f"ROLLBACK TO SAVEPOINT {_SAVEPOINT}"
_WATCH_AFTER_S = 0.1
_BLOCKERS = text("SELECT pg_blocking_pids(:pid)")


def load_tool_module(path: str) -> ModuleType:
    """Import the module a config names and check it exposes a ``tools`` registry."""
    try:
        module = importlib.import_module(path)
    except Exception as exc:  # ImportError, but also a module that fails as it loads (SyntaxError, ...)
        raise ConfigError(f"cannot import backend module {path!r}: {type(exc).__name__}: {exc}") from exc
    if not isinstance(getattr(module, "tools", None), ToolRegistry):
        raise ConfigError(f"backend module {path!r} has no `tools` (a guard.ToolRegistry)")
    return module


def _ago(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds >= 1 else "under a second"


class SqlSession:
    def __init__(
        self, backend: SqlBackend, conn: AsyncConnection, transaction_id: str, tally: Tally | None = None
    ) -> None:
        self._backend = backend
        self._conn = conn
        self.transaction_id = transaction_id
        self._tally = tally
        self._gate = backend.capture.gate(conn)
        self._plain = PlainStatements(conn)
        self._held = False
        """The last call's savepoint is still open (it succeeded): the transaction's end ends it too."""
        self.reader = SqlStateReader(conn, backend.capture.tables)
        self.opened = backend.clock.monotonic()
        self.last_call = self.opened
        self.wrote = False
        self.changed: bool | None = None
        self.server_pid: int | None = None
        self._blockers: tuple[int, ...] = ()

    def lost(self) -> str | None:
        """Why the transaction is gone (its connection died), or None while it lives."""
        if self._conn.invalidated:
            return "its database connection broke (the database may have restarted)"
        if self._conn.closed:
            return "its database connection was closed"
        return None

    def applied(self) -> Sequence[str]:
        """Nothing: every write waits in the database transaction until COMMIT."""
        return ()

    def repair(self, findings: Sequence[Finding]) -> str | None:
        """A database transaction is repaired by further calls that change the rows back or again."""
        return None

    def _alive(self) -> None:
        reason = self.lost()
        if reason is not None:
            raise TransactionLost(
                f"transaction {self.transaction_id} is lost: {reason}", transaction_id=self.transaction_id
            )

    async def call(self, tool: Tool, arguments: Arguments) -> CallOutcome:
        self._alive()
        spec = self._backend.registry[tool.name]
        parsed = arguments if isinstance(arguments, BaseModel) else spec.validate(arguments)
        ctx = ToolContext(self._conn, self._backend.clock, spec.name, self.transaction_id)
        # plain SQL with one fixed name: calls never nest, and a fixed statement is never compiled again;
        # the last call's savepoint, kept when it succeeded, is released in the same round trip
        held, self._held = self._held, False
        await self._plain.run(*((_RELEASE, _SAVE) if held else (_SAVE,)))
        watch = self._watch_locks()
        try:
            outcome = await self._run(spec, ctx, parsed)
        except BaseException as exc:
            await self._undo_call()
            refusal = self._refusal(spec.name, exc) if isinstance(exc, Exception) else None
            if refusal is None:
                raise
            refusal.__cause__ = exc
            outcome = CallOutcome(error=refusal)
        else:
            if outcome.ok:
                self._held = True  # released by the next call, or ended with the transaction
                self.wrote = self.wrote or spec.write
            else:
                await self._undo_call()
        finally:
            if watch is not None:
                watch.cancel()
            self.last_call = self._backend.clock.monotonic()
        return outcome

    async def _run(self, spec: FunctionTool, ctx: ToolContext, parsed: BaseModel) -> CallOutcome:
        """The tool itself: while it runs, its statements may not end the transaction (the guard's own,
        its savepoint's and its commit, run after)."""
        self._gate.calling = True
        try:
            return await run_tool(spec, ctx, parsed)
        finally:
            self._gate.calling = False

    def _watch_locks(self) -> asyncio.TimerHandle | None:
        """PostgreSQL: if the call is still running shortly, note who blocks it (for a conflict's text)."""
        self._blockers = ()
        if self.server_pid is None:
            return None
        return asyncio.get_running_loop().call_later(_WATCH_AFTER_S, self._backend.watch, self)

    def note_blockers(self, pids: Iterable[int]) -> None:
        self._blockers = tuple(pids)

    def _refusal(self, tool: str, exc: Exception) -> ToolError | None:
        """A database failure the agent should read as such: a statement the guard refused (its changes no
        trigger would capture, or it would end the transaction), a named lock conflict."""
        refused = self._backend.capture.refusal(self._conn, exc)
        if refused is not None:
            return ToolError(
                f"{tool}: {refused}; nothing was changed", error_class=ErrorClass.PERMISSION_DENIED
            )
        return self._conflict(tool, exc)

    def _conflict(self, tool: str, exc: Exception) -> ToolError | None:
        """A lock wait on a record another guard transaction holds, as a ``conflict`` error naming it."""
        if not is_lock_wait(exc):
            return None
        holders = self._backend.lock_holders(self, self._blockers)
        if not holders:
            return None
        now = self._backend.clock.monotonic()
        named = "; ".join(
            f"transaction {h.transaction_id} (open {_ago(now - h.opened)}, "
            f"last call {_ago(now - h.last_call)} ago)"
            for h in holders
        )
        return ToolError(
            f"{tool}: the records it needs are locked by another open transaction, {named}, which has not "
            "committed or rolled back; nothing was changed. Try again once it has ended.",
            error_class=ErrorClass.CONFLICT,
        )

    async def _undo_call(self) -> None:
        await self._plain.run(_ROLLBACK_TO, _RELEASE)

    async def effects(self) -> list[Effect]:
        self._alive()
        changes = await self._backend.capture.changes(self._conn, self._tally)
        self.changed = bool(changes)
        return fold_changes(changes, self._backend.capture.keys)

    async def commit(self) -> None:
        """Mark the transaction committed and COMMIT, on its own connection: both happen or neither.

        A transaction that changed nothing (as its last :meth:`effects` found) gets
        no mark: there is nothing whose fate recovery would need to learn, and on
        SQLite a read-only transaction whose snapshot another commit overtook
        could not write one.
        """
        self._alive()
        backend = self._backend
        try:
            if self.changed is not False:
                mark = marks.mark(self.transaction_id, backend.instance, backend.clock.now())
                await self._conn.execute(mark)
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
        instance: str = "guard",
        owns_engine: bool = True,
    ) -> None:
        """``owns_engine``: close() disposes the engine; false when the engine outlives the backend
        (the benchmark's world, which is graded after the trial)."""
        self.engine = engine
        self.registry = registry
        self.clock = clock
        self.name = name or registry.name
        self.instance = instance
        self.error_text = registry.error_text
        self._metadata = metadata
        self._judges = tuple(judges)
        self._prepare = prepare
        self._capture: Capture | None = None
        self._postgres = engine.dialect.name == "postgresql"
        # sessions begun and not yet ended: close() rolls them back, so a caller that stops
        # early (a failed test, an embedding that forgets one) never leaves row locks behind
        self._open: set[SqlSession] = set()
        self._watches: set[asyncio.Task[None]] = set()
        self._owns_engine = owns_engine

    @classmethod
    def from_module(
        cls,
        engine: AsyncEngine,
        module_path: str,
        clock: Clock,
        *,
        prepare: bool = False,
        instance: str = "guard",
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
            instance=instance,
        )

    async def ping(self) -> None:
        """A real write path: a commit mark written and rolled back (a busy SQLite file is writable)."""
        await marks.probe_write(self.engine, self.clock.now())

    @property
    def tools(self) -> Sequence[Tool]:
        return list(self.registry)

    @property
    def tables(self) -> frozenset[str]:
        return frozenset(self.capture.tables)

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
            await hold_setup_lock(conn)
            if self._prepare is not None:
                await self._prepare(conn)
            metadata = self._metadata
            if metadata is None:
                metadata = MetaData()
                await conn.run_sync(lambda sync: metadata.reflect(sync))
            tables = [t for t in metadata.sorted_tables if not t.name.startswith(_OWN_TABLES)]
            self._capture = Capture(tables, self.engine.dialect)
            await self._capture.install_shared(conn)
            await marks.install(conn)
        log.info("sql backend %s: %d tools, capturing %d tables", self.name, len(self.registry), len(tables))

    async def begin(self, transaction_id: str) -> SqlSession:
        conn = await self.engine.connect()
        try:
            await self.capture.prepare_connection(conn)
            if conn.in_transaction():
                await conn.commit()
            tally = await self.capture.begin(conn)
        except BaseException:
            await conn.close()
            raise
        session = SqlSession(self, conn, transaction_id, tally)
        if self._postgres:
            driver = (await conn.get_raw_connection()).driver_connection
            session.server_pid = int(driver.get_server_pid()) if driver is not None else None
        self._open.add(session)
        return session

    def watch(self, session: SqlSession) -> None:
        """Ask PostgreSQL, on another connection, which server processes block ``session`` now."""
        if session.server_pid is None:
            return
        task = asyncio.get_running_loop().create_task(self._blockers(session, session.server_pid))
        self._watches.add(task)
        task.add_done_callback(self._watches.discard)

    async def _blockers(self, session: SqlSession, pid: int) -> None:
        try:
            async with self.engine.connect() as conn:
                found = (await conn.execute(_BLOCKERS, {"pid": pid})).scalar()
        except Exception as exc:
            log.debug("could not ask who blocks transaction %s: %r", session.transaction_id, exc)
            return
        session.note_blockers(int(p) for p in found or ())

    def lock_holders(self, waiting: SqlSession, blockers: Sequence[int]) -> list[SqlSession]:
        """The other open sessions that hold what ``waiting`` waited for, as far as they can be known."""
        others = [s for s in self._open if s is not waiting]
        if self._postgres:
            return [s for s in others if s.server_pid in blockers]
        return [s for s in others if s.wrote]

    async def committed(self, transaction_ids: Sequence[str]) -> set[str]:
        """Which of ``transaction_ids`` the system of record committed (their commit marks exist)."""
        return await marks.marked(self.engine, transaction_ids) if transaction_ids else set()

    async def forget(self, transaction_ids: Sequence[str]) -> None:
        """Drop the commit marks of transactions whose end the audit log has recorded."""
        if transaction_ids:
            await marks.forget(self.engine, transaction_ids)

    async def recover(self, *, restarted: bool) -> list[UpstreamReport]:
        """Nothing to finish: the database discards an interrupted transaction by itself."""
        return []

    async def close(self) -> None:
        """Roll back every session still open, then close the pool (when the backend owns the engine)."""
        for task in list(self._watches):
            task.cancel()
        for session in list(self._open):
            with contextlib.suppress(Exception):
                await session.rollback()
        if self._owns_engine:
            await self.engine.dispose()
