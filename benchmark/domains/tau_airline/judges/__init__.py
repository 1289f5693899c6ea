"""The airline's Python judges (none yet: its rule pack holds its policy checks)."""

from __future__ import annotations

from collections.abc import Sequence

from judges import Judge

__all__ = ["tau_airline_judges"]


def tau_airline_judges() -> Sequence[Judge]:
    """The judges after the rule pack, in chain order."""
    return ()
