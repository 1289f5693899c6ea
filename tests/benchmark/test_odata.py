"""The OData subset of zendesk_get_items: the reference's grammar and its partial evaluation."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmark.domains.zendesk import ALL_COMPARATORS, BASE_COMPARATORS, ODataError, evaluate, parse_filter

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


@pytest.mark.parametrize(
    "expression",
    [
        "contains(status=status, x='y')",
        "trim(('a', 'b'))",
        "(" * 2000 + "status eq 'open'" + ")" * 2000,
    ],
    ids=["named-parameters", "a-list-as-one-argument", "deep-nesting"],
)
def test_filters_the_references_parser_reads(expression: str) -> None:
    assert evaluate(parse_filter(expression), ROW) is True


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("status in ('open')", "Failed to parse at: Token(type=')', value=')', lineno=1, index=17)"),
        (
            "foo(status)0",
            "Failed to parse at: Token(type='INTEGER', value=Integer(val='0'), lineno=1, index=11)",
        ),
        ("contains(a=1, b=2, c=3)", "No symbol list_items. Must be one of"),
    ],
    ids=["a-one-item-in-list", "the-next-token-before-the-call", "three-named-parameters"],
)
def test_errors_read_as_the_references_parser_raises_them(expression: str, message: str) -> None:
    with pytest.raises(ODataError) as info:
        parse_filter(expression)
    assert str(info.value).startswith(message)


# A property of the comparison subset that agents write (``email eq '...'``, ``and``/``or``, parentheses):
# a generated filter is evaluated as an independent model of the reference's rules says it should be.

_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "gt": operator.gt,
    "ge": operator.ge,
    "lt": operator.lt,
    "le": operator.le,
}
_KINDS = {"eq": "Eq", "ne": "NotEq", "gt": "Gt", "ge": "GtE", "lt": "Lt", "le": "LtE"}
_TEXT_FIELDS = ["id", "status", "priority", "requester_id"]


@dataclass(frozen=True)
class _Comparison:
    field: str
    operator: str
    literal: str
    value: Any

    def render(self, spell: Callable[[str], str]) -> str:
        return f"{self.field} {spell(self.operator)} {self.literal}"

    def expected(self, comparators: frozenset[str]) -> bool:
        if _KINDS[self.operator] not in comparators:
            return True
        return bool(_OPERATORS[self.operator](ROW.get(self.field), self.value))


@dataclass(frozen=True)
class _Junction:
    conjunction: str
    left: _Filter
    right: _Filter

    def render(self, spell: Callable[[str], str]) -> str:
        def side(node: _Filter) -> str:
            text = node.render(spell)
            looser = isinstance(node, _Junction) and node.conjunction == "or" and self.conjunction == "and"
            return f"({text})" if looser else text

        return f"{side(self.left)} {spell(self.conjunction)} {side(self.right)}"

    def expected(self, comparators: frozenset[str]) -> bool:
        left, right = self.left.expected(comparators), self.right.expected(comparators)
        return (left and right) if self.conjunction == "and" else (left or right)


_Filter = _Comparison | _Junction


def _comparisons() -> st.SearchStrategy[_Comparison]:
    texts = st.sampled_from(["'open'", "'high'", "'10'", "'6'", "'5'", "'z'", "''", "'it''s'"])
    ordered = st.builds(
        lambda field, op, literal: _Comparison(field, op, literal, literal[1:-1].replace("''", "'")),
        st.sampled_from(_TEXT_FIELDS),
        st.sampled_from(list(_OPERATORS)),
        texts,
    )
    literals = st.sampled_from(
        [("10", 10), ("-5", -5), ("true", "true"), ("false", "false"), ("'true'", "true")]
    )
    equalities = st.builds(
        lambda field, op, literal: _Comparison(field, op, literal[0], literal[1]),
        st.sampled_from([*_TEXT_FIELDS, "verified", "due_at", "missing"]),
        st.sampled_from(["eq", "ne"]),
        literals,
    )
    return st.one_of(ordered, equalities)


def _filters() -> st.SearchStrategy[_Filter]:
    return st.recursive(
        _comparisons(),
        lambda inner: st.builds(_Junction, st.sampled_from(["and", "or"]), inner, inner),
        max_leaves=8,
    )


@given(
    _filters(),
    st.sampled_from([str, str.upper, str.title]),
    st.sampled_from([BASE_COMPARATORS, ALL_COMPARATORS]),
)
def test_comparisons_and_junctions_evaluate_as_the_reference_rules_say(
    node: _Filter, spell: Callable[[str], str], comparators: frozenset[str]
) -> None:
    assert evaluate(parse_filter(node.render(spell)), ROW, comparators) is node.expected(comparators)
