"""Fixtures for the guard: the demo backend on SQLite files, spans kept in memory, no real sleeping."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sqlite3
import subprocess
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.server.context import ServerRequestContext
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from guard.backends.mcp import McpBackend
from guard.backends.sql import SqlBackend
from guard.clock import FixedClock
from guard.edge.server import build_server
from guard.runtime import Runtime, build_runtime
from guard.settings import GuardSettings
from guard.store.migrate import upgrade
from guard.store.sql_lease import SqlInstanceLease
from guard.transaction.keys import StreamKeys
from guard.transaction.manager import TxnKey


async def no_sleep(seconds: float) -> None:
    return None


def demo_settings(tmp_path: Path, **sections: dict[str, Any]) -> GuardSettings:
    base: dict[str, Any] = {
        "backend": {
            "module": "guard.demo.backend",
            "url": f"sqlite:///{tmp_path / 'shop.db'}",
            "prepare": True,
            "lock_timeout_s": 0.2,
        },
        "audit": {"url": f"sqlite:///{tmp_path / 'audit.db'}"},
        "commit": {"reap_interval_s": 3600, "idle_timeout_s": 60, "max_blocked": 3},
        "retry": {"max_attempts": 3, "initial_backoff_s": 0, "max_backoff_s": 0, "jitter_s": 0},
    }
    for name, values in sections.items():
        base[name] = {**base.get(name, {}), **values}
    return GuardSettings.model_validate(base)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str | None]:
    """A database URL and schema: a SQLite file, or a fresh schema on the PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'guard.db'}", None
    return request.getfixturevalue("postgres_url"), request.getfixturevalue("postgres_schema")


@pytest.fixture
def settings(tmp_path: Path) -> GuardSettings:
    return demo_settings(tmp_path)


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def provider(exporter: InMemorySpanExporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
async def runtime(
    settings: GuardSettings, provider: TracerProvider, clock: FixedClock
) -> AsyncIterator[Runtime]:
    rt = build_runtime(settings, clock=clock, provider=provider, sleep=no_sleep)
    await upgrade(rt.audit_engine)
    await rt.start()
    try:
        yield rt
    finally:
        await rt.stop()


def agent_client(runtime: Runtime, principal: str = "agent-a") -> Client:
    """An in-process MCP client; ``_meta['guard/transaction']`` names the transaction, else one per stream."""
    keys = StreamKeys()

    def resolve(ctx: ServerRequestContext[Any, Any]) -> TxnKey:
        meta = ctx.meta if isinstance(ctx.meta, dict) else None
        return TxnKey(keys.current(meta), principal, meta, renewable=not keys.named(meta))

    return Client(build_server(runtime.manager, resolve, on_finished=keys.finished))


def meta(key: str) -> dict[str, Any]:
    return {"guard/transaction": key}


def ticket_status(settings: GuardSettings, ticket_id: int) -> str | None:
    """Read the system of record directly, as committed, outside the guard."""
    path = settings.backend.url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as db:
        row = db.execute("SELECT status FROM tickets WHERE id = ?", (ticket_id,)).fetchone()
    return None if row is None else str(row[0])


def table_rows(settings: GuardSettings, table: str) -> list[tuple[Any, ...]]:
    path = settings.backend.url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as db:
        return db.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()


def bound_socket() -> socket.socket:
    """A listening loopback socket on a free port (its URL known before the app that will serve it)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


@contextlib.asynccontextmanager
async def serving(app: Any, sock: socket.socket | None = None) -> AsyncIterator[str]:
    """Serve an ASGI app with uvicorn on a real loopback socket (``sock``, else a new one); yields its
    base URL."""
    import uvicorn

    sock = sock or bound_socket()
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
        sock.close()


async def until(condition: Callable[[], bool], deadline_s: float = 10.0) -> None:
    """Poll ``condition`` until it holds (another thread makes it so); fail after ``deadline_s``."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline_s
    while not condition():
        assert loop.time() < end, "the condition did not hold in time"
        await asyncio.sleep(0.005)


def free_port() -> int:
    """A loopback port nothing listens on now (for a ``guard serve`` process to bind)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_until_ready(
    process: subprocess.Popen[Any], port: int, output: Callable[[], str], timeout_s: float = 60
) -> None:
    """Poll ``guard serve``'s /readyz until it answers 200; fail with its ``output`` if it exits first."""
    deadline = time.monotonic() + timeout_s
    while True:
        assert process.poll() is None, output()
        try:
            if httpx2.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                return
        except httpx2.TransportError:
            pass
        assert time.monotonic() < deadline, f"guard serve did not become ready in {timeout_s:g} s"
        time.sleep(0.05)


async def crash(runtime: Runtime) -> None:
    """What the operating system does for a killed guard: its connections and locks go, nothing is rolled
    back, dispatched or recorded first (the test plays the operating system, so it reaches inside)."""
    manager = runtime.manager
    if manager._reaper is not None:
        manager._reaper.cancel()
        await asyncio.gather(manager._reaper, return_exceptions=True)
    backend = manager.backend
    if isinstance(backend, McpBackend):
        await backend.upstream.close()
    elif isinstance(backend, SqlBackend):
        for session in list(backend._open):
            await session._conn.invalidate()
        await backend.engine.dispose()
    manager.gate.close()
    if isinstance(runtime.lease, SqlInstanceLease):
        await runtime.lease.abandon()
    if runtime.audit_engine is not None:
        await runtime.audit_engine.dispose()
