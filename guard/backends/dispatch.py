"""Sending an ``mcp`` transaction's writes upstream at commit, and undoing them at rollback.

Dispatch: the committed writes go out one at a time, in call order, each with
its idempotency key in ``_meta`` and the dispatch retry policy. Failures that
certainly did not apply (``transient``, ``rate_limited``) are retried; an
ambiguous one (``timeout``, or an exception the classifier cannot place) only
when the write is safe to repeat (idempotent, or the upstream honours the
key). A write that still fails is ``failed`` when the upstream refused it or
it certainly did not apply, and ``unknown`` when it may have applied; either
way the writes after it are ``skipped``, never sent. Each attempt renews the
lease on the transaction's entries, so no other replica takes them over
while this one is working.

Undo: held writes are discarded; passthrough writes already applied are
compensated in reverse order where the config declares a compensating tool,
and left ``irreversible`` (with the reason) where it does not or the
compensation failed. The reports say exactly which writes ended how.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any, Literal

from guard.audit.redact import Redactor
from guard.backends.base import UpstreamReport
from guard.backends.outbox import IDEMPOTENCY_KEY, UNSETTLED, EntryStatus, Outbox, OutboxEntry, advance
from guard.backends.policy import ToolPolicy, build_arguments
from guard.backends.upstream import Upstream, UpstreamResult
from guard.clock import Clock
from guard.errors import InvalidArguments, NotFinishable, ToolError
from guard.retry import Retried, RetryRules, call_with_retries
from guard.tools import Tool
from guard.transaction.execute import CallOutcome
from judges.classify import ErrorClass

__all__ = ["CERTAIN", "Dispatcher", "fate", "result_outcome", "settled", "write_meta"]

log = logging.getLogger(__name__)

CERTAIN = frozenset(
    {
        ErrorClass.TRANSIENT,
        ErrorClass.RATE_LIMITED,
        ErrorClass.INVALID_ARGUMENTS,
        ErrorClass.NOT_FOUND,
        ErrorClass.PRECONDITION_FAILED,
        ErrorClass.PERMISSION_DENIED,
    }
)
"""Classes of a raised failure after which the call certainly did not take effect."""

TRANSACTION_META = "guard/transaction"

_RESENDABLE = frozenset({EntryStatus.FAILED, EntryStatus.SKIPPED})
"""Committed deferred writes that certainly did not apply: an operator's resume sends them again."""

_LIVE = frozenset({EntryStatus.HELD, EntryStatus.SENDING, EntryStatus.READY, EntryStatus.DISPATCHING})
"""Entries whose arguments are still needed whole (held or on their way upstream)."""


def write_meta(entry: OutboxEntry, suffix: str = "") -> dict[str, Any]:
    """The ``_meta`` of a write sent upstream: its idempotency key and its transaction."""
    return {IDEMPOTENCY_KEY: entry.key + suffix, TRANSACTION_META: entry.transaction_id}


def result_outcome(
    result: UpstreamResult, classify: Callable[[object], ErrorClass], policy: ToolPolicy | None = None
) -> CallOutcome:
    """An upstream result as a call outcome; a tool error carries the class of its text. A result whose
    text matches the tool's error pattern is an error though the upstream did not say so."""
    said_error = (
        policy is not None and policy.error_text is not None and policy.error_text.search(result.text)
    )
    if not result.is_error and not said_error:
        return CallOutcome(value=result.value, content=result.content)
    text = result.text or "the upstream tool reported an error without text"
    return CallOutcome(error=ToolError(text, error_class=classify(text)), content=result.content)


def fate(error_class: ErrorClass | None, *, raised: bool) -> EntryStatus:
    """Where a write that did not succeed stands: failed (certainly not applied) or unknown.

    A call that raised was applied or not depending on its class (only the
    :data:`CERTAIN` ones fail before reaching the upstream); a tool error was
    answered by the upstream, so only a timeout leaves it unknown.
    """
    if raised:
        return EntryStatus.FAILED if error_class in CERTAIN else EntryStatus.UNKNOWN
    return EntryStatus.UNKNOWN if error_class is ErrorClass.TIMEOUT else EntryStatus.FAILED


def settled(retried: Retried) -> tuple[EntryStatus, ErrorClass | None, str | None]:
    """Where a write ended: applied, failed (certainly not applied) or unknown, with class and reason."""
    outcome = retried.outcome
    if outcome is not None and outcome.ok:
        return EntryStatus.APPLIED, None, None
    if outcome is not None and outcome.error is not None:
        error_class = outcome.error.error_class
        return fate(error_class, raised=False), error_class, outcome.error.message
    error_class = retried.error_classes[-1] if retried.error_classes else ErrorClass.INTERNAL
    reason = f"{type(retried.exception).__name__}: {retried.exception}"
    return fate(error_class, raised=True), error_class, reason


