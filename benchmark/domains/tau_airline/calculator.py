"""The ``calculate`` tool's arithmetic, without ``eval``.

The reference accepts only digits, ``+ - * / ( ) .`` and spaces, evaluates
the expression as Python and answers ``str(round(float(value), 2))``; any
failure is answered ``Error: <exception text>`` (here a :class:`CalculationError`
carrying that text). Here the expression is
parsed by Python's own compiler (so syntax errors read the same) and the
tree is walked with the same operators, so results and exception texts match.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

__all__ = ["ALLOWED", "CalculationError", "evaluate"]

ALLOWED = frozenset("0123456789+-*/(). ")

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


class CalculationError(Exception):
    """Why an expression has no value; its text is what follows ``Error: `` in the reference's answer."""


def _value(node: ast.AST) -> Any:
    if isinstance(node, ast.Expression):
        return _value(node.body)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_value(node.left), _value(node.right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand))
    if isinstance(node, ast.Tuple) and not node.elts:
        return ()
    raise ValueError(f"unsupported expression: {ast.dump(node)}")


def evaluate(expression: str) -> str:
    """The answer text, as the reference's ``calculate`` gives it; :class:`CalculationError` on failure."""
    if not all(char in ALLOWED for char in expression):
        raise CalculationError("invalid characters in expression")
    try:
        tree = compile(expression, "<string>", "eval", ast.PyCF_ONLY_AST)
        return str(round(float(_value(tree)), 2))
    except Exception as exc:  # the reference answers every failure with its text
        raise CalculationError(str(exc)) from exc
