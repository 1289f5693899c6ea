"""The commit gate: chain order, strongest decision, fail closed; hung judges isolated."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest

from guard.gate.commit import CommitGate
from guard.gate.pool import HangKind
from judges import (
    CommitContext,
    Decision,
    Effect,
    EffectKind,
    Finding,
    InMode,
    JudgeChain,
    MemoryState,
    Mode,
    Query,
    Severity,
    StateSnapshot,
    Verdict,
    parse_rule_pack,
)
from tests.guard.conftest import until

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


class NotAVerdict(Raising):
    name = "not_a_verdict"

    def __call__(self, context: CommitContext) -> Verdict:
        return True  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("judge", "message"),
    [
        (Raising(), "judge raising failed: ZeroDivisionError: oops"),
        (BadQueries(), "judge bad-queries failed: KeyError: 'order_id'"),
        (NotAVerdict(), "judge not_a_verdict returned bool, not a Verdict"),
        (Endless(), "judge endless failed: it still named rows to read after 4 rounds"),
    ],
)
async def test_the_gate_and_the_chain_fail_a_judge_in_the_same_words(judge: object, message: str) -> None:
    """Requirement G5: a judge that raises, returns no verdict or cannot say which rows it needs
    blocks with the same finding whether the commit gate or the judge chain runs it."""
    state = MemoryState({"shipments": SHIPMENTS, "orders": []})
    verdict = await evaluate(Fixed("before", Severity.WARN), judge, state=state)
    chain = JudgeChain([Fixed("before", Severity.WARN), judge])  # type: ignore[list-item]
    assert await chain.run(state, [EFFECT], transaction_id="t1") == verdict
    assert verdict.decision is Decision.BLOCK
    assert [(f.judge, f.severity, f.message) for f in verdict.findings] == [
        ("before", Severity.WARN, "before says warn"),
        (judge.name, Severity.BLOCK, message),  # type: ignore[attr-defined]
    ]


TIMEOUT_S = 0.05
TIMED_OUT = f"did not answer within {TIMEOUT_S:g}s"
BAD = Effect("tickets", (666,), EffectKind.UPDATE, {"id": 666, "status": "open"}, {"id": 666}, ("status",))


class Stuck:
    """Blocks its thread until the test sets :attr:`release`, on every input or those ``hangs_on`` picks."""

    def __init__(self, name: str = "stuck", hangs_on: Callable[[CommitContext], bool] | None = None) -> None:
        self.name = name
        self.release = threading.Event()
        self.calls: list[str] = []
        self._hangs_on = hangs_on

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        self.calls.append(context.transaction_id)
        if self._hangs_on is None or self._hangs_on(context):
            self.release.wait(30)
        return Verdict.allow()


class Stubborn:
    """An async judge that swallows its cancellation and runs until the test sets :attr:`release`."""

    name = "stubborn"

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.calls: list[str] = []
        self.cancelled = 0

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    async def evaluate(self, context: CommitContext) -> Verdict:
        self.calls.append(context.transaction_id)
        while not self.release.is_set():
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled += 1
        return Verdict.allow()


class Quick:
    """An async judge that answers at once."""

    name = "quick"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    async def evaluate(self, context: CommitContext) -> Verdict:
        self.calls.append(context.transaction_id)
        return Verdict.allow()


async def commit(
    gate: CommitGate, transaction_id: str, effect: Effect = EFFECT, principal: str = "agent-a"
) -> Verdict:
    return (await gate.evaluate(transaction_id, [effect], [], "summary", STATE, principal=principal)).verdict


def messages(verdict: Verdict) -> list[tuple[str, str]]:
    return [(f.judge, f.message) for f in verdict.findings]


async def test_a_hung_judge_is_quarantined_and_the_judges_beside_it_keep_deciding(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Requirement G22: a judge that hangs blocks its commits and is isolated: after two hangs it is
    quarantined (it blocks at once, taking no thread) while the judge beside it keeps deciding, over
    more commits than there are workers; the hangs are logged and listed; released, it runs again."""
    stuck, ok = Stuck(), Fixed("ok", Severity.WARN)
    before = threading.active_count()
    gate = CommitGate([stuck, ok], judge_timeout_s=TIMEOUT_S, workers=4)
    try:
        with caplog.at_level(logging.WARNING, logger="guard.gate.pool"):
            verdicts = [await commit(gate, f"t{n}") for n in range(6)]
        for verdict in verdicts[:2]:
            assert messages(verdict) == [("stuck", f"judge stuck {TIMED_OUT}"), ("ok", "ok says warn")]
        for verdict in verdicts[2:]:
            assert verdict.decision is Decision.BLOCK
            (quarantined, beside) = verdict.findings
            assert quarantined.judge == "stuck"
            assert quarantined.message.startswith(
                "judge stuck is quarantined for agent 'agent-a': 2 of its evaluations for that agent's"
            )
            assert "the oldest for " in quarantined.message
            assert quarantined.evidence["hung"] == 2
            assert (beside.judge, beside.message) == ("ok", "ok says warn")
        assert stuck.calls == ["t0", "t1"]
        hung = gate.hung()
        assert [(h.judge, h.principal, h.transaction_id, h.kind) for h in hung] == [
            ("stuck", "agent-a", "t0", HangKind.THREAD),
            ("stuck", "agent-a", "t1", HangKind.THREAD),
        ]
        assert hung[0].age_s >= hung[1].age_s > 0
        status = gate.pool_status()
        assert (status.quarantined, status.exhausted, status.threads) == (
            (("stuck", "agent-a"),),
            False,
            4 + 2,
        )
        assert threading.active_count() - before <= 4 + 2
        hang_lines = [r for r in caplog.records if r.levelno == logging.ERROR and "hung:" in r.getMessage()]
        assert [r.args[:3] for r in hang_lines if isinstance(r.args, tuple)] == [
            ("stuck", "agent-a", "t0"),
            ("stuck", "agent-a", "t1"),
        ]
    finally:
        stuck.release.set()
    await until(lambda: not gate.hung())
    assert gate.pool_status().quarantined == ()
    assert messages(await commit(gate, "t9")) == [("ok", "ok says warn")]
    assert stuck.calls[-1] == "t9"
    gate.close()


