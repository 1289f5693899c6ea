"""One MCP client per domain and arm for all the trials of a process.

Opening an in-process client and listing a domain's tools through it cost
about a third of a replayed trial (the listing alone is dumped, validated and
walked for header annotations four times over, on both sides), and both are
the same in every trial of a domain and arm. So a process keeps one server and
one client for each domain and arm, lists the tools once, and gives every
trial its own channel on that client. A trial's calls carry its id in
``_meta[TRIAL_META]``; by it the server finds the trial's world (baseline) or
its transaction manager and key (guarded). Each trial still has its own world,
manager, audit and fault plan; only the protocol plumbing is shared, and every
call still travels the whole MCP path (client, dispatcher, server runner).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp import Client
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from sqlalchemy.ext.asyncio import AsyncEngine

from benchmark.agents.base import ToolInfo
from benchmark.agents.channel import McpChannel
from guard.clock import Clock
from guard.edge.plain import PlainTarget, build_routed_plain_server
from guard.edge.server import build_server
from guard.tools import ToolRegistry
from guard.transaction.manager import TransactionManager, TxnKey

__all__ = ["TRIAL_META", "ToolHub", "TrialKeys"]

TRIAL_META = "guard.bench/trial"
"""The ``_meta`` field naming the trial a call belongs to."""

PRINCIPAL = "bench-agent"

Line = tuple[str, Literal["baseline", "guarded"]]


@dataclass
class TrialKeys:
    """A trial's transaction keys: ``<base>-0``, then a new one after each commit or rollback."""

    base: str
    number: int = 0
    used: set[str] = field(default_factory=set)

    @property
    def current(self) -> str:
        return f"{self.base}-{self.number}"

    def finished(self, key: str) -> None:
        if key == self.current:
            self.number += 1


@dataclass(frozen=True)
class _Listed:
    client: Client
    tools: list[ToolInfo]


@dataclass(frozen=True)
class _Guarded:
    manager: TransactionManager
    keys: TrialKeys


class ToolHub:
    """The clients a process's trials share; enter it in the task that runs the trials."""

    def __init__(self) -> None:
        self._lines: dict[Line, asyncio.Future[_Listed]] = {}
        self._servers: list[asyncio.Task[None]] = []
        self._closing = asyncio.Event()
        self._plain: dict[str, PlainTarget] = {}
        self._guarded: dict[str, _Guarded] = {}
        self._owners: dict[str, str] = {}
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
        trial = f"t{next(self._ids)}"
        self._plain[trial] = PlainTarget(engine, registry, clock)
        try:
            listed = await self._listed(
                (registry.name, "baseline"),
                lambda: build_routed_plain_server(
                    registry, self._plain_target, name=registry.name, output_schemas=False
                ),
                None,
            )
            yield McpChannel(listed.client, commit_tool=None, meta={TRIAL_META: trial}, tools=listed.tools)
        finally:
            del self._plain[trial]

    @asynccontextmanager
    async def guarded(
        self, registry: ToolRegistry, manager: TransactionManager, keys: TrialKeys
    ) -> AsyncIterator[McpChannel]:
        """A guarded trial's channel: its calls reach ``manager`` under the trial's current key."""
        trial = f"t{next(self._ids)}"
        self._guarded[trial] = _Guarded(manager, keys)
        try:
            listed = await self._listed(
                (registry.name, "guarded"),
                lambda: build_server(
                    manager,
                    self._resolve,
                    on_finished=self._finished,
                    name="guard",
                    output_schemas=False,
                    managers=self._manager,
                ),
                manager.commit_tool,
            )
            channel = McpChannel(
                listed.client, commit_tool=manager.commit_tool, meta={TRIAL_META: trial}, tools=listed.tools
            )
            yield channel
        finally:
            del self._guarded[trial]
            for key in keys.used:
                self._owners.pop(key, None)

    async def _listed(self, line: Line, build: Callable[[], Server[Any]], commit_tool: str | None) -> _Listed:
        future = self._lines.get(line)
        if future is None:
            future = self._lines[line] = asyncio.get_running_loop().create_future()
            self._servers.append(asyncio.create_task(self._serve(line, build(), commit_tool, future)))
        return await asyncio.shield(future)

    async def _serve(
        self, line: Line, server: Server[Any], commit_tool: str | None, future: asyncio.Future[_Listed]
    ) -> None:
        try:
            async with Client(server) as client:
                channel = await McpChannel(client, commit_tool=commit_tool).open()
                future.set_result(_Listed(client, channel.tools))
                await self._closing.wait()
        except Exception as exc:
            if future.done():
                raise
            # the trials waiting see the error; the next trial of the line tries again
            del self._lines[line]
            future.set_exception(exc)

    def _trial(self, ctx: ServerRequestContext[Any, Any]) -> str:
        meta = ctx.meta if isinstance(ctx.meta, dict) else {}
        trial = meta.get(TRIAL_META)
        if not isinstance(trial, str):
            raise MCPError(INVALID_PARAMS, f"no trial named in _meta[{TRIAL_META!r}]")
        return trial

    def _plain_target(self, ctx: ServerRequestContext[Any, Any]) -> PlainTarget:
        target = self._plain.get(self._trial(ctx))
        if target is None:
            raise MCPError(INVALID_PARAMS, "the trial has ended")
        return target

    def _resolve(self, ctx: ServerRequestContext[Any, Any]) -> TxnKey:
        trial = self._trial(ctx)
        guarded = self._guarded.get(trial)
        if guarded is None:
            raise MCPError(INVALID_PARAMS, "the trial has ended")
        key = guarded.keys.current
        guarded.keys.used.add(key)
        self._owners[key] = trial
        return TxnKey(key, PRINCIPAL, None)

    def _manager(self, key: TxnKey) -> TransactionManager:
        return self._guarded[self._owners[key.id]].manager

    def _finished(self, key: str) -> None:
        guarded = self._guarded.get(self._owners.get(key, ""))
        if guarded is not None:
            guarded.keys.finished(key)
