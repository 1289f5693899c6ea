"""Row access for the domain tools: the reference's list operations, over SQL.

The reference keeps each table as an ordered Python list, finds rows by a
linear scan and appends new rows at the end. These helpers give the same
answers over a SQL table: rows come back in ``_seq`` order, a new row gets
the next ``_seq``, an update keeps its row's position. Rows are plain dicts
without ``_seq``. All functions run on the caller's connection, inside the
caller's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Executable, Table, and_, delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from benchmark.domains.base import SEQ
from guard.store.direct import read_rows
from guard.store.params import Statements, equals, shape

__all__ = [
    "DuplicateKey",
    "MissingRow",
    "all_rows",
    "count_rows",
    "delete_row",
    "first_row",
    "first_unused",
    "insert_row",
    "update_row",
    "upsert_row",
]


class DuplicateKey(Exception):
    """A create whose key exists already (the reference's ``Object with ID … already exists``)."""

    def __init__(self, key: Any) -> None:
        super().__init__(f"Object with ID {key} already exists")


class MissingRow(Exception):
    """An update or delete of a row that is not there (``Object with ID … does not exist``)."""

    def __init__(self, key: Any) -> None:
        super().__init__(f"Object with ID {key} does not exist")


def _public(row: Mapping[Any, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != SEQ}


def _primary(table: Table) -> list[str]:
    return [c.name for c in table.primary_key.columns]


_WHERE = "_w_"
"""Prefix of the WHERE clause's parameters (an UPDATE's SET takes the columns' own names)."""

_STATEMENTS: Statements[Executable] = Statements()


def _statement(kind: str, table: Table, match: Mapping[str, Any]) -> tuple[Executable, dict[str, Any]]:
    """The statement of ``kind`` on ``table`` filtered by ``match`` (built once per shape), its parameters."""

    def build() -> Executable:
        conditions = (equals(table.c[name], _WHERE + name, value) for name, value in match.items())
        if kind == "all":
            built = select(table).order_by(table.c[SEQ])
            return built.where(and_(*conditions)) if match else built
        if kind == "first":
            return select(table).where(and_(*conditions)).order_by(table.c[SEQ]).limit(1)
        if kind == "update":
            return update(table).where(and_(*conditions))
        return delete(table).where(and_(*conditions))

    built = _STATEMENTS.get(table, (kind, shape(match.items())), build)
    return built, {_WHERE + name: value for name, value in match.items() if value is not None}


def _fixed(kind: str, table: Table) -> Executable:
    """A statement of ``table`` without parameters (its count, its last ``_seq``, its insert)."""

    def build() -> Executable:
        if kind == "count":
            return select(func.count()).select_from(table)
        if kind == "max_seq":
            return select(func.max(table.c[SEQ]))
        return insert(table)

    return _STATEMENTS.get(table, kind, build)


async def all_rows(conn: AsyncConnection, table: Table, **match: Any) -> list[dict[str, Any]]:
    """Every row (matching ``match``, by equality) in list order."""
    statement, parameters = _statement("all", table, match)
    return [_public(row) for row in await read_rows(conn, statement, parameters)]


async def first_row(conn: AsyncConnection, table: Table, **match: Any) -> dict[str, Any] | None:
    """The first row in list order whose columns equal ``match``, or None."""
    statement, parameters = _statement("first", table, match)
    rows = await read_rows(conn, statement, parameters)
    return _public(rows[0]) if rows else None


async def _scalar(conn: AsyncConnection, statement: Executable) -> Any:
    (row,) = await read_rows(conn, statement)
    return next(iter(row.values()))


async def count_rows(conn: AsyncConnection, table: Table) -> int:
    return int(await _scalar(conn, _fixed("count", table)))


async def _next_seq(conn: AsyncConnection, table: Table) -> int:
    current = await _scalar(conn, _fixed("max_seq", table))
    return 1 if current is None else int(current) + 1


def _key_text(table: Table, row: Mapping[str, Any]) -> str:
    return "/".join(str(row.get(name)) for name in _primary(table))


def _columns(table: Table, names: Iterable[str]) -> bool:
    """Whether every name is one of the table's columns (as a prepared statement's parameters must be)."""
    columns = table.c
    return all(name in columns for name in names)


async def _append(conn: AsyncConnection, table: Table, values: Mapping[str, Any]) -> None:
    row = {**values, SEQ: await _next_seq(conn, table)}
    if _columns(table, values):
        await conn.execute(_fixed("insert", table), row)
    else:
        # a name that is not a column fails as it always has ("Unconsumed column names")
        await conn.execute(insert(table).values(row))


async def _update(
    conn: AsyncConnection, table: Table, key: Mapping[str, Any], changes: Mapping[str, Any]
) -> int:
    """Set ``changes`` on the rows matching ``key``; the number of rows changed."""
    if not changes or not _columns(table, changes):
        # no change, or a name that is not a column: the statement fails as it always has
        where = and_(*(table.c[name] == value for name, value in key.items()))
        return int((await conn.execute(update(table).where(where).values(dict(changes)))).rowcount)
    statement, parameters = _statement("update", table, key)
    result = await conn.execute(statement, {**changes, **parameters})
    return int(result.rowcount)


async def insert_row(conn: AsyncConnection, table: Table, row: Mapping[str, Any]) -> None:
    """Append a row; :class:`DuplicateKey` if its key is taken (nothing is written then)."""
    key = {name: row.get(name) for name in _primary(table)}
    if await first_row(conn, table, **key) is not None:
        raise DuplicateKey(_key_text(table, row))
    await _append(conn, table, row)


async def update_row(
    conn: AsyncConnection, table: Table, key: Mapping[str, Any], changes: Mapping[str, Any]
) -> None:
    """Change some columns of the row with ``key``; :class:`MissingRow` if there is none."""
    if await _update(conn, table, key, changes) == 0:
        raise MissingRow("/".join(str(v) for v in key.values()))


async def upsert_row(conn: AsyncConnection, table: Table, row: Mapping[str, Any]) -> None:
    """Replace the row with the same key in place, or append it (the reference's patch upsert)."""
    key = {name: row.get(name) for name in _primary(table)}
    values = {c.name: row.get(c.name) for c in table.columns if c.name != SEQ}
    if await _update(conn, table, key, values) == 0:
        await _append(conn, table, values)


async def delete_row(conn: AsyncConnection, table: Table, key: Mapping[str, Any]) -> None:
    statement, parameters = _statement("delete", table, key)
    result = await conn.execute(statement, parameters)
    if result.rowcount == 0:
        raise MissingRow("/".join(str(v) for v in key.values()))


def first_unused(existing: Iterable[Any], template: str, start: int) -> str:
    """The first ``template.format(n)`` for n = start, start+1, … that is not in ``existing``."""
    taken = set(existing)
    n = start
    while (candidate := template.format(n)) in taken:
        n += 1
    return candidate
