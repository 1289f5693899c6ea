"""Seeded images: a domain's tables, seed rows and policy index, built once and copied per world.

Every world of a domain starts from the same seed; only the task's patch
differs. On SQLite in memory, the seeded database is built once per domain
(and policy sources), serialized, and each new world starts as a copy of that
image (one memory copy) before its patch is applied. This takes building a
world from tens of milliseconds to about one.
"""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path

from benchmark.dataset.model import Scenario
from benchmark.domains.base import Domain
from benchmark.domains.knowledge import load_documents
from benchmark.world.seed import seed_rows
from benchmark.world.sqlite_plan import sqlite_plan
from guard.store.engine import create_engine

__all__ = ["seeded_image"]

_IMAGES: dict[tuple[str, str, str], bytes] = {}
_BUILDING: dict[tuple[str, str, str], asyncio.Lock] = {}


def _sources_key(scenario: Scenario | None) -> str:
    if scenario is None:
        return ""
    digest = hashlib.sha256()
    for source in scenario.sources:
        digest.update(source.name.encode())
        for snippet in source.snippets:
            digest.update(b"\0" + snippet.encode())
    return digest.hexdigest()


async def seeded_image(domain: Domain, data_dir: Path, scenario: Scenario | None) -> bytes:
    """The serialized SQLite database of ``domain``'s seed (and ``scenario``'s policy index)."""
    key = (domain.name, str(data_dir), _sources_key(scenario))
    image = _IMAGES.get(key)
    if image is not None:
        return image
    lock = _BUILDING.setdefault(key, asyncio.Lock())
    async with lock:
        image = _IMAGES.get(key)
        if image is None:
            image = await _build(domain, data_dir, scenario)
            _IMAGES[key] = image
    return image


async def _build(domain: Domain, data_dir: Path, scenario: Scenario | None) -> bytes:
    plan = sqlite_plan(domain)
    rows = seed_rows(data_dir, domain)
    with tempfile.TemporaryDirectory(prefix="guard-seed-") as tmp:
        path = Path(tmp) / "seed.db"
        engine = create_engine(f"sqlite:///{path}")
        try:
            async with engine.begin() as conn:
                await plan.create(conn)
                for name, table_rows in rows.items():
                    if table_rows:
                        await plan.insert(conn, name, table_rows)
                if scenario is not None:
                    await load_documents(conn, domain.documents, scenario.sources)
        finally:
            await engine.dispose()
        with closing(sqlite3.connect(path)) as db:
            # an image in WAL mode could not be opened in memory
            db.execute("PRAGMA journal_mode = DELETE")
            return db.serialize()
