"""The OData subset of zendesk_get_items: the reference's grammar and its partial evaluation."""

from __future__ import annotations

import pytest

from benchmark.domains.zendesk import ALL_COMPARATORS, ODataError, evaluate, parse_filter

ROW = {
    "id": "6",
    "status": "open",
    "priority": "high",
    "requester_id": "10",
    "verified": True,
    "due_at": None,
}


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("status eq 'open'", True),
        ("status eq 'solved'", False),
        ("STATUS EQ 'open'", False),
        ("status eq 'open' and priority eq 'high'", True),
        ("status eq 'solved' or priority eq 'high'", True),
        ("requester_id eq '10' and (status eq 'solved' or status eq 'pending')", False),
        ("id gt '5'", True),
        ("id lt '5'", False),
        ("requester_id eq 10", False),
        ("verified eq true", False),
        ("verified eq 'true'", False),
    ],
)
def test_evaluated_comparisons(expression: str, expected: bool) -> None:
    assert evaluate(parse_filter(expression), ROW) is expected


@pytest.mark.parametrize(
    "expression",
    [
        "status ne 'open'",
        "status ge 'z'",
        "status le 'a'",
        "status in ('solved', 'closed')",
        "contains(status, 'x')",
        "tags/any(t: t eq 'x')",
        "status",
    ],
)
def test_constructs_the_reference_does_not_evaluate_match_every_row(expression: str) -> None:
    assert evaluate(parse_filter(expression), ROW) is True


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("status ne 'open'", False),
        ("status ne 'solved'", True),
        ("status ge 'open'", True),
        ("status ge 'z'", False),
        ("status le 'a'", False),
        ("id le '6' and status ne 'hold'", True),
        ("status in ('solved', 'closed')", True),
    ],
)
def test_other_domains_copies_also_evaluate_ne_ge_le(expression: str, expected: bool) -> None:
    assert evaluate(parse_filter(expression), ROW, ALL_COMPARATORS) is expected


def test_ordering_against_null_fails_where_ge_is_evaluated() -> None:
    with pytest.raises(TypeError, match="'>=' not supported between instances of 'NoneType' and 'str'"):
        evaluate(parse_filter("due_at ge '2025'"), ROW, ALL_COMPARATORS)


def test_not_binds_tighter_than_comparison() -> None:
    assert evaluate(parse_filter("not status eq 'open'"), ROW) is False


def test_literals_other_than_text_and_numbers_are_opaque() -> None:
    assert evaluate(parse_filter("due_at eq null"), ROW) is False
    with pytest.raises(TypeError, match="'>' not supported between instances of 'str' and 'DateTime'"):
        evaluate(parse_filter("status gt 2025-01-01T00:00:00Z"), ROW)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        (
            'status eq "open"',
            "Failed to tokenize at: Token(type='ERROR', value='\"open\"', lineno=1, index=10)",
        ),
        ("status eq 'open' ", "Failed to parse at: Token(type='WS', value=' ', lineno=1, index=16)"),
        ("status eq", "Failed to parse at: Token(type='WS', value=' ', lineno=1, index=6)"),
        ("(status eq 'open'", "Failed to parse at: None"),
        ("status & 'open'", "Failed to parse at: Token(type='WS', value=' ', lineno=1, index=6)"),
        ("foo(status)", "Unknown function: 'foo'"),
        ("contains(status)", "Function 'contains' takes 2 arguments. 1 given."),
        ("substring(status)", "Function 'substring' takes between 2 and 3 arguments. 1 given."),
    ],
)
def test_syntax_errors_read_like_the_reference(expression: str, message: str) -> None:
    with pytest.raises(ODataError) as info:
        parse_filter(expression)
    assert str(info.value) == message
