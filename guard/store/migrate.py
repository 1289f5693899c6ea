"""Alembic, driven from code: upgrade the audit store and check it is current."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

import migrations
from guard.errors import StoreNotReady
from guard.store.sql_lease import hold_setup_lock

__all__ = ["alembic_config", "check_current", "current_revision", "head_revision", "upgrade"]


def alembic_config(url: str = "") -> Config:
    config = Config()
    config.set_main_option("script_location", str(Path(migrations.__file__).parent))
    config.set_main_option("sqlalchemy.url", url)
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


async def current_revision(engine: AsyncEngine) -> str | None:
    def read(connection: Connection) -> str | None:
        return MigrationContext.configure(connection).get_current_revision()

    async with engine.connect() as conn:
        return await conn.run_sync(read)


async def upgrade(engine: AsyncEngine, revision: str = "head") -> str:
    """Bring the audit store to ``revision``; returns the revision it is at afterwards."""
    config = alembic_config(engine.url.render_as_string(hide_password=False))

    def run(connection: Connection) -> None:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)

    async with engine.begin() as conn:
        await hold_setup_lock(conn)
        await conn.run_sync(run)
    return await current_revision(engine) or ""


async def check_current(engine: AsyncEngine) -> None:
    """Raise :class:`StoreNotReady` unless the audit store is migrated to the head revision."""
    url = engine.url.render_as_string(hide_password=True)
    try:
        current = await current_revision(engine)
    except Exception as exc:
        raise StoreNotReady(f"cannot reach the audit store at {url}: {exc}") from exc
    head = head_revision()
    if current != head:
        state = "not migrated" if current is None else f"at revision {current}"
        raise StoreNotReady(
            f"the audit store at {url} is {state}, the guard needs {head}; run `guard db upgrade` first"
        )
