"""The instance lease in the audit store: an advisory lock (PostgreSQL) or a file lock (SQLite).

PostgreSQL: a session-level advisory lock keyed by the instance name, held on
one connection kept open for the process's lifetime; the server releases it
when that connection ends, which a killed process's does. SQLite: an
exclusive ``flock`` on a lock file beside the database file, which the
kernel releases when the process dies. An in-memory SQLite store is private
to its process and needs neither. ``guard_instances`` records who holds
each name (host, pid, start, last heartbeat) so that a refusal can say.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import socket
import zlib
from pathlib import Path
from typing import Any

from sqlalchemy import select, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from guard.clock import Clock
from guard.errors import InstanceInUse
from guard.store.tables import instances

__all__ = ["SqlInstanceLease", "hold_setup_lock"]

log = logging.getLogger(__name__)

_LOCK_SPACE = 0x67617264  # the first key of the guard's advisory locks ("gard")
_TRY_LOCK = text("SELECT pg_try_advisory_lock(:space, :key)")
_UNLOCK = text("SELECT pg_advisory_unlock(:space, :key)")
_SETUP_LOCK = text("SELECT pg_advisory_xact_lock(:space, :key)")
_TIMEOUTS = text("SELECT current_setting('lock_timeout'), current_setting('statement_timeout')")
_SET_TIMEOUTS = text(
    "SELECT set_config('lock_timeout', :lock, true), set_config('statement_timeout', :statement, true)"
)
_SETUP_WAIT = "120s"
"""How long a starting replica waits for the others' setup: each holds the lock for its DDL, one after
another, which on a loaded machine takes longer than the ``lock_timeout_s`` and ``statement_timeout_s`` that
the DDL keeps."""


def _key(scope: str, instance: str) -> int:
    """A signed 32-bit key for the name in its schema (PostgreSQL's two-key advisory locks take int4)."""
    value = zlib.crc32(f"{scope}\n{instance}".encode())
    return value - (1 << 32) if value >= 1 << 31 else value


async def hold_setup_lock(conn: AsyncConnection) -> None:
    """PostgreSQL: set up the schema one guard at a time, until ``conn``'s transaction ends.

    Replicas that start together run the same idempotent DDL; PostgreSQL lets two
    ``CREATE OR REPLACE FUNCTION`` (or ``CREATE TABLE IF NOT EXISTS``) of one new
    name race, and the loser fails on a unique index of the catalog.
    """
    if conn.dialect.name == "postgresql":
        lock, statement = (await conn.execute(_TIMEOUTS)).one()
        await conn.execute(_SET_TIMEOUTS, {"lock": _SETUP_WAIT, "statement": _SETUP_WAIT})
        await conn.execute(_SETUP_LOCK, {"space": _LOCK_SPACE, "key": _key("", "schema setup")})
        await conn.execute(_SET_TIMEOUTS, {"lock": lock, "statement": statement})


class SqlInstanceLease:
    """Holds ``instance`` for this process in the audit store at ``engine``."""

    def __init__(self, engine: AsyncEngine, instance: str, clock: Clock, *, scope: str = "") -> None:
        """``scope``: what separates this audit store from others in one database (its schema)."""
        self._engine = engine
        self._instance = instance
        self._lock_key = _key(scope, instance)
        self._clock = clock
        self._conn: AsyncConnection | None = None
        self._fd: int | None = None
        self._held = False

    @property
    def _postgres(self) -> bool:
        return self._engine.dialect.name == "postgresql"

    def _lock_file(self) -> Path | None:
        database = make_url(self._engine.url).database
        if self._engine.dialect.name != "sqlite" or database in (None, "", ":memory:"):
            return None
        digest = hashlib.sha256(self._instance.encode()).hexdigest()[:16]
        return Path(f"{database}.instance-{digest}.lock")

    async def acquire(self) -> None:
        if self._postgres:
            await self._lock_postgres()
        else:
            self._lock_file_now()
        self._held = True
        now = self._clock.now()
        values: dict[str, Any] = {
            "host": socket.gethostname()[:256],
            "pid": os.getpid(),
            "started_at": now,
            "heartbeat_at": now,
            "stopped_at": None,
        }
        async with self._engine.begin() as conn:
            done = await conn.execute(
                update(instances).where(instances.c.instance == self._instance).values(**values)
            )
            if done.rowcount == 0:
                await conn.execute(instances.insert().values(instance=self._instance, **values))
        log.info("holding instance %s", self._instance)

    async def _lock_postgres(self) -> None:
        conn = await self._engine.connect()
        try:
            params = {"space": _LOCK_SPACE, "key": self._lock_key}
            taken = (await conn.execute(_TRY_LOCK, params)).scalar()
            await conn.commit()
        except BaseException:
            await conn.close()
            raise
        if not taken:
            await conn.close()
            raise InstanceInUse(await self._holder_text())
        self._conn = conn

    def _lock_file_now(self) -> None:
        path = self._lock_file()
        if path is None:
            return
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise InstanceInUse(
                f"instance {self._instance!r} is held by another process (lock file {path})"
            ) from None
        self._fd = fd

    async def _holder_text(self) -> str:
        async with self._engine.connect() as conn:
            row = (
                await conn.execute(select(instances).where(instances.c.instance == self._instance))
            ).first()
        where = ""
        if row is not None:
            m = row._mapping
            seen = self._clock.now() - m["heartbeat_at"] if m["heartbeat_at"].tzinfo else None
            where = f": process {m['pid']} on {m['host']}, started {m['started_at']:%Y-%m-%d %H:%M:%S}"
            if seen is not None:
                where += f", last heartbeat {seen.total_seconds():.0f} s ago"
        return (
            f"instance {self._instance!r} is live in another process{where}. Give each guard process its "
            "own server.instance (GUARD_SERVER__INSTANCE); a crashed guard's name frees itself at once"
        )

    async def heartbeat(self) -> None:
        if self._postgres:
            await self._check_postgres_lock()
        async with self._engine.begin() as conn:
            await conn.execute(
                update(instances)
                .where(instances.c.instance == self._instance)
                .values(heartbeat_at=self._clock.now())
            )

    async def _check_postgres_lock(self) -> None:
        """The lock lives on one connection; if the server dropped it (a restart), take the name again."""
        conn = self._conn
        if conn is not None:
            try:
                await conn.execute(text("SELECT 1"))
                await conn.commit()
                return
            except Exception:
                log.warning(
                    "the connection holding instance %s was lost; taking the name again", self._instance
                )
                with contextlib.suppress(Exception):
                    await conn.close()
                self._conn = None
        if self._held:
            await self._lock_postgres()

    async def abandon(self) -> None:
        """Let go of the name as a dying process does: no record of stopping (crash tests play this)."""
        self._held = False
        if self._conn is not None:
            with contextlib.suppress(Exception):
                await self._conn.invalidate()
                await self._conn.close()
            self._conn = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    async def release(self) -> None:
        if not self._held:
            return
        self._held = False
        with contextlib.suppress(Exception):
            async with self._engine.begin() as conn:
                await conn.execute(
                    update(instances)
                    .where(instances.c.instance == self._instance)
                    .values(stopped_at=self._clock.now())
                )
        if self._conn is not None:
            with contextlib.suppress(Exception):
                await self._conn.execute(_UNLOCK, {"space": _LOCK_SPACE, "key": self._lock_key})
                await self._conn.commit()
            with contextlib.suppress(Exception):
                await self._conn.close()
            self._conn = None
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
