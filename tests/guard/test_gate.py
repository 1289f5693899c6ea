"""The commit gate: chain order, strongest decision, fail closed."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

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
STATE = MemoryState({"shipments": [{"id": "S1", "order_id": "O1", "carrier_status": "exception"}]})


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


async def evaluate(*judges: object, limit_s: float = 1.0) -> Verdict:
    gate = CommitGate(judges, judge_timeout_s=limit_s)  # type: ignore[arg-type]
    try:
        result = await gate.evaluate("t1", [EFFECT], [], "summary", STATE)
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
