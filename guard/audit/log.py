"""The audit log's records and its seam; :class:`MemoryAudit` is the in-memory implementation.

The SQL implementation is :class:`guard.store.sql_audit.SqlAudit`. What the log
promises, and the order the manager writes in so that it holds after a crash:

* the transaction row is written once its transaction has begun on the
  backend (a failed begin leaves no row and does not use up the key);
* a call is durable in the log before its reply leaves the guard
  (:meth:`Audit.record_call` returns only then);
* a commit attempt and its transaction's status are written together
  (:meth:`Audit.record_commit`); an allowed attempt is written as
  ``committing`` *before* the system of record commits, and settled
  afterwards, so that recovery finds every decision to commit and can ask
  the system of record whether it happened (:mod:`guard.transaction.recovery`).

The conversation the agent's host handed over (:mod:`guard.transaction.conversation`) is
kept where it was handed over: a call's ``turns`` (said before it), a commit
attempt's ``turns`` (said before it), and a transaction's ``rollback_turns``
(said before the agent rolled it back); each is None when the host sent none
with that request and ``[]`` when it sent an empty list, redacted as
``audit.redact`` says (:meth:`guard.audit.redact.Redactor.turns`).

Replicas share one log: :meth:`Audit.owner_of` says which instance opened a key's
transaction, so that a replica refuses a key another one holds (requirement G33).

Besides the statuses of :class:`~guard.transaction.state.Status`, the listing
takes two filters: ``blocked`` (a transaction with a blocked attempt) and
``would_block`` (:func:`would_block`, shadow mode: an attempt that committed
although a shadowed finding would have stopped it). Both are read from the
rows the log already keeps; ``would_block`` needs no column of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal, Protocol

from guard.transaction.state import CommitStatus, Status, TxnState, Via
from judges import Decision, Effect, Finding, Severity
from judges.classify import ErrorClass

__all__ = [
    "BLOCKED",
    "LISTING_FILTERS",
    "UNSETTLED_STATUSES",
    "WOULD_BLOCK",
    "Audit",
    "CallEntry",
    "CommitEntry",
    "MemoryAudit",
    "TxnDetail",
    "TxnOwner",
    "TxnRecord",
    "would_block",
]

WOULD_BLOCK = "would_block"
"""The listing filter for transactions with a :func:`would_block` attempt."""
BLOCKED = "blocked"
"""The listing filter for transactions with a blocked attempt."""
LISTING_FILTERS = (*(status.value for status in Status), BLOCKED, WOULD_BLOCK)
"""Every ``status`` :meth:`Audit.list_transactions` takes, in the order a user is shown them."""


def would_block(status: CommitStatus, findings: Iterable[Mapping[str, Any]]) -> bool:
    """Whether an attempt is a would-block: it committed, and a shadowed finding would have stopped it.

    Stopped means blocked or escalated (held for a reviewer): a shadowed
    ``block`` or ``escalate`` finding counts, a shadowed warning does not.
    ``findings`` are in the log's form (:meth:`judges.Finding.to_dict`).
    """
    return status is CommitStatus.COMMITTED and any(
        f.get("shadow") is True and f.get("severity") != Severity.WARN for f in findings
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class TxnRecord:
    id: str
    principal: str
    instance: str
    backend: str
    status: Status
    opened_at: datetime
    updated_at: datetime
    closed_at: datetime | None = None
    close_reason: str | None = None
    calls: int = 0
    blocked_attempts: int = 0
    summary: str | None = None
    rollback_turns: list[dict[str, Any]] | None = None
    claims: dict[str, Any] | None = None
    """The claims of the principal's token the guard keeps (``auth.jwt.claims``); None: a static token."""

    @classmethod
    def opened(
        cls,
        transaction_id: str,
        principal: str,
        instance: str,
        backend: str,
        at: datetime,
        claims: Mapping[str, Any] | None = None,
    ) -> TxnRecord:
        """The row of a transaction that has just begun."""
        return cls(
            id=transaction_id,
            principal=principal,
            instance=instance,
            backend=backend,
            status=Status.OPEN,
            opened_at=at,
            updated_at=at,
            claims=dict(claims) if claims else None,
        )

    def following(self, state: TxnState, at: datetime, **changes: Any) -> TxnRecord:
        """This row brought up to ``state`` (its status and counts) at ``at``, with ``changes``."""
        now = {"status": state.status, "calls": state.calls, "blocked_attempts": state.blocked}
        return replace(self, **{**now, "updated_at": at, **changes})

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "principal": self.principal,
            "claims": self.claims,
            "instance": self.instance,
            "backend": self.backend,
            "status": self.status.value,
            "opened_at": self.opened_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "closed_at": self.closed_at.isoformat() if self.closed_at else None,
            "close_reason": self.close_reason,
            "calls": self.calls,
            "blocked_attempts": self.blocked_attempts,
            "summary": self.summary,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class CallEntry:
    transaction_id: str
    seq: int
    tool: str
    arguments: dict[str, Any]
    write: bool
    outcome: Literal["ok", "error"]
    error_class: ErrorClass | None
    error_message: str | None
    retries: int
    latency_ms: float
    started_at: datetime
    turns: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "tool": self.tool,
            "arguments": self.arguments,
            "write": self.write,
            "outcome": self.outcome,
            "error_class": self.error_class,
            "error_message": self.error_message,
            "retries": self.retries,
            "latency_ms": round(self.latency_ms, 3),
            "started_at": self.started_at.isoformat(),
            "turns": self.turns,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitEntry:
    """One commit attempt, as the log keeps it; ``dispatch`` is what an ``mcp`` commit sent upstream.

    ``status`` is ``committing`` from the decision to commit until the system
    of record has answered; then the attempt's outcome. ``findings`` and
    ``effects`` are kept as they were serialised then (:meth:`of` is that
    serialiser), so that the log shows what the gate saw.
    """

    transaction_id: str
    attempt: int
    via: Via
    decision: Decision
    status: CommitStatus
    findings: list[dict[str, Any]]
    effects: list[dict[str, Any]]
    summary: str | None
    at: datetime
    duration_ms: float = 0.0
    dispatch: list[dict[str, Any]] | None = None
    turns: list[dict[str, Any]] | None = None

    @classmethod
    def of(
        cls,
        transaction_id: str,
        attempt: int,
        *,
        via: Via,
        decision: Decision,
        status: CommitStatus,
        findings: Sequence[Finding],
        effects: Sequence[Effect],
        summary: str | None,
        at: datetime,
    ) -> CommitEntry:
        """The log's record of an attempt, from the gate's typed findings and effects."""
        return cls(
            transaction_id=transaction_id,
            attempt=attempt,
            via=via,
            decision=decision,
            status=status,
            findings=[f.to_dict() for f in findings],
            effects=[e.to_dict() for e in effects],
            summary=summary,
            at=at,
        )

    def to_dict(self) -> dict[str, Any]:
        shown = {
            "attempt": self.attempt,
            "via": self.via,
            "decision": self.decision.value,
            "status": self.status.value,
            "findings": self.findings,
            "effects": self.effects,
            "summary": self.summary,
            "at": self.at.isoformat(),
            "duration_ms": round(self.duration_ms, 3),
            "turns": self.turns,
        }
        if self.dispatch is not None:
            shown["dispatch"] = self.dispatch
        if self.would_block:
            shown["would_block"] = True
        return shown

    @property
    def would_block(self) -> bool:
        """The attempt committed though a shadowed finding would have stopped it (:func:`would_block`)."""
        return would_block(self.status, self.findings)


