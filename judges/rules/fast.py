"""Common rule conditions run as Python over the rule's plain data, CEL answering the rest.

Handing data to the bundled CEL costs about two microseconds per string or
map key (it converts each value by trying one type after another), several
times what evaluating a typical condition costs. Most conditions are field
reads compared with literals and joined with ``&&``, ``||`` and ``!``; for
those, :func:`compile_fast` writes one Python function over the same plain
data (the dicts and lists of :mod:`judges.rules.view`), so an effect whose
rules all answer that way never reaches CEL at all.

The function either returns exactly what CEL returns or raises :class:`Defer`,
and the caller then asks CEL. It defers at the first step it is not certain
of: any error (a missing key or variable, a null read), an operand type it
does not know, two operands CEL may treat differently from Python (an int
beyond 64 bits, an int and a double beyond 2**53, a NaN in an ordering,
``size`` of a non-ASCII string, which CEL counts in bytes), or a list or map
as the result. Callers hand it :func:`plain` data only (exact dicts, lists and
scalars), so that a subscript means what a CEL select means. Whatever is
outside the subset gets no function (:func:`compile_fast` returns None):
arithmetic, calls other than ``size``/``has``/``all``/``exists``, map literals,
escaped or prefixed strings, unsigned and hex numbers, optional selects,
chained relations.

The subset: literals (``null``, ``true``, ``false``, decimal ints and doubles,
plain quoted strings), variables, ``a.f``, ``a[k]``, list literals, ``!``,
``-`` on a number literal, ``== != < <= > >= in``, ``&&``, ``||``, ``c ? a : b``,
``size(x)``/``x.size()``, ``has(a.f)``, ``l.all(v, p)`` and ``l.exists(v, p)``
over a list. ``&&`` and ``||`` stop at a deciding left operand, as CEL's do;
a left operand that is an error defers, since CEL might still absorb it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from judges.rules.lexer import Token, tokenize

__all__ = ["Defer", "FastCondition", "compile_fast", "plain"]

FastCondition = Callable[[Mapping[str, Any]], Any]
Node = tuple[Any, ...]


class Defer(Exception):
    """This evaluation is for CEL: the fast path cannot be sure of CEL's answer."""


class _Unsupported(Exception):
    """The expression is outside the subset."""


_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1
_EXACT = 2**53
_TYPE_NAMES = frozenset(
    {"int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type", "dyn"}
)
_RESERVED = frozenset(
    {
        "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop",
        "package", "namespace", "return", "var", "void", "while", "in",
    }
)  # fmt: skip
_RELATIONS = frozenset({"==", "!=", "<", "<=", ">", ">=", "in"})


def compile_fast(source: str) -> FastCondition | None:
    """A Python function giving CEL's value of ``source`` (or raising :class:`Defer`), or None."""
    try:
        tokens = tokenize(source)
        parser = _Parser(tokens)
        node = parser.conditional()
        if parser.position != len(tokens):
            return None
        expression = _Writer().write(node, frozenset())
        template = _BOOLEAN if node[0] in _BOOLEAN_NODES else _FUNCTION
        code = compile(template.format(expression=expression), "<rule condition>", "exec")
    except (ValueError, _Unsupported, IndexError, RecursionError, SyntaxError, MemoryError):
        return None  # outside the subset, or nested deeper than Python's parser goes
    namespace = dict(_HELPERS)
    exec(code, namespace)
    condition: FastCondition = namespace["condition"]
    return condition


# The written function: the expression, any Python error a deferral, only scalar results kept.
_FUNCTION = """
def condition(V):
    try:
        r = {expression}
    except Exception:
        raise Defer from None
    k = type(r)
    if k is bool or k is str or k is float or r is None or (k is int and _INT_MIN <= r <= _INT_MAX):
        return r
    raise Defer
"""
# The same for a condition whose value can only be a bool (a relation, a logical operator, a test).
_BOOLEAN = """
def condition(V):
    try:
        return {expression}
    except Exception:
        raise Defer from None
"""
_BOOLEAN_NODES = frozenset({"relation", "and", "or", "not", "has", "comprehension"})


def plain(value: Any) -> bool:
    """Whether CEL takes ``value`` as it is: exact dicts (text keys), lists and scalars, encodable text."""
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str or not (key.isascii() or _encodable(key)):
                return False
            if type(item) is str:
                if not (item.isascii() or _encodable(item)):
                    return False
            elif type(item) not in _LEAVES and not plain(item):
                return False
        return True
    if kind is list:
        return all(plain(item) for item in value)
    if kind is str:
        return value.isascii() or _encodable(value)
    return kind in _LEAVES


