"""The judge chain's invariants over random chains, guard modes and entry modes (a property test).

Requirements G5, G32 and G35. Each judge declares (or not) the modes its findings may carry, sits
under a chain entry's mode (or none), and answers with a random verdict (its findings' modes among
those it declares), raises, returns no verdict, is refused (a timeout, a quarantine), cannot name its
rows, fails to follow up, or names rows the reader cannot read; the reader may be down. Over every
such chain, :meth:`JudgeChain.decide` (what the commit gate runs) must hold:

(a) the decision is exactly the strongest enforced finding's: never below it, never unexplained;
(b) a judge that could enforce and fails blocks the commit, in every guard mode;
(c) the judges whose findings would all be shadowed never change the decision, failing or not;
(d) every finding is recorded, shadowed or not, and each failure once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from guard.gate.commit import CommitGate
from judges import (
    CommitContext,
    Decision,
    Effect,
    EffectKind,
    Finding,
    InMode,
    JudgeChain,
    JudgeRefused,
    MemoryState,
    Mode,
    Query,
    Severity,
    StateSnapshot,
    Verdict,
)

EFFECT = Effect("tickets", (20,), EffectKind.UPDATE, {"id": 20, "s": "a"}, {"id": 20, "s": "b"}, ("s",))
TICKET = Query.of("tickets", None, id=20)
STATE = MemoryState({"tickets": [{"id": 20, "s": "b"}]})

FAILING = ("raises", "not_a_verdict", "refused", "queries", "follow_up", "unreadable")
"""Behaviours that never answer."""
READING = ("reads", "follow_up", "unreadable")
"""Behaviours that read rows in the first round."""
BEHAVIOURS = ("answers", "reads", *FAILING)
MODES: list[Mode | None] = [None, Mode.ENFORCE, Mode.SHADOW]
RANK = {Decision.ALLOW: 0, Decision.ESCALATE: 1, Decision.BLOCK: 2}


@dataclass(frozen=True)
class Plan:
    """One scripted judge: what it declares, its entry's mode, how it behaves, what it answers."""

    name: str
    declared: frozenset[Mode | None] | None
    entry: Mode | None
    behaviour: str
    is_async: bool
    decision: Decision
    findings: tuple[tuple[Severity, Mode | None], ...]

    def effective(self, guard: Mode) -> set[Mode]:
        """The modes its findings act in: each declared one, else the entry's, else the guard's."""
        declared = {None} if self.declared is None else self.declared
        return {mode or self.entry or guard for mode in declared}

    def could_enforce(self, guard: Mode) -> bool:
        return Mode.ENFORCE in self.effective(guard)

    def acts(self, mode: Mode | None, guard: Mode) -> bool:
        return (mode or self.entry or guard) is Mode.ENFORCE

    def verdict(self) -> Verdict:
        return Verdict(
            self.decision,
            tuple(
                Finding(self.name, s, f"{self.name} finding {n}", mode=m)
                for n, (s, m) in enumerate(self.findings)
            ),
        )


