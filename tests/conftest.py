"""Shared fixtures: where the benchmark data and the PostgreSQL server are.

``GUARD_TEST_DATA`` points at a thinkingbox-data checkout (default
``../shared/thinkingbox-data`` next to the project). ``GUARD_TEST_POSTGRES_URL``
points at a PostgreSQL database (default
``postgresql+asyncpg://postgres@127.0.0.1:5432/test``). Tests that need either
skip with the reason when it is missing, unless ``GUARD_REQUIRE_DATA=1`` or
``GUARD_REQUIRE_POSTGRES=1`` is set (``.ci/run`` sets both), which turns the
skip into a failure. Browser tests drive Debian's ``/usr/bin/chromium`` with
Playwright (never a downloaded browser) and skip without them unless
``GUARD_REQUIRE_CHROMIUM=1``; they keep screenshots under
``GUARD_TEST_ARTIFACTS`` (default: the test's temporary directory).

Two tiers: ``python -m pytest`` runs the fast one (``-m "not slow"`` in
``pyproject.toml``); ``python -m pytest -m slow`` the slow one, which
:data:`SLOW_MODULES` and :data:`SLOW_TESTS` name here in one place, besides
the tests marked ``slow`` where they are written: whole-domain replays,
campaigns, and real peers started as processes (the guard's own CLI and
server, browsers, balancers, replicas, containers' files, agent frameworks).
``.ci/run`` runs both.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

# Property tests judge behaviour, never speed: on a shared, noisy machine a slow
# example must not fail a run (no per-example deadline, no too-slow health check).
settings.register_profile("guard", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("guard")

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "thinkingbox-data"
DEFAULT_POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
CHROMIUM = Path("/usr/bin/chromium")

if TYPE_CHECKING:
    from playwright.sync_api import Browser

SLOW_MODULES = frozenset(
    {
        "tests/benchmark/run/test_cli.py",
        "tests/benchmark/test_report_browser.py",
        "tests/deploy/test_live.py",
        "tests/frameworks/test_frameworks.py",
        "tests/guard/audit/test_hostile_records.py",
        "tests/guard/backends/test_mcp_transports.py",
        "tests/guard/edge/test_console_browser.py",
        "tests/guard/edge/test_door.py",
        "tests/guard/edge/test_stdio.py",
        "tests/guard/test_capacity.py",
        "tests/guard/test_cli.py",
        "tests/guard/test_isolation_replicas.py",
        "tests/guard/test_process.py",
    }
)
"""Modules of the slow tier: each starts real processes or peers in most of its tests."""

SLOW_TESTS = (
    "test_guarded_goldens_commit_on_postgres_sample",
    "test_golden_hashes_agree_between_sqlite_and_postgres_sample",
    "test_all_goldens_pass_in_both_arms_on_postgres",
)
"""Tests of the slow tier by name (every parameter of each): whole goldens sets on PostgreSQL."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    slow = pytest.mark.slow
    for item in items:
        module = Path(str(item.path)).resolve().relative_to(ROOT).as_posix()
        name = getattr(item, "originalname", item.name)
        if module in SLOW_MODULES or name in SLOW_TESTS:
            item.add_marker(slow)


def _missing(what: str, reason: str, required_env: str) -> None:
    if os.environ.get(required_env) == "1":
        pytest.fail(f"{what} is required ({required_env}=1) but unavailable: {reason}")
    pytest.skip(f"{what} unavailable: {reason}")


@pytest.fixture(scope="session")
def data_dir() -> Path:
    path = Path(os.environ.get("GUARD_TEST_DATA", DEFAULT_DATA))
    if not (path / "dataset").is_dir():
        _missing("the thinkingbox-data checkout", f"no dataset/ under {path}", "GUARD_REQUIRE_DATA")
    return path


def _postgres_reachable(url: str) -> str | None:
    import asyncpg
    from sqlalchemy.engine import make_url

    parsed = make_url(url)

    async def probe() -> None:
        conn = await asyncpg.connect(
            host=parsed.host or "127.0.0.1",
            port=parsed.port or 5432,
            user=parsed.username or "postgres",
            password=parsed.password,
            database=parsed.database or "postgres",
            timeout=3,
        )
        await conn.close()

    try:
        asyncio.run(probe())
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


@dataclass(frozen=True)
class RealUpstreams:
    """The real MCP servers the tests put the guard in front of, installed pinned by ``.ci/run``."""

    node: str
    memory: Path
    filesystem: Path
    sqlite: Path


UPSTREAM_PACKAGES = {"memory": "server-memory", "filesystem": "server-filesystem"}


@pytest.fixture(scope="session")
def real_upstreams() -> RealUpstreams:
    """From ``GUARD_UPSTREAMS`` (default ``.ci/upstreams``): ``node_modules`` with server-memory and
    server-filesystem, and ``venv`` with mcp-server-sqlite; node from ``GUARD_NODE`` or the PATH."""
    base = Path(os.environ.get("GUARD_UPSTREAMS", ROOT / ".ci" / "upstreams"))
    node = os.environ.get("GUARD_NODE") or shutil.which("node")
    scripts = {
        name: base / "node_modules" / "@modelcontextprotocol" / package / "dist" / "index.js"
        for name, package in UPSTREAM_PACKAGES.items()
    }
    sqlite = base / "venv" / "bin" / "mcp-server-sqlite"
    absent = [str(path) for path in (*scripts.values(), sqlite) if not path.is_file()]
    if node is None or absent:
        reason = "no node (GUARD_NODE)" if node is None else f"not installed: {', '.join(absent)}"
        _missing("the real upstream MCP servers", reason, "GUARD_REQUIRE_UPSTREAMS")
    assert node is not None
    return RealUpstreams(node, scripts["memory"], scripts["filesystem"], sqlite)


@pytest.fixture(scope="session")
def postgres_url() -> str:
    url = os.environ.get("GUARD_TEST_POSTGRES_URL", DEFAULT_POSTGRES)
    problem = _postgres_reachable(url)
    if problem is not None:
        _missing("PostgreSQL", f"{url}: {problem}", "GUARD_REQUIRE_POSTGRES")
    return url


@pytest.fixture
def postgres_schema(postgres_url: str) -> Iterator[str]:
    """A fresh, empty schema in the test database, dropped afterwards."""
    import asyncpg
    from sqlalchemy.engine import make_url

    parsed = make_url(postgres_url)
    name = f"t_{uuid.uuid4().hex[:12]}"

    async def run(sql: str) -> None:
        conn = await asyncpg.connect(
            host=parsed.host, port=parsed.port or 5432, user=parsed.username, database=parsed.database
        )
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run(f'CREATE SCHEMA "{name}"'))
    yield name
    asyncio.run(run(f'DROP SCHEMA "{name}" CASCADE'))


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """Headless Chromium (Debian's package) under Playwright's sync API, one per test module.

    Playwright's sync API runs an event loop in this thread while it is open: it must close before the
    next module's asyncio tests run, so it never outlives its module."""
    problem = None if CHROMIUM.is_file() else f"no {CHROMIUM} (Debian package chromium)"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        problem = problem or "the playwright package is not installed (pip install -e '.[test]')"
    if problem is not None:
        _missing("headless Chromium", problem, "GUARD_REQUIRE_CHROMIUM")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM))
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def artifacts(tmp_path: Path) -> Path:
    """Where a test keeps what a reviewer looks at afterwards (screenshots)."""
    folder = Path(os.environ.get("GUARD_TEST_ARTIFACTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
