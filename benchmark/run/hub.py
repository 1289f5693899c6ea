"""One MCP client per domain and arm for all the trials of a process.

Opening an in-process client and listing a domain's tools through it cost
about a third of a replayed trial (the listing alone is dumped, validated and
walked for header annotations four times over, on both sides), and both are
the same in every trial of a domain and arm. So a process keeps one client for
each domain and arm, lists the tools once, and gives every trial its own
channel on that client. Each trial has its own server, the guard's over its
manager (guarded) or the plain one over its world (baseline); the client talks
to a :class:`~benchmark.run.router.TrialRouter`, which hands each call to the
server of the trial its ``_meta[TRIAL_META]`` names. Each trial still has its
own world, manager, audit and fault plan; only the protocol plumbing is
shared, and every call still travels the whole MCP path (client, dispatcher,
server runner).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Literal

from mcp import Client
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from sqlalchemy.ext.asyncio import AsyncEngine

from benchmark.agents.base import ToolInfo
from benchmark.agents.channel import McpChannel
from benchmark.run.router import TRIAL_META, TrialRouter
from guard.clock import Clock
from guard.edge.plain import build_plain_server
from guard.edge.server import build_server
from guard.tools import ToolRegistry
from guard.transaction.manager import TransactionManager, TxnKey

__all__ = ["ToolHub", "TrialKeys"]

PRINCIPAL = "bench-agent"

Line = tuple[str, Literal["baseline", "guarded"]]


@dataclass
class TrialKeys:
    """A trial's transaction keys: ``<base>-0``, then a new one after each commit or rollback."""

    base: str
    number: int = 0

    @property
    def current(self) -> str:
        return f"{self.base}-{self.number}"

    def finished(self, key: str) -> None:
        if key == self.current:
            self.number += 1

    def resolve(self, ctx: ServerRequestContext[Any, Any]) -> TxnKey:
        """The key of the trial's every call: its current one."""
        return TxnKey(self.current, PRINCIPAL, None)


@dataclass(frozen=True)
class _Line:
    client: Client
    tools: list[ToolInfo]
    router: TrialRouter


class ToolHub:
    """The clients a process's trials share; enter it in the task that runs the trials."""

    def __init__(self) -> None:
        self._lines: dict[Line, asyncio.Future[_Line]] = {}
        self._servers: list[asyncio.Task[None]] = []
        self._closing = asyncio.Event()
        self._ids = itertools.count()

    async def __aenter__(self) -> ToolHub:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._closing.set()
        results = await asyncio.gather(*self._servers, return_exceptions=True)
        failed = next((r for r in results if isinstance(r, Exception)), None)
        if failed is not None and exc[0] is None:
            raise failed

    @asynccontextmanager
    async def baseline(
        self, engine: AsyncEngine, registry: ToolRegistry, clock: Clock
    ) -> AsyncIterator[McpChannel]:
        """A baseline trial's channel: each call its own transaction on ``engine``."""
        server = build_plain_server(engine, registry, clock, name=registry.name, output_schemas=False)
        async with self._channel((registry.name, "baseline"), server, None) as channel:
            yield channel

    @asynccontextmanager
    async def guarded(
        self, registry: ToolRegistry, manager: TransactionManager, keys: TrialKeys
    ) -> AsyncIterator[McpChannel]:
        """A guarded trial's channel: its calls reach ``manager`` under the trial's current key."""
        server = build_server(
            manager, keys.resolve, on_finished=keys.finished, name="guard", output_schemas=False
        )
        async with self._channel((registry.name, "guarded"), server, manager.commit_tool) as channel:
            yield channel

    @asynccontextmanager
    async def _channel(
        self, line: Line, server: Server[Any], commit_tool: str | None
    ) -> AsyncIterator[McpChannel]:
        """A channel on ``line``'s client whose calls reach ``server`` while the trial runs."""
        trial = f"t{next(self._ids)}"
        listed = await self._line(line, server, commit_tool)
        listed.router.add(trial, server)
        try:
            yield McpChannel(
                listed.client, commit_tool=commit_tool, meta={TRIAL_META: trial}, tools=listed.tools
            )
        finally:
            listed.router.remove(trial)

    async def _line(self, line: Line, server: Server[Any], commit_tool: str | None) -> _Line:
        future = self._lines.get(line)
        if future is None:
            future = self._lines[line] = asyncio.get_running_loop().create_future()
            router = TrialRouter(server)
            self._servers.append(asyncio.create_task(self._serve(line, router, commit_tool, future)))
        return await asyncio.shield(future)

    async def _serve(
        self, line: Line, router: TrialRouter, commit_tool: str | None, future: asyncio.Future[_Line]
    ) -> None:
        try:
            async with Client(router.server) as client:
                channel = await McpChannel(client, commit_tool=commit_tool).open()
                future.set_result(_Line(client, channel.tools, router))
                await self._closing.wait()
        except Exception as exc:
            if future.done():
                raise
            # the trials waiting see the error; the next trial of the line tries again
            del self._lines[line]
            future.set_exception(exc)