_LEAVES = frozenset({int, float, bool, type(None)})


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _Parser:
    """Recursive descent over CEL's precedence: ``?:``, ``||``, ``&&``, relations, unary, member."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.position = 0

    def _peek(self, offset: int = 0) -> Token | None:
        index = self.position + offset
        return self.tokens[index] if index < len(self.tokens) else None

    def _is(self, text: str, offset: int = 0) -> bool:
        token = self._peek(offset)
        return token is not None and token.text == text and token.kind in ("punct", "ident")

    def _take(self, text: str) -> None:
        if not self._is(text):
            raise _Unsupported
        self.position += 1

    def conditional(self) -> Node:
        test = self._or()
        if not self._is("?"):
            return test
        self.position += 1
        then = self.conditional()
        self._take(":")
        otherwise = self.conditional()
        return ("choice", test, then, otherwise)

    def _or(self) -> Node:
        node = self._and()
        while self._is("||"):
            self.position += 1
            node = ("or", node, self._and())
        return node

    def _and(self) -> Node:
        node = self._relation()
        while self._is("&&"):
            self.position += 1
            node = ("and", node, self._relation())
        return node

    def _relation(self) -> Node:
        left = self._unary()
        token = self._peek()
        if token is None or token.text not in _RELATIONS:
            return left
        self.position += 1
        right = self._unary()
        following = self._peek()
        if following is not None and following.text in _RELATIONS:
            raise _Unsupported
        return ("relation", token.text, left, right)

    def _unary(self) -> Node:
        if self._is("!"):
            self.position += 1
            return ("not", self._unary())
        if self._is("-"):
            token = self._peek(1)
            if token is None or token.kind != "number":
                raise _Unsupported
            self.position += 2
            value = -_number(token.text)
            return self._member(("constant", value))
        return self._member(self._primary())

    def _member(self, node: Node) -> Node:
        while True:
            if self._is("."):
                name = self._peek(1)
                if name is None or name.kind != "ident":
                    raise _Unsupported
                self.position += 2
                node = self._method(node, name.text) if self._is("(") else ("select", node, name.text)
            elif self._is("["):
                self.position += 1
                key = self.conditional()
                self._take("]")
                node = ("index", node, key)
            else:
                return node

    def _method(self, target: Node, name: str) -> Node:
        self._take("(")
        if name == "size":
            self._take(")")
            return ("size", target)
        if name not in ("all", "exists"):
            raise _Unsupported
        variable = self._peek()
        if variable is None or variable.kind != "ident" or variable.text in _RESERVED:
            raise _Unsupported
        self.position += 1
        self._take(",")
        predicate = self.conditional()
        self._take(")")
        return ("comprehension", target, variable.text, predicate, name == "all")

    def _primary(self) -> Node:
        token = self._peek()
        if token is None:
            raise _Unsupported
        self.position += 1
        if token.kind == "number":
            return ("constant", _number(token.text))
        if token.kind == "string":
            return ("constant", _string(token.text))
        if token.kind == "ident":
            return self._name(token.text)
        if token.text == "(":
            node = self.conditional()
            self._take(")")
            return node
        if token.text == "[":
            items: list[Node] = []
            while not self._is("]"):
                items.append(self.conditional())
                if not self._is("]"):
                    self._take(",")
            self.position += 1
            return ("list", tuple(items))
        raise _Unsupported

    def _name(self, name: str) -> Node:
        if name == "null":
            return ("constant", None)
        if name in ("true", "false"):
            return ("constant", name == "true")
        if name in _RESERVED or name in _TYPE_NAMES:
            raise _Unsupported
        if not self._is("("):
            return ("variable", name)
        self.position += 1
        if name == "size":
            argument = self.conditional()
            self._take(")")
            return ("size", argument)
        if name == "has":
            return self._presence()
        raise _Unsupported

    def _presence(self) -> Node:
        """The argument of ``has(...)``: a select whose last field is tested, not read."""
        node = self._primary()
        owner: Node | None = None
        field = ""
        while self._is("."):
            name = self._peek(1)
            if name is None or name.kind != "ident" or self._is("(", 2):
                raise _Unsupported
            self.position += 2
            owner, field = node, name.text
            node = ("select", node, name.text)
        self._take(")")
        if owner is None:
            raise _Unsupported
        return ("has", owner, field)


def _number(text: str) -> int | float:
    if text[-1:] in ("u", "U") or text[:2] in ("0x", "0X"):
        raise _Unsupported
    if any(mark in text for mark in ".eE"):
        value = float(text)
        if not math.isfinite(value):
            raise _Unsupported
        return value
    number = int(text)
    if number > _INT_MAX:
        raise _Unsupported
    return number


def _string(text: str) -> str:
    if text[0] not in "\"'" or text[:3] in ('"""', "'''") or "\\" in text:
        raise _Unsupported
    return text[1:-1]


