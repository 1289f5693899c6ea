"""The transaction manager: keys to live transactions, and the driver of their protocol.

Every request names a transaction by key (see :mod:`guard.transaction.keys`). The manager
opens a transaction on the first call with a new key, serialises the calls of
one transaction, and drives its protocol (:mod:`guard.transaction.protocol`):
it tells each event and carries out the commands it gets back, running calls
in their savepoints with retries, asking the gate, committing or rolling back,
writing the audit log (:mod:`guard.audit.ledger`) and the spans. DB work runs
in a task the request cannot cancel (a statement cancelled half-way would
invalidate the pinned connection and lose the whole transaction); the
statement timeout bounds it instead. A reaper rolls back idle transactions.

The protocol's order of audit writes keeps the log truthful after a crash
(:mod:`guard.audit.log`). An outcome the log cannot record now waits in a
backlog the reaper retries (:mod:`guard.audit.backlog`), and a crash in between
is settled from the system of record at the next start (:mod:`guard.transaction.recovery`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any, TypeVar

from guard.audit.ledger import Ledger
from guard.audit.log import Audit, CommitEntry, TxnRecord, would_block
from guard.audit.redact import Redactor
from guard.backends.base import ACTING_FOR, Backend, UpstreamReport
from guard.clock import Clock
from guard.errors import (
    GuardError,
    InvalidArguments,
    RequestRejected,
    ToolError,
    TransactionClosed,
)
from guard.gate.commit import CommitGate, GateResult, call_arguments
from guard.notify import Notifier
from guard.retry import RetryRules, call_with_retries
from guard.settings import GuardSettings
from guard.telemetry import Telemetry
from guard.tools import Arguments, Tool
from guard.transaction import protocol as tx
from guard.transaction.conversation import size as said_size
from guard.transaction.conversation import turns_data
from guard.transaction.limits import (
    ArgumentsMeasured,
    CallRate,
    call_refusal,
    measure_arguments,
    quota_for,
    rate_refusal,
)
from guard.transaction.live import Asked, Attempt, KeyLocks, LiveTxn, quietly
from guard.transaction.opening import Openings
from guard.transaction.recovery import Resolve, finish, record_recovered
from guard.transaction.replies import (
    CommitReply,
    ToolReply,
    TxnKey,
    call_reply,
    commit_message,
    committed_text,
    enforced,
    failed_commit_text,
    lost_text,
    undecided,
    unrecorded_call,
)
from guard.transaction.review import Reviews
from guard.transaction.state import (
    CommitStatus,
    Status,
    TxnState,
    Via,
    idle_expired,
    require_open,
    undone,
)
from judges import Decision, Severity, Turn
from judges.classify import ErrorClass

__all__ = ["CommitReply", "ToolReply", "TransactionManager", "TxnKey"]

log = logging.getLogger(__name__)

T = TypeVar("T")

_LOGGED_ARGUMENT_BYTES = 65_536
"""A refused call's arguments larger than this are logged as their size only."""


