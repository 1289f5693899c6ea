"""Audit writes that must land even when the audit store is briefly unavailable, or refuses one of them.

Once the system of record has answered a commit, the answer must reach the
audit log; if the log cannot take it now, the write waits here and the
reaper tries again. Every write queued here is idempotent (a row rewritten
whole), so trying again is always safe. Should the process die first,
recovery settles the transaction from the system of record
(:mod:`guard.transaction.recovery`), which is why nothing here needs to be durable.

Writes are keyed by their transaction: one transaction's writes land in the
order they were made, and a transaction whose write cannot land holds back
only its own later writes, never another transaction's. A store that is down
(the write raises anything else) stops the round at once: every other write
would wait for it just the same. A store that *refuses* a write for what it
holds (:class:`~guard.errors.RecordRefused`: a constraint, a value it cannot
store) would refuse it forever, so that write is quarantined: its
``fallback`` (the same outcome with the refused text left out and the reason
said) is written instead and the original is logged whole. No agent's input
can stop the log for the others.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from guard.errors import RecordRefused

__all__ = ["AuditBacklog"]

log = logging.getLogger(__name__)

Write = Callable[[], Awaitable[None]]
Fallback = Callable[[str], Awaitable[None]]
"""A refused write's stand-in, given the refusal's short reason (:attr:`RecordRefused.reason`)."""


class _Outcome(enum.Enum):
    LANDED = enum.auto()
    """The write, or its fallback, is in the log."""
    HELD = enum.auto()
    """The store refused it (and its fallback): its key waits, the others go on."""
    DOWN = enum.auto()
    """The store failed: everything waits."""


@dataclass(frozen=True, slots=True, eq=False)
class _Pending:
    what: str
    key: str
    write: Write
    fallback: Fallback | None
    done: Callable[[], None] | None


class AuditBacklog:
    """Tries each write now; keeps what failed, in order per key, for :meth:`retry`."""

    def __init__(self) -> None:
        self._pending: list[_Pending] = []
        self._draining = asyncio.Lock()

    def __len__(self) -> int:
        return len(self._pending)

    async def write(
        self,
        what: str,
        write: Write,
        *,
        key: str,
        fallback: Fallback | None = None,
        done: Callable[[], None] | None = None,
    ) -> bool:
        """Write now, or after what still waits; ``done`` runs once the write (or its fallback) has landed.

        True when it landed now; False when it waits for :meth:`retry`. A write
        of a key with nothing waiting goes straight to the store; one of a key
        with writes waiting queues behind them, so that a key's writes land in order.
        """
        item = _Pending(what, key, write, fallback, done)
        if any(p.key == key for p in self._pending):
            self._pending.append(item)
            await self.retry()
            return item not in self._pending
        if await self._land(item) is _Outcome.LANDED:
            return True
        self._pending.append(item)
        return False

    async def retry(self) -> int:
        """Write what waits, oldest first, skipping the later writes of a key that failed; stop when the
        store is down. Returns how many still wait."""
        async with self._draining:
            stuck: set[str] = set()
            for item in list(self._pending):
                if item.key in stuck:
                    continue
                outcome = await self._land(item)
                if outcome is _Outcome.LANDED:
                    self._pending.remove(item)
                    continue
                stuck.add(item.key)
                if outcome is _Outcome.DOWN:
                    break  # every other write would wait for the store just the same
            return len(self._pending)

    async def _land(self, item: _Pending) -> _Outcome:
        """Make ``item``'s write, or when the store refuses it, its fallback."""
        try:
            await item.write()
        except RecordRefused as refused:
            outcome = await self._quarantine(item, refused)
        except Exception as exc:
            log.error("the audit log could not record %s (it waits for a retry): %r", item.what, exc)
            return _Outcome.DOWN
        else:
            outcome = _Outcome.LANDED
        if outcome is _Outcome.LANDED and item.done is not None:
            item.done()
        return outcome

    async def _quarantine(self, item: _Pending, refused: RecordRefused) -> _Outcome:
        if item.fallback is None:
            log.error("the audit log refused %s (it waits for a retry): %s", item.what, refused.message)
            return _Outcome.HELD
        try:
            await item.fallback(refused.reason)
        except RecordRefused as again:
            log.error(
                "the audit log refused %s (%s) and its stand-in too (%s); it waits for a retry",
                item.what,
                refused.message,
                again.message,
            )
            return _Outcome.HELD
        except Exception as exc:
            log.error("the audit log could not record %s (it waits for a retry): %r", item.what, exc)
            return _Outcome.DOWN
        log.error(
            "the audit log refused %s: %s; recorded without the refused text instead (quarantined: %s)",
            item.what,
            refused.message,
            refused.record,
        )
        return _Outcome.LANDED
