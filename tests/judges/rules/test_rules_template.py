"""Message templates: placeholders are CEL, compiled at load, rendered as status text."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from judges.rules.engine import Environment
from judges.rules.template import TemplateError, compile_template, format_value


def test_render() -> None:
    template = compile_template("ticket {{effect.key}}: {{ effect.after.status }} ({{size(rows)}} rows)")
    environment = Environment({"effect": {"key": "20", "after": {"status": "solved"}}, "rows": [1, 2]})
    assert template.render(environment) == "ticket 20: solved (2 rows)"
    assert template.variables == {"effect", "rows"}


def test_text_without_placeholders_and_literal_braces() -> None:
    assert compile_template("allowed: hold").render(None) == "allowed: hold"
    assert compile_template("{{ '{{' }}x}}").render(Environment({})) == "{{x}}"


def test_failures_render_as_question_marks_and_are_reported() -> None:
    errors: list[str] = []
    text = compile_template("a {{x.y}} b").render(Environment({"x": {}}), errors)
    assert text == "a ? b"
    assert errors == ["{{x.y}}: no such key: 'y'"]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (3, "3"),
        (3.0, "3"),
        (2.5, "2.5"),
        ("x", "x"),
        ([1, "a"], '[1,"a"]'),
        ({"b": 1, "a": None}, '{"a":null,"b":1}'),
        (datetime(2025, 10, 1, 13, 0, tzinfo=UTC), "2025-10-01T13:00:00+00:00"),
    ],
)
def test_format_value(value: object, text: str) -> None:
    assert format_value(value) == text


def test_a_bad_placeholder_reports_its_position_in_the_template() -> None:
    with pytest.raises(TemplateError) as caught:
        compile_template("first line\nticket {{effect.}} done")
    assert caught.value.line == 2
    assert caught.value.column == len("ticket {{effect.") + 1
    assert "placeholder '{{effect.}}'" in caught.value.detail
