"""What the manager holds for each open transaction, and the locks that serialise opening a key."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from opentelemetry.trace import Span

from guard.audit.log import CallEntry, CommitEntry, TxnRecord
from guard.backends.base import Session, UpstreamReport
from guard.tools import Tool
from guard.transaction.conversation import Conversation, turns_data
from guard.transaction.limits import Quota
from guard.transaction.replies import CommitReply, ToolReply, enforced
from guard.transaction.state import CommitStatus, TxnState, Via
from judges import CallRecord, Decision, Effect, Finding, Turn

__all__ = ["Asked", "Attempt", "KeyLocks", "LiveTxn", "quietly"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Asked:
    """One call as the agent asked for it: the tool, its arguments (as the log keeps them), and the
    conversation's turns the host handed over with it (None: none)."""

    spec: Tool
    arguments: dict[str, Any]
    turns: tuple[Turn, ...] | None = None

    def record(self, ok: bool, error_class: str | None, error_message: str | None) -> CallRecord:
        """The call as the trace judges read it."""
        spec = self.spec
        return CallRecord(
            spec.name, self.arguments, spec.write, ok, error_class, error_message, self.turns or ()
        )

    def entry(
        self,
        transaction_id: str,
        seq: int,
        reply: ToolReply,
        error_message: str | None,
        started_at: datetime,
        retries: int,
        latency_ms: float,
    ) -> CallEntry:
        """The log's record of the call, answered with ``reply`` (as asked: the ledger redacts it)."""
        return CallEntry(
            transaction_id=transaction_id,
            seq=seq,
            tool=self.spec.name,
            arguments=self.arguments,
            write=self.spec.write,
            outcome="error" if reply.is_error else "ok",
            error_class=reply.error_class,
            error_message=error_message,
            retries=retries,
            latency_ms=latency_ms,
            started_at=started_at,
            turns=turns_data(self.turns),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Attempt:
    """One commit attempt as the gate decided it: typed until the log's record (:meth:`entry`).

    ``turns`` are the conversation's turns the host handed over with it (None: none).
    """

    number: int
    via: Via
    decision: Decision
    findings: tuple[Finding, ...]
    effects: tuple[Effect, ...]
    summary: str | None
    at: datetime
    started: float
    """The monotonic clock's reading when the attempt began (its duration is measured from it)."""
    turns: tuple[Turn, ...] | None = None

    def entry(
        self,
        transaction_id: str,
        status: CommitStatus,
        ended: float,
        *,
        dispatch: list[dict[str, Any]] | None = None,
    ) -> CommitEntry:
        """The log's record of this attempt, ended (for now) at ``status`` when the monotonic clock read
        ``ended``."""
        entry = CommitEntry.of(
            transaction_id,
            self.number,
            via=self.via,
            decision=self.decision,
            status=status,
            findings=self.findings,
            effects=self.effects,
            summary=self.summary,
            at=self.at,
        )
        duration_ms = (ended - self.started) * 1000
        return replace(entry, duration_ms=duration_ms, dispatch=dispatch, turns=turns_data(self.turns))


def diff_hash(effects: Sequence[Effect]) -> str:
    """The pending changes as one hash: the same changes, the same hash, in any process."""
    text = json.dumps([e.to_dict() for e in effects], sort_keys=True, default=str, ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Binding:
    """What an approval is asked for, and is valid for only: the pending changes (``diff``), the findings
    that asked, the policies (judges and rule pack versions) that judged, how many people must approve,
    and until when; ``approved_by``, those who have."""

    diff: str
    findings: tuple[str, ...]
    policies: tuple[str, ...]
    reviewers: int
    expires_at: datetime
    approved_by: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "diff": self.diff,
            "findings": list(self.findings),
            "policies": list(self.policies),
            "reviewers": self.reviewers,
            "approved_by": list(self.approved_by),
            "expires_at": self.expires_at.isoformat(),
        }


@dataclass(eq=False)
class LiveTxn:
    """One open transaction as the manager holds it: its state, its backend session, what it did,
    and what its host said (``conversation``: each recorded call's turns, then each commit attempt's)."""

    state: TxnState
    session: Session
    span: Span
    record: TxnRecord
    quota: Quota
    """The agent's limits as they were when it opened the transaction (its token's claims then)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    trace: list[CallRecord] = field(default_factory=list)
    attempts: int = 0
    logged: int = 0
    argument_bytes: int = 0
    escalated: Attempt | None = None
    conversation: Conversation = field(default_factory=Conversation)
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the transaction has ended (committed, rolled back, aborted): a held commit's waiters wake."""
    binding: Binding | None = None
    """While a commit waits for review: what its approval is bound to."""

    def next_seq(self) -> int:
        """The audit log's number for this transaction's next call record."""
        self.logged += 1
        return self.logged

    def reply(
        self,
        status: CommitStatus,
        attempt: Attempt | None,
        message: str,
        *,
        max_blocked: int,
        report: UpstreamReport | None = None,
    ) -> CommitReply:
        """The commit (or rollback) reply as the transaction stands: the attempt's effects and enforced
        findings, and the blocked attempts it has left of ``max_blocked`` while it lives."""
        return CommitReply(
            status=status,
            transaction=self.state.id,
            effects=() if attempt is None else attempt.effects,
            findings=() if attempt is None else enforced(attempt.findings),
            attempts_left=max(max_blocked - self.state.blocked, 0) if self.state.live else 0,
            message=message,
            dispatch=None if report is None else list(report.writes),
        )


class KeyLocks:
    """One lock per key being opened, dropped when its last holder or waiter leaves (no leak on refusal)."""

    def __init__(self) -> None:
        self._held: dict[str, tuple[asyncio.Lock, int]] = {}

    def __len__(self) -> int:
        return len(self._held)

    @contextlib.asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock, users = self._held.get(key, (asyncio.Lock(), 0))
        self._held[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._held[key]
            if users == 1:
                del self._held[key]
            else:
                self._held[key] = (lock, users - 1)


async def quietly(work: Awaitable[UpstreamReport | None]) -> UpstreamReport | None:
    """A rollback's report upstream, or None when it failed (logged, never raised)."""
    try:
        return await work
    except Exception:
        log.exception("rollback failed; the database discards the transaction when the connection closes")
        return None
