"""A small lexer for CEL source, for the static facts a rule pack needs before it runs.

CEL itself (the ``cel`` package) parses and evaluates; this module only reads
tokens to answer three questions at load time: which field names an
expression can reach (identifiers and string literals, for projecting rows),
which names a comprehension binds (to tell a typo from a loop variable), and
whether an expression is a plain field path such as ``effect.after.order_id``
(evaluated without a round trip through CEL).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

__all__ = ["Token", "bound_names", "field_path", "mentioned_names", "tokenize"]

TokenKind = Literal["ident", "string", "number", "punct"]

_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})

_TOKEN = re.compile(
    r"""
    (?P<space>\s+|//[^\n]*)
  | (?P<string>(?:[rR][bB]?|[bB][rR]?)?
        (?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))
  | (?P<number>0[xX][0-9a-fA-F]+[uU]?|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[uU]?)
  | (?P<ident>[_a-zA-Z][_a-zA-Z0-9]*)
  | (?P<punct>==|!=|<=|>=|&&|\|\||\.\?|[-+*/%!<>?:.,()\[\]{}])
    """,
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class Token:
    kind: TokenKind
    text: str
    offset: int

    @property
    def string_value(self) -> str:
        """The contents of a string literal without prefix and quotes (escapes left as written)."""
        body = self.text.lstrip("rRbB")
        quote = 3 if body[:3] in ('"""', "'''") else 1
        return body[quote:-quote]


def tokenize(source: str) -> list[Token]:
    """The tokens of ``source``; raises ``ValueError`` with the offset of an unreadable character."""
    return list(_tokens(source))


def _tokens(source: str) -> Iterator[Token]:
    position = 0
    while position < len(source):
        match = _TOKEN.match(source, position)
        if match is None:
            raise ValueError(f"unexpected character {source[position]!r} at offset {position}")
        kind = match.lastgroup
        if kind != "space":
            yield Token(kind, match.group(), position)  # type: ignore[arg-type]
        position = match.end()


def mentioned_names(tokens: list[Token]) -> set[str]:
    """Every identifier and string literal in the expression: the field names it can reach."""
    names: set[str] = set()
    for token in tokens:
        if token.kind == "ident":
            names.add(token.text)
        elif token.kind == "string":
            names.add(token.string_value)
    return names


def bound_names(tokens: list[Token]) -> set[str]:
    """Names bound by comprehension macros: the ``s`` in ``rows.all(s, ...)``."""
    bound: set[str] = set()
    for index in range(len(tokens) - 3):
        name, paren, var, comma = tokens[index : index + 4]
        if (
            name.kind == "ident"
            and name.text in _MACROS
            and paren.text == "("
            and var.kind == "ident"
            and comma.text == ","
        ):
            bound.add(var.text)
    return bound


def field_path(tokens: list[Token], root: str) -> tuple[str, ...] | None:
    """The field names of ``root.a.b`` when the expression is exactly such a path, else None."""
    if len(tokens) < 3 or len(tokens) % 2 == 0:
        return None
    if tokens[0].kind != "ident" or tokens[0].text != root:
        return None
    fields: list[str] = []
    for dot, name in zip(tokens[1::2], tokens[2::2], strict=True):
        if dot.text != "." or name.kind != "ident":
            return None
        fields.append(name.text)
    return tuple(fields)
