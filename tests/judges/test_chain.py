"""The judge chain: order, strongest decision, one fetch, and failing closed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest

from judges import (
    AsyncJudge,
    CommitContext,
    Decision,
    Effect,
    EffectKind,
    Finding,
    Judge,
    JudgeChain,
    JudgeRefused,
    MemoryState,
    Query,
    Severity,
    StateSnapshot,
    Verdict,
    commit_time,
)

EFFECT = Effect(
    "orders", ("O1",), EffectKind.UPDATE, {"id": "O1", "c": "C1"}, {"id": "O1", "c": "C1"}, ("c",)
)


@dataclass
class Fixed:
    name: str
    verdict: Verdict
    wanted: tuple[Query, ...] = ()
    seen: list[CommitContext] = field(default_factory=list)

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return self.wanted

    def __call__(self, context: CommitContext) -> Verdict:
        self.seen.append(context)
        for query in self.wanted:
            context.state.rows(query)
        return self.verdict


@dataclass
class Customer:
    """A Python judge reading rows it declared."""

    name: str = "customer"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return [Query.of("customers", None, id=e.row["c"]) for e in effects]

    def __call__(self, context: CommitContext) -> Verdict:
        findings = [
            Finding(self.name, Severity.ESCALATE, f"order {e.key_text}: customer {e.row['c']} is on hold")
            for e in context.effects
            if (row := context.state.get("customers", id=e.row["c"])) is not None and row["hold"]
        ]
        return Verdict.of(findings)


class Crashes:
    name = "crashes"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        raise RuntimeError("boom")


class NoQueries:
    name = "no_queries"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        raise LookupError("cannot say")

    def __call__(self, context: CommitContext) -> Verdict:
        return Verdict.allow()


class NotAVerdict:
    name = "not_a_verdict"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        return True  # type: ignore[return-value]


class Slow:
    name = "slow"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    async def evaluate(self, context: CommitContext) -> Verdict:
        return Verdict.of([Finding(self.name, Severity.WARN, "looked")])


class RecordingReader:
    def __init__(self, state: MemoryState) -> None:
        self.state = state
        self.fetches: list[list[Query]] = []

    async def fetch(self, queries: Sequence[Query]) -> StateSnapshot:
        self.fetches.append(list(queries))
        return await self.state.fetch(queries)


def warn(name: str) -> Fixed:
    return Fixed(name, Verdict.of([Finding(name, Severity.WARN, f"{name} noticed")]))


def test_strongest_decision_wins_and_findings_keep_chain_order() -> None:
    chain = JudgeChain(
        [
            warn("a"),
            Fixed("b", Verdict.of([Finding("b", Severity.BLOCK, "b blocks")])),
            Fixed("c", Verdict.of([Finding("c", Severity.ESCALATE, "c escalates")])),
        ]
    )
    verdict = chain(CommitContext("t", (EFFECT,)))
    assert verdict.decision is Decision.BLOCK
    assert [f.judge for f in verdict.findings] == ["a", "b", "c"]


def test_queries_are_gathered_once_in_order() -> None:
    q1, q2 = Query.of("a", None, id=1), Query.of("b", None, id=2)
    chain = JudgeChain([Fixed("x", Verdict.allow(), (q1, q2)), Fixed("y", Verdict.allow(), (q2, q1))])
    assert chain.queries([EFFECT]) == [q1, q2]


@pytest.mark.parametrize(
    ("judge", "message"),
    [
        (Crashes(), "judge crashes failed: RuntimeError: boom"),
        (NoQueries(), "judge no_queries failed: LookupError: cannot say"),
        (NotAVerdict(), "judge not_a_verdict returned bool, not a Verdict"),
    ],
)
def test_a_judge_that_cannot_decide_blocks(judge: object, message: str) -> None:
    verdict = JudgeChain([warn("a"), judge]).__call__(CommitContext("t", (EFFECT,)))  # type: ignore[list-item]
    assert verdict.decision is Decision.BLOCK
    blocking = verdict.findings[-1]
    assert blocking.severity is Severity.BLOCK
    assert blocking.message == message


def test_a_judge_reading_rows_it_did_not_declare_blocks() -> None:
    sneaky = Fixed("sneaky", Verdict.allow())
    sneaky.wanted = ()
    chain = JudgeChain([sneaky, Customer()])
    verdict = chain(CommitContext("t", (EFFECT,)))
    assert verdict.decision is Decision.BLOCK
    assert "query was not declared" in verdict.findings[0].message


async def test_run_fetches_once_and_python_judges_read_rows() -> None:
    reader = RecordingReader(MemoryState({"customers": [{"id": "C1", "hold": True}]}))
    chain = JudgeChain([Customer(), warn("w")])
    verdict = await chain.run(reader, [EFFECT], transaction_id="t7", summary="done")
    assert reader.fetches == [[Query.of("customers", None, id="C1")]]
    assert verdict.decision is Decision.ESCALATE
    assert [f.message for f in verdict.findings] == ["order O1: customer C1 is on hold", "w noticed"]


async def test_async_judges_run_on_the_async_path_only() -> None:
    chain = JudgeChain([Slow(), warn("w")])
    context = CommitContext("t", (EFFECT,))
    assert (await chain.evaluate(context)).findings[0].message == "looked"
    verdict = chain(context)
    assert verdict.decision is Decision.BLOCK
    refused = "judge slow was not run: it needs the async path (JudgeChain.evaluate)"
    assert verdict.findings[0].message == refused


def test_judge_names_are_unique() -> None:
    with pytest.raises(ValueError, match="repeated: a"):
        JudgeChain([warn("a"), warn("a")])


class Dated:
    """Reads the commit time, as every judge with a time window does."""

    name = "dated"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        return Verdict.of(
            [Finding(self.name, Severity.WARN, f"judged at {commit_time(context).isoformat()}")]
        )


def test_a_judge_needing_the_commit_time_blocks_when_there_is_none() -> None:
    """Requirement G5: a judge that needs the commit time and is given none blocks; it never reads the
    wall clock."""
    chain = JudgeChain([Dated(), warn("w")])
    at = datetime(2025, 10, 1, 13, tzinfo=UTC)
    assert [f.message for f in chain(CommitContext("t", (EFFECT,), now=at)).findings] == [
        "judged at 2025-10-01T13:00:00+00:00",
        "w noticed",
    ]
    verdict = chain(CommitContext("t", (EFFECT,)))
    assert verdict.decision is Decision.BLOCK
    assert [(f.judge, f.severity, f.message) for f in verdict.findings] == [
        (
            "dated",
            Severity.BLOCK,
            "judge dated failed: CommitTimeUnknown: the commit time is not known "
            "(the gate was given no clock)",
        ),
        ("w", Severity.WARN, "w noticed"),
    ]


class Turnstile:
    """An execution that turns ``refused`` away and runs the others inline, noting how it ran each."""

    def __init__(self, refused: str) -> None:
        self.refused = refused
        self.ran: list[tuple[str, str]] = []

    async def run_sync(self, judge: Judge, context: CommitContext) -> object:
        self.ran.append(("sync", judge.name))
        if judge.name == self.refused:
            raise JudgeRefused(f"judge {judge.name} was turned away", {"gate": "closed"})
        return judge(context)

    async def run_async(self, judge: AsyncJudge, context: CommitContext) -> object:
        self.ran.append(("async", judge.name))
        return await judge.evaluate(context)


async def test_the_execution_runs_each_judge_and_a_refusal_blocks_in_its_own_words() -> None:
    """Requirement G5: a judge its execution does not run to an answer blocks, with the execution's text
    and evidence; the judges beside it run, each by the execution, in chain order."""
    turnstile = Turnstile(refused="b")
    chain = JudgeChain([warn("a"), warn("b"), Slow(), Crashes()], execution=turnstile)
    verdict = await chain.run(MemoryState({}), [EFFECT], transaction_id="t")
    assert turnstile.ran == [("sync", "a"), ("sync", "b"), ("async", "slow"), ("sync", "crashes")]
    assert verdict.decision is Decision.BLOCK
    assert [(f.judge, f.severity, f.message, dict(f.evidence)) for f in verdict.findings] == [
        ("a", Severity.WARN, "a noticed", {}),
        ("b", Severity.BLOCK, "judge b was turned away", {"gate": "closed"}),
        ("slow", Severity.WARN, "looked", {}),
        ("crashes", Severity.BLOCK, "judge crashes failed: RuntimeError: boom", {}),
    ]
