"""Judges for the tests of the ``python`` judge kind."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judges import CommitContext, Effect, Finding, Query, Severity, Verdict


@dataclass(frozen=True)
class TicketLimit:
    """Blocks a commit that changes more than ``limit`` tickets."""

    limit: int = 1
    name: str = "ticket-limit"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        touched = [e for e in context.effects if e.table == "tickets"]
        if len(touched) <= self.limit:
            return Verdict.allow()
        message = f"{len(touched)} tickets changed in one transaction; the limit is {self.limit}"
        return Verdict.of([Finding(self.name, Severity.BLOCK, message)])


@dataclass(frozen=True)
class CommitTime:
    """Blocks every commit, saying the commit time the gate gave it."""

    name: str = "commit-time"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        at = "unknown" if context.now is None else context.now.isoformat()
        return Verdict.of([Finding(self.name, Severity.BLOCK, f"committed at {at}")])