def _name(entry: OutboxEntry) -> str:
    return f"{entry.tool} (#{entry.seq})"


class Dispatcher:
    """Sends and undoes the outbox's writes for one upstream."""

    def __init__(
        self,
        upstream: Upstream,
        outbox: Outbox,
        policies: Callable[[], Mapping[str, ToolPolicy]],
        specs: Callable[[], Mapping[str, Tool]],
        clock: Clock,
        *,
        instance: str,
        rules: RetryRules,
        lease_s: float,
        redactor: Redactor | None = None,
    ) -> None:
        self.upstream = upstream
        self.outbox = outbox
        self._policies = policies
        self._specs = specs
        self.clock = clock
        self.instance = instance
        self._rules = rules
        self._lease = timedelta(seconds=lease_s)
        self._redactor = redactor or Redactor()

    def classify(self, failure: object) -> ErrorClass:
        return self._rules.classify(failure)

    def _safe(self, tool: str) -> bool:
        policy = self._policies().get(tool)
        return policy is not None and policy.safe_to_repeat

    async def _send(
        self,
        entry: OutboxEntry,
        tool: str,
        arguments: Mapping[str, Any],
        meta: dict[str, Any],
        safe: bool,
        *,
        track: bool = True,
    ) -> tuple[OutboxEntry, Retried]:
        """``tool`` with retries; when ``track``, the entry is counted and its lease renewed per attempt."""
        current = entry

        async def attempt() -> CallOutcome:
            nonlocal current
            if track:
                now = self.clock.now()
                current = replace(
                    current, attempts=current.attempts + 1, updated_at=now, lease_until=now + self._lease
                )
                await self.outbox.save(current)
            result = await self.upstream.call_tool(tool, arguments, meta=meta)
            return result_outcome(result, self.classify, self._policies().get(tool))

        retried = await call_with_retries(attempt, self._rules, repeat_safe=False, idempotent=safe)
        return current, retried

    # -- commit ----------------------------------------------------------------------------

    async def dispatch(self, transaction_id: str) -> UpstreamReport:
        """Send the committed transaction's unsettled writes in order; what each one came to."""
        stopped: OutboxEntry | None = None
        for entry in await self.outbox.entries(transaction_id):
            if entry.mode != "defer" or entry.status not in UNSETTLED:
                continue
            now = self.clock.now()
            if stopped is not None:
                reason = f"not sent: {_name(stopped)} before it was {stopped.status.value}"
                await self.outbox.save(advance(entry, EntryStatus.SKIPPED, now, error=reason))
                continue
            safe = self._safe(entry.tool)
            if entry.status is EntryStatus.DISPATCHING and not safe:
                stopped = advance(
                    entry,
                    EntryStatus.UNKNOWN,
                    now,
                    error_class=ErrorClass.TIMEOUT,
                    error="an attempt was interrupted before its reply; repeating this write is not safe",
                )
                await self.outbox.save(stopped)
                continue
            if entry.status is EntryStatus.READY:
                entry = advance(entry, EntryStatus.DISPATCHING, now)
            sent, retried = await self._send(entry, entry.tool, entry.arguments, write_meta(entry), safe)
            status, error_class, error = settled(retried)
            result = retried.outcome.value if retried.outcome is not None and retried.outcome.ok else None
            final = advance(
                sent, status, self.clock.now(), error_class=error_class, error=error, result=result
            )
            await self.outbox.save(final)
            if status is not EntryStatus.APPLIED:
                log.warning("dispatch of %s stopped at %s: %s", transaction_id, _name(final), error)
                stopped = final
        return commit_report(transaction_id, await self._scrubbed(transaction_id))

    # -- a partial commit, finished by an operator -------------------------------------------

    async def _committed(self, transaction_id: str) -> list[OutboxEntry]:
        entries = [e for e in await self.outbox.entries(transaction_id) if e.committed_at is not None]
        if not entries:
            raise NotFinishable(
                f"transaction {transaction_id} has no committed writes in the outbox",
                transaction_id=transaction_id,
            )
        return entries

    async def resume(self, transaction_id: str) -> UpstreamReport:
        """Send again, in order, the committed writes that failed or were not sent.

        Refused while a write's outcome is unknown (the operator resolves it first: sending it again
        might apply it twice) or while a guard is dispatching the commit.
        """
        entries = await self._committed(transaction_id)
        unknown = [e for e in entries if e.status is EntryStatus.UNKNOWN]
        if unknown:
            first = unknown[0]
            raise NotFinishable(
                f"the outcome of {_name(first)} is unknown: check the upstream, then resolve it "
                f"(guard transactions resolve {transaction_id} --call {first.seq} applied|failed) "
                "before resuming",
                transaction_id=transaction_id,
            )
        if any(e.status in UNSETTLED for e in entries):
            raise NotFinishable(
                f"transaction {transaction_id} is being dispatched now; wait for its outcome",
                transaction_id=transaction_id,
            )
        todo = [e for e in entries if e.mode == "defer" and e.status in _RESENDABLE]
        if not todo:
            raise NotFinishable(
                f"transaction {transaction_id} has no failed or unsent write to resume",
                transaction_id=transaction_id,
            )
        now = self.clock.now()
        for entry in todo:
            again = advance(
                entry,
                EntryStatus.READY,
                now,
                instance=self.instance,
                lease_until=now + self._lease,
                error=None,
                error_class=None,
            )
            if not await self.outbox.swap(entry.status, again):
                raise NotFinishable(
                    f"{_name(entry)} of {transaction_id} changed meanwhile (another guard is finishing it)",
                    transaction_id=transaction_id,
                )
        log.warning("resuming the commit of %s: %d write(s) to send", transaction_id, len(todo))
        return await self.dispatch(transaction_id)

    async def resolve(self, transaction_id: str, seq: int, applied: bool, by: str) -> UpstreamReport:
        """Settle a committed write whose outcome is unknown, as the operator found it upstream."""
        entries = await self._committed(transaction_id)
        entry = next((e for e in entries if e.seq == seq), None)
        if entry is None:
            raise NotFinishable(
                f"transaction {transaction_id} has no committed write #{seq}", transaction_id=transaction_id
            )
        if entry.status is not EntryStatus.UNKNOWN:
            raise NotFinishable(
                f"{_name(entry)} is {entry.status.value}: only a write whose outcome is unknown is resolved",
                transaction_id=transaction_id,
            )
        outcome = "applied" if applied else "failed"
        settled_entry = advance(
            entry,
            EntryStatus.APPLIED if applied else EntryStatus.FAILED,
            self.clock.now(),
            error=None if applied else f"resolved by {by}: not applied upstream (was: {entry.error})",
            error_class=None if applied else entry.error_class,
        )
        if not await self.outbox.swap(EntryStatus.UNKNOWN, settled_entry):
            raise NotFinishable(
                f"{_name(entry)} of {transaction_id} changed meanwhile", transaction_id=transaction_id
            )
        log.warning("%s resolved %s of %s as %s", by, _name(entry), transaction_id, outcome)
        return commit_report(transaction_id, await self._scrubbed(transaction_id))

    # -- rollback --------------------------------------------------------------------------

    async def undo(self, transaction_id: str) -> UpstreamReport | None:
        """Discard the held writes and compensate the applied passthrough ones, newest first."""
        entries = await self.outbox.entries(transaction_id)
        if not entries:
            return None
        for entry in entries:
            if entry.status is EntryStatus.HELD:
                await self.outbox.save(advance(entry, EntryStatus.DISCARDED, self.clock.now()))
            elif entry.status is EntryStatus.SENDING:
                await self.outbox.save(
                    advance(
                        entry,
                        EntryStatus.UNKNOWN,
                        self.clock.now(),
                        error_class=ErrorClass.TIMEOUT,
                        error="the guard stopped before the upstream answered",
                    )
                )
        for entry in reversed(entries):
            if entry.mode == "passthrough" and entry.status is EntryStatus.APPLIED:
                await self.outbox.save(await self._compensate(entry))
        return rollback_report(transaction_id, await self._scrubbed(transaction_id))

    async def _scrubbed(self, transaction_id: str) -> list[OutboxEntry]:
        """The transaction's entries, those that are settled with their ``audit.redact`` paths redacted.

        An entry still to be sent (ready, dispatching) keeps its arguments: it must still go out whole.
        """
        entries = await self.outbox.entries(transaction_id)
        if not self._redactor:
            return entries
        scrubbed = []
        for entry in entries:
            if entry.status not in _LIVE:
                arguments = self._redactor.arguments(entry.tool, entry.arguments)
                result = self._redactor.result(entry.tool, entry.result)
                if arguments != entry.arguments or result != entry.result:
                    entry = replace(entry, arguments=arguments, result=result)
                    await self.outbox.save(entry)
            scrubbed.append(entry)
        return scrubbed

    async def _compensate(self, entry: OutboxEntry) -> OutboxEntry:
        policy = self._policies().get(entry.tool)
        undo = policy.compensate if policy is not None else None
        now = self.clock.now()
        if undo is None:
            return advance(entry, EntryStatus.IRREVERSIBLE, now, error="no compensating tool is configured")
        spec = self._specs().get(undo.tool)
        try:
            arguments = build_arguments(undo.arguments, entry.arguments, entry.result)
            if spec is not None:
                arguments = spec.validate(arguments)
        except (LookupError, InvalidArguments) as exc:
            reason = exc.message if isinstance(exc, InvalidArguments) else str(exc.args[0])
            return advance(
                entry, EntryStatus.IRREVERSIBLE, now, error=f"cannot build the call to {undo.tool}: {reason}"
            )
        assert isinstance(arguments, dict)
        _, retried = await self._send(
            entry, undo.tool, arguments, write_meta(entry, ":undo"), self._safe(undo.tool), track=False
        )
        status, error_class, error = settled(retried)
        if status is EntryStatus.APPLIED:
            return advance(entry, EntryStatus.COMPENSATED, self.clock.now())
        return advance(
            entry,
            EntryStatus.IRREVERSIBLE,
            self.clock.now(),
            error_class=error_class,
            error=f"{undo.tool} did not undo it ({status.value}): {error}",
        )


