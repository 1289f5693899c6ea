"""Requirement G23: one live process per instance name, held by a lock the system frees when it dies.

:class:`SqlInstanceLease` directly, on a SQLite file (a file lock) and on
PostgreSQL (an advisory lock, a fresh schema per test): a second claim on a
held name is refused and touches nothing, and succeeds once the first is
released or its holder dies (:meth:`~SqlInstanceLease.abandon` plays the
death); ``guard_instances`` says who holds each name and when it last beat.
In-memory stores share nothing: :class:`NoLease` and an in-memory SQLite
store never refuse. (``tests/guard/test_postgres.py`` and
``tests/guard/test_integrity.py`` play the same through whole guards.)
"""

from __future__ import annotations

import os
import socket
import zlib
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.clock import FixedClock
from guard.errors import InstanceInUse
from guard.lease import InstanceLease, NoLease
from guard.store.engine import create_engine
from guard.store.migrate import upgrade
from guard.store.sql_lease import SqlInstanceLease
from guard.store.tables import instances


@pytest.fixture
async def engine(store: tuple[str, str | None]) -> AsyncIterator[AsyncEngine]:
    url, schema = store
    made = create_engine(url, search_path=schema)
    await upgrade(made)
    yield made
    await made.dispose()


@pytest.fixture
def scope(store: tuple[str, str | None]) -> str:
    return store[1] or ""


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


async def _row(engine: AsyncEngine, name: str) -> dict[str, Any]:
    async with engine.connect() as conn:
        row = (await conn.execute(select(instances).where(instances.c.instance == name))).one()
    return dict(row._mapping)


def _utc(value: datetime) -> datetime:
    """SQLite hands back naive UTC; PostgreSQL aware (the comparison needs one kind)."""
    return value.replace(tzinfo=None)


async def test_no_lease_never_refuses() -> None:
    """Requirement G23: a guard whose audit log is in memory shares nothing, so two claims both hold."""
    first: InstanceLease = NoLease()
    second: InstanceLease = NoLease()
    await first.acquire()
    await second.acquire()
    await first.heartbeat()
    await first.release()
    await second.release()


async def test_a_held_name_is_refused_until_released(
    engine: AsyncEngine, clock: FixedClock, scope: str
) -> None:
    """Requirement G23: the second claim on a live name is refused; after release it is granted."""
    first = SqlInstanceLease(engine, "guard-1", clock, scope=scope)
    second = SqlInstanceLease(engine, "guard-1", clock, scope=scope)
    await first.acquire()
    try:
        with pytest.raises(InstanceInUse, match="instance 'guard-1' is"):
            await second.acquire()
    finally:
        await first.release()
    await second.acquire()
    await second.release()


async def test_a_dead_holders_name_is_granted_at_once(
    engine: AsyncEngine, clock: FixedClock, scope: str
) -> None:
    """Requirement G23: the lock goes with its process: no wait, no record of stopping needed."""
    first = SqlInstanceLease(engine, "guard-1", clock, scope=scope)
    await first.acquire()
    await first.abandon()
    second = SqlInstanceLease(engine, "guard-1", clock, scope=scope)
    await second.acquire()
    try:
        assert (await _row(engine, "guard-1"))["stopped_at"] is None
        with pytest.raises(InstanceInUse):
            await SqlInstanceLease(engine, "guard-1", clock, scope=scope).acquire()
    finally:
        await second.release()


async def test_another_name_is_not_refused(engine: AsyncEngine, clock: FixedClock, scope: str) -> None:
    """Requirement G23: each name has its own lock."""
    first = SqlInstanceLease(engine, "guard-1", clock, scope=scope)
    other = SqlInstanceLease(engine, "guard-2", clock, scope=scope)
    await first.acquire()
    try:
        await other.acquire()
        await other.release()
    finally:
        await first.release()


async def test_the_holder_is_recorded_beats_and_stops(
    engine: AsyncEngine, clock: FixedClock, scope: str
) -> None:
    """Requirement G23: ``guard_instances`` names the holder's host and pid, moves its heartbeat with
    the clock, and records its stop; holding the name again clears the stop."""
    lease = SqlInstanceLease(engine, "guard-1", clock, scope=scope)
    started = clock.now()
    await lease.acquire()
    row = await _row(engine, "guard-1")
    assert (row["host"], row["pid"], row["stopped_at"]) == (socket.gethostname()[:256], os.getpid(), None)
    assert _utc(row["started_at"]) == _utc(row["heartbeat_at"]) == _utc(started)

    clock.advance(30)
    await lease.heartbeat()
    row = await _row(engine, "guard-1")
    assert (_utc(row["started_at"]), _utc(row["heartbeat_at"])) == (_utc(started), _utc(clock.now()))

    clock.advance(5)
    await lease.release()
    assert _utc((await _row(engine, "guard-1"))["stopped_at"]) == _utc(clock.now())
    await lease.release()  # a second release changes nothing

    await lease.acquire()
    try:
        assert (await _row(engine, "guard-1"))["stopped_at"] is None
    finally:
        await lease.release()


