"""Lookups: the rows a rule reads, and how each ``where`` value is worked out for one effect.

A ``where`` value is a constant, a plain field path (``effect.after.order_id``,
evaluated without a round trip through CEL), or a CEL expression. A path or an
expression may start at another lookup that binds one row (``one: true``)
instead of ``effect``: ``{email: "requester.email"}``. Such a chained lookup
can only be keyed once that row is fetched, so it is read in a later round
(:mod:`judges.rounds`). A value that refers to a lookup which found no row is
null, and a lookup with a null key finds no rows (SQL equality never matches
NULL): the chain simply ends there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from judges.effects import Effect
from judges.rules.engine import CelEvalError, Environment, Expression
from judges.rules.view import to_cel
from judges.state import Query, Row

__all__ = ["KeyValue", "Lookup", "LookupFailure", "with_keying"]

Scalar = str | int | float | bool | None
_SCALAR_TYPES = (str, int, float, bool, type(None))


class LookupFailure(Exception):
    """A ``where`` value that cannot be worked out for an effect (the rules using it fail closed)."""


@dataclass(frozen=True, slots=True)
class KeyValue:
    """One ``where`` value: a constant, a plain path from ``root``, or a CEL expression.

    ``root`` is ``effect`` or the lookup a path starts at; ``refers`` names
    the lookups the value reads (a path's root, or those an expression names).
    """

    constant: Scalar = None
    path: tuple[str, ...] | None = None
    expression: Expression | None = None
    root: str = "effect"
    refers: frozenset[str] = frozenset()

    def resolve(
        self,
        effect: Effect,
        environment: Callable[[], Environment],
        rows: Mapping[str, Row | None] | None = None,
    ) -> Scalar:
        """The value for ``effect``; ``rows`` holds the one row (or None) of each lookup it refers to."""
        if self.refers and (rows is None or any(rows.get(name) is None for name in self.refers)):
            return None
        if self.path is not None:
            if self.root == "effect":
                value = _follow(effect, self.path)
            else:
                value = _walk((rows or {})[self.root], self.path, self.root)
        elif self.expression is not None:
            try:
                value = self.expression.evaluate(environment())
            except CelEvalError as exc:
                raise LookupFailure(str(exc)) from exc
        else:
            return self.constant
        value = to_cel(value, None)
        if not isinstance(value, _SCALAR_TYPES):
            raise LookupFailure(f"a lookup value must be a scalar, got {type(value).__name__}")
        return value


def _follow(effect: Effect, path: tuple[str, ...]) -> Any:
    head, rest = path[0], path[1:]
    value: Any
    if head == "before":
        value = effect.before
    elif head == "after":
        value = effect.after
    elif head == "key":
        value = effect.key_text
    elif head == "table":
        value = effect.table
    elif head == "kind":
        value = effect.kind.value
    elif head == "changed":
        value = list(effect.changed_fields)
    else:
        raise LookupFailure(f"no such key: {head!r}")
    return _walk(value, rest, f"effect.{head}")


def _walk(value: Any, path: tuple[str, ...], walked: str) -> Any:
    for name in path:
        if not isinstance(value, Mapping):
            raise LookupFailure(f"{walked} is {'null' if value is None else type(value).__name__}, not a map")
        if name not in value:
            raise LookupFailure(f"no such key: {name!r}")
        value = value[name]
        walked += f".{name}"
    return value


@dataclass(frozen=True, slots=True)
class Lookup:
    """Rows of ``table`` matching ``where``, bound to ``name`` (the first row or null when ``one``).

    ``after`` names the lookups whose rows its ``where`` values read (empty
    for a lookup keyed by the effect alone).
    """

    name: str
    table: str
    where: tuple[tuple[str, KeyValue], ...]
    limit: int | None = None
    one: bool = False
    after: tuple[str, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "where", tuple(sorted(self.where, key=lambda item: item[0])))
        refers = sorted({name for _, value in self.where for name in value.refers})
        object.__setattr__(self, "after", tuple(refers))

    def query(
        self,
        effect: Effect,
        environment: Callable[[], Environment],
        rows: Mapping[str, Row | None] | None = None,
    ) -> Query:
        """The query for one effect (columns in sorted order, as :meth:`Query.of` makes them)."""
        where = tuple((column, value.resolve(effect, environment, rows)) for column, value in self.where)
        return Query(self.table, where, 1 if self.one else self.limit)


def with_keying(lookups: Mapping[str, Lookup], names: Iterable[str]) -> set[str]:
    """The lookups among ``names`` and every lookup that keys one of them, transitively."""
    needed = {name for name in names if name in lookups}
    pending = list(needed)
    while pending:
        for before in lookups[pending.pop()].after:
            if before not in needed:
                needed.add(before)
                pending.append(before)
    return needed
