"""Read-only views of the pending state that judges ask for by query.

Judges never reach into a database. They name the rows they need as
:class:`Query` values (a table and equality filters, which a store answers by
index); the gate fetches every query once and hands the judges a
:class:`StateSnapshot` (in rounds, when a judge names more rows after seeing
some: :mod:`judges.rounds`). :class:`MemoryState` answers queries from rows
held in memory; the guard ships the SQL implementation of :class:`StateReader`.

A ``where`` value of None matches no row, as SQL equality never matches NULL:
such a query (:attr:`Query.null_key`) is answered with no rows, by every
reader, and the gate answers it without asking the reader at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["MemoryState", "Query", "Row", "StateReader", "StateSnapshot"]

Row = Mapping[str, Any]

Scalar = str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class Query:
    """Rows of ``table`` whose columns equal the given values (all of them); a None value matches nothing."""

    table: str
    where: tuple[tuple[str, Scalar], ...]
    limit: int | None = None

    @classmethod
    def of(cls, table: str, limit: int | None = None, /, **where: Scalar) -> Query:
        return cls(table, tuple(sorted(where.items())), limit)

    @classmethod
    def one(cls, table: str, /, **where: Scalar) -> Query:
        """One row by key (limit 1), as a rule pack's ``one: true`` lookup asks: both share a fetch."""
        return cls.of(table, 1, **where)

    @property
    def null_key(self) -> bool:
        """Whether a ``where`` value is None, so that no row can match (SQL's ``col = NULL``)."""
        return any(value is None for _, value in self.where)

    def matches(self, row: Row) -> bool:
        return all(value is not None and _equal(row.get(column), value) for column, value in self.where)


def _equal(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    return bool(left == right)


@dataclass(frozen=True, slots=True)
class StateSnapshot:
    """The answers to a set of queries, fixed at the moment the gate ran."""

    answers: Mapping[Query, tuple[Row, ...]] = field(default_factory=dict)

    def rows(self, query: Query) -> tuple[Row, ...]:
        """The rows for a query the judge declared; asking for an undeclared one is a bug."""
        try:
            return self.answers[query]
        except KeyError:
            raise KeyError(f"query was not declared by the judge: {query}") from None

    def first(self, query: Query) -> Row | None:
        """The first row for a declared query, or None when it has none."""
        rows = self.rows(query)
        return rows[0] if rows else None

    def find(self, table: str, /, **where: Scalar) -> tuple[Row, ...]:
        return self.rows(Query.of(table, None, **where))

    def get(self, table: str, /, **where: Scalar) -> Row | None:
        return self.first(Query.of(table, None, **where))

    def one(self, table: str, /, **where: Scalar) -> Row | None:
        """The row :meth:`Query.one` asks for, or None."""
        return self.first(Query.one(table, **where))


class StateReader(Protocol):
    """Answers queries against the state a transaction would leave behind."""

    async def fetch(self, queries: Sequence[Query]) -> StateSnapshot: ...


class MemoryState:
    """A :class:`StateReader` over rows held in memory, indexed on first use per column set."""

    def __init__(self, tables: Mapping[str, Iterable[Row]]) -> None:
        self._tables = {name: tuple(rows) for name, rows in tables.items()}
        self._indexes: dict[tuple[str, tuple[str, ...]], dict[tuple[Any, ...], list[Row]]] = {}

    def answer(self, query: Query) -> tuple[Row, ...]:
        if query.table not in self._tables:
            raise KeyError(f"unknown table {query.table!r}")
        if query.null_key:
            return ()
        columns = tuple(column for column, _ in query.where)
        index = self._index(query.table, columns)
        key = tuple(_hashable(value) for _, value in query.where)
        rows = [row for row in index.get(key, ()) if query.matches(row)]
        return tuple(rows if query.limit is None else rows[: query.limit])

    def snapshot(self, queries: Iterable[Query]) -> StateSnapshot:
        return StateSnapshot({query: self.answer(query) for query in queries})

    async def fetch(self, queries: Sequence[Query]) -> StateSnapshot:
        return self.snapshot(queries)

    def _index(self, table: str, columns: tuple[str, ...]) -> dict[tuple[Any, ...], list[Row]]:
        cached = self._indexes.get((table, columns))
        if cached is None:
            cached = {}
            for row in self._tables[table]:
                cached.setdefault(tuple(_hashable(row.get(c)) for c in columns), []).append(row)
            self._indexes[(table, columns)] = cached
        return cached


def _hashable(value: Any) -> Any:
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
