"""The CEL lexer's static facts: names an expression reaches, bound names, plain paths."""

from __future__ import annotations

import pytest

from judges.rules.lexer import bound_names, field_path, mentioned_names, tokenize


def test_tokens_and_offsets() -> None:
    tokens = tokenize("effect.after.amount >= 10.5u // comment\n && x['k'] != r'raw\\d'")
    assert [(t.kind, t.text) for t in tokens] == [
        ("ident", "effect"),
        ("punct", "."),
        ("ident", "after"),
        ("punct", "."),
        ("ident", "amount"),
        ("punct", ">="),
        ("number", "10.5u"),
        ("punct", "&&"),
        ("ident", "x"),
        ("punct", "["),
        ("string", "'k'"),
        ("punct", "]"),
        ("punct", "!="),
        ("string", "r'raw\\d'"),
    ]
    assert tokens[2].offset == 7


@pytest.mark.parametrize(
    ("literal", "value"),
    [('"a"', "a"), ("'b'", "b"), ('"""c\n"""', "c\n"), ("'''d'''", "d"), ("b'e'", "e"), ("RB'f'", "f")],
)
def test_string_values(literal: str, value: str) -> None:
    (token,) = tokenize(literal)
    assert token.kind == "string"
    assert token.string_value == value


def test_strings_hide_their_contents_from_the_token_stream() -> None:
    assert [t.kind for t in tokenize('\'a.b // no comment\' == "x\\"y"')] == ["string", "punct", "string"]


def test_mentioned_names_are_identifiers_and_string_literals() -> None:
    assert mentioned_names(tokenize("has(effect.after.status) && row['carrier_status'] == 'x'")) == {
        "has",
        "effect",
        "after",
        "status",
        "row",
        "carrier_status",
        "x",
    }


def test_bound_names() -> None:
    tokens = tokenize("rows.all(r, r.x > 0) && m.exists_one(k, k == 'a') && [1].map(n, n).filter(q, q > 0)")
    assert bound_names(tokens) == {"r", "k", "n", "q"}


@pytest.mark.parametrize(
    ("source", "path"),
    [
        ("effect.after.order_id", ("after", "order_id")),
        ("effect.key", ("key",)),
        ("effect", None),
        ("effect.after.order_id + ''", None),
        ("effect.after['order_id']", None),
        ("other.after.id", None),
        ("effect.after.", None),
    ],
)
def test_field_path(source: str, path: tuple[str, ...] | None) -> None:
    assert field_path(tokenize(source), "effect") == path


def test_an_unreadable_character_is_reported_with_its_offset() -> None:
    with pytest.raises(ValueError, match="unexpected character '@' at offset 2"):
        tokenize("a @ b")