def _listing(entries: Sequence[OutboxEntry], *, detail: bool) -> str:
    if not detail:
        return ", ".join(_name(e) for e in entries)
    return ", ".join(f"{_name(e)}: {e.error_class + ': ' if e.error_class else ''}{e.error}" for e in entries)


def _report(
    transaction_id: str,
    action: Literal["commit", "rollback"],
    entries: Sequence[OutboxEntry],
    complete: bool,
    parts: Sequence[str],
) -> UpstreamReport:
    return UpstreamReport(
        transaction_id, action, complete, tuple(e.report() for e in entries), "; ".join(p for p in parts if p)
    )


def commit_report(transaction_id: str, entries: Sequence[OutboxEntry]) -> UpstreamReport:
    """What a commit's dispatch came to; complete when every deferred write was applied."""
    deferred = [e for e in entries if e.mode == "defer" and e.status is not EntryStatus.DISCARDED]
    withdrawn = [e for e in entries if e.mode == "defer" and e.status is EntryStatus.DISCARDED]
    applied = [e for e in deferred if e.status is EntryStatus.APPLIED]
    failed = [e for e in deferred if e.status is EntryStatus.FAILED]
    unknown = [e for e in deferred if e.status is EntryStatus.UNKNOWN]
    skipped = [e for e in deferred if e.status is EntryStatus.SKIPPED]
    pending = [e for e in deferred if e.status in UNSETTLED]
    passed = [e for e in entries if e.mode == "passthrough" and e.status is EntryStatus.APPLIED]
    complete = len(applied) == len(deferred)
    head = (
        f"the upstream applied {len(applied)} of {len(deferred)} deferred write(s)"
        if deferred
        else "no deferred writes"
    )
    parts = [
        head,
        f"applied: {_listing(applied, detail=False)}" if applied and not complete else "",
        f"failed: {_listing(failed, detail=True)}" if failed else "",
        f"outcome unknown (may have been applied): {_listing(unknown, detail=True)}" if unknown else "",
        f"not sent: {_listing(skipped, detail=False)}" if skipped else "",
        f"still in the outbox: {_listing(pending, detail=False)}" if pending else "",
        f"{len(passed)} passthrough write(s) were applied when called" if passed else "",
        f"withdrawn before commit, not sent: {_listing(withdrawn, detail=False)}" if withdrawn else "",
    ]
    return _report(transaction_id, "commit", entries, complete, parts)


def rollback_report(transaction_id: str, entries: Sequence[OutboxEntry]) -> UpstreamReport:
    """What a rollback came to; complete when nothing it could not undo reached the upstream."""
    discarded = [e for e in entries if e.status is EntryStatus.DISCARDED]
    undone = [e for e in entries if e.status is EntryStatus.COMPENSATED]
    kept = [e for e in entries if e.status is EntryStatus.IRREVERSIBLE]
    unknown = [e for e in entries if e.mode == "passthrough" and e.status is EntryStatus.UNKNOWN]
    parts = [
        f"discarded {len(discarded)} held write(s)" if discarded else "",
        f"undone: {_listing(undone, detail=False)}" if undone else "",
        f"not undone: {_listing(kept, detail=True)}" if kept else "",
        f"outcome unknown, not undone: {_listing(unknown, detail=False)}" if unknown else "",
    ]
    if not any(parts):
        parts = ["nothing reached the upstream"]
    return _report(transaction_id, "rollback", entries, not kept and not unknown, parts)
