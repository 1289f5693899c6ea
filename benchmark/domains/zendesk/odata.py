"""The OData ``$filter`` subset of ``zendesk_get_items``, with the reference's semantics.

The reference parses filters with the ``odata-query`` grammar and then
evaluates only part of the tree. We reproduce both halves:

* **Lexing and parsing** follow that grammar: case-insensitive tokens tried in
  a fixed order (so ``-5`` is an integer and ``true`` a boolean), operators
  that carry their surrounding whitespace, whitespace allowed only inside
  parentheses and lists, precedence (low → high) ``or``, ``and``,
  ``eq/ne``, ``gt/ge/lt/le``, ``add/sub``, ``mul/div/mod``, ``not``/unary
  minus, ``in``. A syntax error reads ``Failed to tokenize at: Token(...)`` or
  ``Failed to parse at: Token(...)`` (``None`` at the end of the text).
* **Evaluation**: only ``eq``, ``gt`` and ``lt`` comparisons and ``and``/``or``
  are evaluated. Every other construct — ``ne``, ``ge``, ``le``, ``in``,
  ``not``, function calls, a bare value — counts as true, so it matches
  every row. (That is retail's copy, which looks for comparator names the
  grammar never produces; the other domains' copies also evaluate ``ne``,
  ``ge`` and ``le``: pass :data:`ALL_COMPARATORS`.) A boolean literal
  compares as its text (``'true'``), an integer as an ``int``; any other
  literal (``null``, dates, GUIDs) is an opaque value that equals nothing
  but an equal literal, and ordering it raises.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ALL_COMPARATORS", "BASE_COMPARATORS", "ODataError", "evaluate", "parse_filter"]


class ODataError(Exception):
    """A filter that cannot be tokenized or parsed (message as the reference's)."""


@dataclass(frozen=True)
class _Node:
    pass


@dataclass(frozen=True)
class Identifier(_Node):
    name: str
    namespace: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Attribute(_Node):
    owner: _Node
    attr: str


@dataclass(frozen=True)
class Null(_Node):
    pass


@dataclass(frozen=True)
class Integer(_Node):
    val: str


@dataclass(frozen=True)
class Float(_Node):
    val: str


@dataclass(frozen=True)
class Boolean(_Node):
    val: str


@dataclass(frozen=True)
class String(_Node):
    val: str


@dataclass(frozen=True)
class Geography(_Node):
    val: str


@dataclass(frozen=True)
class Date(_Node):
    val: str


@dataclass(frozen=True)
class Time(_Node):
    val: str


@dataclass(frozen=True)
class DateTime(_Node):
    val: str


@dataclass(frozen=True)
class Duration(_Node):
    val: str


@dataclass(frozen=True)
class GUID(_Node):
    val: str


@dataclass(frozen=True)
class List(_Node):
    val: list[_Node]


@dataclass(frozen=True)
class Operator(_Node):
    """An operator token's value; its ``kind`` is the grammar's class name (Eq, NotEq, And, …)."""

    kind: str

    def __repr__(self) -> str:
        return f"{self.kind}()"


@dataclass(frozen=True)
class BinOp(_Node):
    op: Operator
    left: _Node
    right: _Node


@dataclass(frozen=True)
class Compare(_Node):
    comparator: Operator
    left: _Node
    right: _Node


@dataclass(frozen=True)
class BoolOp(_Node):
    op: Operator
    left: _Node
    right: _Node


@dataclass(frozen=True)
class UnaryOp(_Node):
    op: Operator
    operand: _Node


@dataclass(frozen=True)
class Call(_Node):
    func: Identifier
    args: list[_Node]


@dataclass(frozen=True)
class Lambda(_Node):
    identifier: Identifier
    expression: _Node


@dataclass(frozen=True)
class CollectionLambda(_Node):
    owner: _Node
    operator: Operator
    lambda_: Lambda | None


@dataclass(slots=True)
class _Token:
    type: str
    value: Any
    index: int
    end: int

    def __repr__(self) -> str:
        return f"Token(type={self.type!r}, value={self.value!r}, lineno=1, index={self.index})"


_RWS = r"\s+"
_DATE = r"[1-9]\d{3}-(?:0\d|1[0-2])-(?:[0-2]\d|3[01])"
_TIME = r"(?:[01]\d|2[0-3]):[0-5]\d(:?:[0-5]\d(?:\.\d{1,12})?)"


def _op(kind: str) -> Callable[[str], Any]:
    return lambda _text: Operator(kind)


_TOKENS: list[tuple[str, str, Callable[[str], Any]]] = [
    (
        "DURATION",
        r"duration'[+-]?P(?:\d+Y)?(?:\d+M)?(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)?'",
        lambda t: Duration(t.upper()[len("DURATION") + 1 : -1]),
    ),
    ("STRING", r"'(?:[^']|'')*'", lambda t: String(t[1:-1].replace("''", "'"))),
    ("GEOGRAPHY", r"geography'(?:[^']|'')*'", lambda t: Geography(t[10:-1])),
    ("GUID", r"[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}", GUID),
    ("DATETIME", _DATE + r"T" + _TIME + r"?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)?", DateTime),
    ("DATE", _DATE, Date),
    ("TIME", _TIME, Time),
    ("DECIMAL", r"[+-]?\d+((?:(?:\.\d+)(?:e[-+]?\d+))|(?:\.\d+)|(?:e[-+]?\d+))", Float),
    ("INTEGER", r"[+-]?\d+", Integer),
    ("BOOLEAN", r"true|false", Boolean),
    ("NULL", r"null", lambda _t: Null()),
    ("ADD", rf"{_RWS}add{_RWS}", _op("Add")),
    ("SUB", rf"{_RWS}sub{_RWS}", _op("Sub")),
    ("MUL", rf"{_RWS}mul{_RWS}", _op("Mult")),
    ("DIV", rf"{_RWS}div{_RWS}", _op("Div")),
    ("MOD", rf"{_RWS}mod{_RWS}", _op("Mod")),
    ("UMINUS", r"-", _op("USub")),
    ("AND", rf"{_RWS}and{_RWS}", _op("And")),
    ("OR", rf"{_RWS}or{_RWS}", _op("Or")),
    ("NOT", rf"not{_RWS}", _op("Not")),
    ("EQ", rf"{_RWS}eq{_RWS}", _op("Eq")),
    ("NE", rf"{_RWS}ne{_RWS}", _op("NotEq")),
    ("LT", rf"{_RWS}lt{_RWS}", _op("Lt")),
    ("LE", rf"{_RWS}le{_RWS}", _op("LtE")),
    ("GT", rf"{_RWS}gt{_RWS}", _op("Gt")),
    ("GE", rf"{_RWS}ge{_RWS}", _op("GtE")),
    ("IN", rf"{_RWS}in{_RWS}", _op("In")),
    ("ANY", r"any", _op("Any")),
    ("ALL", r"all", _op("All")),
    (
        "ODATA_IDENTIFIER",
        r"[_a-z](?:\.?\w){0,127}",
        lambda t: Identifier(t.split(".")[-1], tuple(t.split(".")[:-1])),
    ),
    ("WS", _RWS, lambda t: t),
]
_MASTER = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern, _ in _TOKENS), re.I)
_BUILD = {name: build for name, _, build in _TOKENS}
_LITERALS = set("(),/:=")

