"""What Tiny Shop's tools share: the frozen clocks."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["SCENARIO_NOW", "WRITTEN_AT"]

SCENARIO_NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)
"""The scenario's "now": the time the guard's clock gives the judges."""

WRITTEN_AT = "2025-10-01T13:00:05Z"
"""The frozen time every write is stamped with, so that replays hash alike."""
