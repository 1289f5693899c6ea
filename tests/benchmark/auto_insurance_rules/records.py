"""Hand-made records and effects for judging one change at a time, without a world.

Rows carry only the fields the rules read; :func:`judge` runs one judge over
the effects with a :class:`~judges.MemoryState` of the given tables, the way
the gate does (queries first, then the verdict).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from judges import CommitContext, Effect, EffectKind, Judge, MemoryState, Verdict, diff_fields

__all__ = ["inserted", "judge", "ticket", "updated"]

Row = dict[str, Any]


def inserted(table: str, row: Row) -> Effect:
    return Effect(table, (row["id"],), EffectKind.INSERT, None, row, diff_fields(None, row))


def updated(table: str, before: Row, **changes: Any) -> Effect:
    after = {**before, **changes}
    return Effect(table, (before["id"],), EffectKind.UPDATE, before, after, diff_fields(before, after))


def ticket(key: str = "6", **fields: Any) -> Row:
    """A solved billing ticket with every field set as the policy wants it, changed by ``fields``."""
    row: Row = {
        "id": key,
        "subject": "Payment extension",
        "description": "Customer asked for more time to pay.",
        "status": "solved",
        "priority": "normal",
        "type": "task",
        "requester_id": "847291",
        "assignee_id": "585",
        "organization_id": None,
        "tags": [],
        "due_at": None,
        "request_category": "Billing & Payments",
        "claims_action_type": None,
        "effective_date_of_change": None,
        "internal_review_type": "Not Required",
        "outcome_summary": "Completed",
        "escalation_level": "Standard",
        "user_type": "Named Insured",
    }
    return {**row, **fields}


def judge(
    one: Judge,
    effects: Sequence[Effect],
    tables: Mapping[str, Iterable[Mapping[str, Any]]] | None = None,
    *,
    now: datetime | None = None,
) -> Verdict:
    """``one``'s verdict on ``effects`` over ``tables``, at the commit time ``now``."""
    state = MemoryState(tables or {})
    effects = tuple(effects)
    context = CommitContext("t-1", effects, state=state.snapshot(one.queries(effects)), now=now)
    return one(context)
