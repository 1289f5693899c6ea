"""The two arms of a trial: the agent's MCP channel to the tools, with or without the guard.

* ``baseline``: the plain MCP server over the domain's tools; each call is its
  own transaction, committed even when the tool fails (the benchmark's own
  semantics).
* ``guarded``: the guard in front of the same tools, on the same world: one
  transaction until the agent commits (a new one if it goes on working), a
  savepoint per call, retries of transient failures, and the commit gate with
  the domain's judges. An agent that never
  calls the commit tool is committed for through the manager, as the admin
  API does; a commit still blocked then is rolled back.

Both talk MCP in process (the SDK's direct dispatch): the agent cannot tell
the transport from a socket, and no port is opened. Like the reference
servers, both list the tools without output schemas. A process's trials share
one client for each domain and arm (:mod:`benchmark.run.hub`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp_types import INTERNAL_ERROR
from sqlalchemy.ext.asyncio import AsyncEngine

from benchmark.agents.base import ToolInfo, ToolResult
from benchmark.agents.channel import McpChannel
from benchmark.results import CommitVerdict
from benchmark.run.faults import INJECTED, FaultPlan
from benchmark.run.hub import ToolHub, TrialKeys
from guard.audit.log import MemoryAudit
from guard.backends.sql import SqlBackend
from guard.clock import Clock
from guard.gate.commit import CommitGate
from guard.runtime import assemble
from guard.settings import GuardSettings
from guard.telemetry import Telemetry
from guard.tools import ToolRegistry
from guard.transaction.manager import TransactionManager
from guard.transaction.state import CommitStatus, Via
from judges import CallRecord, Turn

__all__ = ["Arm", "ArmSession", "RecordingChannel", "open_arm"]

Arm = Literal["baseline", "guarded"]


@dataclass
class RecordingChannel:
    """The channel the agent uses: forwards to MCP, numbers calls for fault draws, keeps the trace."""

    inner: McpChannel
    plan: FaultPlan | None = None
    trace: list[CallRecord] = field(default_factory=list)
    surfaced_faults: int = 0
    commit_calls: int = 0

    @property
    def tools(self) -> list[ToolInfo]:
        return self.inner.tools

    @property
    def commit_tool(self) -> str | None:
        return self.inner.commit_tool

    async def call(
        self, name: str, arguments: Mapping[str, Any], *, conversation: Sequence[Turn] | None = None
    ) -> ToolResult:
        if name == self.inner.commit_tool:
            self.commit_calls += 1
            return await self.inner.call(name, arguments, conversation=conversation)
        if self.plan is not None:
            self.plan.next_call()
        result = await self.inner.call(name, arguments, conversation=conversation)
        write = next((not tool.read_only for tool in self.inner.tools if tool.name == name), True)
        self.trace.append(CallRecord(name, dict(arguments), write, not result.is_error))
        if result.is_error and INJECTED in result.text:
            self.surfaced_faults += 1
        return result

    @property
    def guard_failure(self) -> str | None:
        """The first internal error the guard answered with (it counts against the guarded arm)."""
        for code, message in self.inner.protocol_errors:
            if code == INTERNAL_ERROR:
                return f"guard error {code}: {message}"
        return None

    @property
    def tool_calls(self) -> int:
        return len(self.trace)

    @property
    def tool_errors(self) -> int:
        return sum(1 for call in self.trace if not call.ok)


@dataclass
class ArmSession:
    arm: Arm
    channel: RecordingChannel
    manager: TransactionManager | None = None
    audit: MemoryAudit | None = None
    keys: TrialKeys | None = None

    async def finish(self, final_message: str, turns: tuple[Turn, ...] | None = None) -> list[CommitVerdict]:
        """End the trial's open transaction (guarded arm) and return every commit attempt's verdict.

        An agent that never committed is committed for, as a harness does through the admin API, with
        the ``turns`` said after its last call (None: none handed over); a commit that is still blocked
        then is rolled back.
        """
        if self.manager is None or self.audit is None or self.keys is None:
            return []
        key = self.keys.current
        if self.manager.live(key) is not None:
            reply = await self.manager.commit_by_id(key, final_message, via=Via.ADMIN, turns=turns)
            if reply.status not in (CommitStatus.COMMITTED, CommitStatus.ROLLED_BACK):
                await self.manager.rollback_by_id(key, "the trial ended with a blocked commit")
        return [
            CommitVerdict(
                via="admin" if entry.via is Via.ADMIN else "tool",
                status=entry.status,
                decision=entry.decision,
                findings=entry.findings,
                effects=len(entry.effects),
            )
            for entry in self.audit.commits.values()
        ]

    @property
    def retries(self) -> int:
        return 0 if self.audit is None else sum(entry.retries for entry in self.audit.calls)


async def _no_wait(seconds: float) -> None:
    await asyncio.sleep(0)


@asynccontextmanager
async def open_arm(
    arm: Arm,
    *,
    engine: AsyncEngine,
    registry: ToolRegistry,
    metadata: Any,
    clock: Clock,
    settings: GuardSettings,
    gate: CommitGate | None,
    transaction: str,
    plan: FaultPlan | None,
    sleep_backoff: bool = False,
    hub: ToolHub | None = None,
) -> AsyncIterator[ArmSession]:
    """The agent's channel for one trial in ``arm``, on the world behind ``engine``.

    The channel is on ``hub``'s client for the domain and arm (a hub of its own when none is given).
    """
    async with AsyncExitStack() as stack:
        if hub is None:
            hub = await stack.enter_async_context(ToolHub())
        if arm == "baseline":
            channel = await stack.enter_async_context(hub.baseline(engine, registry, clock))
            yield ArmSession(arm, RecordingChannel(channel, plan))
            return
        if gate is None:
            raise ValueError("the guarded arm needs a commit gate")
        # the world's engine outlives the arm: the trial is graded on it afterwards
        backend = SqlBackend(
            engine, registry, clock, metadata=metadata, name=registry.name, owns_engine=False
        )
        audit = MemoryAudit()
        runtime = assemble(
            settings,
            backend,
            audit,
            clock=clock,
            gate=gate,
            telemetry=Telemetry(),
            sleep=asyncio.sleep if sleep_backoff else _no_wait,
        )
        manager = runtime.manager
        await runtime.start()
        stack.push_async_callback(runtime.stop)
        keys = TrialKeys(transaction)
        try:
            async with hub.guarded(registry, manager, keys) as channel:
                yield ArmSession(arm, RecordingChannel(channel, plan), manager, audit, keys)
        finally:
            if manager.live(keys.current) is not None:
                await manager.rollback_by_id(keys.current, "the trial ended")