class _Writer:
    """Python source for a parsed condition: one expression, temporaries bound with ``:=``."""

    def __init__(self) -> None:
        self.temporaries = 0

    def _temporary(self) -> str:
        self.temporaries += 1
        return f"t{self.temporaries}"

    def boolean(self, node: Node, bound: frozenset[str]) -> str:
        """``node`` as a bool, deferring when it is anything else (CEL's logic takes only bools)."""
        value = self.write(node, bound)
        name = self._temporary()
        return f"({name} if type({name} := {value}) is bool else _defer())"

    def write(self, node: Node, bound: frozenset[str]) -> str:
        kind = node[0]
        if kind == "constant":
            return repr(node[1])
        if kind == "variable":
            return f"b_{node[1]}" if node[1] in bound else f"V[{node[1]!r}]"
        if kind == "select":
            return f"{self.write(node[1], bound)}[{node[2]!r}]"
        if kind == "index":
            key = node[2]
            if key[0] == "constant" and type(key[1]) is str:
                return f"{self.write(node[1], bound)}[{key[1]!r}]"
            return f"_at({self.write(node[1], bound)}, {self.write(key, bound)})"
        if kind == "has":
            name = self._temporary()
            target = self.write(node[1], bound)
            return f"({node[2]!r} in {name} if type({name} := {target}) is dict else _defer())"
        if kind == "size":
            return f"_size({self.write(node[1], bound)})"
        if kind == "list":
            return "[" + ", ".join(self.write(item, bound) for item in node[1]) + "]"
        if kind == "not":
            return f"(not {self.boolean(node[1], bound)})"
        if kind == "and":
            return f"({self.boolean(node[2], bound)} if {self.boolean(node[1], bound)} else False)"
        if kind == "or":
            return f"(True if {self.boolean(node[1], bound)} else {self.boolean(node[2], bound)})"
        if kind == "choice":
            test = self.boolean(node[1], bound)
            return f"({self.write(node[2], bound)} if {test} else {self.write(node[3], bound)})"
        if kind == "relation":
            return self._relation(node[1], node[2], node[3], bound)
        if kind == "comprehension":
            _, target, variable, predicate, every = node
            inner = self.boolean(predicate, bound | {variable})
            helper = "_all" if every else "_exists"
            return f"{helper}({self.write(target, bound)}, lambda b_{variable}: {inner})"
        raise _Unsupported

    def _relation(self, operator: str, left: Node, right: Node, bound: frozenset[str]) -> str:
        first, second = self.write(left, bound), self.write(right, bound)
        helper = _RELATION_HELPERS[operator]
        literal = right[1] if right[0] == "constant" else _NO_LITERAL
        kind = type(literal)
        name = self._temporary()
        fallback = f"{helper}({name}, {second})"
        # the common cases inline: a field compared with a text, bool, double or null literal
        if operator in ("==", "!=") and (kind is str or kind is bool):
            return (
                f"({name} {operator} {second} if type({name} := {first}) is {kind.__name__} else {fallback})"
            )
        if operator in ("<", "<=", ">", ">=") and kind is float and literal == literal:
            same = f"type({name} := {first}) is float and {name} == {name}"
            return f"({name} {operator} {second} if {same} else {fallback})"
        if literal is None and operator in ("==", "!="):
            return f"({operator == '=='} if ({name} := {first}) is None else {fallback})"
        if operator == "in" and right[0] == "list" and right[1] and all(_is_text(item) for item in right[1]):
            texts = repr(tuple(item[1] for item in right[1]))
            return f"({name} in {texts} if type({name} := {first}) is str else {fallback})"
        if operator in ("==", "!="):
            other = self._temporary()
            same = f"type({name} := {first}) is type({other} := {second}) is str"
            return f"({name} {operator} {other} if {same} else {helper}({name}, {other}))"
        return f"{helper}({first}, {second})"


