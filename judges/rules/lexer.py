"""A small lexer for CEL source, for the static facts a rule pack needs before it runs.

CEL itself (the ``cel`` package) parses and evaluates; this module only reads
tokens to answer three questions at load time: which field names an
expression can reach (identifiers and string literals, for projecting rows),
which names a comprehension binds (to tell a typo from a loop variable), and
whether an expression is a plain field path such as ``effect.after.order_id``
(evaluated without a round trip through CEL). It also rewrites field selects
into the index form CEL evaluates faster (:func:`indexed_selects`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

__all__ = ["Token", "bound_names", "field_path", "indexed_selects", "mentioned_names", "tokenize"]

TokenKind = Literal["ident", "string", "number", "punct"]

_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
_OPERAND_ENDS = frozenset({")", "]", "}"})

_TOKEN = re.compile(
    r"""
    (?P<space>\s+|//[^\n]*)
  | (?P<string>(?:[rR][bB]?|[bB][rR])  # raw: no escapes, the first closing quote ends it
        (?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|"[^"\n]*"|'[^'\n]*')
      | [bB]?  # an escaped quote does not close a string, a triple-quoted one included
        (?:\"\"\"(?:\\[\s\S]|[^\\])*?\"\"\"|'''(?:\\[\s\S]|[^\\])*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))
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


def indexed_selects(source: str) -> str:
    """``source`` with each field select ``x.name`` written as the index ``x['name']``.

    The bundled CEL copies the map a select returns, so ``e.a.f`` costs time in
    the size of ``e.a`` while ``e['a']['f']`` does not; the two give the same
    value and the same error. Left as written: a name followed by ``(`` (a
    method, macro or qualified function), the argument of ``has(...)`` (a
    presence test, not a read), a leading ``.name`` (the root scope, not a
    select) and everything between the tokens. Raises ``ValueError`` where
    :func:`tokenize` does.
    """
    tokens = tokenize(source)
    pieces: list[str] = []
    position = 0
    depth = 0
    has_depth: int | None = None
    for index, token in enumerate(tokens):
        if token.text == "(":
            if has_depth is None and _opens_has(tokens, index):
                has_depth = depth
            depth += 1
        elif token.text == ")":
            depth -= 1
            if has_depth == depth:
                has_depth = None
        elif token.text == "." and has_depth is None and _is_select(tokens, index):
            name = tokens[index + 1]
            pieces.append(source[position : token.offset])
            pieces.append(f"['{name.text}']")
            position = name.offset + len(name.text)
    pieces.append(source[position:])
    return "".join(pieces)


def _opens_has(tokens: list[Token], paren: int) -> bool:
    """Whether the ``(`` at ``paren`` opens the ``has`` macro (a global call, not a method)."""
    if paren == 0 or tokens[paren - 1].text != "has" or tokens[paren - 1].kind != "ident":
        return False
    return paren < 2 or tokens[paren - 2].text != "."


def _is_select(tokens: list[Token], dot: int) -> bool:
    """Whether the ``.`` at ``dot`` selects a field from the operand before it (not a call)."""
    if dot == 0 or dot + 1 >= len(tokens) or tokens[dot + 1].kind != "ident":
        return False
    if dot + 2 < len(tokens) and tokens[dot + 2].text == "(":
        return False
    before = tokens[dot - 1]
    if before.kind == "ident":
        return before.text != "in"
    return before.kind in ("string", "number") or before.text in _OPERAND_ENDS
