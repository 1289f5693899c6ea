"""This process's claim on its instance name, so that two live processes never share one.

Crash recovery is per instance (``server.instance``): at start a guard
settles the transactions its instance left unsettled and takes over its
outbox. A second process started under a name that is live would settle
(abort) the first one's live transactions. So a guard holds a lease on its
name for as long as it runs — a lock the operating system or the database
releases by itself when the process dies, so a crashed guard restarts at
once — and refuses to start when another live process holds it.
:class:`guard.store.sql_lease.SqlInstanceLease` is the real one;
:class:`NoLease` serves a guard whose audit log is in memory (nothing to share).
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["InstanceLease", "NoLease"]


class InstanceLease(Protocol):
    async def acquire(self) -> None:
        """Take the name; :class:`~guard.errors.InstanceInUse` when another live process has it."""
        ...

    async def heartbeat(self) -> None:
        """Write that this process is alive (readiness); raise when the store cannot, or the name was lost."""
        ...

    async def release(self) -> None: ...


class NoLease:
    async def acquire(self) -> None:
        return None

    async def heartbeat(self) -> None:
        return None

    async def release(self) -> None:
        return None
