"""Comparisons prepared once and run with parameters, typed as a literal in their place would be.

``column == value`` types its literal as the column's type compared with the
value's (``coerce_compared_value``): usually the column's own, but 1.5 against
an integer column stays a float and a string against a boolean stays a
string. A statement built once for many values must type its parameter the
same way, or the database converts differently (asyncpg truncates 1.5 bound
as an integer to 1). So the statement's shape includes the values' types.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, bindparam
from sqlalchemy.sql.operators import eq

__all__ = ["equals"]


def equals(column: ColumnElement[Any], name: str, value: Any) -> ColumnElement[bool]:
    """``column = :name`` for values of ``value``'s type; ``column IS NULL`` for None, as ``== None`` is."""
    if value is None:
        return column.is_(None)
    return column == bindparam(name, type_=column.type.coerce_compared_value(eq, value))
