"""The backend seam: where tools live and how a transaction runs on them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from guard.tools import Arguments, ErrorText, Tool
from guard.transaction.execute import CallOutcome
from judges import Effect, Finding, Judge, StateReader

__all__ = ["ACTING_FOR", "Backend", "Finishing", "Relaying", "Session", "UpstreamReport"]

ACTING_FOR: ContextVar[str | None] = ContextVar("guard_acting_for", default=None)
"""The agent (principal) on whose behalf the current transaction's backend work runs; the manager sets
it around each transaction's work, so that an upstream can be told who asks (``agent_headers``)."""


@dataclass(frozen=True, slots=True)
class UpstreamReport:
    """What a commit or a rollback did to writes that a database transaction could not hold.

    A backend whose writes go to another system (an upstream MCP server) cannot
    apply them all-or-nothing; this says, write by write, what happened.
    ``complete`` is true when every write was applied (a commit) or undone
    (a rollback); ``message`` says the same in one line.
    """

    transaction_id: str
    action: Literal["commit", "rollback"]
    complete: bool
    writes: tuple[dict[str, Any], ...]
    message: str


class Session(Protocol):
    """One transaction's hold on the backend."""

    @property
    def reader(self) -> StateReader:
        """The pending state, as the transaction would leave it."""
        ...

    def lost(self) -> str | None:
        """Why the backend lost this transaction (say, its connection died), or None while it lives.

        A lost transaction's changes are gone; every later use raises
        :class:`~guard.errors.TransactionLost`.
        """
        ...

    def applied(self) -> Sequence[str]:
        """The writes that took effect when called (passthrough, upstream): no block undoes them."""
        ...

    async def call(self, tool: Tool, arguments: Arguments) -> CallOutcome:
        """Run one call on arguments ``tool.validate`` returned, in isolation: an error outcome or an
        exception leaves no trace of it."""
        ...

    async def effects(self) -> list[Effect]: ...

    def repair(self, findings: Sequence[Finding]) -> str | None:
        """After a blocked commit: how the agent can repair the transaction without rolling it back
        (None: by undoing its changes with further calls, as any backend allows)."""
        ...

    async def commit(self) -> UpstreamReport | None:
        """Apply the transaction; a report when it could not be applied atomically.

        Whether it was applied must stay knowable after a crash at any point of
        this call: :meth:`Backend.committed` answers it from the system of record.
        """
        ...

    async def rollback(self) -> UpstreamReport | None:
        """Undo the transaction; a report when some of it was already outside the database."""
        ...


class Backend(Protocol):
    name: str
    error_text: ErrorText

    @property
    def tools(self) -> Sequence[Tool]:
        """The tools; a backend may learn them only in ``start``."""
        ...

    @property
    def judges(self) -> Sequence[Judge]:
        """Judges the backend ships for its own data (run after the configured ones)."""
        ...

    @property
    def tables(self) -> frozenset[str]:
        """The tables its effects name (known after ``start``); rules over other tables are refused."""
        ...

    async def start(self) -> None: ...

    async def begin(self, transaction_id: str) -> Session: ...

    async def committed(self, transaction_ids: Sequence[str]) -> set[str]:
        """Which of these transactions, each decided to commit, were applied (crash recovery asks)."""
        ...

    async def forget(self, transaction_ids: Sequence[str]) -> None:
        """The audit log has recorded these transactions' ends: drop what ``committed`` kept for them."""
        ...

    async def recover(self, *, restarted: bool) -> Sequence[UpstreamReport]:
        """Finish what interrupted transactions left outside the database.

        ``restarted``: this instance just started, so what it held before is orphaned.
        """
        ...

    async def ping(self) -> None:
        """Return when the system of record takes a write now; raise when it cannot (readiness)."""
        ...

    async def close(self) -> None: ...


@runtime_checkable
class Finishing(Protocol):
    """A backend whose commits can end part-applied (``partial``), and how an operator finishes one.

    A database backend commits all-or-nothing and has no such commit; the ``mcp`` backend does.
    Each raises :class:`guard.errors.NotFinishable` when the commit's state does not allow it.
    """

    async def resume(self, transaction_id: str) -> UpstreamReport:
        """Send again the committed writes that certainly did not apply; what the commit came to."""
        ...

    async def resolve(self, transaction_id: str, seq: int, applied: bool, by: str) -> UpstreamReport:
        """Settle write ``seq``, whose outcome was unknown, as applied or not (``by`` found out)."""
        ...


@runtime_checkable
class Relaying(Protocol):
    """A backend in front of an MCP server whose resources and prompts agents may read through the guard."""

    async def relay(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """``method`` (``resources/list``, ``resources/read``, ``prompts/get``...), answered upstream."""
        ...
