"""The backend seam: where tools live and how a transaction runs on them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from guard.execute import CallOutcome
from guard.tools import ErrorText, ToolSpec
from judges import Effect, Judge, StateReader

__all__ = ["Backend", "Session"]


class Session(Protocol):
    """One transaction's hold on the backend."""

    @property
    def reader(self) -> StateReader:
        """The pending state, as the transaction would leave it."""
        ...

    async def call(self, spec: ToolSpec, arguments: Mapping[str, Any]) -> CallOutcome:
        """Run one call in isolation: an error outcome or an exception leaves no trace of it."""
        ...

    async def effects(self) -> list[Effect]: ...

    async def commit(self) -> None: ...

    async def rollback(self) -> None: ...


class Backend(Protocol):
    name: str
    error_text: ErrorText

    @property
    def tools(self) -> Sequence[ToolSpec]: ...

    @property
    def judges(self) -> Sequence[Judge]:
        """Judges the backend ships for its own data (run after the configured ones)."""
        ...

    async def start(self) -> None: ...

    async def begin(self, transaction_id: str) -> Session: ...

    async def close(self) -> None: ...