@dataclass(frozen=True, slots=True)
class TxnDetail:
    transaction: TxnRecord
    calls: tuple[CallEntry, ...]
    commits: tuple[CommitEntry, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.transaction.to_dict(),
            "call_log": [c.to_dict() for c in self.calls],
            "commit_log": [c.to_dict() for c in self.commits],
            "rollback_turns": self.transaction.rollback_turns,
        }


UNSETTLED_STATUSES = frozenset({Status.OPEN, Status.PENDING_APPROVAL, Status.COMMITTING})
"""Statuses of a transaction whose end the log does not know yet (recovery settles them)."""


@dataclass(frozen=True, slots=True)
class TxnOwner:
    """Which guard instance a key's transaction belongs to, and where it stands (:meth:`Audit.owner_of`)."""

    instance: str
    status: Status

    def held_by_other(self, instance: str) -> bool:
        """Whether another instance holds the transaction still unsettled (open, pending or committing)."""
        return self.instance != instance and self.status in UNSETTLED_STATUSES


class Audit(Protocol):
    async def open_transaction(self, record: TxnRecord) -> None:
        """Write a new transaction's row; ``ValueError`` when its id is already in the log."""
        ...

    async def update_transaction(self, record: TxnRecord) -> None: ...

    async def record_call(self, entry: CallEntry) -> None:
        """Write a call; it is durable when this returns."""
        ...

    async def record_commit(self, entry: CommitEntry, record: TxnRecord, *more: CommitEntry) -> None:
        """Write (or rewrite) commit attempts (``entry``, then ``more``) and their transaction's row,
        all in one database transaction."""
        ...

    async def unsettled(self, instance: str) -> list[TxnRecord]:
        """The transactions of ``instance`` whose end is not recorded (:data:`UNSETTLED_STATUSES`)."""
        ...

    async def status_of(self, transaction_id: str) -> Status | None: ...

    async def owner_of(self, transaction_id: str) -> TxnOwner | None:
        """The instance that opened the transaction and its status; ``None`` when the key is unused."""
        ...

    async def list_transactions(self, status: str | None = None, limit: int = 100) -> list[TxnRecord]:
        """Newest first; besides a status, ``blocked`` and ``would_block`` (see the module docstring)."""
        ...

    async def get_transaction(self, transaction_id: str) -> TxnDetail | None: ...

    async def close(self) -> None: ...


