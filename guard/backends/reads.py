"""The judges' reads of a ``sql`` transaction's pending state: a few statements per round.

:class:`SqlStateReader` answers a round of :class:`~judges.Query` values on
the transaction's own connection (so it sees the pending rows). Queries are
grouped by table and column set; each group of two or more is one statement
(per :data:`_CHUNK` queries): the keys are a CTE of rows ``(query index,
limit, key values...)`` joined to the table on equality of every column, so
the database pairs rows with queries using the very comparison (and type
coercion) of ``WHERE col = :value``, and a row that answers two queries comes
back once for each. A limit is kept per query with ``row_number()`` over the
query's partition, so which rows a limit keeps is the database's choice, as
with ``LIMIT``. A group of one query is the plain ``SELECT ... WHERE ... LIMIT``.
Rows are split back per query in the order the database returns them.

A query with a null key is answered with no rows and no statement (SQL
equality never matches NULL). Statements are built once per shape (table,
columns, size padded to a power of two, limited or not) and reused, so the
database driver and SQLAlchemy's compiled cache see few distinct statements.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from sqlalchemy import BigInteger, Integer, Select, Table, and_, bindparam, func, select, union_all
from sqlalchemy.ext.asyncio import AsyncConnection

from guard.store.capture import jsonable
from guard.store.direct import read_rows
from guard.store.params import Statements, equals, shape
from judges import Query, Row, StateSnapshot

__all__ = ["SqlStateReader"]

_CHUNK = 128
_QUERY, _LIMIT, _RANK = "guard_query", "guard_limit", "guard_rank"


class SqlStateReader:
    """Answers judges' queries on the transaction's own connection (so it sees pending rows)."""

    def __init__(self, conn: AsyncConnection, tables: Mapping[str, Table]) -> None:
        self._conn = conn
        self._tables = tables

    async def fetch(self, queries: Sequence[Query]) -> StateSnapshot:
        answers: dict[Query, tuple[Row, ...]] = {}
        groups: dict[tuple[str, tuple[str, ...]], list[Query]] = {}
        for query in dict.fromkeys(queries):
            if query.null_key:
                answers[query] = ()
            else:
                groups.setdefault((query.table, tuple(column for column, _ in query.where)), []).append(query)
        for (name, columns), members in groups.items():
            table = self._tables.get(name)
            if table is None:
                raise KeyError(f"judge asked for unknown table {name!r}")
            for column in columns:
                if column not in table.c:
                    raise KeyError(f"judge asked for unknown column {name}.{column}")
            for start in range(0, len(members), _CHUNK):
                answers.update(await self._group(table, columns, members[start : start + _CHUNK]))
        return StateSnapshot(answers)

    async def _group(
        self, table: Table, columns: tuple[str, ...], queries: list[Query]
    ) -> dict[Query, tuple[Row, ...]]:
        if len(queries) == 1 or not columns:
            return {query: await self._one(table, query) for query in queries}
        size = 1 << (len(queries) - 1).bit_length()
        limited = any(query.limit is not None for query in queries)
        params: dict[str, Any] = {}
        for index in range(size):
            query = queries[index] if index < len(queries) else None
            params[f"q{index}"] = index if query is not None else -1
            if limited:
                params[f"l{index}"] = _limit(query)
            for position in range(len(columns)):
                params[f"k{index}_{position}"] = query.where[position][1] if query is not None else None
        found: list[list[Row]] = [[] for _ in queries]
        names = [column.name for column in table.columns]
        for row in await read_rows(self._conn, _batch(table, columns, size, limited), params):
            found[row[_QUERY]].append({name: jsonable(row[name]) for name in names})
        return {query: tuple(rows) for query, rows in zip(queries, found, strict=True)}

    async def _one(self, table: Table, query: Query) -> tuple[Row, ...]:
        params: dict[str, Any] = {f"k{position}": value for position, (_, value) in enumerate(query.where)}
        if query.limit is not None:
            params[_LIMIT] = query.limit
        rows = await read_rows(self._conn, _single(table, query), params)
        return tuple({k: jsonable(v) for k, v in row.items()} for row in rows)


def _limit(query: Query | None) -> int:
    if query is None:
        return 0
    return query.limit if query.limit is not None else 2**31 - 1


_SINGLE: Statements[Select[Any]] = Statements()


def _single(table: Table, query: Query) -> Select[Any]:
    """The statement answering one query on ``table`` (parameters k0, k1, ..., and the limit), built once.

    Its shape is the columns, the types of the values compared with them (see
    :mod:`guard.store.params`) and whether it has a limit.
    """

    def build() -> Select[Any]:
        conditions = (equals(table.c[col], f"k{n}", value) for n, (col, value) in enumerate(query.where))
        statement = select(table).where(and_(*conditions))
        if query.limit is not None:
            statement = statement.limit(bindparam(_LIMIT, type_=BigInteger))
        return statement

    return _SINGLE.get(table, (shape(query.where), query.limit is not None), build)


@lru_cache(maxsize=512)
def _batch(table: Table, columns: tuple[str, ...], size: int, limited: bool) -> Select[Any]:
    """The statement answering ``size`` queries on ``columns`` of ``table`` (parameters q/l/k, by index)."""
    terms = []
    for index in range(size):
        values = [bindparam(f"q{index}", type_=Integer).label(_QUERY)]
        if limited:
            values.append(bindparam(f"l{index}", type_=Integer).label(_LIMIT))
        values += [
            bindparam(f"k{index}_{position}", type_=table.c[column].type).label(f"k{position}")
            for position, column in enumerate(columns)
        ]
        terms.append(select(*values))
    keys = union_all(*terms).cte("guard_keys")
    on = and_(*(table.c[column] == keys.c[f"k{position}"] for position, column in enumerate(columns)))
    if not limited:
        return select(keys.c[_QUERY], *table.columns).join_from(keys, table, on)
    rank = func.row_number().over(partition_by=keys.c[_QUERY]).label(_RANK)
    ranked = select(keys.c[_QUERY], keys.c[_LIMIT], rank, *table.columns).join_from(keys, table, on)
    rows = ranked.subquery("guard_rows")
    return select(*rows.c).where(rows.c[_RANK] <= rows.c[_LIMIT])
