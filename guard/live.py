"""What the manager holds for each open transaction, and the locks that serialise opening a key."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from opentelemetry.trace import Span

from guard.audit import CommitEntry, TxnRecord
from guard.backends.base import Session
from guard.transactions import TxnState
from judges import CallRecord

__all__ = ["KeyLocks", "LiveTxn"]


@dataclass(eq=False)
class LiveTxn:
    """One open transaction as the manager holds it: its state, its backend session, what it did."""

    state: TxnState
    session: Session
    span: Span
    record: TxnRecord
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    trace: list[CallRecord] = field(default_factory=list)
    attempts: int = 0
    logged: int = 0
    argument_bytes: int = 0
    escalated: CommitEntry | None = None

    def next_seq(self) -> int:
        """The audit log's number for this transaction's next call record."""
        self.logged += 1
        return self.logged


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
