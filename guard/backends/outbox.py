"""The outbox: the writes of ``mcp`` transactions, durable in the guard's own database.

Every write an ``mcp`` transaction makes is one entry, in call order (``seq``),
named by its idempotency key (sent upstream in ``_meta``). A deferred write::

    held ──commit allowed──▶ ready ──▶ dispatching ──▶ applied
                                                  ├──▶ failed    the upstream refused it, or a failure
                                                  │              that certainly did not apply persisted
                                                  └──▶ unknown   an ambiguous failure, not safe to repeat
         ready ──an earlier write did not apply──▶ skipped
    held ──rollback / abort──▶ discarded

A committed write that did not apply is finished by an operator (``guard transactions resume`` and
``resolve``)::

    failed | skipped ──resume──▶ ready ──▶ …        (sent again, in order)
    unknown ──resolve──▶ applied | failed            (the operator checked the upstream)

A passthrough write (sent at once)::

    sending ──▶ applied | failed | unknown        (a retry of the same call sends again)
    applied ──rollback──▶ compensated | irreversible

``committed_at`` is stamped on every entry of a transaction when its commit is
decided; from then on the entries are the commit's, and any replica whose
lease on them has run out may finish dispatching them. :class:`MemoryOutbox`
is the in-memory store; :class:`guard.store.sql_outbox.SqlOutbox` the durable one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal, Protocol

from judges.classify import ErrorClass

__all__ = [
    "IDEMPOTENCY_KEY",
    "UNSETTLED",
    "EntryStatus",
    "MemoryOutbox",
    "Mode",
    "Outbox",
    "OutboxEntry",
    "advance",
]

IDEMPOTENCY_KEY = "guard/idempotency-key"
"""The ``_meta`` key of every write the guard sends upstream; stable per outbox entry."""

Mode = Literal["defer", "passthrough"]


class EntryStatus(StrEnum):
    HELD = "held"
    READY = "ready"
    DISPATCHING = "dispatching"
    SENDING = "sending"
    APPLIED = "applied"
    FAILED = "failed"
    UNKNOWN = "unknown"
    SKIPPED = "skipped"
    DISCARDED = "discarded"
    COMPENSATED = "compensated"
    IRREVERSIBLE = "irreversible"


_S = EntryStatus
_NEXT: dict[EntryStatus, frozenset[EntryStatus]] = {
    _S.HELD: frozenset({_S.READY, _S.DISCARDED}),
    _S.READY: frozenset({_S.DISPATCHING, _S.SKIPPED, _S.UNKNOWN}),
    _S.DISPATCHING: frozenset({_S.DISPATCHING, _S.APPLIED, _S.FAILED, _S.UNKNOWN, _S.SKIPPED}),
    _S.SENDING: frozenset({_S.APPLIED, _S.FAILED, _S.UNKNOWN}),
    _S.APPLIED: frozenset({_S.COMPENSATED, _S.IRREVERSIBLE}),
    _S.FAILED: frozenset({_S.SENDING, _S.READY}),
    _S.UNKNOWN: frozenset({_S.SENDING, _S.APPLIED, _S.FAILED}),
    _S.SKIPPED: frozenset({_S.READY}),
}
UNSETTLED = frozenset({_S.READY, _S.DISPATCHING})
"""Statuses of a committed write that has not reached the upstream for certain yet."""


def _utc(value: datetime | None) -> datetime | None:
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class OutboxEntry:
    """One write of a transaction, as the outbox holds it."""

    key: str
    transaction_id: str
    seq: int
    tool: str
    arguments: dict[str, Any]
    mode: Mode
    status: EntryStatus
    instance: str
    created_at: datetime
    updated_at: datetime
    attempts: int = 0
    error_class: ErrorClass | None = None
    error: str | None = None
    result: Any = None
    committed_at: datetime | None = None
    lease_until: datetime | None = None

    def __post_init__(self) -> None:
        for name in ("created_at", "updated_at", "committed_at", "lease_until"):
            object.__setattr__(self, name, _utc(getattr(self, name)))

    def report(self) -> dict[str, Any]:
        """The entry as the commit reply and the audit log show it (an applied write with the upstream's
        result, so that what it created, its ids, reach the agent)."""
        shown: dict[str, Any] = {
            "seq": self.seq,
            "tool": self.tool,
            "idempotency_key": self.key,
            "mode": self.mode,
            "status": self.status.value,
            "attempts": self.attempts,
        }
        if self.error is not None:
            shown["error_class"] = self.error_class
            shown["error"] = self.error
        if self.status is EntryStatus.APPLIED and self.result is not None:
            shown["result"] = self.result
        return shown


def advance(entry: OutboxEntry, status: EntryStatus, at: datetime, **changes: Any) -> OutboxEntry:
    """The entry moved to ``status``; ``ValueError`` when the outbox's state machine forbids the move."""
    if status not in _NEXT.get(entry.status, frozenset()):
        raise ValueError(f"outbox entry {entry.key}: {entry.status.value} cannot become {status.value}")
    return replace(entry, status=status, updated_at=at, **changes)