async def test_a_judge_that_hangs_on_some_inputs_leaves_every_worker_to_the_others() -> None:
    """Requirement G22: evaluations that hang cannot exhaust the judges' threads or delay other
    verdicts: after more hung commits than there are workers, commits whose inputs do not hang
    the judge (several at once) still get its verdict, and the threads stay bounded."""
    stuck = Stuck(hangs_on=lambda context: context.effects[0].key == (666,))
    before = threading.active_count()
    gate = CommitGate(
        [stuck], judge_timeout_s=TIMEOUT_S, workers=2, max_hung=8, max_hung_per_judge=8, max_hung_per_agent=8
    )
    try:
        for n in range(5):
            assert messages(await commit(gate, f"bad{n}", BAD)) == [("stuck", f"judge stuck {TIMED_OUT}")]
        good = await asyncio.gather(*(commit(gate, f"good{n}") for n in range(4)))
        assert [verdict.decision for verdict in good] == [Decision.ALLOW] * 4
        assert all(not verdict.findings for verdict in good)
        assert sorted(c for c in stuck.calls if c.startswith("good")) == [f"good{n}" for n in range(4)]
        assert [h.transaction_id for h in gate.hung()] == [f"bad{n}" for n in range(5)]
        assert gate.pool_status().threads == 2 + 5
        assert threading.active_count() - before <= 2 + 5
    finally:
        stuck.release.set()
    await until(lambda: not gate.hung())
    assert gate.pool_status().threads == 2
    gate.close()


async def test_when_the_hung_threads_reach_their_bound_every_sync_judge_blocks_at_once() -> None:
    """Requirement G22: hung evaluations are bounded: an agent whose commits hung ``max_hung_per_agent``
    evaluations has every judge turned away, async ones included; once ``max_hung`` threads hang (two
    agents' commits here) every synchronous judge blocks at once for every agent, naming the hung
    judges, and no thread is added; an async judge, which holds no thread, still decides for the other
    agents; the pool recovers when the hung judges end."""
    first, second, quick, ok = Stuck("first"), Stuck("second"), Quick(), Fixed("ok")
    gate = CommitGate(
        [first, second, quick, ok], judge_timeout_s=TIMEOUT_S, workers=2, max_hung=3, max_hung_per_judge=2
    )
    exhausted = "the judge pool is exhausted by 3 hung evaluations (first (2), second (1))"
    held = "agent 'a' has 2 hung judge evaluations (at most 2); its commits are judged again when one of "
    held += "them ends"
    try:
        assert messages(await commit(gate, "t0", principal="a")) == [
            ("first", f"judge first {TIMED_OUT}"),
            ("second", f"judge second {TIMED_OUT}"),
            ("quick", f"judge quick was not run: {held}"),
            ("ok", f"judge ok was not run: {held}"),
        ]
        assert messages(await commit(gate, "t1", principal="b")) == [
            ("first", f"judge first {TIMED_OUT}"),
            ("second", f"judge second was not run: {exhausted}"),
            ("ok", f"judge ok was not run: {exhausted}"),
        ]
        assert messages(await commit(gate, "t2", principal="a")) == [
            (name, f"judge {name} was not run: {held}") for name in ("first", "second", "quick", "ok")
        ]
        assert messages(await commit(gate, "t3", principal="c")) == [
            (name, f"judge {name} was not run: {exhausted}") for name in ("first", "second", "ok")
        ]
        assert (first.calls, second.calls, len(ok.seen)) == (["t0", "t1"], ["t0"], 0)
        assert quick.calls == ["t1", "t3"]
        status = gate.pool_status()
        assert (status.exhausted, status.quarantined, status.held_back) == (True, (), ("a",))
        assert status.threads == status.max_threads == 2 + 3
    finally:
        first.release.set()
        second.release.set()
    await until(lambda: not gate.hung())
    assert messages(await commit(gate, "t4", principal="a")) == []
    assert (first.calls[-1], second.calls[-1], quick.calls[-1]) == ("t4", "t4", "t4")
    status = gate.pool_status()
    assert (status.threads, status.exhausted, status.held_back) == (2, False, ())
    gate.close()


