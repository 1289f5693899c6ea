"""Requirement G43: rules over the commit as a whole (the trace, the conversation, the summary, the agent).

A rule reads ``calls`` (the transaction's calls in order), ``conversation`` (the turns the host handed
over), ``summary`` and ``principal`` beside ``effect``. A rule that reads the
conversation when the host handed none is not judged: one warning says so, and the commit goes ahead.
"""

from __future__ import annotations

from typing import Any

import pytest

from judges import (
    CallRecord,
    CommitContext,
    Decision,
    Effect,
    EffectKind,
    Role,
    RuleLoadError,
    RulePack,
    Severity,
    Turn,
    parse_rule_pack,
)

READ_FIRST = """\
rules:
  - id: read-before-change
    description: A reservation is read before it is changed.
    when: {table: reservations, kind: [update]}
    require: >-
      calls.exists(c, c.tool == 'get_reservation_details' && c.ok
                   && c.arguments.reservation_id == effect.key)
    decision: block
    message: "reservation {{effect.key}}: changed without a read of it ({{size(calls)}} call(s))"
"""

CONFIRMED = """\
rules:
  - id: said-yes
    when: {table: reservations, kind: [update]}
    require: "conversation.exists(t, t.role == 'user' && t.text.matches('^(?i)yes'))"
    decision: block
    message: "reservation {{effect.key}}: no user turn says yes"
  - id: cabin-known
    when: {table: reservations, kind: [update]}
    require: "effect.after.cabin in ['economy', 'business']"
    decision: block
    message: "reservation {{effect.key}}: cabin {{effect.after.cabin}}"
"""

WHO = """\
rules:
  - id: leads-refund
    when: {table: reservations, kind: [update]}
    require: "principal == 'lead' || !summary.contains('refund')"
    decision: escalate
    message: "{{principal}} may not refund"
"""


def change(key: str = "R1", **after: Any) -> Effect:
    row = {"reservation_id": key, "cabin": "economy", **after}
    return Effect("reservations", (key,), EffectKind.UPDATE, {"reservation_id": key}, row, ("cabin",))


def read(key: str, ok: bool = True) -> CallRecord:
    return CallRecord("get_reservation_details", {"reservation_id": key}, False, ok)


def judge(pack: RulePack, effect: Effect, **context: Any) -> Any:
    return pack(CommitContext("t1", (effect,), **context))


def test_a_rule_reads_the_calls_in_order_with_their_outcome() -> None:
    pack = parse_rule_pack(READ_FIRST, "trace.yaml")
    assert judge(pack, change(), calls=(read("R1"),)).decision is Decision.ALLOW
    for calls in [(), (read("R2"),), (read("R1", ok=False),)]:
        verdict = judge(pack, change(), calls=calls)
        assert verdict.decision is Decision.BLOCK
        wanted = f"reservation R1: changed without a read of it ({len(calls)} call(s))"
        assert verdict.findings[0].message == wanted


def test_a_rule_reads_the_conversation() -> None:
    pack = parse_rule_pack(CONFIRMED, "talk.yaml")
    yes = (Turn(Role.ASSISTANT, "Shall I?"), Turn(Role.USER, "Yes please."))
    assert judge(pack, change(), conversation=yes).decision is Decision.ALLOW
    verdict = judge(pack, change(), conversation=(Turn(Role.USER, "Maybe later."),))
    assert [f.rule for f in verdict.findings] == ["said-yes"]
    assert verdict.decision is Decision.BLOCK


def test_without_the_conversation_its_rules_warn_unjudged_and_the_others_run() -> None:
    pack = parse_rule_pack(CONFIRMED, "talk.yaml")
    verdict = judge(pack, change(cabin="first"))
    assert [(f.rule, f.severity) for f in verdict.findings] == [
        ("said-yes", Severity.WARN),
        ("cabin-known", Severity.BLOCK),
    ]
    assert verdict.findings[0].message == (
        "rule said-yes for reservations R1: it reads the conversation, which the agent's host did not hand"
        " over: not judged"
    )
    assert verdict.findings[0].evidence["not_judged"] == "conversation"
    assert judge(pack, change()).decision is Decision.ALLOW


def test_a_rule_reads_the_summary_and_the_principal() -> None:
    pack = parse_rule_pack(WHO, "who.yaml")
    assert judge(pack, change(), summary="refund issued", principal="lead").decision is Decision.ALLOW
    verdict = judge(pack, change(), summary="refund issued", principal="bot")
    assert verdict.decision is Decision.ESCALATE
    assert verdict.findings[0].message == "bot may not refund"
    assert judge(pack, change(), summary="cabin changed", principal="bot").decision is Decision.ALLOW


@pytest.mark.parametrize("name", ["calls", "conversation", "summary", "principal", "now", "effect"])
def test_a_lookup_cannot_take_a_commit_name(name: str) -> None:
    source = f"""\
lookups:
  {name}: {{table: users, where: {{id: "effect.after.user_id"}}}}
rules:
  - id: r
    when: {{table: reservations}}
    require: "true"
    decision: block
    message: m
"""
    with pytest.raises(RuleLoadError, match=f"'{name}' cannot name a lookup"):
        parse_rule_pack(source, "bad.yaml")


def test_a_lookup_key_cannot_read_the_calls() -> None:
    source = """\
lookups:
  first: {table: users, where: {id: "calls[0].arguments.user_id"}}
rules:
  - id: r
    when: {table: reservations}
    require: "size(first) > 0"
    decision: block
    message: m
"""
    with pytest.raises(RuleLoadError, match="unknown name 'calls'"):
        parse_rule_pack(source, "bad.yaml")
