"""The transaction manager: keys to live transactions, calls, commits and rollbacks.

Every request names a transaction by key (see :mod:`guard.keys`). The manager
opens a transaction on the first call with a new key, serialises the calls of
one transaction, runs each call in its savepoint with retries, asks the gate
at commit, and writes the audit log and the spans. DB work runs in a task the
request cannot cancel (a statement cancelled half-way would invalidate the
pinned connection and lose the whole transaction); the statement timeout
bounds it instead. A reaper rolls back idle transactions.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from opentelemetry.trace import Span

from guard.audit import Audit, CallEntry, CommitEntry, TxnRecord
from guard.backends.base import Backend, Session, UpstreamReport
from guard.clock import Clock
from guard.errors import GuardError, InvalidArguments, RequestRejected, ToolError, TransactionClosed
from guard.gate import CommitGate, GateResult
from guard.recovery import record_recovered
from guard.replies import CommitReply, ToolReply, TxnKey, commit_message
from guard.retry import RetryPolicy, call_with_retries
from guard.settings import GuardSettings
from guard.telemetry import Telemetry
from guard.tools import ToolSpec
from guard.transactions import (
    Status,
    TxnState,
    after_call,
    after_commit,
    after_review,
    closed,
    idle_expired,
    require_open,
)
from judges import CallRecord, Finding, Severity, Verdict

__all__ = ["CommitReply", "ToolReply", "TransactionManager", "TxnKey"]

log = logging.getLogger(__name__)

T = TypeVar("T")

_FAILURE_TEXT = {
    "transient": "the backend is temporarily unavailable",
    "rate_limited": "the backend is rate limiting requests",
    "timeout": "the backend did not answer in time",
    "invalid_arguments": "the backend rejected the arguments",
    "not_found": "the record was not found",
    "precondition_failed": "the records are not in the state the change needs (another transaction may "
    "have changed them since this one read them)",
    "permission_denied": "the backend refused access",
    "internal": "the tool failed with an internal error",
}


@dataclass(eq=False)
class _Live:
    state: TxnState
    session: Session
    span: Span
    record: TxnRecord
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    trace: list[CallRecord] = field(default_factory=list)
    attempts: int = 0


class TransactionManager:
    def __init__(
        self,
        backend: Backend,
        gate: CommitGate,
        audit: Audit,
        telemetry: Telemetry,
        clock: Clock,
        settings: GuardSettings,
        *,
        classify: Callable[[BaseException], str],
        retryable: Callable[[str, bool, bool], bool],
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.backend = backend
        self.gate = gate
        self.audit = audit
        self.telemetry = telemetry
        self.clock = clock
        self.settings = settings
        self._classify = classify
        self._retryable = retryable
        self._sleep = sleep
        self._policy = RetryPolicy.from_settings(settings.retry)
        self._tools = {spec.name: spec for spec in backend.tools}
        self._live: dict[str, _Live] = {}
        self._closed: OrderedDict[str, str] = OrderedDict()
        self._opening: dict[str, asyncio.Lock] = {}
        self._reaper: asyncio.Task[None] | None = None

    @property
    def commit_tool(self) -> str:
        return self.settings.commit.tool_name

    @property
    def rollback_tool(self) -> str | None:
        return self.settings.commit.rollback_tool_name

    def _check_own_names(self) -> None:
        for own, setting in ((self.commit_tool, "tool_name"), (self.rollback_tool, "rollback_tool_name")):
            if own is not None and own in self._tools:
                raise GuardError(f"the backend has a tool named {own!r}; set commit.{setting}")

    def tool(self, name: str) -> ToolSpec:
        spec = self._tools.get(name)
        if spec is None:
            raise RequestRejected(f"unknown tool {name!r}", tool=name)
        return spec

    @property
    def tools(self) -> list[ToolSpec]:
        return list(self._tools.values())

    @property
    def tool_map(self) -> Mapping[str, ToolSpec]:
        """The tools by name: a new mapping whenever the backend's tools change (at its start)."""
        return self._tools

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self) -> list[str]:
        """Start the backend and the reaper; mark transactions a previous run left live as aborted."""
        self._check_own_names()
        await self.backend.start()
        self._tools = {spec.name: spec for spec in self.backend.tools}
        try:
            self._check_own_names()
        except GuardError:
            await self.backend.close()
            raise
        aborted = await self.audit.abort_live(
            self.settings.server.instance,
            "the guard stopped with the transaction open; the database discarded its changes",
            self.clock.now(),
        )
        if aborted:
            log.warning(
                "marked %d transactions of a previous run aborted: %s", len(aborted), ", ".join(aborted)
            )
        await self._recover(restarted=True)
        self._reaper = asyncio.create_task(self._reap_forever(), name="guard-reaper")
        return aborted

    async def _recover(self, *, restarted: bool) -> None:
        """Let the backend finish what interrupted transactions left outside the database; audit it."""
        try:
            reports = await self.backend.recover(restarted=restarted)
            await record_recovered(self.audit, reports, self.clock, self.settings.server.instance)
        except Exception:
            log.exception("recovering interrupted transactions failed; the reaper tries again")

    async def stop(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
            await asyncio.gather(self._reaper, return_exceptions=True)
        for ident in list(self._live):
            live = self._live[ident]
            async with live.lock:
                await self._close(live, Status.ROLLED_BACK, "the guard shut down", via="shutdown")
        await self.audit.close()
        await self.backend.close()
        self.gate.close()

    async def _reap_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.commit.reap_interval_s)
            try:
                await self.reap()
            except Exception:
                log.exception("the idle reaper failed; it will try again")

    async def reap(self) -> list[str]:
        """Roll back every idle transaction nobody is using now; flush the audit queue."""
        now = self.clock.monotonic()
        reaped = []
        for live in list(self._live.values()):
            if live.lock.locked():
                continue
            if idle_expired(
                live.state, now, self.settings.commit.idle_timeout_s, self.settings.commit.approval_timeout_s
            ):
                async with live.lock:
                    if live.state.live:
                        what = "approval" if live.state.status is Status.PENDING_APPROVAL else "idle"
                        await self._close(live, Status.ROLLED_BACK, f"{what} timeout", via="reaper")
                        reaped.append(live.state.id)
        await self._recover(restarted=False)
        await self.audit.flush()
        return reaped

    # -- transactions ----------------------------------------------------------------------

    def live(self, transaction_id: str) -> TxnState | None:
        live = self._live.get(transaction_id)
        return None if live is None else live.state

    @property
    def live_transactions(self) -> list[TxnState]:
        return [live.state for live in self._live.values()]

    async def _get(self, key: TxnKey, *, open_new: bool) -> _Live:
        live = self._live.get(key.id)
        if live is None:
            lock = self._opening.setdefault(key.id, asyncio.Lock())
            async with lock:
                live = self._live.get(key.id)
                if live is None:
                    if not open_new:
                        raise TransactionClosed(f"no open transaction {key.id}", transaction_id=key.id)
                    live = await self._open(key)
            self._opening.pop(key.id, None)
        if live.state.principal != key.principal:
            raise RequestRejected(f"transaction {key.id} belongs to another agent", transaction_id=key.id)
        return live

    async def _open(self, key: TxnKey) -> _Live:
        status = self._closed.get(key.id) or await self.audit.status_of(key.id)
        if status is not None:
            raise TransactionClosed(
                f"transaction {key.id} is {status}; use a new transaction key", transaction_id=key.id
            )
        if len(self._live) >= self.settings.backend.max_open_transactions:
            raise RequestRejected(
                f"{len(self._live)} transactions are open, the limit is "
                f"{self.settings.backend.max_open_transactions}; commit or roll back one first",
                transaction_id=key.id,
            )
        now = self.clock.now()
        record = TxnRecord(
            id=key.id,
            principal=key.principal,
            instance=self.settings.server.instance,
            backend=self.backend.name,
            status=Status.OPEN.value,
            opened_at=now,
            updated_at=now,
        )
        await self.audit.open_transaction(record)
        try:
            session = await self.backend.begin(key.id)
        except Exception as exc:
            await self.audit.update_transaction(
                replace(
                    record, status=Status.ABORTED.value, close_reason=f"could not begin: {exc}", closed_at=now
                )
            )
            raise GuardError(f"could not open transaction {key.id}: the backend is unavailable") from exc
        mono = self.clock.monotonic()
        state = TxnState(key.id, key.principal, Status.OPEN, mono, mono)
        live = _Live(state, session, self.telemetry.open_transaction(key.id, key.principal, key.meta), record)
        self._live[key.id] = live
        log.info("opened transaction %s for %s", key.id, key.principal)
        return live

    async def _shielded(self, live: _Live, work: Callable[[], Awaitable[T]]) -> T:
        """Run ``work`` holding the transaction's lock, in a task the caller's cancellation cannot reach."""

        async def locked() -> T:
            async with live.lock:
                return await work()

        return await asyncio.shield(asyncio.create_task(locked()))

    # -- calls -----------------------------------------------------------------------------

    async def call(self, key: TxnKey, tool: str, arguments: Mapping[str, Any] | None) -> ToolReply:
        spec = self.tool(tool)
        arguments = dict(arguments or {})
        try:
            spec.validate(arguments)
        except InvalidArguments as error:
            refusal = error
            live = self._live.get(key.id)
            if live is not None and live.state.principal == key.principal and live.state.live:
                refused = live
                await self._shielded(refused, lambda: self._record_refusal(refused, spec, arguments, refusal))
            return ToolReply(self.backend.error_text(tool, refusal), None, True, refusal.error_class, key.id)
        live = await self._get(key, open_new=True)
        return await self._shielded(live, lambda: self._run_call(live, spec, arguments))

    async def _record_refusal(
        self, live: _Live, spec: ToolSpec, arguments: dict[str, Any], error: ToolError
    ) -> None:
        live.trace.append(
            CallRecord(spec.name, arguments, spec.write, False, error.error_class, error.message)
        )
        self.audit.record_call(
            CallEntry(
                live.state.id,
                len(live.trace),
                spec.name,
                arguments,
                spec.write,
                "error",
                error.error_class,
                error.message,
                0,
                0.0,
                self.clock.now(),
            )
        )

    async def _run_call(self, live: _Live, spec: ToolSpec, arguments: dict[str, Any]) -> ToolReply:
        live.state = after_call(live.state, self.clock.monotonic())
        started_at = self.clock.now()
        started = time.perf_counter()
        with self.telemetry.call_span(live.span, live.state.id, spec.name, spec.write) as span:
            retried = await call_with_retries(
                lambda: live.session.call(spec, arguments),
                policy=self._policy,
                classify=self._classify,
                retryable=lambda error_class: self._retryable(error_class, spec.repeat_safe, spec.idempotent),
                sleep=self._sleep,
            )
            outcome = retried.outcome
            if outcome is not None and outcome.ok:
                reply = ToolReply(outcome.text(spec.name), outcome.structured, False, None, live.state.id)
                error_class, error_message = None, None
            elif outcome is not None:
                assert outcome.error is not None
                error_class, error_message = outcome.error.error_class, outcome.error.message
                reply = ToolReply(
                    self.backend.error_text(spec.name, outcome.error), None, True, error_class, live.state.id
                )
            else:
                assert retried.exception is not None
                error_class = retried.error_classes[-1] if retried.error_classes else "internal"
                log.warning(
                    "call %s in %s failed (%s) after %d retries: %r",
                    spec.name,
                    live.state.id,
                    error_class,
                    retried.retries,
                    retried.exception,
                )
                error_message = (
                    f"{spec.name} failed: {_FAILURE_TEXT.get(error_class, 'the tool failed')} "
                    f"({error_class}, {retried.retries + 1} attempts); nothing was changed"
                )
                reply = ToolReply(
                    self.backend.error_text(spec.name, ToolError(error_message, error_class=error_class)),
                    None,
                    True,
                    error_class,
                    live.state.id,
                )
            self.telemetry.end_call(
                span, ok=not reply.is_error, error_class=error_class, retries=retried.retries
            )
        latency_ms = (time.perf_counter() - started) * 1000
        live.trace.append(
            CallRecord(spec.name, arguments, spec.write, not reply.is_error, error_class, error_message)
        )
        self.audit.record_call(
            CallEntry(
                live.state.id,
                len(live.trace),
                spec.name,
                arguments,
                spec.write,
                "error" if reply.is_error else "ok",
                error_class,
                error_message,
                retried.retries,
                latency_ms,
                started_at,
            )
        )
        return reply

    # -- commit, rollback, review ----------------------------------------------------------

    async def commit(self, key: TxnKey, summary: str, *, via: str = "tool") -> CommitReply:
        """Judge the transaction's end state and commit it, or say why not."""
        live = await self._get(key, open_new=via == "tool")
        return await self._shielded(live, lambda: self._commit(live, summary, via))

    async def commit_by_id(self, transaction_id: str, summary: str, *, via: str = "admin") -> CommitReply:
        live = self._live.get(transaction_id)
        if live is None:
            raise TransactionClosed(f"no open transaction {transaction_id}", transaction_id=transaction_id)
        return await self._shielded(live, lambda: self._commit(live, summary, via))

    async def _commit(self, live: _Live, summary: str, via: str) -> CommitReply:
        if live.state.status is Status.PENDING_APPROVAL:
            return self._reply(live, "pending_approval", [], [], "the transaction is waiting for a reviewer")
        require_open(live.state)
        live.attempts += 1
        started = time.perf_counter()
        with self.telemetry.commit_span(live.span, live.state.id, live.attempts, via) as span:
            try:
                effects = await live.session.effects()
                result = await self.gate.evaluate(
                    live.state.id, effects, live.trace, summary, live.session.reader, now=self.clock.now()
                )
            except Exception as exc:
                log.exception("the commit gate of %s failed", live.state.id)
                finding = Finding("gate", Severity.BLOCK, f"the commit gate failed: {type(exc).__name__}")
                result = GateResult(Verdict.of([finding]), (), 0.0)
            verdict = result.verdict
            effect_dicts = [e.to_dict() for e in result.effects]
            finding_dicts = [f.to_dict() for f in verdict.findings]
            state = after_commit(
                live.state, verdict.decision, self.clock.monotonic(), self.settings.commit.max_blocked
            )
            message = commit_message(state, verdict.decision, verdict.findings, len(result.effects))
            report: UpstreamReport | None = None
            if state.status is Status.COMMITTED:
                state, message, report = await self._apply(live, state, message)
            elif state.status is Status.ROLLED_BACK:
                state = _undone(state, await _quietly(live.session.rollback()))
            live.state = state
            status = state.status.value if state.status is not Status.OPEN else "blocked"
            self.telemetry.end_commit(
                span,
                decision=verdict.decision.value,
                status=status,
                findings=verdict.findings,
                effects=len(result.effects),
            )
        await self.audit.record_commit(
            CommitEntry(
                live.state.id,
                live.attempts,
                via,
                verdict.decision.value,
                status,
                finding_dicts,
                effect_dicts,
                summary,
                self.clock.now(),
                (time.perf_counter() - started) * 1000,
                None if report is None else list(report.writes),
            )
        )
        live.record = replace(live.record, summary=summary, blocked_attempts=state.blocked)
        if not state.live:
            await self._finish(live, state.close_reason)
        else:
            live.record = replace(
                live.record, status=state.status.value, updated_at=self.clock.now(), calls=state.calls
            )
            await self.audit.update_transaction(live.record)
        return self._reply(live, status, effect_dicts, finding_dicts, message, report)

    async def _apply(
        self, live: _Live, state: TxnState, message: str
    ) -> tuple[TxnState, str, UpstreamReport | None]:
        """Commit the session; a commit the backend could apply only in part ends ``partial``."""
        try:
            report = await live.session.commit()
        except Exception as exc:
            log.exception("COMMIT of %s failed", live.state.id)
            state = replace(state, status=Status.ABORTED, close_reason=f"COMMIT failed: {exc}")
            return state, "the database refused the commit; the transaction was rolled back", None
        if report is None:
            return state, message, None
        if report.complete:
            return state, f"{message}; {report.message}", report
        state = replace(state, status=Status.PARTIAL, close_reason=report.message)
        return state, f"the commit was allowed, but not all of it was applied: {report.message}", report

    def _reply(
        self,
        live: _Live,
        status: str,
        effects: list[dict[str, Any]],
        findings: list[dict[str, Any]],
        message: str,
        report: UpstreamReport | None = None,
    ) -> CommitReply:
        left = max(self.settings.commit.max_blocked - live.state.blocked, 0) if live.state.live else 0
        dispatch = None if report is None else list(report.writes)
        return CommitReply(status, live.state.id, effects, findings, left, message, dispatch)

    async def rollback(self, key: TxnKey, reason: str, *, via: str = "tool") -> CommitReply:
        live = await self._get(key, open_new=False)
        return await self._shielded(live, lambda: self._rollback(live, reason, via))

    async def rollback_by_id(self, transaction_id: str, reason: str, *, via: str = "admin") -> CommitReply:
        live = self._live.get(transaction_id)
        if live is None:
            raise TransactionClosed(f"no open transaction {transaction_id}", transaction_id=transaction_id)
        return await self._shielded(live, lambda: self._rollback(live, reason, via))

    async def _rollback(self, live: _Live, reason: str, via: str) -> CommitReply:
        if not live.state.live:
            raise TransactionClosed(f"transaction {live.state.id} is {live.state.status.value}")
        await self._close(live, Status.ROLLED_BACK, reason, via=via)
        return self._reply(live, "rolled_back", [], [], f"rolled back: {live.state.close_reason}")

    async def review(self, transaction_id: str, *, approve: bool, reviewer: str) -> CommitReply:
        live = self._live.get(transaction_id)
        if live is None:
            raise TransactionClosed(f"no open transaction {transaction_id}", transaction_id=transaction_id)

        async def work() -> CommitReply:
            state = after_review(live.state, approve, self.clock.monotonic(), reviewer)
            report: UpstreamReport | None = None
            if approve:
                state, _, report = await self._apply(live, state, "")
            else:
                state = _undone(state, await _quietly(live.session.rollback()))
            live.state = state
            await self._finish(live, state.close_reason)
            message = state.close_reason or state.status.value
            return self._reply(live, state.status.value, [], [], message, report)

        return await self._shielded(live, work)

    async def _close(self, live: _Live, status: Status, reason: str, *, via: str) -> None:
        live.state = closed(live.state, status, reason, self.clock.monotonic())
        live.state = _undone(live.state, await _quietly(live.session.rollback()))
        log.info("transaction %s %s (%s, via %s)", live.state.id, status.value, reason, via)
        await self._finish(live, live.state.close_reason)

    async def _finish(self, live: _Live, reason: str | None) -> None:
        now = self.clock.now()
        state = live.state
        self._live.pop(state.id, None)
        self._closed[state.id] = state.status.value
        while len(self._closed) > 10_000:
            self._closed.popitem(last=False)
        live.record = replace(
            live.record,
            status=state.status.value,
            updated_at=now,
            closed_at=now,
            close_reason=reason,
            calls=state.calls,
            blocked_attempts=state.blocked,
        )
        await self.audit.flush()
        await self.audit.update_transaction(live.record)
        self.telemetry.close_transaction(live.span, state.status.value, reason, state.calls)


async def _quietly(work: Awaitable[UpstreamReport | None]) -> UpstreamReport | None:
    try:
        return await work
    except Exception:
        log.exception("rollback failed; the database discards the transaction when the connection closes")
        return None


def _undone(state: TxnState, report: UpstreamReport | None) -> TxnState:
    """The state with what its rollback did upstream added to its close reason."""
    if report is None:
        return state
    return replace(state, close_reason=f"{state.close_reason}; {report.message}")
