"""Requirements G16 and G29: commit marks, the system of record's own word on what it committed.

A mark written inside a transaction exists if and only if that transaction
committed; :func:`marks.marked` finds exactly the asked-for ones, in batches;
:func:`marks.forget` deletes them in batches; :func:`marks.probe_write`
takes the write path and leaves nothing behind. On a SQLite file, in-memory
SQLite, and PostgreSQL (a fresh schema per test).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.store import marks
from guard.store.engine import create_engine

AT = datetime(2026, 12, 5, 1, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite-file", "sqlite-memory", pytest.param("postgres", marks=pytest.mark.postgres)])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str | None]:
    """A database URL and schema: a SQLite file, in-memory SQLite, or a fresh PostgreSQL schema."""
    if request.param == "sqlite-file":
        return f"sqlite:///{tmp_path / 'record.db'}", None
    if request.param == "sqlite-memory":
        return "sqlite://", None
    return request.getfixturevalue("postgres_url"), request.getfixturevalue("postgres_schema")


@pytest.fixture
async def engine(where: tuple[str, str | None]) -> AsyncIterator[AsyncEngine]:
    """An engine at ``where`` with the marks table installed."""
    url, schema = where
    made = create_engine(url, search_path=schema)
    async with made.begin() as conn:
        await marks.install(conn)
    yield made
    await made.dispose()


async def _mark_all(engine: AsyncEngine, ids: list[str]) -> None:
    async with engine.begin() as conn:
        for ident in ids:
            await conn.execute(marks.mark(ident, "guard-1", AT))


async def test_install_is_idempotent_and_keeps_the_marks(engine: AsyncEngine) -> None:
    """Requirement G16: installing again (every start does) neither fails nor drops a mark."""
    await _mark_all(engine, ["t-1"])
    async with engine.begin() as conn:
        await marks.install(conn)
    assert await marks.marked(engine, ["t-1"]) == {"t-1"}


async def test_a_mark_exists_exactly_when_its_transaction_committed(engine: AsyncEngine) -> None:
    """Requirement G16: the mark of a committed transaction is found; one rolled back leaves none."""
    await _mark_all(engine, ["kept"])
    async with engine.connect() as conn:
        await conn.execute(marks.mark("dropped", "guard-1", AT))
        await conn.rollback()
    assert await marks.marked(engine, ["kept", "dropped", "never"]) == {"kept"}


async def test_marked_answers_only_for_the_ids_asked(engine: AsyncEngine) -> None:
    """Requirement G16: another transaction's mark is not reported; asking about none finds none."""
    await _mark_all(engine, ["a", "b"])
    assert await marks.marked(engine, ["b", "c"]) == {"b"}
    assert await marks.marked(engine, []) == set()


async def test_a_transaction_is_marked_once(engine: AsyncEngine) -> None:
    """Requirement G16: a second mark of one transaction fails (and its own transaction with it)."""
    await _mark_all(engine, ["t-1"])
    with pytest.raises(IntegrityError):
        await _mark_all(engine, ["t-2", "t-1"])
    assert await marks.marked(engine, ["t-1", "t-2"]) == {"t-1"}


async def test_many_marks_are_found_and_forgotten_in_batches(engine: AsyncEngine) -> None:
    """Requirement G16: more ids than one batch (500) are all found and all forgotten; marks not named
    stay."""
    ids = [f"t-{n:04d}" for n in range(1201)]
    await _mark_all(engine, [*ids, "other"])
    assert await marks.marked(engine, iter(ids)) == set(ids)
    await marks.forget(engine, iter(ids))
    assert await marks.marked(engine, [*ids, "other"]) == {"other"}


async def test_forgetting_unknown_or_no_ids_changes_nothing(engine: AsyncEngine) -> None:
    """Requirement G16: forgetting marks that are not there, or none, is harmless."""
    await _mark_all(engine, ["t-1"])
    await marks.forget(engine, ["nope"])
    await marks.forget(engine, [])
    assert await marks.marked(engine, ["t-1"]) == {"t-1"}


async def test_probe_write_leaves_no_mark(engine: AsyncEngine) -> None:
    """Requirement G29: the probe writes a mark and rolls it back: the table is as it was."""
    await _mark_all(engine, ["t-1"])
    await marks.probe_write(engine, AT)
    async with engine.connect() as conn:
        count = (await conn.exec_driver_sql("SELECT COUNT(*) FROM guard_commit_marks")).scalar()
    assert count == 1


async def test_probe_write_fails_on_a_read_only_sqlite_file(tmp_path: Path) -> None:
    """Requirement G29: a system of record that cannot take a write fails the probe."""
    path = tmp_path / "record.db"
    writable = create_engine(f"sqlite:///{path}")
    async with writable.begin() as conn:
        await marks.install(conn)
    await writable.dispose()
    read_only = create_engine(f"sqlite:///file:{path}?mode=ro&uri=true")
    try:
        with pytest.raises(OperationalError, match="readonly"):
            await marks.probe_write(read_only, AT)
    finally:
        await read_only.dispose()


async def test_probe_write_passes_on_a_busy_sqlite_file_without_waiting(tmp_path: Path) -> None:
    """Requirement G29: a SQLite file whose write lock another transaction holds is busy, not broken:
    the probe passes at once (no busy wait) and the connection keeps its busy timeout afterwards."""
    path = tmp_path / "record.db"
    holder = create_engine(f"sqlite:///{path}")
    # a 60 s busy timeout, and 10 s for the probe: one that waited for the lock would time out
    prober = create_engine(f"sqlite:///{path}", lock_timeout_s=60, pool_size=1, max_overflow=0)
    try:
        async with holder.begin() as conn:
            await marks.install(conn)
        async with holder.connect() as conn:
            await conn.execute(marks.mark("holding", "guard-1", AT))
            await asyncio.wait_for(marks.probe_write(prober, AT), timeout=10)
            await conn.rollback()
        async with prober.connect() as conn:
            timeout = (await conn.exec_driver_sql("PRAGMA busy_timeout")).scalar()
        assert timeout == 60_000
        assert await marks.marked(prober, ["holding"]) == set()
    finally:
        await holder.dispose()
        await prober.dispose()