_FUNCTIONS: dict[str, int | tuple[int, int]] = {
    "concat": 2, "contains": 2, "endswith": 2, "indexof": 2, "length": 1, "startswith": 2,
    "substring": (2, 3), "matchesPattern": 2, "tolower": 1, "toupper": 1, "trim": 1,
    "year": 1, "month": 1, "day": 1, "hour": 1, "minute": 1, "second": 1, "fractionalseconds": 1,
    "totalseconds": 1, "date": 1, "time": 1, "totaloffsetminutes": 1, "mindatetime": 0,
    "maxdatetime": 0, "now": 0, "round": 1, "floor": 1, "ceiling": 1, "geo.distance": 2,
    "geo.length": 1, "geo.intersects": 2, "hassubset": 2, "hassubsequence": 2,
}  # fmt: skip


def _tokenize(text: str) -> list[_Token]:
    """The tokens of ``text``; an untokenizable rest becomes one final ``ERROR`` token.

    The reference tokenizes lazily, so a parse error before that point wins;
    the parser raises the tokenizing error only when it reaches the token.
    """
    tokens: list[_Token] = []
    index = 0
    while index < len(text):
        match = _MASTER.match(text, index)
        if match and match.lastgroup:
            kind = match.lastgroup
            tokens.append(_Token(kind, _BUILD[kind](match.group()), index, match.end()))
            index = match.end()
        elif text[index] in _LITERALS:
            tokens.append(_Token(text[index], text[index], index, index + 1))
            index += 1
        else:
            tokens.append(_Token("ERROR", text[index:], index, index))
            break
    return tokens


