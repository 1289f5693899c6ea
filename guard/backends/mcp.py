"""The ``mcp`` backend: the guard in front of an upstream MCP server.

At start it lists the upstream's tools and serves them again under the
guard's classification (:mod:`guard.backends.policy`). In a transaction:

* a **read** is forwarded at once (the manager retries it as the classifier allows);
* a **deferred** write is appended to the durable outbox and answered with a
  provisional receipt; nothing reaches the upstream before an allowed commit;
* a **passthrough** write is sent at once with its idempotency key, and kept in
  the outbox as an effect that a rollback compensates where the config says how.

Every write is an effect ``call:<tool>`` (:func:`judges.call_effect`) keyed by
its idempotency key, so rule packs judge it like a row. Commit seals the
outbox entries (the decision is durable from then on) and dispatches them in
order (:mod:`guard.backends.dispatch`); what the upstream could not apply is
reported, never hidden. Judges cannot read upstream state: the session's
reader answers no query, so a judge that asks for rows blocks (fail closed).
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

from pydantic import BaseModel

from guard.audit.redact import Redactor
from guard.backends.base import UpstreamReport
from guard.backends.dispatch import Dispatcher, fate, result_outcome, write_meta
from guard.backends.outbox import EntryStatus, Mode, Outbox, OutboxEntry, advance
from guard.backends.policy import ToolPolicy, resolve_policies, tool_spec
from guard.backends.upstream import RELAYED, Upstream
from guard.clock import Clock
from guard.errors import BackendError, NotFound, PreconditionFailed, ToolError
from guard.json_schema import JsonSchemaArguments
from guard.retry import RetryPolicy, RetryRules
from guard.settings import McpSettings
from guard.tools import Arguments, ErrorText, Tool, plain_error_text
from guard.transaction.execute import CallOutcome
from judges import Effect, Finding, Judge, Query, Severity, StateSnapshot, call_effect
from judges.classify import ErrorClass

__all__ = ["McpBackend", "McpSession", "NoState", "withdraw_tool"]

log = logging.getLogger(__name__)

_RETRIED = frozenset({ErrorClass.TRANSIENT, ErrorClass.RATE_LIMITED, ErrorClass.TIMEOUT})
"""Classes after which an agent's repeat of the same passthrough call reuses the entry (and its key)."""


class NoState:
    """The pending state of an ``mcp`` transaction: only its effects; any row query fails."""

    async def fetch(self, queries: Sequence[Query]) -> StateSnapshot:
        if queries:
            tables = ", ".join(sorted({q.table for q in queries}))
            raise KeyError(f"the mcp backend has no tables to read ({tables}); judges see only call effects")
        return StateSnapshot()


def withdraw_tool(name: str) -> Tool:
    """The guard's own tool that takes back a held (deferred) write before commit."""
    schema = {
        "type": "object",
        "properties": {
            "seq": {
                "type": "integer",
                "minimum": 1,
                "description": "The held write's number (seq in its deferred receipt).",
            }
        },
        "required": ["seq"],
        "additionalProperties": False,
    }
    return Tool(
        name=name,
        description=(
            "Take back a write this transaction holds (status 'deferred'): it will not be sent at commit. "
            "Use it to repair a transaction after a blocked commit: withdraw the write the reason names, "
            "call the tool again with corrected arguments, and commit; nothing else is lost."
        ),
        input_schema=schema,
        output_schema=None,
        write=False,
        idempotent=False,
        destructive=False,
        check=JsonSchemaArguments(schema, tool=name),
        repeat_safe=False,
    )


def _canonical(arguments: Mapping[str, Any]) -> str:
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