_NO_LITERAL = object()


def _is_text(node: Node) -> bool:
    return node[0] == "constant" and type(node[1]) is str


# What the written functions call: each gives CEL's answer or raises Defer.


def _defer() -> Any:
    raise Defer


def _at(container: Any, key: Any) -> Any:
    kind = type(container)
    if kind is dict and type(key) is str:
        return container[key]
    if kind is list and type(key) is int and 0 <= key < len(container):
        return container[key]
    raise Defer


def _size(value: Any) -> int:
    kind = type(value)
    if kind is list or kind is dict or (kind is str and value.isascii()):
        return len(value)
    raise Defer


def _all(items: Any, predicate: Callable[[Any], bool]) -> bool:
    if type(items) is not list:
        raise Defer
    for item in items:  # noqa: SIM110 - a loop costs less than all() over a generator
        if not predicate(item):
            return False
    return True


def _exists(items: Any, predicate: Callable[[Any], bool]) -> bool:
    if type(items) is not list:
        raise Defer
    for item in items:  # noqa: SIM110 - a loop costs less than any() over a generator
        if predicate(item):
            return True
    return False


_SCALARS = frozenset({str, bool, int, float})
_KNOWN = frozenset({str, bool, int, float, list, dict})


def _equal(left: Any, right: Any) -> bool:
    """CEL's ``==``: null equals only null, a bool is not a number, an int equals the double of its value."""
    if left is None or right is None:
        if (left is None or type(left) in _KNOWN) and (right is None or type(right) in _KNOWN):
            return left is right
        raise Defer
    kind, other = type(left), type(right)
    if kind is other:
        if kind is str or kind is bool or kind is float:
            return bool(left == right)
        if kind is int and _INT_MIN <= left <= _INT_MAX and _INT_MIN <= right <= _INT_MAX:
            return bool(left == right)
        raise Defer
    if (kind is int and other is float) or (kind is float and other is int):
        if -_EXACT <= (left if kind is int else right) <= _EXACT:
            return bool(left == right)
        raise Defer
    if kind in _SCALARS and other in _SCALARS:
        return False
    raise Defer


def _not_equal(left: Any, right: Any) -> bool:
    return not _equal(left, right)


def _ordered(left: Any, right: Any) -> None:
    """Nothing when Python orders the two as CEL does (same kind of number or text, no NaN), else Defer."""
    kind, other = type(left), type(right)
    if kind is str and other is str:
        return
    if kind is int and other is int:
        if _INT_MIN <= left <= _INT_MAX and _INT_MIN <= right <= _INT_MAX:
            return
    elif kind is float and other is float:
        if left == left and right == right:
            return
    elif (kind is int and other is float) or (kind is float and other is int):
        number, double = (left, right) if kind is int else (right, left)
        if -_EXACT <= number <= _EXACT and double == double:
            return
    raise Defer


def _less(left: Any, right: Any) -> bool:
    _ordered(left, right)
    return bool(left < right)


def _less_equal(left: Any, right: Any) -> bool:
    _ordered(left, right)
    return bool(left <= right)


def _greater(left: Any, right: Any) -> bool:
    _ordered(left, right)
    return bool(left > right)


def _greater_equal(left: Any, right: Any) -> bool:
    _ordered(left, right)
    return bool(left >= right)


def _member(item: Any, container: Any) -> bool:
    kind = type(container)
    if kind is list:
        return any(_equal(item, element) for element in container)
    if kind is dict and type(item) is str:
        return item in container
    raise Defer


_RELATION_FUNCTIONS: dict[str, Callable[[Any, Any], bool]] = {
    "==": _equal,
    "!=": _not_equal,
    "<": _less,
    "<=": _less_equal,
    ">": _greater,
    ">=": _greater_equal,
    "in": _member,
}
_RELATION_HELPERS = {operator: function.__name__ for operator, function in _RELATION_FUNCTIONS.items()}
_HELPERS: dict[str, Any] = {
    "Defer": Defer,
    "_INT_MIN": _INT_MIN,
    "_INT_MAX": _INT_MAX,
    "_defer": _defer,
    "_at": _at,
    "_size": _size,
    "_all": _all,
    "_exists": _exists,
    **{function.__name__: function for function in _RELATION_FUNCTIONS.values()},
}