_BINARY = [
    ({"OR"}, BoolOp),
    ({"AND"}, BoolOp),
    ({"EQ", "NE"}, Compare),
    ({"GT", "GE", "LT", "LE"}, Compare),
    ({"ADD", "SUB"}, BinOp),
    ({"MUL", "DIV", "MOD"}, BinOp),
]
_LITERAL_TYPES = {
    "NULL", "INTEGER", "DECIMAL", "STRING", "GEOGRAPHY", "BOOLEAN",
    "GUID", "DATE", "TIME", "DATETIME", "DURATION",
}  # fmt: skip


class _Parser:
    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self, offset: int = 0) -> _Token | None:
        at = self.pos + offset
        token = self.tokens[at] if at < len(self.tokens) else None
        if token is not None and token.type == "ERROR":
            raise ODataError(f"Failed to tokenize at: {token!r}")
        return token

    def fail(self) -> ODataError:
        return ODataError(f"Failed to parse at: {self.peek()!r}")

    def take(self, kind: str) -> _Token:
        token = self.peek()
        if token is None or token.type != kind:
            raise self.fail()
        self.pos += 1
        return token

    def bws(self) -> None:
        token = self.peek()
        if token is not None and token.type == "WS":
            self.pos += 1

    def parse(self) -> _Node:
        node = self.expr(0)
        if self.peek() is not None:
            raise self.fail()
        return node

    def expr(self, level: int) -> _Node:
        if level == len(_BINARY):
            return self.unary()
        node = self.expr(level + 1)
        kinds, build = _BINARY[level]
        while (token := self.peek()) is not None and token.type in kinds:
            self.pos += 1
            node = build(token.value, node, self.expr(level + 1))
        return node

    def unary(self) -> _Node:
        token = self.peek()
        if token is not None and token.type == "NOT":
            self.pos += 1
            return UnaryOp(token.value, self.unary())
        if token is not None and token.type == "UMINUS":
            self.pos += 1
            self.bws()
            return UnaryOp(token.value, self.unary())
        return self.membership()

    def membership(self) -> _Node:
        node = self.primary()
        while (token := self.peek()) is not None and token.type == "IN":
            self.pos += 1
            if (start := self.peek()) is None or start.type != "(":
                raise self.fail()
            node = Compare(token.value, node, self.parenthesised(require_list=True))
        return node

    def parenthesised(self, *, require_list: bool = False) -> _Node:
        self.take("(")
        self.bws()
        items = [self.expr(0)]
        self.bws()
        trailing = False
        while (token := self.peek()) is not None and token.type == ",":
            self.pos += 1
            self.bws()
            if (after := self.peek()) is not None and after.type == ")" and len(items) == 1:
                trailing = True
                break
            items.append(self.expr(0))
            self.bws()
        self.take(")")
        if len(items) == 1 and not trailing:
            if require_list:
                raise self.fail()
            return items[0]
        return List(items)

    def primary(self) -> _Node:
        token = self.peek()
        if token is None:
            raise self.fail()
        if token.type in _LITERAL_TYPES:
            self.pos += 1
            return token.value  # type: ignore[no-any-return]
        if token.type == "(":
            return self.parenthesised()
        if token.type == "ODATA_IDENTIFIER":
            self.pos += 1
            following = self.peek()
            if following is not None and following.type == "(":
                return self.call(token.value)
            return self.path(token.value)
        raise self.fail()

    def call(self, func: Identifier) -> _Node:
        if (after := self.peek(1)) is not None and after.type == ")":
            self.pos += 2
            args: list[_Node] = []
        else:
            inner = self.parenthesised()
            args = list(inner.val) if isinstance(inner, List) else [inner]
        name = ".".join((*func.namespace, func.name))
        if func.namespace in ((), ("geo",)):
            if name not in _FUNCTIONS:
                raise ODataError(f"Unknown function: '{name}'")
            expected = _FUNCTIONS[name]
            low, high = (expected, expected) if isinstance(expected, int) else expected
            if not low <= len(args) <= high:
                if low == high:
                    raise ODataError(f"Function '{name}' takes {low} arguments. {len(args)} given.")
                raise ODataError(
                    f"Function '{name}' takes between {low} and {high} arguments. {len(args)} given."
                )
        return Call(func, args)

    def path(self, head: Identifier) -> _Node:
        node: _Node = head
        while (token := self.peek()) is not None and token.type == "/":
            self.pos += 1
            step = self.peek()
            if step is not None and step.type in ("ANY", "ALL"):
                self.pos += 1
                self.take("(")
                self.bws()
                lambda_: Lambda | None = None
                if (inner := self.peek()) is not None and inner.type == "ODATA_IDENTIFIER":
                    self.pos += 1
                    self.bws()
                    self.take(":")
                    self.bws()
                    lambda_ = Lambda(inner.value, self.expr(0))
                    self.bws()
                self.take(")")
                return CollectionLambda(node, step.value, lambda_)
            name = self.take("ODATA_IDENTIFIER").value
            node = Attribute(node, name.name)
        return node