class McpSession:
    """One transaction's writes to the upstream: reads forwarded, writes in the outbox."""

    def __init__(self, backend: McpBackend, transaction_id: str) -> None:
        self._backend = backend
        self._id = transaction_id
        self._seq = 0
        self._retrying: tuple[str, OutboxEntry] | None = None
        self._held: dict[str, tuple[int, str]] = {}
        """The deferred writes held now: idempotency key → (seq, tool)."""
        self._applied: list[str] = []
        self.reader = NoState()

    def lost(self) -> str | None:
        """An ``mcp`` transaction lives in the outbox, which no connection failure takes away."""
        return None

    def applied(self) -> Sequence[str]:
        return tuple(self._applied)

    def _read_note(self) -> str | None:
        """What a read in a transaction holding deferred writes must say: it does not see them."""
        if not self._held:
            return None
        held = ", ".join(f"{tool} (#{seq})" for seq, tool in self._held.values())
        return (
            f"(guard: this transaction holds {len(self._held)} deferred write(s) ({held}) that reach the "
            "upstream only when it commits; this read does not reflect them)"
        )

    def repair(self, findings: Sequence[Finding]) -> str | None:
        """How a blocked commit is repaired without a rollback: the held writes the findings name (or all
        of them, when a finding names none), to withdraw and call again corrected."""
        withdraw = self._backend.settings.withdraw_tool_name
        if withdraw is None or not self._held:
            return None
        named = {str(f.evidence.get("key")) for f in findings if f.severity is not Severity.WARN}
        concerned = [held for key, held in self._held.items() if key in named] or list(self._held.values())
        listed = ", ".join(f"#{seq} {tool}" for seq, tool in concerned)
        first = concerned[0][0]
        return (
            f"to repair without rolling back, withdraw the held write(s) concerned ({listed}) with "
            f'{withdraw} {{"seq": {first}}}, call the tool again with corrected arguments if it is still '
            "wanted, then commit again"
        )

    async def _withdraw(self, arguments: Mapping[str, Any]) -> CallOutcome:
        seq = arguments["seq"]
        entry = next((e for e in await self._backend.outbox.entries(self._id) if e.seq == seq), None)
        if entry is None:
            return CallOutcome(error=NotFound(f"this transaction has no write #{seq}"))
        if entry.status is not EntryStatus.HELD:
            standing = (
                "it was sent to the upstream when called and cannot be taken back; rolling back the "
                "transaction undoes what can be undone"
                if entry.mode == "passthrough"
                else f"it is {entry.status.value}"
            )
            return CallOutcome(error=PreconditionFailed(f"write #{seq} ({entry.tool}) {standing}"))
        now = self._backend.clock.now()
        await self._backend.outbox.save(
            advance(entry, EntryStatus.DISCARDED, now, error="withdrawn by the agent before commit")
        )
        self._held.pop(entry.key, None)
        return CallOutcome(
            value={
                "status": "withdrawn",
                "seq": seq,
                "tool": entry.tool,
                "arguments": entry.arguments,
                "message": f"write #{seq} ({entry.tool}) is withdrawn: it will not be sent. Call the tool "
                "again if a corrected write is wanted.",
            }
        )

    def _entry(
        self, tool: str, arguments: dict[str, Any], mode: Mode, status: EntryStatus, attempts: int = 0
    ) -> OutboxEntry:
        now = self._backend.clock.now()
        return OutboxEntry(
            key=str(uuid.uuid4()),
            transaction_id=self._id,
            seq=self._seq + 1,
            tool=tool,
            arguments=arguments,
            mode=mode,
            status=status,
            instance=self._backend.instance,
            created_at=now,
            updated_at=now,
            attempts=attempts,
        )

    async def call(self, spec: Tool, arguments: Arguments) -> CallOutcome:
        checked = arguments.model_dump(mode="json") if isinstance(arguments, BaseModel) else dict(arguments)
        if spec.name == self._backend.settings.withdraw_tool_name:
            return await self._withdraw(checked)
        policy = self._backend.policy(spec.name)
        if policy.mode == "read" or policy.previews(checked):
            return await self._forward(policy, checked)
        if policy.mode == "defer":
            return await self._defer(spec.name, checked)
        return await self._pass(policy, checked)

    async def _forward(self, policy: ToolPolicy, arguments: dict[str, Any]) -> CallOutcome:
        """A read (or a dry run) sent at once; whatever it comes to, it says what it does not see."""
        classify, tool = self._backend.dispatcher.classify, policy.name
        try:
            result = await self._backend.upstream.call_tool(tool, arguments)
        except Exception as exc:  # an outcome, so that it carries the note (retried all the same)
            error_class = classify(exc)
            error = ToolError(
                f"{tool}: the upstream call failed ({error_class}: {exc})", error_class=error_class
            )
            return CallOutcome(error=error, note=self._read_note())
        return replace(result_outcome(result, classify, policy), note=self._read_note())

    async def _defer(self, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        entry = self._entry(tool, arguments, "defer", EntryStatus.HELD)
        await self._backend.outbox.add(entry)
        self._seq = entry.seq
        self._held[entry.key] = (entry.seq, tool)
        return CallOutcome(
            value={
                "status": "deferred",
                "tool": tool,
                "idempotency_key": entry.key,
                "seq": entry.seq,
                "message": f"held by the guard: {tool} is sent to the upstream when this transaction "
                "commits; nothing has changed yet, so reads before the commit do not see it. The upstream "
                "has not checked it yet and may still refuse it then: the commit reply gives its answer "
                f"(dispatch, seq {entry.seq}, with the upstream's result).",
            }
        )

    async def _pass(self, policy: ToolPolicy, arguments: dict[str, Any]) -> CallOutcome:
        """Send at once; a repeat of a call whose last attempt may have applied reuses its key."""
        outbox, now = self._backend.outbox, self._backend.clock.now()
        signature = f"{policy.name}\n{_canonical(arguments)}"
        if self._retrying is not None and self._retrying[0] == signature:
            entry = advance(
                self._retrying[1], EntryStatus.SENDING, now, attempts=self._retrying[1].attempts + 1
            )
            await outbox.save(entry)
        else:
            entry = self._entry(policy.name, arguments, "passthrough", EntryStatus.SENDING, attempts=1)
            await outbox.add(entry)
            self._seq = entry.seq
        self._retrying = None
        dispatcher = self._backend.dispatcher
        error_class: ErrorClass | None
        try:
            result = await self._backend.upstream.call_tool(policy.name, arguments, meta=write_meta(entry))
        except Exception as exc:
            error_class = dispatcher.classify(exc)
            status = fate(error_class, raised=True)
            standing = (
                "it was not applied"
                if status is EntryStatus.FAILED
                else "it may or may not have been applied"
            )
            outcome = CallOutcome(
                error=ToolError(
                    f"{policy.name}: the upstream call failed ({error_class}: {exc}); {standing}",
                    error_class=error_class,
                )
            )
        else:
            outcome = result_outcome(result, dispatcher.classify, policy)
            error_class = outcome.error_class
            status = EntryStatus.APPLIED if outcome.ok else fate(error_class, raised=False)
        error = None if outcome.error is None else outcome.error.message
        value = outcome.value if outcome.ok else None
        entry = advance(
            entry, status, self._backend.clock.now(), error_class=error_class, error=error, result=value
        )
        await outbox.save(entry)
        if status is EntryStatus.APPLIED:
            self._applied.append(policy.name)
        if error_class in _RETRIED or status is EntryStatus.UNKNOWN:
            self._retrying = (signature, entry)
        return outcome

    async def effects(self) -> list[Effect]:
        return [
            call_effect(entry.tool, entry.key, entry.arguments)
            for entry in await self._backend.outbox.entries(self._id)
            if entry.status in (EntryStatus.HELD, EntryStatus.APPLIED)
        ]

    async def commit(self) -> UpstreamReport | None:
        """Seal the outbox entries (the commit is decided and durable), then dispatch them in order."""
        backend = self._backend
        try:
            if not await backend.outbox.entries(self._id):
                return None
            now = backend.clock.now()
            await backend.outbox.seal(self._id, backend.instance, now, now + backend.lease)
        except Exception:
            await self.rollback()
            raise
        try:
            return await backend.dispatcher.dispatch(self._id)
        except Exception as exc:
            log.exception("dispatch of %s was interrupted; the outbox keeps the rest", self._id)
            entries = await _quiet_entries(backend.outbox, self._id)
            return UpstreamReport(
                self._id,
                "commit",
                False,
                tuple(e.report() for e in entries),
                f"dispatch was interrupted ({type(exc).__name__}: {exc}); the writes not yet applied stay "
                "in the outbox and a guard finishes them when its lease runs out",
            )

    async def rollback(self) -> UpstreamReport | None:
        return await self._backend.dispatcher.undo(self._id)


async def _quiet_entries(outbox: Outbox, transaction_id: str) -> list[OutboxEntry]:
    try:
        return await outbox.entries(transaction_id)
    except Exception:
        log.exception("cannot read the outbox of %s", transaction_id)
        return []


class McpBackend:
    """Tools of an upstream MCP server, writes held in an outbox until commit."""

    def __init__(
        self,
        upstream: Upstream,
        outbox: Outbox,
        settings: McpSettings,
        clock: Clock,
        *,
        instance: str,
        rules: RetryRules,
        redactor: Redactor | None = None,
    ) -> None:
        """``rules``: the guard's retry rules; the dispatch backoff comes from ``settings.dispatch``.

        ``redactor``: the ``audit.redact`` paths, applied to each outbox entry once it is settled.
        """
        self.upstream = upstream
        self.outbox = outbox
        self.settings = settings
        self.clock = clock
        self.instance = instance
        self.name = f"mcp:{upstream.name}"[:256]
        self.error_text: ErrorText = plain_error_text
        self.lease = timedelta(seconds=settings.dispatch.lease_s)
        self._policies: dict[str, ToolPolicy] = {}
        self._specs: dict[str, Tool] = {}
        dispatch = settings.dispatch
        self.dispatcher = Dispatcher(
            upstream,
            outbox,
            lambda: self._policies,
            lambda: self._specs,
            clock,
            instance=instance,
            rules=rules.with_policy(
                RetryPolicy(
                    dispatch.max_attempts,
                    dispatch.initial_backoff_s,
                    dispatch.max_backoff_s,
                    dispatch.jitter_s,
                )
            ),
            lease_s=dispatch.lease_s,
            redactor=redactor,
        )

    @property
    def tools(self) -> Sequence[Tool]:
        return list(self._specs.values())

    @property
    def policies(self) -> Mapping[str, ToolPolicy]:
        return self._policies

    def policy(self, tool: str) -> ToolPolicy:
        found = self._policies.get(tool)
        if found is None:
            raise BackendError(f"the upstream lists no tool {tool!r}", tool=tool)
        return found

    @property
    def judges(self) -> Sequence[Judge]:
        return ()

    @property
    def tables(self) -> frozenset[str]:
        """Each tool's writes are effects in the table ``call:<tool>``."""
        return frozenset(call_effect(name, "", {}).table for name in self._policies)

    async def start(self) -> None:
        await self.upstream.start()
        try:
            listed = await self.upstream.list_tools()
            self._policies = resolve_policies(listed, self.settings)
            self._specs = {tool.name: tool_spec(tool, self._policies[tool.name]) for tool in listed}
            withdraw = self.settings.withdraw_tool_name
            if withdraw is not None:
                if withdraw in self._specs:
                    raise BackendError(
                        f"the upstream has a tool named {withdraw!r}; set backend.mcp.withdraw_tool_name"
                    )
                self._specs[withdraw] = withdraw_tool(withdraw)
        except BaseException:
            await self.upstream.close()
            raise
        counts = {mode: sum(p.mode == mode for p in self._policies.values()) for mode in ("read", "defer")}
        log.info(
            "mcp backend %s: %d tools (%d reads, %d deferred writes, %d passthrough)",
            self.name,
            len(self._specs),
            counts["read"],
            counts["defer"],
            len(self._specs) - counts["read"] - counts["defer"],
        )

    async def begin(self, transaction_id: str) -> McpSession:
        return McpSession(self, transaction_id)

    async def committed(self, transaction_ids: Sequence[str]) -> set[str]:
        """Those whose commit was sealed in the outbox (from then on they are finished, not undone).

        A transaction with no outbox entry had nothing to send: its commit is complete.
        """
        found = set()
        for ident in transaction_ids:
            entries = await self.outbox.entries(ident)
            if not entries or any(entry.committed_at is not None for entry in entries):
                found.add(ident)
        return found

    async def forget(self, transaction_ids: Sequence[str]) -> None:
        """The outbox keeps its entries as the record of what was sent; nothing to drop."""
        return None

    async def recover(self, *, restarted: bool) -> list[UpstreamReport]:
        """Roll back what this instance left open (when ``restarted``); finish interrupted commits."""
        reports: list[UpstreamReport] = []
        if restarted:
            for ident in await self.outbox.orphans(self.instance):
                report = await self.dispatcher.undo(ident)
                if report is not None:
                    reports.append(report)
        now = self.clock.now()
        for ident in await self.outbox.claim(self.instance, now, now + self.lease, own=restarted):
            log.warning("finishing the interrupted commit of %s", ident)
            reports.append(await self.dispatcher.dispatch(ident))
        return reports

    async def relay(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """The upstream's resources and prompts, read-only (:data:`guard.backends.upstream.RELAYED`)."""
        if method not in RELAYED:
            raise BackendError(f"{method} is not relayed to the upstream")
        return await asyncio.wait_for(self.upstream.relay(method, params), self.settings.timeout_s)

    async def resume(self, transaction_id: str) -> UpstreamReport:
        return await self.dispatcher.resume(transaction_id)

    async def resolve(self, transaction_id: str, seq: int, applied: bool, by: str) -> UpstreamReport:
        return await self.dispatcher.resolve(transaction_id, seq, applied, by)

    async def ping(self) -> None:
        await asyncio.wait_for(self.upstream.ping(), timeout=self.settings.timeout_s)

    async def close(self) -> None:
        try:
            await self.upstream.close()
        finally:
            await self.outbox.close()
