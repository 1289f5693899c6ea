"""Engines for the system of record and the audit store, configured once.

SQLite needs two things from us for real transactions: the driver's own
implicit transaction handling switched off (so that ``BEGIN`` and
``SAVEPOINT`` mean what they say) and a busy timeout, so that a second writer
waits for the lock and then fails clearly instead of at once. Files use WAL so
readers never block the writer. PostgreSQL gets a statement and lock timeout,
so that no call can hang a transaction.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import Awaitable, Callable, Generator
from typing import Any

import aiosqlite
from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DisconnectionError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import AsyncAdaptedQueuePool, StaticPool

from guard.errors import ConfigError, StoreNotReady

__all__ = [
    "async_url",
    "create_engine",
    "display_url",
    "is_sqlite",
    "require_file",
    "sqlite_file",
    "start_from_image",
]

_DRIVERS = {
    "sqlite": "sqlite+aiosqlite",
    "postgresql": "postgresql+asyncpg",
    "postgres": "postgresql+asyncpg",
}


def _parsed(url: str) -> URL:
    """``url`` parsed; a string that is not a database URL is a configuration error (never echoed whole)."""
    try:
        return make_url(url)
    except ArgumentError as exc:
        scheme = url.split(":", 1)[0][:40] if ":" in url else "no scheme"
        raise ConfigError(
            f"not a database URL ({scheme}...): use e.g. sqlite:///file.db or postgresql://..."
        ) from exc


def async_url(url: str) -> str:
    """The URL with an async driver (``sqlite:`` → ``sqlite+aiosqlite:``, ``postgresql:`` → asyncpg)."""
    parsed = _parsed(url)
    if "+" not in parsed.drivername and parsed.drivername in _DRIVERS:
        parsed = parsed.set(drivername=_DRIVERS[parsed.drivername])
    return parsed.render_as_string(hide_password=False)


def is_sqlite(url: str) -> bool:
    return _parsed(url).get_backend_name() == "sqlite"


def display_url(url: str | URL) -> str:
    """``url`` as text fit for a message or a log line: its password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return f"{str(url).partition(':')[0]}:<unreadable URL>"


def require_file(url: str) -> None:
    """Raise :class:`StoreNotReady` when ``url`` names a SQLite file that does not exist.

    Connecting would create an empty database there; the guard's own store is
    created only by ``guard db upgrade``. In-memory and server URLs pass.
    """
    path = sqlite_file(url)
    if path is not None and not os.path.exists(path):
        raise StoreNotReady(f"no audit database at {path}; run `guard db upgrade` first")


def create_engine(
    url: str,
    *,
    statement_timeout_s: float = 10.0,
    lock_timeout_s: float = 5.0,
    pool_size: int = 10,
    max_overflow: int = 10,
    echo: bool = False,
    search_path: str | None = None,
    sqlite_image: bytes | None = None,
) -> AsyncEngine:
    """An async engine for ``url`` with the transaction behaviour the guard relies on.

    ``search_path`` (PostgreSQL) names the schemas unqualified table names resolve in.
    ``sqlite_image`` (an in-memory SQLite URL only) starts the database from a
    serialized image (``sqlite3.Connection.serialize``) instead of empty: a
    copy of a prepared database in one memory copy, whose statements run on
    the event loop's thread (:class:`_InlineConnection`).
    """
    url = async_url(url)
    parsed = make_url(url)
    kwargs: dict[str, Any] = {"echo": echo}
    if parsed.get_backend_name() == "sqlite":
        memory = parsed.database in (None, "", ":memory:") or "mode=memory" in url
        # An in-memory database lives and dies with its one connection; a file gets a pool, so
        # that per-connection setup (the capture triggers) is paid once per connection.
        if memory:
            kwargs["poolclass"] = StaticPool
            if sqlite_image is not None:
                kwargs["async_creator"] = _from_image(sqlite_image, lock_timeout_s)
        else:
            kwargs["poolclass"] = AsyncAdaptedQueuePool
            kwargs["pool_size"] = pool_size
            kwargs["max_overflow"] = max_overflow
        kwargs["connect_args"] = {"timeout": lock_timeout_s, "check_same_thread": False}
        engine = create_async_engine(url, **kwargs)
        _configure_sqlite(engine, wal=not memory, busy_timeout_ms=int(lock_timeout_s * 1000))
        return engine
    if parsed.get_backend_name() == "postgresql":
        kwargs["pool_size"] = pool_size
        kwargs["max_overflow"] = max_overflow
        kwargs["connect_args"] = {
            "server_settings": {
                "statement_timeout": str(int(statement_timeout_s * 1000)),
                "lock_timeout": str(int(lock_timeout_s * 1000)),
                "idle_in_transaction_session_timeout": "0",
                "application_name": "guard",
                **({"search_path": search_path} if search_path else {}),
            }
        }
        engine = create_async_engine(url, **kwargs)
        event.listen(engine.sync_engine.pool, "checkout", _ping)
        return engine
    return create_async_engine(url, **kwargs)


