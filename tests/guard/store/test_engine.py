"""Engines: an in-memory SQLite copy of an image runs on the event loop's thread, with real transactions."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from guard.store.engine import create_engine


def _image() -> bytes:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
    db.execute("INSERT INTO items VALUES (1, 'seed')")
    db.commit()
    image = db.serialize()
    db.close()
    return image


async def test_an_image_copy_starts_with_the_image_rows_and_runs_without_a_worker_thread() -> None:
    threads = threading.active_count()
    engine = create_engine("sqlite+aiosqlite://", sqlite_image=_image())
    try:
        async with engine.begin() as conn:
            rows = (await conn.execute(text("SELECT id, name FROM items"))).all()
            assert [tuple(r) for r in rows] == [(1, "seed")]
            assert threading.active_count() == threads
            assert (await conn.execute(text("PRAGMA foreign_keys"))).scalar() == 1
    finally:
        await engine.dispose()


async def test_an_image_copy_keeps_transactions_savepoints_and_errors() -> None:
    engine = create_engine("sqlite+aiosqlite://", sqlite_image=_image())
    try:
        async with engine.connect() as conn:
            await conn.begin()
            await conn.execute(text("INSERT INTO items VALUES (2, 'outer')"))
            savepoint = await conn.begin_nested()
            with pytest.raises(IntegrityError, match="UNIQUE"):
                await conn.execute(text("INSERT INTO items VALUES (3, 'seed')"))
            await savepoint.rollback()
            await conn.execute(text("INSERT INTO items VALUES (4, 'undone')"))
            await conn.rollback()
            await conn.begin()
            await conn.execute(text("INSERT INTO items VALUES (5, 'committed')"))
            await conn.commit()
            names = (await conn.execute(text("SELECT name FROM items ORDER BY id"))).scalars().all()
        assert names == ["seed", "committed"]
    finally:
        await engine.dispose()


async def test_two_copies_of_one_image_are_independent() -> None:
    image = _image()
    first = create_engine("sqlite+aiosqlite://", sqlite_image=image)
    second = create_engine("sqlite+aiosqlite://", sqlite_image=image)
    try:
        async with first.begin() as conn:
            await conn.execute(text("DELETE FROM items"))
        async with second.connect() as conn:
            assert (await conn.execute(text("SELECT count(*) FROM items"))).scalar() == 1
    finally:
        await first.dispose()
        await second.dispose()