async def test_an_async_judge_that_ignores_its_cancellation_cannot_hang_the_gate() -> None:
    """Requirement G22: an async judge that times out and swallows its cancellation blocks its
    commit without holding the gate; it is listed as hung, quarantined after two hangs, and runs
    again once it ends."""
    stubborn, ok = Stubborn(), Fixed("ok", Severity.WARN)
    gate = CommitGate([stubborn, ok], judge_timeout_s=TIMEOUT_S)
    try:
        async with asyncio.timeout(10):  # the old gate awaited the cancellation for ever
            verdicts = [await commit(gate, f"t{n}") for n in range(3)]
        for verdict in verdicts[:2]:
            assert messages(verdict) == [("stubborn", f"judge stubborn {TIMED_OUT}"), ("ok", "ok says warn")]
        (quarantined, beside) = verdicts[2].findings
        assert quarantined.message.startswith("judge stubborn is quarantined for agent 'agent-a': 2 of its")
        assert beside.message == "ok says warn"
        assert stubborn.calls == ["t0", "t1"]
        assert stubborn.cancelled >= 2
        assert [(h.judge, h.principal, h.transaction_id, h.kind) for h in gate.hung()] == [
            ("stubborn", "agent-a", "t0", HangKind.TASK),
            ("stubborn", "agent-a", "t1", HangKind.TASK),
        ]
    finally:
        stubborn.release.set()
    await until(lambda: not gate.hung())
    assert messages(await commit(gate, "t3")) == [("ok", "ok says warn")]
    assert stubborn.calls[-1] == "t3"
    gate.close()


# -- failing closed in every mode, and one agent's hangs kept to that agent -----------------------------

ENFORCED_PACK = """\
name: closing
rules:
  - id: no-closing
    when: {table: tickets, changed: [status]}
    require: "effect.after.status != 'closed'"
    decision: block
    message: "ticket {{effect.key}} may not be closed"
    mode: MODE
"""


class StuckPack(Stuck):
    """A rule pack that hangs until released; its rules' modes are the pack's."""

    def __init__(self, mode: str) -> None:
        super().__init__("closing")
        self.pack = parse_rule_pack(ENFORCED_PACK.replace("MODE", mode), "closing.yaml")

    def __getattr__(self, attribute: str) -> object:
        if attribute == "pack":
            raise AttributeError(attribute)
        return getattr(self.pack, attribute)


async def test_a_pack_whose_rule_says_enforce_blocks_under_a_shadow_guard_when_it_cannot_answer() -> None:
    """Requirements G5, G32: timed out, then quarantined, a pack whose rule says ``mode: enforce`` blocks
    the commit under ``commit.mode: shadow`` as it would had it answered; a pack whose rules all say
    shadow fails in shadow (recorded, the commit allowed)."""
    enforced, shadowed = StuckPack("enforce"), StuckPack("shadow")
    shadowed.name = "trial"
    gate = CommitGate([enforced], judge_timeout_s=TIMEOUT_S, mode=Mode.SHADOW)
    trial = CommitGate([shadowed], judge_timeout_s=TIMEOUT_S, mode=Mode.ENFORCE)
    try:
        for n in range(3):
            verdict = await commit(gate, f"t{n}")
            assert verdict.decision is Decision.BLOCK
            assert [(f.judge, f.shadow) for f in verdict.findings] == [("closing", False)]
            tried = await commit(trial, f"t{n}")
            assert tried.decision is Decision.ALLOW
            assert [(f.judge, f.shadow) for f in tried.findings] == [("trial", True)]
            assert tried.would_decide is Decision.BLOCK
        assert "quarantined" in verdict.findings[0].message
        assert "quarantined" in tried.findings[0].message
    finally:
        enforced.release.set()
        shadowed.release.set()
    await until(lambda: not gate.hung() and not trial.hung())
    gate.close()
    trial.close()


