"""Loading rule files: every mistake is one error naming the file, the rule and the position."""

from __future__ import annotations

from pathlib import Path

import pytest

from judges import RuleLoadError, load_rule_pack, parse_rule_pack

GOOD = (
    "name: retail\n"
    "lookups:\n"
    '  order: {table: orders, where: {id: "effect.after.order_id"}, one: true}\n'
    "rules:\n"
    "  - id: ticket-solved-with-open-carrier-exception\n"
    "    description: A ticket is not solved while its order has a carrier exception.\n"
    "    when: {table: tickets, kind: [insert, update], changed: [status]}\n"
    "    let:\n"
    '      shipments: {table: shipments, where: {order_id: "effect.after.order_id"}}\n'
    "    require: \"effect.after.status != 'solved' || shipments.all(s, s.carrier_status != 'exception')\"\n"
    "    decision: block\n"
    "    message: \"ticket {{effect.key}}: status '{{effect.after.status}}' while carrier exception for "
    '{{effect.after.order_id}} is open"\n'
    '    hint: "allowed: hold"\n'
    "  - id: refund-needs-order\n"
    '    when: {table: "call:refund_payment", kind: call}\n'
    '    require: "order != null && order.total >= effect.after.amount"\n'
    "    decision: escalate\n"
    '    message: "refund of {{effect.after.amount}} on order {{effect.after.order_id}}"\n'
)


def load_error(text: str, file: str = "rules.yaml") -> RuleLoadError:
    with pytest.raises(RuleLoadError) as caught:
        parse_rule_pack(text, file)
    return caught.value


def test_a_good_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "retail.yaml"
    path.write_text(GOOD)
    pack = load_rule_pack(path)
    assert pack.name == "retail"
    assert [rule.id for rule in pack.rules] == [
        "ticket-solved-with-open-carrier-exception",
        "refund-needs-order",
    ]
    assert pack.rules[0].lookups == ("shipments",)
    assert pack.rules[1].lookups == ("order",)
    assert pack.rules[0].line == 5
    assert pack.source == str(path)
    assert pack.fields is not None
    assert {"status", "order_id", "carrier_status", "after", "amount", "total"} <= pack.fields


def test_the_pack_name_defaults_to_the_file_stem() -> None:
    pack = parse_rule_pack(GOOD.replace("name: retail\n", ""), "/etc/guard/rules/booking.yaml")
    assert pack.name == "booking"


def test_a_missing_file_is_a_load_error(tmp_path: Path) -> None:
    with pytest.raises(RuleLoadError, match="cannot read the rule file") as caught:
        load_rule_pack(tmp_path / "absent.yaml")
    assert caught.value.file == str(tmp_path / "absent.yaml")


def test_a_bad_require_names_file_rule_and_position() -> None:
    text = GOOD.replace("s.carrier_status != 'exception')", "s.carrier_status != 'exception'")
    error = load_error(text)
    assert (error.file, error.rule, error.line) == (
        "rules.yaml",
        "ticket-solved-with-open-carrier-exception",
        10,
    )
    line = text.splitlines()[9]
    assert error.column == len(line)  # the closing quote: where the ')' is missing
    assert str(error).startswith(
        "rules.yaml:10:" + str(len(line)) + ": rule 'ticket-solved-with-open-carrier-exception': require: "
    )
    assert "missing ')'" in str(error)


def test_a_position_inside_a_literal_block() -> None:
    text = """\
rules:
  - id: r1
    when: {table: t}
    require: |
      effect.after.a == 1 &&
        effect.after.b ==
    decision: block
    message: m
"""
    error = load_error(text)
    assert (error.rule, error.line) == ("r1", 6)
    assert error.column == len("        effect.after.b ==") + 1


def test_a_position_inside_a_plain_scalar() -> None:
    error = load_error(
        "rules:\n  - id: r1\n    when: {table: t}\n"
        "    require: effect.after.a ==\n    decision: block\n    message: m\n"
    )
    assert (error.line, error.column) == (4, len("    require: effect.after.a ==") + 1)


def test_an_unknown_name_is_caught_at_load_with_its_position() -> None:
    text = GOOD.replace("shipments.all(s,", "shipmentz.all(s,")
    error = load_error(text)
    assert error.rule == "ticket-solved-with-open-carrier-exception"
    assert "unknown name 'shipmentz'" in error.detail
    assert "known: effect, order, shipments" in error.detail
    assert error.line is not None
    assert error.column is not None
    line = text.splitlines()[error.line - 1]
    assert line[error.column - 1 :].startswith("shipmentz")