def _ping(dbapi_connection: Any, record: Any, proxy: Any) -> None:
    """A pooled PostgreSQL connection answers one statement before it is used, or is replaced.

    In place of ``pool_pre_ping``, whose asyncpg form takes three round trips
    (it wraps the ping in a transaction, for PgBouncer's transaction mode); a
    checkout took more time pinging than the audit write it was for. The pool
    replaces a connection whose ping fails (a restarted or terminated server)
    and tries again, as it does for the pre-ping.
    """
    try:
        dbapi_connection.run_async(lambda driver: driver.execute("SELECT 1"))
    except Exception as exc:
        raise DisconnectionError(f"the pooled connection did not answer: {exc!r}") from exc


class _RunNow:
    """In place of aiosqlite's queue to its worker thread: runs a queued call at once, settles its future."""

    def put_nowait(self, item: tuple[asyncio.Future[Any] | None, Callable[[], Any]]) -> None:
        future, function = item
        try:
            result = function()
        except Exception as exc:
            if future is not None:
                future.set_exception(exc)
            return
        if future is not None:
            future.set_result(result)


class _InlineConnection(aiosqlite.Connection):
    """An aiosqlite connection that runs each call at once on the caller's thread, with no worker thread.

    Only for a private in-memory copy (an image): its one connection has no
    other connection to wait for and answers in microseconds, so handing each
    call to a thread and back (about a tenth of a millisecond, several times a
    statement) would cost more than the work. A call cannot be cancelled
    halfway, which is what a pinned transaction wants anyway.
    """

    def __init__(self, connector: Callable[[], sqlite3.Connection], iter_chunk_size: int) -> None:
        super().__init__(connector, iter_chunk_size)
        # SQLAlchemy's adapter sets the isolation level through the worker queue itself
        self._tx = _RunNow()  # type: ignore[assignment]

    async def _execute(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self._connection is None:
            raise ValueError("Connection closed")
        return fn(*args, **kwargs)

    async def _connect(self) -> _InlineConnection:
        if self._connection is None:
            self._connection = self._connector()
        return self

    def __await__(self) -> Generator[Any, None, _InlineConnection]:
        return self._connect().__await__()

    def serialize(self) -> bytes:
        """The database as an image (``sqlite3.Connection.serialize``): what it holds committed."""
        if self._connection is None:
            raise ValueError("Connection closed")
        return self._connection.serialize()

    def stop(self) -> None:
        self._running = False
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def start_from_image(engine: AsyncEngine, image: bytes, *, lock_timeout_s: float = 5.0) -> None:
    """Make the next connection of in-memory SQLite ``engine`` (of :func:`create_engine`) a copy of ``image``.

    For an engine that shares a template's dialect and compiled statements but starts from
    another image (the benchmark's task worlds); call it before the engine connects.
    """
    sync = engine.sync_engine
    connect = _from_image(image, lock_timeout_s)
    dbapi = sync.dialect.loaded_dbapi
    # the pool's creator, as create_async_engine builds it for an async_creator
    sync.pool._creator = lambda: dbapi.connect(async_creator_fn=connect)


def _from_image(image: bytes, timeout_s: float) -> Callable[[], Awaitable[Any]]:
    async def connect() -> Any:
        def open_copy() -> sqlite3.Connection:
            conn = sqlite3.connect(":memory:", timeout=timeout_s, check_same_thread=False)
            conn.deserialize(image)
            return conn

        return await _InlineConnection(open_copy, iter_chunk_size=64)

    return connect


def _configure_sqlite(engine: AsyncEngine, *, wal: bool, busy_timeout_ms: int) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
        cursor.execute("PRAGMA foreign_keys = ON")
        if wal:
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN")


def sqlite_file(url: str) -> str | None:
    """The absolute path of a SQLite URL's database file; None for another database or one in memory."""
    parsed = make_url(url)
    database = parsed.database
    if parsed.get_backend_name() != "sqlite" or database in (None, "", ":memory:") or "mode=memory" in url:
        return None
    return os.path.abspath(database)
