"""The audit log's records and its seam; :class:`MemoryAudit` is the in-memory implementation.

The SQL implementation is :class:`guard.store.audit.SqlAudit`. Call records
may be buffered and written in batches (``flush``); the transaction row is
written when the transaction opens, so that a crash leaves a live row that
the next start marks ``aborted``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

__all__ = ["Audit", "CallEntry", "CommitEntry", "MemoryAudit", "TxnDetail", "TxnRecord"]


@dataclass(frozen=True, slots=True)
class TxnRecord:
    id: str
    principal: str
    instance: str
    backend: str
    status: str
    opened_at: datetime
    updated_at: datetime
    closed_at: datetime | None = None
    close_reason: str | None = None
    calls: int = 0
    blocked_attempts: int = 0
    summary: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "principal": self.principal,
            "instance": self.instance,
            "backend": self.backend,
            "status": self.status,
            "opened_at": self.opened_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "closed_at": self.closed_at.isoformat() if self.closed_at else None,
            "close_reason": self.close_reason,
            "calls": self.calls,
            "blocked_attempts": self.blocked_attempts,
            "summary": self.summary,
        }


@dataclass(frozen=True, slots=True)
class CallEntry:
    transaction_id: str
    seq: int
    tool: str
    arguments: dict[str, Any]
    write: bool
    outcome: str
    error_class: str | None
    error_message: str | None
    retries: int
    latency_ms: float
    started_at: datetime

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
        }


@dataclass(frozen=True, slots=True)
class CommitEntry:
    """One commit attempt; ``dispatch`` is what an ``mcp`` commit sent upstream, write by write."""

    transaction_id: str
    attempt: int
    via: str
    decision: str
    status: str
    findings: list[dict[str, Any]]
    effects: list[dict[str, Any]]
    summary: str | None
    at: datetime
    duration_ms: float
    dispatch: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        shown = {
            "attempt": self.attempt,
            "via": self.via,
            "decision": self.decision,
            "status": self.status,
            "findings": self.findings,
            "effects": self.effects,
            "summary": self.summary,
            "at": self.at.isoformat(),
            "duration_ms": round(self.duration_ms, 3),
        }
        if self.dispatch is not None:
            shown["dispatch"] = self.dispatch
        return shown


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
        }


class Audit(Protocol):
    async def open_transaction(self, record: TxnRecord) -> None: ...

    async def update_transaction(self, record: TxnRecord) -> None: ...

    def record_call(self, entry: CallEntry) -> None:
        """Queue a call record; it is written by the next ``flush`` at the latest."""
        ...

    async def record_commit(self, entry: CommitEntry) -> None: ...

    async def flush(self) -> None: ...

    async def abort_live(self, instance: str, reason: str, at: datetime) -> list[str]:
        """Mark every live transaction of ``instance`` aborted; returns their ids."""
        ...

    async def status_of(self, transaction_id: str) -> str | None: ...

    async def list_transactions(self, status: str | None = None, limit: int = 100) -> list[TxnRecord]:
        """Newest first. ``status="blocked"`` means transactions with at least one blocked attempt."""
        ...

    async def get_transaction(self, transaction_id: str) -> TxnDetail | None: ...

    async def close(self) -> None: ...


LIVE_STATUSES = ("open", "pending_approval")


@dataclass
class MemoryAudit:
    """An :class:`Audit` held in memory (tests, and runs that keep no log)."""

    transactions: dict[str, TxnRecord] = field(default_factory=dict)
    calls: list[CallEntry] = field(default_factory=list)
    commits: list[CommitEntry] = field(default_factory=list)
    pending: list[CallEntry] = field(default_factory=list)

    async def open_transaction(self, record: TxnRecord) -> None:
        if record.id in self.transactions:
            raise ValueError(f"transaction {record.id} already recorded")
        self.transactions[record.id] = record

    async def update_transaction(self, record: TxnRecord) -> None:
        self.transactions[record.id] = record

    def record_call(self, entry: CallEntry) -> None:
        self.pending.append(entry)

    async def record_commit(self, entry: CommitEntry) -> None:
        self.commits.append(entry)

    async def flush(self) -> None:
        self.calls.extend(self.pending)
        self.pending.clear()

    async def abort_live(self, instance: str, reason: str, at: datetime) -> list[str]:
        ids = [
            r.id for r in self.transactions.values() if r.instance == instance and r.status in LIVE_STATUSES
        ]
        for ident in ids:
            self.transactions[ident] = replace(
                self.transactions[ident], status="aborted", close_reason=reason, closed_at=at, updated_at=at
            )
        return ids

    async def status_of(self, transaction_id: str) -> str | None:
        record = self.transactions.get(transaction_id)
        return None if record is None else record.status

    async def list_transactions(self, status: str | None = None, limit: int = 100) -> list[TxnRecord]:
        rows: Sequence[TxnRecord] = sorted(
            self.transactions.values(), key=lambda r: r.opened_at, reverse=True
        )
        if status == "blocked":
            rows = [r for r in rows if r.blocked_attempts > 0]
        elif status is not None:
            rows = [r for r in rows if r.status == status]
        return list(rows[:limit])

    async def get_transaction(self, transaction_id: str) -> TxnDetail | None:
        record = self.transactions.get(transaction_id)
        if record is None:
            return None
        await self.flush()
        return TxnDetail(
            record,
            tuple(c for c in self.calls if c.transaction_id == transaction_id),
            tuple(c for c in self.commits if c.transaction_id == transaction_id),
        )

    async def close(self) -> None:
        await self.flush()