class Outbox(Protocol):
    """Where the writes of ``mcp`` transactions are kept."""

    async def add(self, entry: OutboxEntry) -> None:
        """Record a new entry (its key is new)."""
        ...

    async def save(self, entry: OutboxEntry) -> None:
        """Replace the entry with the same key."""
        ...

    async def entries(self, transaction_id: str) -> list[OutboxEntry]:
        """The transaction's entries in call order."""
        ...

    async def swap(self, was: EntryStatus, entry: OutboxEntry) -> bool:
        """Replace the entry with the same key if it is still ``was``; whether it was (a compare-and-set,
        so that two guards finishing the same commit cannot both send a write)."""
        ...

    async def seal(self, transaction_id: str, instance: str, at: datetime, lease_until: datetime) -> None:
        """Decide the commit, atomically: stamp ``committed_at`` on every entry, held ones become ready."""
        ...

    async def claim(self, instance: str, now: datetime, lease_until: datetime, *, own: bool) -> list[str]:
        """Take over committed transactions with unsettled entries whose lease ran out; their ids.

        With ``own`` also those this instance held before (its previous process is gone).
        """
        ...

    async def orphans(self, instance: str) -> list[str]:
        """Transactions this instance left open: uncommitted entries still held, sending or applied."""
        ...

    async def close(self) -> None: ...


@dataclass
class MemoryOutbox:
    """An :class:`Outbox` held in memory (tests, and guards that may lose buffered writes)."""

    rows: dict[str, OutboxEntry] = field(default_factory=dict)

    async def add(self, entry: OutboxEntry) -> None:
        if entry.key in self.rows:
            raise ValueError(f"outbox entry {entry.key} exists")
        self.rows[entry.key] = entry

    async def save(self, entry: OutboxEntry) -> None:
        if entry.key not in self.rows:
            raise KeyError(f"no outbox entry {entry.key}")
        self.rows[entry.key] = entry

    async def swap(self, was: EntryStatus, entry: OutboxEntry) -> bool:
        current = self.rows.get(entry.key)
        if current is None or current.status is not was:
            return False
        self.rows[entry.key] = entry
        return True

    async def entries(self, transaction_id: str) -> list[OutboxEntry]:
        return sorted(
            (e for e in self.rows.values() if e.transaction_id == transaction_id), key=lambda e: e.seq
        )

    async def seal(self, transaction_id: str, instance: str, at: datetime, lease_until: datetime) -> None:
        for entry in await self.entries(transaction_id):
            status = EntryStatus.READY if entry.status is EntryStatus.HELD else entry.status
            self.rows[entry.key] = replace(
                entry,
                status=status,
                committed_at=at,
                instance=instance,
                lease_until=lease_until,
                updated_at=at,
            )

    async def claim(self, instance: str, now: datetime, lease_until: datetime, *, own: bool) -> list[str]:
        claimed: dict[str, None] = {}
        for entry in list(self.rows.values()):
            if entry.status not in UNSETTLED:
                continue
            expired = entry.lease_until is None or entry.lease_until < now
            if expired or (own and entry.instance == instance):
                claimed[entry.transaction_id] = None
        for ident in claimed:
            for entry in await self.entries(ident):
                if entry.status in UNSETTLED:
                    self.rows[entry.key] = replace(entry, instance=instance, lease_until=lease_until)
        return list(claimed)

    async def orphans(self, instance: str) -> list[str]:
        open_statuses = (EntryStatus.HELD, EntryStatus.SENDING, EntryStatus.APPLIED)
        found = {
            e.transaction_id: None
            for e in sorted(self.rows.values(), key=lambda e: e.created_at)
            if e.instance == instance and e.committed_at is None and e.status in open_statuses
        }
        return list(found)

    async def close(self) -> None:
        return None