class Scripted:
    """A judge that does what its :class:`Plan` says (synchronous, or awaited when ``is_async``)."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.name = plan.name
        if plan.declared is not None:
            self.finding_modes = plan.declared
        if plan.is_async:
            self.evaluate = self._evaluate

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        behaviour = self.plan.behaviour
        if behaviour == "queries":
            raise LookupError("cannot say")
        if behaviour == "unreadable":
            return [Query.of("nowhere", None, id=self.name)]
        return [TICKET] if behaviour in READING else []

    def follow_up(self, effects: Sequence[Effect], state: StateSnapshot) -> Sequence[Query]:
        if self.plan.behaviour == "follow_up":
            raise LookupError("cannot follow")
        return []

    def __call__(self, context: CommitContext) -> Verdict:
        behaviour = self.plan.behaviour
        if behaviour == "raises":
            raise RuntimeError("boom")
        if behaviour == "refused":  # as the gate's execution does for a timeout or a quarantine
            raise JudgeRefused(f"judge {self.name} did not answer within 2s")
        if behaviour == "not_a_verdict":
            return True  # type: ignore[return-value]
        return self.plan.verdict()

    async def _evaluate(self, context: CommitContext) -> Verdict:
        return self(context)


class Reader:
    """The pending state, or a database that is down."""

    def __init__(self, down: bool) -> None:
        self.down = down

    async def fetch(self, queries: Sequence[Query]) -> StateSnapshot:
        if self.down:
            raise ConnectionError("the database is down")
        return await STATE.fetch(queries)


@st.composite
def plans(draw: st.DrawFn, index: int) -> Plan:
    declared = draw(st.none() | st.frozensets(st.sampled_from(MODES)))
    possible = [None] if declared is None else sorted(declared, key=str)
    findings = st.lists(st.tuples(st.sampled_from(Severity), st.sampled_from(possible)), max_size=3)
    return Plan(
        name=f"j{index}",
        declared=declared,
        entry=draw(st.sampled_from(MODES)),
        behaviour=draw(st.sampled_from(BEHAVIOURS)),
        is_async=draw(st.booleans()),
        decision=draw(st.sampled_from(Decision)),
        findings=tuple(draw(findings)) if possible else (),
    )


@st.composite
def chains(draw: st.DrawFn) -> list[Plan]:
    size = draw(st.integers(0, 5))
    return [draw(plans(index)) for index in range(size)]


def judges_of(chain: Sequence[Plan]) -> list[object]:
    return [Scripted(p) if p.entry is None else InMode(Scripted(p), p.entry) for p in chain]  # type: ignore[arg-type]


def completed(run: Coroutine[Any, Any, Verdict]) -> Verdict:
    """Drive a chain that never suspends (inline judges, a reader in memory) without an event loop."""
    try:
        run.send(None)
    except StopIteration as done:
        verdict: Verdict = done.value
        return verdict
    run.close()
    raise AssertionError("the chain suspended")


def decide(chain: Sequence[Plan], guard: Mode, down: bool) -> Verdict:
    judges = JudgeChain(judges_of(chain), name="gate")  # type: ignore[arg-type]
    return completed(judges.decide(Reader(down), [EFFECT], mode=guard, transaction_id="t"))


def strongest(findings: Sequence[Finding]) -> Decision:
    return max((f.severity.decision for f in findings), key=RANK.__getitem__, default=Decision.ALLOW)


def answered(plan: Plan, own: Sequence[Finding], guard: Mode) -> Decision:
    """(d) for a judge that answered: its findings recorded in order, each shadowed as its mode says;
    the decision it contributes, a bare decision above its findings included."""
    said = plan.verdict()
    assert [(f.severity, f.message) for f in own[: len(said.findings)]] == [
        (f.severity, f.message) for f in said.findings
    ]
    assert [f.shadow for f in own[: len(said.findings)]] == [
        not plan.acts(m, guard) for _, m in plan.findings
    ]
    contributes = strongest([f for f in own[: len(said.findings)] if not f.shadow])
    unshadowed = strongest([f for f in said.findings if not f.shadow])
    if RANK[said.decision] > RANK[unshadowed]:
        (explained,) = own[len(said.findings) :]
        assert (
            explained.message
            == f"judge {plan.name} decided {said.decision.value} without a finding that says why"
        )
        assert explained.shadow is not plan.could_enforce(guard)
        if plan.could_enforce(guard):
            contributes = max(contributes, said.decision, key=RANK.__getitem__)
    else:
        assert len(own) == len(said.findings)
    return contributes


def expected(chain: Sequence[Plan], verdict: Verdict, guard: Mode, down: bool) -> Decision:
    """The decision the chain must reach, judge by judge, checking (b) and (d) on the way."""
    unreadable = any(p.behaviour == "unreadable" for p in chain)
    decision = Decision.ALLOW
    for plan in chain:
        own = [f for f in verdict.findings if f.judge == plan.name]
        must_fail = plan.behaviour in FAILING or (down and plan.behaviour in READING)
        failed = (
            len(own) == 1
            and own[0].message.startswith(f"judge {plan.name} ")
            and "finding" not in own[0].message
        )
        if must_fail or (failed and plan.behaviour == "reads" and unreadable):
            assert failed, (plan, own)
            (failure,) = own
            assert failure.severity is Severity.BLOCK
            assert failure.shadow is not plan.could_enforce(guard)  # (b), (d)
            if plan.could_enforce(guard):
                decision = Decision.BLOCK
            continue
        decision = max(decision, answered(plan, own, guard), key=RANK.__getitem__)
    return decision


@settings(max_examples=1500)
@given(chain=chains(), guard=st.sampled_from(Mode), down=st.booleans())
def test_the_chain_fails_closed_in_every_mode_and_decides_what_its_findings_say(
    chain: list[Plan], guard: Mode, down: bool
) -> None:
    """Requirements G5, G32, G35: (a), (b), (c) and (d) over random chains."""
    verdict = decide(chain, guard, down)
    assert verdict.decision is strongest([f for f in verdict.findings if not f.shadow])  # (a)
    assert verdict.decision is expected(chain, verdict, guard, down)  # (b), (d)
    if any(p.could_enforce(guard) and p.behaviour in FAILING for p in chain):
        assert verdict.decision is Decision.BLOCK  # (b)
    enforcing = [p for p in chain if p.could_enforce(guard)]
    assert decide(enforcing, guard, down).decision is verdict.decision  # (c)
    assert {f.judge for f in verdict.findings} <= {p.name for p in chain}


@settings(max_examples=150)
@given(chain=chains(), guard=st.sampled_from(Mode), down=st.booleans())
def test_the_commit_gate_decides_as_the_chain_does(chain: list[Plan], guard: Mode, down: bool) -> None:
    """Requirements G5, G32, G35: the gate (judges on its threads, under its timeout) reaches the very
    verdict the chain does, so the invariants above hold for the guard's commits."""
    gate = CommitGate(judges_of(chain), judge_timeout_s=10, mode=guard)  # type: ignore[arg-type]
    try:
        result = asyncio.run(gate.evaluate("t", [EFFECT], [], "", Reader(down)))
    finally:
        gate.close()
    assert result.verdict == decide(chain, guard, down)
