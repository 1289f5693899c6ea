"""Shadow mode in the judges library: shadowed findings kept but not counted, and whose mode wins.

Requirement G32: a shadowed finding is in the verdict and out of its decision; a rule's ``mode``
wins over its judge-chain entry's, which wins over the guard's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from judges import (
    CommitContext,
    ConfigError,
    Decision,
    Effect,
    EffectKind,
    Finding,
    FollowUp,
    InMode,
    Mode,
    NamesTables,
    Query,
    RuleLoadError,
    Severity,
    Verdict,
    combine,
    default_registry,
    in_modes,
    is_async,
    judge_modes,
    parse_rule_pack,
)

EFFECT = Effect(
    "tickets",
    (20,),
    EffectKind.UPDATE,
    {"id": 20, "status": "open"},
    {"id": 20, "status": "solved"},
    ("status",),
)


def finding(judge: str = "j", severity: Severity = Severity.BLOCK, mode: Mode | None = None) -> Finding:
    return Finding(judge, severity, f"{judge} says {severity.value}", mode=mode)


def pack_text(*rules: tuple[str, str, str | None]) -> str:
    """A pack named ``policy`` of rules (id, decision, mode) that all fire on a solved ticket."""
    lines = ["name: policy", "rules:"]
    for ident, decision, mode in rules:
        lines += [
            f"  - id: {ident}",
            "    when: {table: tickets, changed: [status]}",
            "    require: \"effect.after.status != 'solved'\"",
            f"    decision: {decision}",
            f'    message: "{ident} fired"',
        ]
        if mode is not None:
            lines.append(f"    mode: {mode}")
    return "\n".join(lines) + "\n"


def judged(text: str) -> Verdict:
    return parse_rule_pack(text, "policy.yaml")(CommitContext("t1", (EFFECT,)))


# -- findings and verdicts ----------------------------------------------------------------------------


def test_a_shadowed_finding_is_kept_but_does_not_decide() -> None:
    verdict = Verdict.of([finding("a", Severity.WARN), finding("b", mode=Mode.SHADOW)])
    assert verdict.decision is Decision.ALLOW
    assert [f.judge for f in verdict.findings] == ["a", "b"]
    assert verdict.would_decide is Decision.BLOCK
    assert [f.judge for f in verdict.blocking] == ["b"]


def test_an_enforced_finding_still_decides_beside_a_shadowed_one() -> None:
    verdict = Verdict.of([finding("a", Severity.ESCALATE), finding("b", mode=Mode.SHADOW)])
    assert (verdict.decision, verdict.would_decide) == (Decision.ESCALATE, Decision.BLOCK)
    assert Verdict.of([finding("a")]).would_decide is Decision.BLOCK


def test_combine_keeps_shadowed_findings_in_order_and_out_of_the_decision() -> None:
    shadowed = Verdict.of([finding("a", mode=Mode.SHADOW)])
    warned = Verdict.of([finding("b", Severity.WARN)])
    combined = combine([shadowed, warned])
    assert combined.decision is Decision.ALLOW
    assert [f.judge for f in combined.findings] == ["a", "b"]
    assert combined.would_decide is Decision.BLOCK


def test_shadow_is_serialised_only_when_true() -> None:
    assert finding(mode=Mode.SHADOW).to_dict()["shadow"] is True
    assert "shadow" not in finding(mode=Mode.ENFORCE).to_dict()
    assert "shadow" not in finding().to_dict()


# -- whose mode wins -------------------------------------------------------------------------------------


def test_the_guards_mode_shadows_every_unsettled_finding() -> None:
    verdict = Verdict.of([finding("a"), finding("b", Severity.ESCALATE)])
    shadowed = in_modes(verdict, {}, Mode.SHADOW)
    assert shadowed.decision is Decision.ALLOW
    assert all(f.shadow for f in shadowed.findings)
    assert shadowed.would_decide is Decision.BLOCK
    assert in_modes(verdict, {}, Mode.ENFORCE) is verdict


@pytest.mark.parametrize(
    ("rule", "entry", "guard", "shadowed"),
    [
        (None, None, Mode.ENFORCE, False),
        (None, None, Mode.SHADOW, True),
        (None, Mode.SHADOW, Mode.ENFORCE, True),
        (None, Mode.ENFORCE, Mode.SHADOW, False),
        (Mode.SHADOW, None, Mode.ENFORCE, True),
        (Mode.ENFORCE, None, Mode.SHADOW, False),
        (Mode.ENFORCE, Mode.SHADOW, Mode.SHADOW, False),
        (Mode.SHADOW, Mode.ENFORCE, Mode.ENFORCE, True),
    ],
)
def test_the_rule_wins_over_the_entry_which_wins_over_the_guard(
    rule: Mode | None, entry: Mode | None, guard: Mode, shadowed: bool
) -> None:
    entries = {} if entry is None else {"policy": entry}
    settled = in_modes(Verdict.of([finding("policy", mode=rule)]), entries, guard)
    assert settled.findings[0].shadow is shadowed
    assert settled.decision is (Decision.ALLOW if shadowed else Decision.BLOCK)
    assert settled.would_decide is Decision.BLOCK


def test_an_entrys_mode_applies_only_to_its_own_judges_findings() -> None:
    verdict = Verdict.of([finding("trial"), finding("other")])
    settled = in_modes(verdict, {"trial": Mode.SHADOW}, Mode.ENFORCE)
    assert [f.shadow for f in settled.findings] == [True, False]
    assert settled.decision is Decision.BLOCK


def test_a_decision_no_finding_explains_is_not_shadowed_away() -> None:
    assert in_modes(Verdict(Decision.BLOCK), {}, Mode.SHADOW).decision is Decision.BLOCK


# -- rule packs ------------------------------------------------------------------------------------------


def test_a_shadow_rule_fires_without_deciding() -> None:
    verdict = judged(pack_text(("trial", "block", "shadow"), ("live", "warn", None)))
    assert verdict.decision is Decision.ALLOW
    assert [(f.rule, f.shadow) for f in verdict.findings] == [("trial", True), ("live", False)]
    assert verdict.would_decide is Decision.BLOCK


def test_an_enforce_rule_blocks_under_a_shadow_guard_beside_one_that_does_not() -> None:
    verdict = judged(pack_text(("kept", "block", "enforce"), ("new", "escalate", None)))
    settled = in_modes(verdict, {}, Mode.SHADOW)
    assert settled.decision is Decision.BLOCK
    assert [(f.rule, f.shadow) for f in settled.findings] == [("kept", False), ("new", True)]


def test_a_shadow_rule_that_cannot_be_evaluated_is_shadowed_too() -> None:
    text = pack_text(("broken", "warn", "shadow")).replace(
        "effect.after.status != 'solved'", "effect.after.missing == 1"
    )
    verdict = judged(text)
    (failed,) = verdict.findings
    assert (failed.severity, failed.shadow) == (Severity.BLOCK, True)
    assert verdict.decision is Decision.ALLOW


def test_a_bad_rule_mode_names_the_rule_and_line() -> None:
    with pytest.raises(RuleLoadError) as caught:
        parse_rule_pack(pack_text(("trial", "block", "dry-run")), "policy.yaml")
    assert caught.value.rule == "trial"
    assert caught.value.line == 8
    assert "mode" in str(caught.value)


# -- judge-chain entries ---------------------------------------------------------------------------------


class _Follows:
    """A judge with follow-up queries and named tables, to see that its wrapper keeps both."""

    name = "follows"
    tables_named = frozenset({"tickets"})

    def queries(self, effects: Sequence[Effect]) -> list[Query]:
        return []

    def follow_up(self, effects: Sequence[Effect], state: object) -> list[Query]:
        return []

    def __call__(self, context: CommitContext) -> Verdict:
        return Verdict.of([Finding(self.name, Severity.BLOCK, "no")])


def test_a_chain_entry_with_a_mode_wraps_its_judge(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text(pack_text(("trial", "block", None)))
    registry = default_registry()
    registry.register("follows", lambda options, base: _Follows())
    chain = registry.chain(
        [
            {"judge": "rules", "path": "policy.yaml", "mode": "shadow"},
            {"judge": "follows", "mode": "enforce"},
            {"judge": "failed_write"},
        ],
        base_dir=tmp_path,
    )
    rules, follows, plain = chain.judges
    assert isinstance(rules, InMode)
    assert isinstance(follows, InMode)
    assert not isinstance(plain, InMode)
    assert judge_modes(chain.judges) == {"policy": Mode.SHADOW, "follows": Mode.ENFORCE}
    assert isinstance(rules, NamesTables)
    assert rules.tables_named == frozenset({"tickets"})
    assert isinstance(follows, FollowUp)
    assert not isinstance(plain, FollowUp)
    assert not is_async(rules)
    verdict = in_modes(chain(CommitContext("t1", (EFFECT,))), judge_modes(chain.judges), Mode.SHADOW)
    assert [(f.judge, f.shadow) for f in verdict.findings] == [("policy", True), ("follows", False)]
    assert verdict.decision is Decision.BLOCK


def test_a_bad_entry_mode_is_one_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"judge 'failed_write'.*mode"):
        default_registry().chain([{"judge": "failed_write", "mode": "loud"}], base_dir=tmp_path)
