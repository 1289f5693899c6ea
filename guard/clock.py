"""Clocks: the wall and monotonic time the guard reads, behind one seam."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Protocol

__all__ = ["Clock", "FixedClock", "SystemClock"]


class Clock(Protocol):
    def now(self) -> datetime:
        """Timezone-aware wall time."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()


class FixedClock:
    """A clock that moves only when told to; for tests and the frozen benchmark world."""

    def __init__(self, at: datetime | str = "2025-10-01T13:00:00+00:00") -> None:
        self._now = datetime.fromisoformat(at) if isinstance(at, str) else at
        self._mono = 0.0

    def now(self) -> datetime:
        return self._now

    def monotonic(self) -> float:
        return self._mono

    def advance(self, seconds: float) -> None:
        from datetime import timedelta

        self._mono += seconds
        self._now += timedelta(seconds=seconds)