async def test_a_refused_claim_touches_nothing_of_the_holder(
    engine: AsyncEngine, clock: FixedClock, scope: str
) -> None:
    """Requirement G23: the refused process leaves the holder's record as it was."""
    first = SqlInstanceLease(engine, "guard-1", clock, scope=scope)
    await first.acquire()
    try:
        before = await _row(engine, "guard-1")
        clock.advance(60)
        second = SqlInstanceLease(engine, "guard-1", clock, scope=scope)
        with pytest.raises(InstanceInUse):
            await second.acquire()
        await second.release()  # a refused lease holds nothing to release
        assert await _row(engine, "guard-1") == before
        await first.heartbeat()
    finally:
        await first.release()


async def test_an_in_memory_sqlite_store_is_private_and_never_refuses(clock: FixedClock) -> None:
    """Requirement G23: an in-memory store belongs to its process: no lock, both claims hold."""
    engine = create_engine("sqlite://")
    try:
        await upgrade(engine)
        first = SqlInstanceLease(engine, "guard-1", clock)
        second = SqlInstanceLease(engine, "guard-1", clock)
        await first.acquire()
        await second.acquire()
        await second.release()
        await first.release()
    finally:
        await engine.dispose()


@pytest.mark.postgres
async def test_postgres_refusal_names_the_holder_and_its_last_heartbeat(
    postgres_url: str, postgres_schema: str, clock: FixedClock
) -> None:
    """Requirement G23: the refusal says which process on which host holds the name, since when it
    last beat, and how to start another guard."""
    engine = create_engine(postgres_url, search_path=postgres_schema)
    try:
        await upgrade(engine)
        first = SqlInstanceLease(engine, "guard-1", clock, scope=postgres_schema)
        await first.acquire()
        try:
            clock.advance(42)
            second = SqlInstanceLease(engine, "guard-1", clock, scope=postgres_schema)
            with pytest.raises(InstanceInUse) as refused:
                await second.acquire()
        finally:
            await first.release()
    finally:
        await engine.dispose()
    text = str(refused.value)
    assert f"process {os.getpid()} on {socket.gethostname()}" in text
    assert "last heartbeat 42 s ago" in text
    assert "GUARD_SERVER__INSTANCE" in text


@pytest.mark.postgres
async def test_postgres_scopes_keep_one_name_apart(
    postgres_url: str, postgres_schema: str, clock: FixedClock
) -> None:
    """Requirement G23: the same name in two audit stores of one database (two schemas) is two names."""
    engine = create_engine(postgres_url, search_path=postgres_schema)
    try:
        await upgrade(engine)
        first = SqlInstanceLease(engine, "guard-1", clock, scope=postgres_schema)
        elsewhere = SqlInstanceLease(engine, "guard-1", clock, scope=f"{postgres_schema}-other")
        await first.acquire()
        try:
            await elsewhere.acquire()
            await elsewhere.release()
        finally:
            await first.release()
    finally:
        await engine.dispose()


async def _terminate_lock_holder(engine: AsyncEngine, scope: str, name: str) -> None:
    """Play a server that dropped the holder's connection (a restart): end the backend holding the
    name's advisory lock (the guard's lock space, the key of ``scope`` and ``name``)."""
    key = zlib.crc32(f"{scope}\n{name}".encode())
    query = text(
        "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' "
        "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
        "AND classid = :space AND objid = :key AND objsubid = 2"
    )
    async with engine.connect() as conn:
        ended = (await conn.execute(query, {"space": 0x67617264, "key": key})).scalars().all()
    assert ended == [True]


@pytest.mark.postgres
async def test_postgres_heartbeat_takes_the_name_again_after_its_connection_was_lost(
    postgres_url: str, postgres_schema: str, clock: FixedClock
) -> None:
    """Requirement G23: when the server drops the connection holding the lock, the next heartbeat takes
    the name again, so that a second claim is still refused."""
    engine = create_engine(postgres_url, search_path=postgres_schema)
    try:
        await upgrade(engine)
        lease = SqlInstanceLease(engine, "guard-1", clock, scope=postgres_schema)
        await lease.acquire()
        try:
            await _terminate_lock_holder(engine, postgres_schema, "guard-1")
            await lease.heartbeat()
            with pytest.raises(InstanceInUse):
                await SqlInstanceLease(engine, "guard-1", clock, scope=postgres_schema).acquire()
        finally:
            await lease.release()
        after = SqlInstanceLease(engine, "guard-1", clock, scope=postgres_schema)
        await after.acquire()
        await after.release()
    finally:
        await engine.dispose()
