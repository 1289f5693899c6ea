"""What the retail tools share: the frozen clocks, datetime text, and the reference's error wrapping."""

from __future__ import annotations

from datetime import UTC, datetime

from benchmark.domains.reference import iso, parse_datetime, reference_errors, row_of

__all__ = ["FIXED_NOW", "SCENARIO_NOW", "iso", "parse_datetime", "reference_errors", "row_of"]

FIXED_NOW = datetime(2025, 10, 1, 13, 0, 5, tzinfo=UTC)
"""The reference's frozen write time for every retail record."""

SCENARIO_NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)
"""The scenario's "now"; used where the reference reads the wall clock (see the package docstring)."""
