"""Evaluating rule packs: what fires, what passes, and that every failure to decide blocks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest

from judges import (
    CommitContext,
    Decision,
    Effect,
    EffectKind,
    Finding,
    JudgeChain,
    MemoryState,
    Query,
    RulePack,
    Severity,
    StateSnapshot,
    Verdict,
    call_effect,
    parse_rule_pack,
)

CARRIER = (
    "name: retail\n"
    "rules:\n"
    "  - id: ticket-solved-with-open-carrier-exception\n"
    "    when: {table: tickets, kind: [insert, update], changed: [status]}\n"
    "    let:\n"
    '      shipments: {table: shipments, where: {order_id: "effect.after.order_id"}}\n'
    "    require: \"effect.after.status != 'solved' || shipments.all(s, s.carrier_status != 'exception')\"\n"
    "    decision: block\n"
    "    message: \"ticket {{effect.key}}: status '{{effect.after.status}}' while carrier exception for "
    '{{effect.after.order_id}} is open"\n'
    '    hint: "allowed: hold"\n'
)

STATE: dict[str, list[dict[str, Any]]] = {
    "shipments": [
        {"id": "S1", "order_id": "ORD-1", "carrier_status": "exception"},
        {"id": "S2", "order_id": "ORD-2", "carrier_status": "in_transit"},
        {"id": "S3", "order_id": "ORD-2", "carrier_status": "delivered"},
    ],
    "orders": [
        {"id": "ORD-1", "total": Decimal("120.00"), "customer": "C1", "placed": datetime(2025, 9, 1, 12, 0)},
        {"id": "ORD-2", "total": 15.5, "customer": "C2", "placed": datetime(2025, 9, 30, tzinfo=UTC)},
    ],
}


def ticket(key: int, status: str, order: str | None = "ORD-1", before: str = "open", **extra: Any) -> Effect:
    old = {"id": key, "status": before, "order_id": order, **extra}
    new = {**old, "status": status}
    changed = ("status",) if before != status else tuple(extra)
    return Effect("tickets", (key,), EffectKind.UPDATE, old, new, changed)


def judge(
    pack: RulePack, effects: Sequence[Effect], state: Mapping[str, Any] = STATE, **snapshot: Any
) -> Verdict:
    effects = tuple(effects)
    queries = pack.queries(effects)
    answers = MemoryState(state).snapshot(queries)
    return pack(CommitContext("t1", effects, state=snapshot.get("override", answers)))


def rules(*bodies: str, header: str = "") -> RulePack:
    return parse_rule_pack(header + "rules:\n" + "".join(bodies), "test.yaml")


def rule(
    require: str,
    *,
    table: str = "tickets",
    kind: str = "[insert, update]",
    let: str = "",
    decision: str = "block",
    message: str = "fired",
    hint: str = "",
    rid: str = "r",
) -> str:
    text = f"  - id: {rid}\n    when: {{table: '{table}', kind: {kind}}}\n"
    if let:
        text += f"    let: {let}\n"
    text += f"    require: {require!r}\n    decision: {decision}\n    message: {message!r}\n"
    if hint:
        text += f"    hint: {hint!r}\n"
    return text


def test_the_rule_fires_with_status_text_and_hint() -> None:
    verdict = judge(parse_rule_pack(CARRIER, "retail.yaml"), [ticket(20, "solved")])
    assert verdict.decision is Decision.BLOCK
    assert verdict.findings == (
        Finding(
            judge="retail",
            severity=Severity.BLOCK,
            message="ticket 20: status 'solved' while carrier exception for ORD-1 is open",
            hint="allowed: hold",
            rule="ticket-solved-with-open-carrier-exception",
            evidence={"pack": "retail", "table": "tickets", "key": "20", "kind": "update"},
        ),
    )


def test_the_rule_passes_without_an_exception_or_when_not_solved() -> None:
    pack = parse_rule_pack(CARRIER, "retail.yaml")
    assert judge(pack, [ticket(21, "solved", "ORD-2"), ticket(22, "hold")]) == Verdict.allow()


def test_queries_name_only_what_applicable_rules_need_once() -> None:
    pack = parse_rule_pack(CARRIER, "retail.yaml")
    effects = (
        ticket(1, "solved"),
        ticket(2, "solved"),
        ticket(3, "solved", "ORD-2"),
        ticket(4, "open", before="open", priority="high"),
        Effect("orders", ("ORD-1",), EffectKind.UPDATE, {"id": "ORD-1"}, {"id": "ORD-1", "x": 1}, ("x",)),
    )
    assert pack.queries(effects) == [
        Query("shipments", (("order_id", "ORD-1"),)),
        Query("shipments", (("order_id", "ORD-2"),)),
    ]


def test_kinds_default_to_insert_and_update() -> None:
    pack = rules(rule("effect.after.status == 'open'"))
    deleted = Effect("tickets", (1,), EffectKind.DELETE, {"id": 1, "status": "open"}, None, ("id", "status"))
    assert judge(pack, [deleted]) == Verdict.allow()
    inserted = Effect("tickets", (2,), EffectKind.INSERT, None, {"id": 2, "status": "new"}, ("id", "status"))
    assert judge(pack, [inserted]).decision is Decision.BLOCK


def test_any_table_and_delete_kind() -> None:
    pack = rules(
        rule(
            "effect.table == 'audit'",
            table="*",
            kind="[delete]",
            message="{{effect.table}} {{effect.key}} deleted",
        )
    )
    deleted = Effect("tickets", (1,), EffectKind.DELETE, {"id": 1}, None, ("id",))
    verdict = judge(pack, [deleted])
    assert [f.message for f in verdict.findings] == ["tickets 1 deleted"]


def test_outbox_calls_are_effects_on_call_tables() -> None:
    pack = rules(
        rule(
            "order != null && double(order.total) >= double(effect.after.amount)",
            table="call:refund_payment",
            kind="call",
            let='{order: {table: orders, where: {id: "effect.after.order_id"}, one: true}}',
            decision="escalate",
            message="refund of {{effect.after.amount}} on order {{effect.after.order_id}} exceeds its total",
        )
    )
    ok = call_effect("refund_payment", "k1", {"order_id": "ORD-1", "amount": 100})
    big = call_effect("refund_payment", "k2", {"order_id": "ORD-2", "amount": 20})
    unknown = call_effect("refund_payment", "k3", {"order_id": "ORD-9", "amount": 1})
    verdict = judge(pack, [ok, big, unknown])
    assert verdict.decision is Decision.ESCALATE
    assert [f.message for f in verdict.findings] == [
        "refund of 20 on order ORD-2 exceeds its total",
        "refund of 1 on order ORD-9 exceeds its total",
    ]


def test_one_binds_the_first_row_or_null_and_limit_caps_rows() -> None:
    pack = rules(
        rule(
            "size(shipments) == 1 && first != null",
            let='{shipments: {table: shipments, where: {order_id: "effect.after.order_id"}, limit: 1},'
            ' first: {table: shipments, where: {order_id: "effect.after.order_id"}, one: true}}',
        )
    )
    assert judge(pack, [ticket(1, "x", "ORD-2")]) == Verdict.allow()
    assert judge(pack, [ticket(1, "x", "ORD-9")]).decision is Decision.BLOCK
    assert Query("shipments", (("order_id", "ORD-2"),), 1) in pack.queries((ticket(1, "x", "ORD-2"),))


def test_where_values_can_be_constants_and_expressions() -> None:
    pack = rules(
        rule(
            "size(matching) == 1",
            let="{matching: {table: shipments, where: {order_id: \"'ORD-' + effect.after.suffix\","
            " carrier_status: \"'delivered'\"}}}",
        )
    )
    effects = (ticket(1, "x", suffix="2"),)
    assert pack.queries(effects) == [
        Query("shipments", (("carrier_status", "delivered"), ("order_id", "ORD-2")))
    ]
    assert judge(pack, effects) == Verdict.allow()


def test_warn_and_escalate_decisions() -> None:
    pack = rules(
        rule("false", rid="w", decision="warn", message="w"),
        rule("false", rid="e", decision="escalate", message="e"),
    )
    verdict = judge(pack, [ticket(1, "x")])
    assert verdict.decision is Decision.ESCALATE
    assert [(f.rule, f.severity) for f in verdict.findings] == [
        ("w", Severity.WARN),
        ("e", Severity.ESCALATE),
    ]
    assert judge(rules(rule("false", decision="warn")), [ticket(1, "x")]).decision is Decision.ALLOW


def test_a_runtime_error_blocks_and_names_the_rule_even_for_a_warning() -> None:
    pack = rules(rule("effect.after.missing == 1", decision="warn", rid="typo-field"))
    verdict = judge(pack, [ticket(7, "x")])
    assert verdict.decision is Decision.BLOCK
    (finding,) = verdict.findings
    assert finding.rule == "typo-field"
    assert finding.message == "rule typo-field could not be evaluated for tickets 7: no such key: 'missing'"
    assert finding.evidence["error"] == "no such key: 'missing'"


@pytest.mark.parametrize(
    ("require", "detail"),
    [
        ("'yes'", "require gave a str, not a bool"),
        ("1 / 0 == 1", "division by zero in CEL expression"),
        ("effect.after.status + 1 == 2", "Unsupported operation"),
        ("int('x') == 1", "Function 'int' error"),
    ],
)
def test_every_evaluation_failure_blocks(require: str, detail: str) -> None:
    verdict = judge(rules(rule(require, rid="bad")), [ticket(7, "x")])
    assert verdict.decision is Decision.BLOCK
    assert detail in verdict.findings[0].message
    assert verdict.findings[0].rule == "bad"


def test_a_failed_lookup_blocks_every_rule_that_uses_it() -> None:
    pack = rules(
        rule(
            "effect.after.status != 'solved' || shipments.all(s, s.carrier_status != 'exception')",
            let='{shipments: {table: shipments, where: {order_id: "effect.after.order_ref"}}}',
            rid="uses-lookup",
        ),
        rule("true", rid="plain"),
    )
    effect = ticket(5, "open")
    assert pack.queries((effect,)) == []
    (finding,) = judge(pack, [effect]).findings
    assert finding.rule == "uses-lookup"
    assert finding.message == (
        "rule uses-lookup could not be evaluated for tickets 5: lookup 'shipments': no such key: 'order_ref'"
    )


def test_a_lookup_key_that_is_not_a_scalar_blocks() -> None:
    pack = rules(
        rule("size(rows) == 0", let='{rows: {table: shipments, where: {order_id: "effect.changed"}}}')
    )
    (finding,) = judge(pack, [ticket(5, "x")]).findings
    assert "a lookup value must be a scalar, got list" in finding.message


def test_a_lookup_through_a_null_row_blocks() -> None:
    pack = rules(
        rule(
            "size(rows) == 0",
            kind="[delete]",
            let='{rows: {table: shipments, where: {order_id: "effect.after.order_id"}}}',
        )
    )
    deleted = Effect("tickets", (1,), EffectKind.DELETE, {"id": 1, "order_id": "ORD-1"}, None, ("id",))
    (finding,) = judge(pack, [deleted]).findings
    assert "effect.after is null, not a map" in finding.message


def test_rows_the_gate_did_not_fetch_block() -> None:
    pack = parse_rule_pack(CARRIER, "retail.yaml")
    verdict = judge(pack, [ticket(20, "solved")], override=StateSnapshot())
    assert verdict.decision is Decision.BLOCK
    assert "its rows were not fetched" in verdict.findings[0].message


def test_a_failing_placeholder_renders_a_question_mark() -> None:
    pack = rules(rule("false", message="ticket {{effect.key}} owner {{effect.after.owner}}"))
    (finding,) = judge(pack, [ticket(3, "x")]).findings
    assert finding.message == "ticket 3 owner ?"
    assert finding.evidence["template_errors"] == ["{{effect.after.owner}}: no such key: 'owner'"]


def test_projection_hands_cel_only_named_fields() -> None:
    effect = ticket(1, "x", priority="high", channel="email")
    projected = rules(rule("size(effect.after) == 2 && effect.after.status == 'x' && effect.after.id == 1"))
    assert judge(projected, [effect]) == Verdict.allow()
    whole = rules(rule("size(effect.after) == 5 && effect.after.status == 'x'"), header="project: false\n")
    assert judge(whole, [effect]) == Verdict.allow()


def test_values_are_normalised_for_cel() -> None:
    pack = rules(
        rule(
            "order.total == 120 && order.placed < timestamp('2025-09-02T00:00:00Z')"
            " && effect.after.due == '2025-10-01'",
            let='{order: {table: orders, where: {id: "effect.after.order_id"}, one: true}}',
        )
    )
    assert judge(pack, [ticket(1, "x", due=date(2025, 10, 1))]) == Verdict.allow()


def test_effect_fields_seen_by_rules() -> None:
    pack = rules(
        rule(
            "effect.table == 'tickets' && effect.key == '9' && effect.kind == 'update'"
            " && effect.changed == ['status'] && effect.before.status == 'open'"
        )
    )
    assert judge(pack, [ticket(9, "solved")]) == Verdict.allow()


def test_changed_filter_selects_effects() -> None:
    pack = rules(
        "  - id: c\n    when: {table: tickets, changed: [priority]}\n    require: 'false'\n"
        "    decision: block\n    message: m\n"
    )
    assert judge(pack, [ticket(1, "solved")]) == Verdict.allow()
    assert judge(pack, [ticket(1, "open", priority="high")]).decision is Decision.BLOCK
    assert [r.id for r in pack.rules_for(ticket(1, "open", priority="high"))] == ["c"]
    assert pack.rules[0].applies(ticket(1, "open", priority="high"))
    assert not pack.rules[0].applies(ticket(1, "solved"))


def test_findings_follow_effect_then_rule_order() -> None:
    pack = rules(
        rule("false", rid="a", message="a {{effect.key}}"), rule("false", rid="b", message="b {{effect.key}}")
    )
    verdict = judge(pack, [ticket(1, "x"), ticket(2, "x")])
    assert [f.message for f in verdict.findings] == ["a 1", "b 1", "a 2", "b 2"]


async def test_a_pack_in_a_chain_at_the_gate() -> None:
    chain = JudgeChain([parse_rule_pack(CARRIER, "retail.yaml")])
    verdict = await chain.run(
        MemoryState(STATE), [ticket(20, "solved"), ticket(21, "solved", "ORD-2")], transaction_id="t"
    )
    assert [f.rule for f in verdict.findings] == ["ticket-solved-with-open-carrier-exception"]
    assert verdict.decision is Decision.BLOCK