class TransactionManager(Openings, Reviews):
    def __init__(
        self,
        backend: Backend,
        gate: CommitGate,
        audit: Audit,
        telemetry: Telemetry,
        clock: Clock,
        settings: GuardSettings,
        rules: RetryRules,
    ) -> None:
        self.backend = backend
        self.gate = gate
        self.audit = audit
        self.telemetry = telemetry
        self.clock = clock
        self.settings = settings
        self.rules = rules
        self._tools = {spec.name: spec for spec in backend.tools}
        self._live: dict[str, LiveTxn] = {}
        self._closed: OrderedDict[str, Status] = OrderedDict()
        self._opening = KeyLocks()
        self._reserved: Counter[str] = Counter()
        self._rate = CallRate()
        self.ledger = Ledger(audit, backend, clock, settings.server.instance, Redactor(settings.audit.redact))
        self._reaper: asyncio.Task[None] | None = None
        self.notifier: Notifier | None = None
        """Told when a commit waits for a reviewer and when a reviewer decides (``notify.webhooks``)."""

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

    def tool(self, name: str) -> Tool:
        spec = self._tools.get(name)
        if spec is None:
            raise RequestRejected(f"unknown tool {name!r}", tool=name)
        return spec

    @property
    def tools(self) -> list[Tool]:
        return list(self._tools.values())

    @property
    def tool_map(self) -> Mapping[str, Tool]:
        """The tools by name: a new mapping whenever the backend's tools change (at its start)."""
        return self._tools

    @property
    def backlog(self) -> int:
        """Audit writes waiting for the audit store (0 when the log is complete)."""
        return len(self.ledger)

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self) -> list[str]:
        """Start the backend and the reaper; settle what a previous run left unsettled.

        Returns the ids of the transactions that settling found aborted.
        """
        self._check_own_names()
        await self.backend.start()
        self._tools = {spec.name: spec for spec in self.backend.tools}
        try:
            self._check_own_names()
            self.gate.check_tables(self.backend.tables, self.backend.name)
            self.gate.check_arguments(call_arguments(self.backend.tools), self.backend.name)
            settled = await self.ledger.settle_previous()
        except BaseException:
            await self.backend.close()
            raise
        aborted = [r.id for r in settled if r.status is Status.ABORTED]
        await self._recover(restarted=True)
        self._reaper = asyncio.create_task(self._reap_forever(), name="guard-reaper")
        return aborted

    async def _recover(self, *, restarted: bool) -> None:
        """Let the backend finish what interrupted transactions left outside the database; audit it."""
        try:
            reports = await self.backend.recover(restarted=restarted)
            await record_recovered(self.audit, reports, self.clock, self.instance)
        except Exception:
            log.exception("recovering interrupted transactions failed; the reaper tries again")

    async def stop(self) -> None:
        """Roll back what is open and write what the log still lacks; never fails on a broken store."""
        if self._reaper is not None:
            self._reaper.cancel()
            await asyncio.gather(self._reaper, return_exceptions=True)
        for ident in list(self._live):
            live = self._live[ident]
            try:
                async with live.lock:
                    if live.state.live:
                        await self._drive(live, tx.ShutDown(self.clock.monotonic()), Via.SHUTDOWN)
            except Exception:
                log.exception("closing transaction %s at shutdown failed", ident)
        await self.ledger.tidy()
        if self.ledger:
            log.error("%d audit write(s) could not be made before shutdown", len(self.ledger))
        for closing in (self.audit.close, self.backend.close):
            try:
                await closing()
            except Exception:
                log.exception("shutting down %s failed", getattr(closing, "__qualname__", closing))

    async def _reap_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.commit.reap_interval_s)
            try:
                await self.reap()
            except Exception:
                log.exception("the idle reaper failed; it will try again")

    async def reap(self) -> list[str]:
        """Roll back every idle transaction nobody is using now; finish what the audit log lacks."""
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
                        await self._drive(live, tx.IdleExpired(self.clock.monotonic()), Via.REAPER)
                        reaped.append(live.state.id)
        await self.ledger.tidy()
        await self._recover(restarted=False)
        return reaped

    # -- transactions ----------------------------------------------------------------------

    def _by_id(self, transaction_id: str) -> LiveTxn:
        """An open transaction named by an operator (no key: the admin API, the console)."""
        live = self._live.get(transaction_id)
        if live is None:
            raise TransactionClosed(f"no open transaction {transaction_id}", transaction_id=transaction_id)
        return live

    def live(self, transaction_id: str) -> TxnState | None:
        live = self._live.get(transaction_id)
        return None if live is None else live.state

    @property
    def live_transactions(self) -> list[TxnState]:
        return [live.state for live in self._live.values()]

    async def _get(self, key: TxnKey, *, open_new: bool) -> LiveTxn:
        live = self._live.get(key.id)
        if live is None:
            live = await asyncio.shield(asyncio.create_task(self._get_or_open(key, open_new)))
        if live.state.principal != key.principal:
            raise RequestRejected(f"transaction {key.id} belongs to another agent", transaction_id=key.id)
        return live

    async def _get_or_open(self, key: TxnKey, open_new: bool) -> LiveTxn:
        async with self._opening.hold(key.id):
            live = self._live.get(key.id)
            if live is not None:
                return live
            if not open_new:
                held = await self._held_elsewhere(key.id)
                raise held or TransactionClosed(f"no open transaction {key.id}", transaction_id=key.id)
            return await self._open(key)

    async def _shielded(self, live: LiveTxn, work: Callable[[], Awaitable[T]]) -> T:
        """Run ``work`` holding the transaction's lock, in a task the caller's cancellation cannot reach."""

        async def locked() -> T:
            ACTING_FOR.set(live.state.principal)  # this task's own context: the backend sees who asks
            async with live.lock:
                return await work()

        return await asyncio.shield(asyncio.create_task(locked()))

    # -- calls -----------------------------------------------------------------------------

    async def call(
        self,
        key: TxnKey,
        tool: str,
        arguments: Mapping[str, Any] | None,
        turns: tuple[Turn, ...] | None = None,
    ) -> ToolReply:
        """Run one call in the key's transaction (opened by the first call); its arguments checked once.

        A call refused for its arguments opens nothing; in an open transaction it is recorded and
        counts toward the transaction's limits like any other (Requirement G20). ``turns``, the
        conversation said before it (None: none handed over), count with its arguments and are kept
        with the call once it is recorded; a call refused for a limit keeps none.
        """
        asked = Asked(self.tool(tool), dict(arguments or {}), turns)
        quota = quota_for(key.principal, key.claims, self.settings.limits)
        wait = self._rate.admit(key.principal, quota.calls_per_minute_per_agent, self.clock.monotonic())
        if wait is not None:
            error = ToolError(rate_refusal(key.principal, wait, quota), error_class=ErrorClass.RATE_LIMITED)
            log.info("refused a call of %s by %s: over its calls per minute", tool, key.principal)
            return ToolReply(self.backend.error_text(tool, error), None, True, error.error_class, key.id)
        measured = measure_arguments(asked.arguments, self.settings.limits.max_argument_depth)
        size = measured.size + said_size(turns)
        try:
            if measured.problem is not None:
                raise InvalidArguments(f"{tool}: {measured.problem}; nothing was run")
            parsed = asked.spec.validate(asked.arguments)
        except InvalidArguments as error:
            refusal = error
            live = self._live.get(key.id)
            if live is not None and live.state.principal == key.principal and live.state.live:
                refused = live
                return await self._shielded(
                    refused, lambda: self._refuse_arguments(refused, asked, measured, size, refusal)
                )
            return ToolReply(self.backend.error_text(tool, refusal), None, True, refusal.error_class, key.id)
        live = await self._get(key, open_new=True)
        return await self._shielded(live, lambda: self._run_call(live, asked, parsed, size))

    async def _refuse_arguments(
        self, live: LiveTxn, asked: Asked, measured: ArgumentsMeasured, size: int, error: ToolError
    ) -> ToolReply:
        """Record a call refused for its arguments, counted toward the transaction's limits."""
        limited = await self._over_limit(live, asked, size)
        if limited is not None:
            return limited
        live.argument_bytes += size
        if measured.problem is not None:
            asked = replace(asked, arguments={"_omitted": f"{measured.size} bytes: {measured.problem}"})
        return await self._refuse(live, asked, error)

    async def _over_limit(self, live: LiveTxn, asked: Asked, size: int) -> ToolReply | None:
        """The refusal of one more call of ``size`` bytes (arguments and turns) past the transaction's
        limits, or None; the refused call is logged without its turns (they are what passed a limit)."""
        refusal = call_refusal(live.state.id, len(live.trace), live.argument_bytes, size, live.quota)
        if refusal is None:
            return None
        logged = asked.arguments if size <= _LOGGED_ARGUMENT_BYTES else {"_omitted": f"{size} bytes"}
        error = ToolError(refusal, error_class=ErrorClass.PRECONDITION_FAILED)
        return await self._refuse(live, Asked(asked.spec, logged), error, traced=False)

    async def _refuse(
        self, live: LiveTxn, asked: Asked, error: ToolError, *, traced: bool = True
    ) -> ToolReply:
        """Record a call refused before it ran (it changed nothing) and answer it."""
        self._step(live, tx.CallRefused())
        if traced:
            live.trace.append(asked.record(False, error.error_class, error.message))
        text = self.backend.error_text(asked.spec.name, error)
        reply = ToolReply(text, None, True, error.error_class, live.state.id)
        return await self._recorded(live, asked, reply, error.message, started_at=self.clock.now())

    async def _run_call(self, live: LiveTxn, asked: Asked, parsed: Arguments, size: int) -> ToolReply:
        require_open(live.state)
        limited = await self._over_limit(live, asked, size)
        if limited is not None:
            return limited
        live.argument_bytes += size
        spec = asked.spec
        self._step(live, tx.CallArrived(self.clock.monotonic()))
        started_at = self.clock.now()
        started = self.clock.monotonic()
        with self.telemetry.call_span(live.span, live.state.id, spec.name, spec.write) as span:
            retried = await call_with_retries(
                lambda: live.session.call(spec, parsed),
                self.rules,
                repeat_safe=spec.repeat_safe,
                idempotent=spec.idempotent,
            )
            reply, error_message = call_reply(spec, retried, self.backend.error_text, live.state.id)
            if retried.exception is not None:
                log.warning(
                    "call %s in %s failed (%s) after %d retries: %r",
                    spec.name,
                    live.state.id,
                    reply.error_class,
                    retried.retries,
                    retried.exception,
                )
            self.telemetry.end_call(
                span, ok=not reply.is_error, error_class=reply.error_class, retries=retried.retries
            )
        latency_ms = (self.clock.monotonic() - started) * 1000
        self._step(live, tx.CallDone())
        lost = live.session.lost() if reply.is_error else None
        if lost is not None:
            error_message = lost_text(live.state.id, lost)
            reply = replace(
                reply, text=self.backend.error_text(spec.name, ToolError(error_message)), ended=True
            )
        live.trace.append(asked.record(not reply.is_error, reply.error_class, error_message))
        return await self._recorded(
            live,
            asked,
            reply,
            error_message,
            started_at=started_at,
            retries=retried.retries,
            latency_ms=latency_ms,
            lost=lost,
        )

    async def _recorded(
        self,
        live: LiveTxn,
        asked: Asked,
        reply: ToolReply,
        error_message: str | None,
        *,
        started_at: datetime,
        retries: int = 0,
        latency_ms: float = 0.0,
        lost: str | None = None,
    ) -> ToolReply:
        """``reply`` once the call (its turns too) is in the audit log; if it cannot be, the transaction is
        rolled back. Its turns join the transaction's conversation once recorded; a transaction ``lost``
        meanwhile is aborted then."""
        seq = live.next_seq()
        try:
            entry = asked.entry(live.state.id, seq, reply, error_message, started_at, retries, latency_ms)
            await self.ledger.call(entry)
        except Exception as exc:
            log.error("could not record call %d of %s: %r", seq, live.state.id, exc)
            reason, message = unrecorded_call(asked.spec.name, seq, live.state.id, exc)
            await self._drive(live, tx.CallUnrecorded(reason, self.clock.monotonic()), Via.AUDIT)
            text = self.backend.error_text(
                asked.spec.name, ToolError(message, error_class=ErrorClass.TRANSIENT)
            )
            return ToolReply(text, None, True, ErrorClass.TRANSIENT, live.state.id, ended=True)
        commands = self._step(live, tx.CallRecorded(self.clock.monotonic(), lost))
        live.conversation = live.conversation.after(asked.turns)
        await self._carry_out(live, commands, Via.BACKEND)
        return reply

    # -- commit, rollback ------------------------------------------------------------------

    async def commit(
        self, key: TxnKey, summary: str, *, via: Via = Via.TOOL, turns: tuple[Turn, ...] | None = None
    ) -> CommitReply:
        """Judge the transaction's end state and commit it, or say why not.

        ``turns``, said since the last call (None: none handed over), join the transaction's conversation
        before the judges read it (``CommitContext.conversation``, None while the host has sent none).
        """
        live = await self._get(key, open_new=via == Via.TOOL)
        return await self._shielded(live, lambda: self._commit(live, summary, via, turns))

    async def commit_by_id(
        self,
        transaction_id: str,
        summary: str,
        *,
        via: Via = Via.ADMIN,
        turns: tuple[Turn, ...] | None = None,
    ) -> CommitReply:
        live = self._by_id(transaction_id)
        return await self._shielded(live, lambda: self._commit(live, summary, via, turns))

    async def _commit(
        self, live: LiveTxn, summary: str, via: Via, turns: tuple[Turn, ...] | None
    ) -> CommitReply:
        asked = tx.CommitAsked(self.clock.monotonic(), live.session.lost())
        commands = self._step(live, asked)
        if commands == (tx.Reply(CommitStatus.PENDING_APPROVAL),):
            message = "the transaction is waiting for a reviewer"
            return self._reply(live, CommitStatus.PENDING_APPROVAL, None, message)
        if asked.lost is not None:
            return await self._lost(live, commands, asked.lost, via)
        started = self.clock.monotonic()
        live.conversation = live.conversation.after(turns)
        with self.telemetry.commit_span(live.span, live.state.id, live.attempts + 1, via) as span:
            result = await self._judge(live, summary)
            verdict = result.verdict
            decided = tx.GateDecided(
                verdict.decision,
                self.clock.monotonic(),
                self.settings.commit.max_blocked,
                live.session.lost(),
            )
            commands = self._step(live, decided)
            if decided.lost is not None:
                return await self._lost(live, commands, decided.lost, via)
            attempt = Attempt(
                number=live.attempts + 1,
                via=via,
                decision=verdict.decision,
                findings=verdict.findings,
                effects=result.effects,
                summary=summary,
                at=self.clock.now(),
                started=started,
                turns=turns,
            )
            traced = self.ledger.traced(live.state.id, verdict.findings, result.effects, turns)
            findings = enforced(verdict.findings)
            message = commit_message(
                live.state.allowed or live.state,
                verdict.decision,
                findings,
                len(result.effects),
                live.session.applied(),
                live.session.repair(findings) if verdict.decision is Decision.BLOCK else None,
            )
            reply = await self._decided(live, commands, attempt, message)
            self.telemetry.end_commit(
                span,
                decision=verdict.decision,
                status=reply.status,
                findings=traced,
                effects=len(result.effects),
                would_block=would_block(reply.status, [f.to_dict() for f in verdict.findings]),
            )
        return reply

    async def _lost(
        self, live: LiveTxn, commands: tuple[tx.Command, ...], lost: str, via: Via
    ) -> CommitReply:
        """The backend lost the transaction: abort it (``commands``), and the reply that says so."""
        await self._carry_out(live, commands, via)
        return self._reply(live, CommitStatus.ABORTED, None, lost_text(live.state.id, lost))

    async def _judge(self, live: LiveTxn, summary: str) -> GateResult:
        try:
            effects = await live.session.effects()
            return await self.gate.evaluate(
                live.state.id,
                effects,
                live.trace,
                summary,
                live.session.reader,
                now=self.clock.now(),
                principal=live.state.principal,
                claims=live.record.claims or {},
                conversation=live.conversation.turns,
            )
        except Exception as exc:
            log.exception("the commit gate of %s failed", live.state.id)
            return GateResult.failed(exc)

    async def _decided(
        self, live: LiveTxn, commands: tuple[tx.Command, ...], attempt: Attempt, message: str
    ) -> CommitReply:
        """Carry out the gate's decision: an allowed commit is recorded and committed, any other logged."""
        last = await self._carry_out(live, commands, attempt.via, attempt)
        if isinstance(last, tx.RecordDecision):
            return await self._commit_decided(live, attempt, message)
        return self._reply(live, tx.replied(last), attempt, message)

    async def _commit_decided(self, live: LiveTxn, attempt: Attempt, message: str) -> CommitReply:
        """Record the decision to commit, commit, record the outcome; unrecorded, nothing is committed."""
        now = self.clock.now()
        intent = live.record.following(live.state, now, status=Status.COMMITTING, summary=attempt.summary)
        try:
            await self.ledger.decision(
                attempt.entry(live.state.id, CommitStatus.COMMITTING, self.clock.monotonic()), intent
            )
        except Exception as exc:
            log.error("could not record the decision to commit %s: %r", live.state.id, exc)
            self._step(live, tx.DecisionUnrecorded())
            finding, text = undecided(exc, self.commit_tool)
            return self._reply(live, CommitStatus.BLOCKED, replace(attempt, findings=(finding,)), text)
        live.attempts = attempt.number
        live.record = intent
        self._step(live, tx.DecisionRecorded())
        report = None
        try:
            report = await live.session.commit()
        except Exception as exc:
            log.exception("COMMIT of %s failed", live.state.id)
            applied = await self._applied(live.state.id)
            commands = self._step(live, tx.CommitFailed(exc, applied))
            message = failed_commit_text(live.state, message, exc, applied)
        else:
            commands = self._step(
                live, tx.Committed(None if report is None or report.complete else report.message)
            )
            message = committed_text(message, report)
        last = await self._carry_out(live, commands, attempt.via, attempt, report)
        return self._reply(live, tx.replied(last), attempt, message, report)

    async def _applied(self, transaction_id: str) -> bool | None:
        """Whether the system of record applied a commit that raised (None: it cannot say)."""
        try:
            return transaction_id in await self.backend.committed([transaction_id])
        except Exception:
            log.exception("could not ask whether the commit of %s was applied", transaction_id)
            return None

    def _reply(
        self,
        live: LiveTxn,
        status: CommitStatus,
        attempt: Attempt | None,
        message: str,
        report: UpstreamReport | None = None,
    ) -> CommitReply:
        return live.reply(
            status, attempt, message, max_blocked=self.settings.commit.max_blocked, report=report
        )

    async def rollback(
        self, key: TxnKey, reason: str, *, via: Via = Via.TOOL, turns: tuple[Turn, ...] | None = None
    ) -> CommitReply:
        """Roll the transaction back; ``turns`` said before it (None: none) are kept as ``rollback_turns``."""
        live = await self._get(key, open_new=False)
        return await self._shielded(live, lambda: self._rollback(live, reason, via, turns))

    async def rollback_by_id(self, transaction_id: str, reason: str, *, via: Via = Via.ADMIN) -> CommitReply:
        live = self._by_id(transaction_id)
        return await self._shielded(live, lambda: self._rollback(live, reason, via, None))

    async def _rollback(
        self, live: LiveTxn, reason: str, via: Via, turns: tuple[Turn, ...] | None
    ) -> CommitReply:
        commands = self._step(live, tx.RollbackAsked(reason, self.clock.monotonic()))
        live.record = replace(live.record, rollback_turns=turns_data(turns))
        await self._carry_out(live, commands, via)
        return self._reply(live, CommitStatus.ROLLED_BACK, None, f"rolled back: {live.state.close_reason}")

    async def finish(self, transaction_id: str, step: Resolve | None, by: str) -> TxnRecord:
        """An operator's resume (``step`` None) or resolve of a partial commit (see :func:`finish`)."""
        ended = await finish(self.audit, self.backend, self.clock, transaction_id, step, by)
        if transaction_id in self._closed:
            self._closed[transaction_id] = ended.status
        return ended

    # -- driving the protocol --------------------------------------------------------------

    async def _drive(self, live: LiveTxn, event: tx.Event, via: Via) -> tx.Command | None:
        """Advance the transaction by ``event`` and carry out its commands (:meth:`_carry_out`)."""
        return await self._carry_out(live, self._step(live, event), via)

    def _step(self, live: LiveTxn, event: tx.Event) -> tuple[tx.Command, ...]:
        """Advance the transaction by ``event`` (:func:`~guard.transaction.protocol.step`); its commands."""
        live.state, commands = tx.step(live.state, event)
        return commands

    async def _carry_out(
        self,
        live: LiveTxn,
        commands: tuple[tx.Command, ...],
        via: Via,
        attempt: Attempt | None = None,
        report: UpstreamReport | None = None,
    ) -> tx.Command | None:
        """Carry out the commands that take no answer, in order; the first that does (or the reply) is
        returned for the caller. ``attempt`` is the commit attempt they record (None: none)."""
        for command in commands:
            match command:
                case tx.RollBack():
                    if attempt is None:  # a close, not a commit attempt
                        s = live.state
                        log.info("transaction %s %s (%s, via %s)", s.id, s.status.value, s.close_reason, via)
                    upstream = await quietly(live.session.rollback())
                    live.state = undone(live.state, None if upstream is None else upstream.message)
                case tx.RecordAttempt(status=status) if attempt is not None:
                    await self._record_attempt(live, attempt, status)
                case tx.RecordEnd(commit=status):
                    entry = None
                    if attempt is not None and status is not None:
                        live.attempts = attempt.number
                        dispatch = None if report is None else list(report.writes)
                        entry = attempt.entry(
                            live.state.id, status, self.clock.monotonic(), dispatch=dispatch
                        )
                    await self._finish(live, entry)
                case _:
                    return command
        return None

    async def _record_attempt(self, live: LiveTxn, attempt: Attempt, status: CommitStatus) -> None:
        """Log an attempt that left the transaction live (blocked, escalated)."""
        live.attempts = attempt.number
        if status is CommitStatus.PENDING_APPROVAL:
            live.escalated = attempt
            live.binding = self._binding(attempt)
        live.record = live.record.following(live.state, self.clock.now(), summary=attempt.summary)
        await self.ledger.attempt(attempt.entry(live.state.id, status, self.clock.monotonic()), live.record)
        if status is CommitStatus.PENDING_APPROVAL:
            reasons = "; ".join(f.message for f in attempt.findings if f.severity is Severity.ESCALATE)
            self._tell(live, "escalated", reasons or "it waits for a reviewer")

    async def _finish(self, live: LiveTxn, commit: CommitEntry | None) -> None:
        """The transaction has ended: free its slot, then record its end and ``commit``, the attempt that
        ended it (never raises).

        An outcome the system of record has not told (``committing``) is left
        to the ledger; a commit mark is dropped once the log has the outcome.
        """
        now = self.clock.now()
        state = live.state
        self._live.pop(state.id, None)
        self._closed[state.id] = state.status
        live.ended.set()
        while len(self._closed) > 10_000:
            self._closed.popitem(last=False)
        self.telemetry.close_transaction(live.span, state.status, state.close_reason, state.calls)
        if state.status is Status.COMMITTING:
            self.ledger.unsure(state.id)
            return
        live.record = live.record.following(state, now, closed_at=now, close_reason=state.close_reason)
        marked = commit is not None and state.status in (Status.COMMITTED, Status.PARTIAL)
        await self.ledger.end(live.record, commit, marked=marked)
