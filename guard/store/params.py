"""Comparisons prepared once and run with parameters, typed as a literal in their place would be.

``column == value`` types its literal as the column's type compared with the
value's (``coerce_compared_value``): usually the column's own, but 1.5 against
an integer column stays a float and a string against a boolean stays a
string. A statement built once for many values must type its parameter the
same way, or the database converts differently (asyncpg truncates 1.5 bound
as an integer to 1). So the statement's shape includes the values' types.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any, Generic, TypeVar

from sqlalchemy import ColumnElement, Table, bindparam
from sqlalchemy.sql.operators import eq

__all__ = ["Statements", "equals", "shape"]

S = TypeVar("S")


def equals(column: ColumnElement[Any], name: str, value: Any) -> ColumnElement[bool]:
    """``column = :name`` for values of ``value``'s type; ``column IS NULL`` for None, as ``== None`` is."""
    if value is None:
        return column.is_(None)
    return column == bindparam(name, type_=column.type.coerce_compared_value(eq, value))


def shape(pairs: Iterable[tuple[str, Any]]) -> tuple[tuple[str, type], ...]:
    """The shape of a comparison of these columns with these values: each column and its value's type."""
    return tuple((name, type(value)) for name, value in pairs)


class Statements(Generic[S]):
    """Statements built once for each table and shape, then run with parameters.

    Building a statement and computing SQLAlchemy's cache key for it cost more than running it
    on an in-memory database, so callers build each shape once. An entry holds its table, so that
    the ``id`` in its key is never reused by another table while the entry lives.
    """

    def __init__(self) -> None:
        self._built: dict[tuple[Any, ...], tuple[Table, S]] = {}

    def get(self, table: Table, key: Hashable, build: Callable[[], S]) -> S:
        entry = self._built.get((id(table), key))
        if entry is None:
            entry = self._built[(id(table), key)] = (table, build())
        return entry[1]
