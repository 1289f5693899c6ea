"""Audit writes that must land even when the audit store is briefly unavailable.

Once the system of record has answered a commit, the answer must reach the
audit log; if the log cannot take it now, the write waits here (in order)
and the reaper tries again. Every write queued here is idempotent (a row
rewritten whole), so trying again is always safe. Should the process die
first, recovery settles the transaction from the system of record
(:mod:`guard.recovery`), which is why nothing here needs to be durable.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

__all__ = ["AuditBacklog"]

log = logging.getLogger(__name__)

Write = Callable[[], Awaitable[None]]


@dataclass(frozen=True, slots=True, eq=False)
class _Pending:
    what: str
    write: Write
    done: Callable[[], None] | None


class AuditBacklog:
    """Tries each write now; keeps what failed, in order, for :meth:`retry`."""

    def __init__(self) -> None:
        self._pending: deque[_Pending] = deque()
        self._draining = asyncio.Lock()

    def __len__(self) -> int:
        return len(self._pending)

    async def write(self, what: str, write: Write, *, done: Callable[[], None] | None = None) -> bool:
        """Write now, or after what still waits; ``done`` runs once the write has landed.

        True when it landed now; False when it waits for :meth:`retry`. Writes of
        different transactions are independent, so with nothing waiting a write
        goes straight to the store; one transaction's writes are made one after
        the other by its caller, so they land in order either way.
        """
        item = _Pending(what, write, done)
        if self._pending:
            self._pending.append(item)
            await self.retry()
            return item not in self._pending
        try:
            await write()
        except Exception as exc:
            self._pending.append(item)
            log.error("the audit log could not record %s (it waits for a retry): %r", what, exc)
            return False
        if done is not None:
            done()
        return True

    async def retry(self) -> int:
        """Write what waits, oldest first, until one fails; returns how many still wait."""
        async with self._draining:
            while self._pending:
                item = self._pending[0]
                try:
                    await item.write()
                except Exception as exc:
                    log.error(
                        "the audit log could not record %s (%d write(s) waiting): %r",
                        item.what,
                        len(self),
                        exc,
                    )
                    return len(self._pending)
                self._pending.popleft()
                if item.done is not None:
                    item.done()
            return 0