@dataclass
class MemoryAudit:
    """An :class:`Audit` held in memory (tests, and runs that keep no log)."""

    transactions: dict[str, TxnRecord] = field(default_factory=dict)
    calls: list[CallEntry] = field(default_factory=list)
    commits: dict[tuple[str, int], CommitEntry] = field(default_factory=dict)

    async def open_transaction(self, record: TxnRecord) -> None:
        if record.id in self.transactions:
            raise ValueError(f"transaction {record.id} already recorded")
        self.transactions[record.id] = record

    async def update_transaction(self, record: TxnRecord) -> None:
        self.transactions[record.id] = record

    async def record_call(self, entry: CallEntry) -> None:
        self.calls.append(entry)

    async def record_commit(self, entry: CommitEntry, record: TxnRecord, *more: CommitEntry) -> None:
        for each in (entry, *more):
            self.commits[(each.transaction_id, each.attempt)] = each
        self.transactions[record.id] = record

    async def unsettled(self, instance: str) -> list[TxnRecord]:
        return [
            r for r in self.transactions.values() if r.instance == instance and r.status in UNSETTLED_STATUSES
        ]

    async def status_of(self, transaction_id: str) -> Status | None:
        record = self.transactions.get(transaction_id)
        return None if record is None else record.status

    async def owner_of(self, transaction_id: str) -> TxnOwner | None:
        record = self.transactions.get(transaction_id)
        return None if record is None else TxnOwner(record.instance, record.status)

    async def list_transactions(self, status: str | None = None, limit: int = 100) -> list[TxnRecord]:
        rows: Sequence[TxnRecord] = sorted(
            self.transactions.values(), key=lambda r: r.opened_at, reverse=True
        )
        if status == BLOCKED:
            rows = [r for r in rows if r.blocked_attempts > 0]
        elif status == WOULD_BLOCK:
            shadowed = {ident for (ident, _), c in self.commits.items() if c.would_block}
            rows = [r for r in rows if r.id in shadowed]
        elif status is not None:
            rows = [r for r in rows if r.status == status]
        return list(rows[:limit])

    async def get_transaction(self, transaction_id: str) -> TxnDetail | None:
        record = self.transactions.get(transaction_id)
        if record is None:
            return None
        commits = sorted(
            (c for (ident, _), c in self.commits.items() if ident == transaction_id), key=lambda c: c.attempt
        )
        return TxnDetail(
            record, tuple(c for c in self.calls if c.transaction_id == transaction_id), tuple(commits)
        )

    async def close(self) -> None:
        return None