def parse_filter(text: str) -> _Node:
    """The parse tree of a ``$filter`` expression; :class:`ODataError` if it is not valid."""
    return _Parser(_tokenize(text)).parse()


def _value(node: _Node, row: Mapping[str, Any]) -> Any:
    if isinstance(node, Identifier):
        return row.get(node.name)
    if isinstance(node, String | Boolean):
        return node.val
    if isinstance(node, Integer):
        return int(node.val)
    if isinstance(node, Float):
        return float(node.val)
    return node


BASE_COMPARATORS = frozenset({"Eq", "Gt", "Lt"})
"""The comparators retail's copy evaluates."""

ALL_COMPARATORS = frozenset({"Eq", "NotEq", "Gt", "GtE", "Lt", "LtE"})
"""The comparators the other domains' copies evaluate."""

_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "Eq": operator.eq,
    "NotEq": operator.ne,
    "Gt": operator.gt,
    "GtE": operator.ge,
    "Lt": operator.lt,
    "LtE": operator.le,
}


def evaluate(node: _Node, row: Mapping[str, Any], comparators: frozenset[str] = BASE_COMPARATORS) -> bool:
    """Whether ``row`` passes the filter, by the reference's rules (see the module docstring).

    A comparison whose comparator is not in ``comparators`` counts as true.
    """
    if isinstance(node, Compare):
        kind = node.comparator.kind
        if kind in comparators and kind in _COMPARE:
            return bool(_COMPARE[kind](_value(node.left, row), _value(node.right, row)))
        return True
    if isinstance(node, BoolOp):
        if node.op.kind == "And":
            return evaluate(node.left, row, comparators) and evaluate(node.right, row, comparators)
        return evaluate(node.left, row, comparators) or evaluate(node.right, row, comparators)
    return True
