"""The OData ``$filter`` subset of ``zendesk_get_items``, with the reference's semantics.

The reference parses filters with the ``odata-query`` package and then
evaluates only part of the tree. We do the same:

* **Parsing** is ``odata-query``'s (its lexer and LALR parser; this is the one
  module that imports the package). A filter it cannot read raises
  :class:`ODataError` with the package's own message, which is the text the
  reference's tool error carries: ``Failed to tokenize at: Token(...)``,
  ``Failed to parse at: Token(...)`` (``None`` at the end of the text),
  ``Unknown function: 'foo'``, ``Function 'contains' takes 2 arguments. 1
  given.``, and whatever else the parser raises, as the reference reports it.
* **Evaluation**: only ``eq``, ``gt`` and ``lt`` comparisons and ``and``/``or``
  are evaluated. Every other construct — ``ne``, ``ge``, ``le``, ``in``,
  ``not``, function calls, a bare value — counts as true, so it matches
  every row. (That is retail's copy, which looks for comparator names the
  grammar never produces; the other domains' copies also evaluate ``ne``,
  ``ge`` and ``le``: pass :data:`ALL_COMPARATORS`.) A boolean literal
  compares as its text (``'true'``), an integer as an ``int``; any other
  literal (``null``, dates, GUIDs) is an opaque value that equals nothing
  but an equal literal, and ordering it raises ``TypeError``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from odata_query import ast
from odata_query.grammar import ODataLexer, ODataParser

__all__ = ["ALL_COMPARATORS", "BASE_COMPARATORS", "Filter", "ODataError", "evaluate", "parse_filter"]

Filter: TypeAlias = ast._Node
"""A parsed ``$filter``: the root of ``odata-query``'s syntax tree."""


class ODataError(Exception):
    """A filter that cannot be tokenized or parsed (message as the reference's)."""


def parse_filter(text: str) -> Filter:
    """The parse tree of a ``$filter`` expression; :class:`ODataError` if it is not valid."""
    # A parser keeps its state on itself while it runs: one per call (it costs well under a microsecond).
    try:
        tree: Filter = ODataParser().parse(ODataLexer().tokenize(text))
    except Exception as exc:
        # The reference reports anything the parser raises as the filter's fault, with its text: the
        # package's own exceptions, and the AttributeError of its rule for three named parameters or more.
        raise ODataError(str(exc)) from exc
    return tree


def _value(node: Filter, row: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Identifier):
        return row.get(node.name)
    if isinstance(node, ast.String | ast.Boolean):
        return node.val
    if isinstance(node, ast.Integer):
        return int(node.val)
    if isinstance(node, ast.Float):
        return float(node.val)
    return node


BASE_COMPARATORS = frozenset({"Eq", "Gt", "Lt"})
"""The comparators retail's copy evaluates (names of ``odata-query``'s comparator classes)."""

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


def evaluate(node: Filter, row: Mapping[str, Any], comparators: frozenset[str] = BASE_COMPARATORS) -> bool:
    """Whether ``row`` passes the filter, by the reference's rules (see the module docstring).

    A comparison whose comparator is not in ``comparators`` counts as true.
    """
    if isinstance(node, ast.Compare):
        kind = type(node.comparator).__name__
        if kind in comparators and kind in _COMPARE:
            return bool(_COMPARE[kind](_value(node.left, row), _value(node.right, row)))
        return True
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            return evaluate(node.left, row, comparators) and evaluate(node.right, row, comparators)
        return evaluate(node.left, row, comparators) or evaluate(node.right, row, comparators)
    return True
