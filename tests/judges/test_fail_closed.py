"""Failing closed in every mode: a judge that could have stopped a commit and cannot answer blocks it.

Requirements G5, G32 and G35 in the judges library: a failure finding takes the modes its judge's
findings could have had (a rule's ``mode: enforce`` wins over a shadow guard, for its pack's failures
too); a judge all of whose findings would be shadowed fails in shadow; a verdict's decision is what
its findings say, never less.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from judges import (
    AsyncJudge,
    CommitContext,
    Decision,
    Effect,
    EffectKind,
    Finding,
    InMode,
    Judge,
    JudgeChain,
    JudgeRefused,
    MemoryState,
    Mode,
    Query,
    Severity,
    StateSnapshot,
    Verdict,
    in_modes,
    judge_modes,
    parse_rule_pack,
)

EFFECT = Effect(
    "tickets",
    (20,),
    EffectKind.UPDATE,
    {"id": 20, "status": "open", "order_id": "O1"},
    {"id": 20, "status": "closed", "order_id": "O1"},
    ("status",),
)
STATE = MemoryState({"tickets": [{"id": 20, "status": "closed", "order_id": "O1"}], "orders": []})


def pack(mode: str | None, name: str = "policy") -> Judge:
    """A pack of one blocking rule over closed tickets, in ``mode`` (None: the rule declares none)."""
    lines = [
        f"name: {name}",
        "rules:",
        "  - id: no-closing",
        "    when: {table: tickets, changed: [status]}",
        "    require: \"effect.after.status != 'closed'\"",
        "    decision: block",
        '    message: "ticket {{effect.key}} may not be closed"',
    ]
    if mode is not None:
        lines.append(f"    mode: {mode}")
    return parse_rule_pack("\n".join(lines) + "\n", f"{name}.yaml")


@dataclass
class Broken:
    """A judge that fails as ``how`` says; what it does not override is its ``judge``'s."""

    judge: Judge
    how: str

    @property
    def name(self) -> str:
        return self.judge.name

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        if self.how == "queries":
            raise LookupError("cannot say")
        if self.how == "unreadable":
            return [Query.of("nowhere", None, id=1)]
        if self.how == "follow_up":
            return [Query.of("tickets", None, id=20)]
        return self.judge.queries(effects)

    def follow_up(self, effects: Sequence[Effect], state: StateSnapshot) -> Sequence[Query]:
        if self.how == "follow_up":
            raise LookupError("cannot follow")
        return []

    def __call__(self, context: CommitContext) -> Verdict:
        if self.how == "raises":
            raise RuntimeError("boom")
        if self.how == "not_a_verdict":
            return True  # type: ignore[return-value]
        return self.judge(context)

    def __getattr__(self, attribute: str) -> object:
        if attribute == "judge":
            raise AttributeError(attribute)
        return getattr(self.judge, attribute)


class Refusing:
    """The gate's refusals without its threads: a judge whose ``how`` is ``refused`` is turned away
    (a timeout, a quarantine, an exhausted pool), the others run inline."""

    async def run_sync(self, judge: Judge, context: CommitContext) -> object:
        if getattr(judge, "how", None) == "refused":
            raise JudgeRefused(f"judge {judge.name} did not answer within 2s")
        return judge(context)

    async def run_async(self, judge: AsyncJudge, context: CommitContext) -> object:
        return await judge.evaluate(context)


FAILURES = ["raises", "not_a_verdict", "refused", "queries", "follow_up", "unreadable"]


@dataclass(frozen=True)
class Said:
    """A judge that answers ``verdict`` whatever it is shown."""

    name: str
    verdict: Verdict

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    def __call__(self, context: CommitContext) -> Verdict:
        return self.verdict


WARNED = Said("w", Verdict.of([Finding("w", Severity.WARN, "w noticed")]))


async def settled(judge: object, guard: Mode) -> Verdict:
    """The chain of ``judge`` and a warning, run and settled as the gate does."""
    chain = JudgeChain([judge, WARNED], execution=Refusing())  # type: ignore[list-item]
    verdict = await chain.run(STATE, [EFFECT], transaction_id="t1")
    return in_modes(verdict, judge_modes(chain.judges), guard)


@pytest.mark.parametrize("guard", [Mode.SHADOW, Mode.ENFORCE])
@pytest.mark.parametrize("how", FAILURES)
async def test_a_pack_whose_rule_says_enforce_blocks_in_every_mode_when_it_cannot_answer(
    how: str, guard: Mode
) -> None:
    """Requirements G5, G32: a rule's ``mode: enforce`` wins over a shadow guard, so its pack's failure
    blocks under a shadow guard too, however it failed; the failure is not shadowed."""
    verdict = await settled(Broken(pack("enforce"), how), guard)
    assert verdict.decision is Decision.BLOCK
    failed, warned = verdict.findings
    assert (failed.judge, failed.severity, failed.shadow) == ("policy", Severity.BLOCK, False)
    assert warned.message == "w noticed"


