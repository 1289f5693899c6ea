"""The agents' arms on the test shop: the guard in process over SQLite, or the plain tool server.

``guarded(tmp_path)`` and ``baseline(tmp_path)`` are async context managers
yielding an :class:`Arm`: the agent's :class:`~benchmark.agents.McpChannel`
and a way to read the system of record afterwards, outside any transaction.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from opentelemetry.sdk.trace import TracerProvider

from benchmark.agents import McpChannel, ToolInfo, ToolResult
from guard.clock import FixedClock
from guard.edge.plain import build_plain_server
from guard.edge.server import build_server
from guard.runtime import build_runtime
from guard.settings import GuardSettings
from guard.store.engine import create_engine
from guard.store.migrate import upgrade
from guard.transaction.manager import TxnKey
from judges import Turn
from tests.benchmark.agents import shop

TRACE_JUDGES: list[dict[str, Any]] = [{"judge": "failed_write"}, {"judge": "duplicate_effect"}]
REVIEW: dict[str, Any] = {"judge": "python", "target": "tests.benchmark.agents.shop:ReviewJudge"}


async def no_sleep(seconds: float) -> None:
    return None


@dataclass
class Spy:
    """A channel that remembers the calls it passed on (the commit tool's among them), and the
    conversation each one handed over (``said``: None when none)."""

    inner: McpChannel
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    said: list[list[tuple[str, str]] | None] = field(default_factory=list)

    @property
    def tools(self) -> list[ToolInfo]:
        return self.inner.tools

    @property
    def commit_tool(self) -> str | None:
        return self.inner.commit_tool

    async def call(
        self, name: str, arguments: Mapping[str, Any], *, conversation: Sequence[Turn] | None = None
    ) -> ToolResult:
        self.calls.append((name, dict(arguments)))
        self.said.append(None if conversation is None else [(t.role.value, t.text) for t in conversation])
        return await self.inner.call(name, arguments, conversation=conversation)

    def tool_calls(self) -> list[tuple[str, dict[str, Any]]]:
        return [call for call in self.calls if call[0] != self.commit_tool]


@dataclass
class Arm:
    channel: Spy
    database: Path

    def rows(self, table: str) -> list[dict[str, Any]]:
        with contextlib.closing(sqlite3.connect(self.database)) as db:
            db.row_factory = sqlite3.Row
            return [dict(row) for row in db.execute(f"SELECT * FROM {table} ORDER BY id")]

    def status(self, ticket_id: int) -> str | None:
        """A ticket's committed status; ``None`` when there is no such ticket."""
        return next((row["status"] for row in self.rows("tickets") if row["id"] == ticket_id), None)


@pytest.fixture(autouse=True)
def _no_pending_refusals() -> Iterator[None]:
    shop.REFUSE_ONCE.clear()
    yield
    shop.REFUSE_ONCE.clear()


@contextlib.asynccontextmanager
async def guarded(
    root: Path, *, chain: Sequence[Mapping[str, Any]] = TRACE_JUDGES, transaction: str = "trial-1"
) -> AsyncIterator[Arm]:
    """The guard over the test shop, its judges: ``chain`` then the demo's rule pack."""
    root.mkdir(parents=True, exist_ok=True)
    database = root / "guarded.db"
    settings = GuardSettings.model_validate(
        {
            "backend": {"module": shop.__name__, "url": f"sqlite:///{database}", "prepare": True},
            "audit": {"url": f"sqlite:///{root / 'audit.db'}"},
            "commit": {"reap_interval_s": 3600, "idle_timeout_s": 600, "max_blocked": 3},
            "retry": {"max_attempts": 2, "initial_backoff_s": 0, "max_backoff_s": 0, "jitter_s": 0},
            "judges": {"chain": list(chain)},
        }
    )
    runtime = build_runtime(settings, clock=FixedClock(), provider=TracerProvider(), sleep=no_sleep)
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    await runtime.start()
    try:
        server = build_server(runtime.manager, lambda ctx: TxnKey(transaction, "agent", None))
        async with Client(server) as client:
            channel = await McpChannel(client, commit_tool=runtime.manager.commit_tool).open()
            yield Arm(Spy(channel), database)
    finally:
        await runtime.stop()


@contextlib.asynccontextmanager
async def baseline(root: Path) -> AsyncIterator[Arm]:
    """The plain tool server over the test shop: every call commits on its own."""
    root.mkdir(parents=True, exist_ok=True)
    database = root / "baseline.db"
    engine = create_engine(f"sqlite:///{database}")
    try:
        async with engine.begin() as conn:
            await shop.prepare(conn)
        async with Client(build_plain_server(engine, shop.tools, FixedClock())) as client:
            channel = await McpChannel(client, commit_tool=None).open()
            yield Arm(Spy(channel), database)
    finally:
        await engine.dispose()