@pytest.mark.parametrize(
    ("said", "decided"),
    [
        (Verdict(Decision.ALLOW, (Finding("j", Severity.BLOCK, "no"),)), Decision.BLOCK),
        (Verdict(Decision.ALLOW, (Finding("j", Severity.ESCALATE, "ask"),)), Decision.ESCALATE),
        (Verdict(Decision.ESCALATE, (Finding("j", Severity.BLOCK, "no"),)), Decision.BLOCK),
    ],
)
async def test_a_verdict_that_understates_its_findings_does_not_commit(
    said: Verdict, decided: Decision
) -> None:
    """Requirement G35: the gate's decision is at least the strongest enforced finding's."""

    class Says(Raising):
        name = "j"

        def __call__(self, context: CommitContext) -> Verdict:
            return said

    verdict = await evaluate(Says(), Fixed("ok"))
    assert verdict.decision is decided
    assert verdict.findings == said.findings


async def test_one_agents_hung_evaluations_quarantine_the_judge_for_that_agent_only() -> None:
    """Requirement G22: two hangs caused by one agent's commits quarantine the judge for that agent; every
    other agent's commits still get its verdict, and the pool's status says whose quarantine it is."""
    stuck = Stuck(hangs_on=lambda context: context.transaction_id.startswith("m"))
    gate = CommitGate([stuck], judge_timeout_s=TIMEOUT_S, workers=2)
    try:
        for n in range(2):
            verdict = await agent_commit(gate, f"m{n}", "mallory")
            assert messages(verdict) == [("stuck", f"judge stuck {TIMED_OUT}")]
        (refused,) = (await agent_commit(gate, "m2", "mallory")).findings
        assert refused.message.startswith(
            "judge stuck is quarantined for agent 'mallory': 2 of its evaluations"
        )
        assert refused.evidence["agent"] == "mallory"
        assert messages(await agent_commit(gate, "a0", "alice")) == []
        status = gate.pool_status()
        assert (status.quarantined, status.exhausted) == ((("stuck", "mallory"),), False)
        assert [(h.judge, h.principal, h.transaction_id) for h in gate.hung()] == [
            ("stuck", "mallory", "m0"),
            ("stuck", "mallory", "m1"),
        ]
    finally:
        stuck.release.set()
    await until(lambda: not gate.hung())
    assert messages(await agent_commit(gate, "m3", "mallory")) == []
    gate.close()


async def test_one_agent_cannot_use_up_the_hung_threads_of_every_agent() -> None:
    """Requirement G22: an agent whose commits left ``max_hung_per_agent`` evaluations hung is turned
    away for every judge, its own commits blocked at once; the pool keeps its other hung threads for the
    other agents, which still get every judge's verdict."""
    judges = [
        Stuck(f"s{n}", hangs_on=lambda context: context.transaction_id.startswith("m")) for n in range(4)
    ]
    gate = CommitGate(judges, judge_timeout_s=TIMEOUT_S, workers=2, max_hung=4, max_hung_per_agent=2)
    try:
        verdict = await agent_commit(gate, "m0", "mallory")
        assert [m for _, m in messages(verdict)][:2] == [f"judge s0 {TIMED_OUT}", f"judge s1 {TIMED_OUT}"]
        assert all(
            m.startswith(f"judge {j} was not run: agent 'mallory' has 2 hung judge evaluations")
            for j, m in messages(verdict)[2:]
        )
        assert messages(await agent_commit(gate, "a0", "alice")) == []
        status = gate.pool_status()
        assert (status.exhausted, status.held_back, len(status.hung)) == (False, ("mallory",), 2)
    finally:
        for judge in judges:
            judge.release.set()
    await until(lambda: not gate.hung())
    assert gate.pool_status().held_back == ()
    gate.close()


async def agent_commit(gate: CommitGate, transaction_id: str, principal: str) -> Verdict:
    return (await gate.evaluate(transaction_id, [EFFECT], [], "summary", STATE, principal=principal)).verdict


@dataclass
class Holding:
    """A judge that holds something open until closed (a model judge's HTTP client)."""

    name: str
    fails: bool = False
    closed: int = 0

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        return Verdict.allow()

    async def aclose(self) -> None:
        self.closed += 1
        if self.fails:
            raise OSError("connection reset")


async def test_closing_the_judges_closes_each_once_even_past_one_that_fails(
    caplog: pytest.LogCaptureFixture,
) -> None:
    first, failing, shadowed = Holding("a"), Holding("b", fails=True), Holding("c")
    gate = CommitGate([first, failing, InMode(shadowed, Mode.SHADOW)], judge_timeout_s=TIMEOUT_S)
    gate.close()
    with caplog.at_level(logging.WARNING, logger="guard.gate.commit"):
        await gate.aclose_judges()
    assert (first.closed, failing.closed, shadowed.closed) == (1, 1, 1)
    assert "judge b did not close cleanly" in caplog.text