@pytest.mark.parametrize("guard", [Mode.SHADOW, Mode.ENFORCE])
@pytest.mark.parametrize("how", FAILURES)
async def test_a_pack_whose_rules_all_say_shadow_fails_in_shadow_in_every_mode(how: str, guard: Mode) -> None:
    """Requirements G5, G32: a pack all of whose findings would be shadowed cannot stop a commit, so its
    failure is recorded (shadowed) and decides nothing: rolling out a new shadow pack stays safe."""
    verdict = await settled(Broken(pack("shadow"), how), guard)
    assert verdict.decision is Decision.ALLOW
    failed, _ = verdict.findings
    assert (failed.judge, failed.severity, failed.shadow) == ("policy", Severity.BLOCK, True)
    assert verdict.would_decide is Decision.BLOCK


@pytest.mark.parametrize(
    ("rule", "entry", "guard", "blocks"),
    [
        (None, None, Mode.SHADOW, False),
        (None, None, Mode.ENFORCE, True),
        (None, Mode.ENFORCE, Mode.SHADOW, True),
        (None, Mode.SHADOW, Mode.ENFORCE, False),
        ("enforce", Mode.SHADOW, Mode.SHADOW, True),
        ("enforce", Mode.SHADOW, Mode.ENFORCE, True),
        ("shadow", Mode.ENFORCE, Mode.ENFORCE, False),
    ],
)
@pytest.mark.parametrize("how", ["raises", "refused", "unreadable"])
async def test_a_failure_blocks_exactly_when_the_judges_findings_could_have(
    how: str, rule: str | None, entry: Mode | None, guard: Mode, blocks: bool
) -> None:
    """Requirements G5, G32: the rule's mode, else the chain entry's, else the guard's, as for findings."""
    judge: object = Broken(pack(rule), how)
    if entry is not None:
        judge = InMode(judge, entry)  # type: ignore[arg-type]
    verdict = await settled(judge, guard)
    assert verdict.decision is (Decision.BLOCK if blocks else Decision.ALLOW)
    assert verdict.findings[0].shadow is not blocks


async def test_a_pack_that_mixes_modes_fails_closed_if_any_rule_could_block() -> None:
    """Requirement G5: one rule that says enforce is enough; the shadowed rules beside it do not matter."""
    two = parse_rule_pack(
        "name: policy\nrules:\n"
        "  - {id: a, when: {table: tickets}, require: 'true', decision: block, message: a, mode: shadow}\n"
        "  - {id: b, when: {table: tickets}, require: 'true', decision: warn, message: b, mode: enforce}\n",
        "policy.yaml",
    )
    assert (await settled(Broken(two, "raises"), Mode.SHADOW)).decision is Decision.BLOCK


# -- a verdict is what its findings say -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "decided"),
    [
        (Verdict(Decision.ALLOW, (Finding("j", Severity.BLOCK, "no"),)), Decision.BLOCK),
        (Verdict(Decision.ALLOW, (Finding("j", Severity.ESCALATE, "ask"),)), Decision.ESCALATE),
        (Verdict(Decision.ESCALATE, (Finding("j", Severity.BLOCK, "no"),)), Decision.BLOCK),
        (Verdict(Decision.ALLOW, (Finding("j", Severity.BLOCK, "no", mode=Mode.ENFORCE),)), Decision.BLOCK),
        (Verdict(Decision.ALLOW, (Finding("j", Severity.BLOCK, "no", mode=Mode.SHADOW),)), Decision.ALLOW),
    ],
)
async def test_a_verdict_that_understates_its_findings_decides_what_they_say(
    said: Verdict, decided: Decision
) -> None:
    """Requirement G35: ``Verdict(ALLOW, [block finding])`` blocks; the chain's decision is never below the
    strongest enforced finding of a judge's answer, and the findings are kept as they were."""
    chain = JudgeChain([Said("j", said)])
    for verdict in (
        chain(CommitContext("t1", (EFFECT,))),
        await chain.run(STATE, [EFFECT], transaction_id="t1"),
    ):
        assert verdict.decision is decided
        assert verdict.findings == said.findings


@pytest.mark.parametrize(("entry", "blocks"), [(None, True), (Mode.ENFORCE, True), (Mode.SHADOW, False)])
async def test_a_decision_no_finding_explains_gets_a_finding_in_its_judges_mode(
    entry: Mode | None, blocks: bool
) -> None:
    """Requirements G32, G35: a judge that blocks without a finding blocks and is told so in a finding;
    under a shadow entry that finding is shadowed like the judge's others, and recorded."""
    judge: object = Said("bare", Verdict(Decision.BLOCK))
    if entry is not None:
        judge = InMode(judge, entry)  # type: ignore[arg-type]
    verdict = await settled(judge, Mode.ENFORCE)
    assert verdict.decision is (Decision.BLOCK if blocks else Decision.ALLOW)
    explained, _ = verdict.findings
    assert (explained.judge, explained.severity, explained.shadow) == ("bare", Severity.BLOCK, not blocks)
    assert explained.message == "judge bare decided block without a finding that says why"
