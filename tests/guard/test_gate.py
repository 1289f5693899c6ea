"""The commit gate: chain order, strongest decision, fail closed."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from guard.gate import CommitGate
from judges import (
    CommitContext,
    Decision,
    Effect,
    EffectKind,
    Finding,
    MemoryState,
    Query,
    Severity,
    StateSnapshot,
    Verdict,
)

EFFECT = Effect(
    "tickets",
    (20,),
    EffectKind.UPDATE,
    {"id": 20, "status": "open"},
    {"id": 20, "status": "solved"},
    ("status",),
)
SHIPMENTS = [{"id": "S1", "order_id": "O1", "carrier_status": "exception"}]
STATE = MemoryState({"shipments": SHIPMENTS})


@dataclass
class Fixed:
    name: str
    severity: Severity | None = None
    wanted: Sequence[Query] = ()
    seen: list[CommitContext] = field(default_factory=list)

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return self.wanted

    def __call__(self, context: CommitContext) -> Verdict:
        self.seen.append(context)
        if self.severity is None:
            return Verdict.allow()
        return Verdict.of([Finding(self.name, self.severity, f"{self.name} says {self.severity.value}")])


class Raising:
    name = "raising"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        raise ZeroDivisionError("oops")


class BadQueries(Raising):
    name = "bad-queries"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        raise KeyError("order_id")


class Hanging:
    name = "hanging"

    def __init__(self) -> None:
        self.release = threading.Event()

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        self.release.wait(10)
        return Verdict.allow()


class FollowsShipment:
    """Reads a ticket's shipment in round two, keyed by the order the first round found."""

    name = "follows"

    def __init__(self) -> None:
        self.seen: list[CommitContext] = []

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return [Query.of("orders", 1, ticket_id=20)]

    def follow_up(self, effects: Sequence[Effect], state: StateSnapshot) -> Sequence[Query]:
        orders = state.rows(Query.of("orders", 1, ticket_id=20))
        return [Query.of("shipments", None, order_id=orders[0]["id"] if orders else None)]

    def __call__(self, context: CommitContext) -> Verdict:
        self.seen.append(context)
        return Verdict.allow()


class Endless(FollowsShipment):
    name = "endless"

    def follow_up(self, effects: Sequence[Effect], state: StateSnapshot) -> Sequence[Query]:
        return [Query.of("shipments", None, id=f"S{len(state.answers)}")]


async def evaluate(
    *judges: object, limit_s: float = 1.0, state: MemoryState = STATE, now: datetime | None = None
) -> Verdict:
    gate = CommitGate(judges, judge_timeout_s=limit_s)  # type: ignore[arg-type]
    try:
        result = await gate.evaluate("t1", [EFFECT], [], "summary", state, now=now)
    finally:
        gate.close()
    return result.verdict


async def test_strongest_decision_wins_and_findings_keep_order() -> None:
    verdict = await evaluate(
        Fixed("a", Severity.WARN), Fixed("b", Severity.ESCALATE), Fixed("c", Severity.BLOCK)
    )
    assert verdict.decision is Decision.BLOCK
    assert [f.judge for f in verdict.findings] == ["a", "b", "c"]
    assert (await evaluate(Fixed("a", Severity.WARN), Fixed("b"))).decision is Decision.ALLOW
    assert (await evaluate(Fixed("a", Severity.ESCALATE))).decision is Decision.ESCALATE


async def test_judges_get_the_rows_they_asked_for() -> None:
    query = Query.of("shipments", None, order_id="O1")
    judge = Fixed("reader", wanted=[query])
    await evaluate(judge)
    (context,) = judge.seen
    assert context.state.rows(query)[0]["carrier_status"] == "exception"
    assert context.effects == (EFFECT,)


async def test_a_raising_judge_blocks() -> None:
    """Requirement G5: a judge that raises blocks the commit (fail closed)."""
    verdict = await evaluate(Fixed("ok"), Raising())
    assert verdict.decision is Decision.BLOCK
    assert "judge raising failed: ZeroDivisionError" in verdict.findings[-1].message


async def test_a_judge_whose_queries_fail_blocks() -> None:
    verdict = await evaluate(BadQueries(), Fixed("ok"))
    assert verdict.decision is Decision.BLOCK
    assert verdict.findings[0].judge == "bad-queries"


async def test_unreadable_state_blocks() -> None:
    verdict = await evaluate(Fixed("reader", wanted=[Query.of("nope", None, id=1)]))
    assert verdict.decision is Decision.BLOCK
    assert "could not read the pending state" in verdict.findings[0].message


async def test_a_slow_judge_blocks() -> None:
    """Requirement G5: a judge that does not answer within its timeout blocks the commit."""
    hanging = Hanging()
    try:
        verdict = await evaluate(hanging, limit_s=0.05)
    finally:
        hanging.release.set()
    assert verdict.decision is Decision.BLOCK
    assert "did not answer within 0.05s" in verdict.findings[0].message


async def test_follow_up_rows_are_read_in_a_second_round_and_the_judges_see_the_commit_time() -> None:
    state = MemoryState({"shipments": SHIPMENTS, "orders": [{"id": "O1", "ticket_id": 20}]})
    judge, plain = FollowsShipment(), Fixed("plain")
    at = datetime(2025, 10, 1, 13, tzinfo=UTC)
    assert (await evaluate(judge, plain, state=state, now=at)).decision is Decision.ALLOW
    (context,) = judge.seen
    assert context.state.rows(Query.of("shipments", None, order_id="O1"))[0]["id"] == "S1"
    assert context.now == at
    assert plain.seen[0].state is context.state


async def test_a_judge_naming_rows_past_the_last_round_blocks_and_is_named() -> None:
    """Requirement G5: a judge that cannot say which rows it needs blocks the commit."""
    state = MemoryState({"shipments": SHIPMENTS, "orders": []})
    verdict = await evaluate(Fixed("before", Severity.WARN), Endless(), Fixed("after"), state=state)
    assert verdict.decision is Decision.BLOCK
    assert [f.judge for f in verdict.findings] == ["before", "endless"]
    assert verdict.findings[1].message == "judge endless failed: it still named rows to read after 4 rounds"