def test_comprehension_variables_are_not_unknown_names() -> None:
    pack = parse_rule_pack(
        "rules:\n  - id: r\n    when: {table: t}\n"
        "    require: \"effect.changed.exists(f, f == 'x') && [1, 2].all(n, n > 0)\"\n"
        "    decision: warn\n    message: m\n"
    )
    assert pack.rules[0].lookups == ()


def test_a_bad_placeholder_names_its_position() -> None:
    text = GOOD.replace("{{effect.after.order_id}} is open", "{{effect.after.}} is open")
    error = load_error(text)
    assert error.rule == "ticket-solved-with-open-carrier-exception"
    assert error.line == 12
    assert "message: placeholder '{{effect.after.}}'" in error.detail
    line = text.splitlines()[11]
    assert error.column is not None
    assert line.index("{{effect.after.}}") < error.column <= line.index("}} is open") + 2


def test_an_unknown_name_in_a_placeholder() -> None:
    error = load_error(GOOD.replace("on order {{effect.after.order_id}}", "on order {{ordr.id}}"))
    assert (error.rule, error.line) == ("refund-needs-order", 18)
    assert "unknown name 'ordr'" in error.detail


def test_schema_errors_point_at_the_value() -> None:
    text = GOOD.replace("decision: escalate", "decision: maybe")
    error = load_error(text)
    assert (error.rule, error.line, error.column) == ("refund-needs-order", 17, 15)
    assert error.detail.startswith("rules.1.decision: Input should be 'block', 'warn' or 'escalate'")


def test_a_missing_field_points_at_the_rule() -> None:
    error = load_error("rules:\n  - id: r1\n    when: {table: t}\n    decision: block\n    message: m\n")
    assert (error.rule, error.line, error.column) == ("r1", 2, 5)
    assert "rules.0.require: Field required" in error.detail


def test_an_unknown_field_is_refused() -> None:
    error = load_error(
        GOOD.replace('    hint: "allowed: hold"', '    hint: "allowed: hold"\n    severity: high')
    )
    assert "rules.0.severity: Extra inputs are not permitted" in error.detail
    assert error.line == 14


def test_bad_yaml_is_a_load_error_with_a_position() -> None:
    error = load_error("rules:\n  - id: r1\n    when: {table: t\n")
    assert error.rule is None
    assert error.line is not None
    assert error.detail.startswith("not valid YAML")


@pytest.mark.parametrize("text", ["", "- a\n- b\n", "just text\n"])
def test_a_document_that_is_not_a_pack(text: str) -> None:
    error = load_error(text)
    assert error.line == 1


def test_duplicate_rule_ids() -> None:
    text = GOOD + GOOD[GOOD.index("  - id: refund-needs-order") :]
    error = load_error(text)
    assert error.rule == "refund-needs-order"
    assert "duplicate rule id (first defined on line 14)" in error.detail
    assert error.line == 19


def test_a_lookup_name_means_one_lookup() -> None:
    text = GOOD.replace(
        '    hint: "allowed: hold"\n',
        '    hint: "allowed: hold"\n'
        "  - id: other\n    when: {table: tickets}\n"
        '    let: {shipments: {table: shipments, where: {id: "effect.key"}}}\n'
        '    require: "size(shipments) < 3"\n    decision: warn\n    message: m\n',
    )
    error = load_error(text)
    assert error.rule == "other"
    assert "lookup 'shipments' is already defined differently" in error.detail


def test_an_unused_let_is_an_error() -> None:
    text = (
        'rules:\n  - id: r\n    when: {table: t}\n    let: {o: {table: orders, where: {id: "effect.key"}}}\n'
    )
    text += '    require: "true"\n    decision: block\n    message: m\n'
    error = load_error(text)
    assert "let 'o' is never used by this rule" in error.detail
    assert error.line == 4


def test_a_where_expression_sees_only_the_effect() -> None:
    text = 'lookups:\n  o: {table: orders, where: {id: "order.id"}}\nrules: []\n'
    error = load_error(text)
    assert error.rule is None
    assert "unknown name 'order'" in error.detail
    assert (error.line, error.column) == (2, text.splitlines()[1].index("order.id") + 1)


@pytest.mark.parametrize("name", ["effect", "true", "_x", "1a"])
def test_reserved_or_malformed_lookup_names(name: str) -> None:
    error = load_error(f"lookups:\n  '{name}': {{table: t, where: {{id: 1}}}}\nrules: []\n")
    assert "cannot name a lookup" in error.detail


def test_a_rule_id_must_be_a_simple_name() -> None:
    error = load_error(
        "rules:\n  - id: 'has space'\n    when: {table: t}\n"
        "    require: 'true'\n    decision: block\n    message: m\n"
    )
    assert error.rule == "has space"
    assert "a rule id is letters" in error.detail
