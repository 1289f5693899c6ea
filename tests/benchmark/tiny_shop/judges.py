"""Tiny Shop's Python judge: an order is cancelled within 14 days of being placed.

The window runs from the commit time the gate gives (:func:`judges.commit_time`),
never from the wall clock; a gate with no clock blocks instead of guessing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from judges import CommitContext, Effect, Finding, Judge, Query, Severity, Verdict, commit_time

__all__ = ["CancellationWindowJudge", "tiny_shop_judges"]

WINDOW = timedelta(days=14)


def _cancelled(effects: Sequence[Effect]) -> list[Effect]:
    return [
        e
        for e in effects
        if e.table == "orders"
        and e.after is not None
        and e.after.get("status") == "cancelled"
        and "status" in e.changed_fields
    ]


@dataclass(frozen=True, slots=True)
class CancellationWindowJudge:
    """Blocks the cancellation of an order placed more than 14 days before the commit."""

    name: str = "tiny_shop_cancellations"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        cancelled = _cancelled(context.effects)
        if not cancelled:
            return Verdict.allow()
        now = commit_time(context)
        findings = []
        for order in cancelled:
            placed = datetime.fromisoformat(str(order.row["placed_at"]))
            if now - placed <= WINDOW:
                continue
            findings.append(
                Finding(
                    self.name,
                    Severity.BLOCK,
                    f"order {order.key_text}: cancelled {(now - placed).days} days after it was placed",
                    hint="allowed: cancellation within 14 days of placing the order",
                    rule="order-cancel-window",
                    evidence={"table": "orders", "key": order.key_text, "placed_at": order.row["placed_at"]},
                )
            )
        return Verdict.of(findings)


def tiny_shop_judges() -> tuple[Judge, ...]:
    """The Python judges, after the rule pack in the chain."""
    return (CancellationWindowJudge(),)
