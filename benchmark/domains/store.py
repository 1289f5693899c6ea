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

from sqlalchemy import Table, and_, delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from benchmark.domains.base import SEQ

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


def _where(table: Table, match: Mapping[str, Any]) -> Any:
    return and_(*(table.c[name] == value for name, value in match.items()))


def _primary(table: Table) -> list[str]:
    return [c.name for c in table.primary_key.columns]


async def all_rows(conn: AsyncConnection, table: Table, **match: Any) -> list[dict[str, Any]]:
    """Every row (matching ``match``, by equality) in list order."""
    query = select(table).order_by(table.c[SEQ])
    if match:
        query = query.where(_where(table, match))
    result = await conn.execute(query)
    return [_public(row) for row in result.mappings()]


async def first_row(conn: AsyncConnection, table: Table, **match: Any) -> dict[str, Any] | None:
    """The first row in list order whose columns equal ``match``, or None."""
    query = select(table).where(_where(table, match)).order_by(table.c[SEQ]).limit(1)
    row = (await conn.execute(query)).mappings().first()
    return None if row is None else _public(row)


async def count_rows(conn: AsyncConnection, table: Table) -> int:
    return int((await conn.execute(select(func.count()).select_from(table))).scalar_one())


async def _next_seq(conn: AsyncConnection, table: Table) -> int:
    current = (await conn.execute(select(func.max(table.c[SEQ])))).scalar_one()
    return 1 if current is None else int(current) + 1


def _key_text(table: Table, row: Mapping[str, Any]) -> str:
    return "/".join(str(row.get(name)) for name in _primary(table))


async def insert_row(conn: AsyncConnection, table: Table, row: Mapping[str, Any]) -> None:
    """Append a row; :class:`DuplicateKey` if its key is taken (nothing is written then)."""
    key = {name: row.get(name) for name in _primary(table)}
    if await first_row(conn, table, **key) is not None:
        raise DuplicateKey(_key_text(table, row))
    await conn.execute(insert(table).values({**row, SEQ: await _next_seq(conn, table)}))


async def update_row(
    conn: AsyncConnection, table: Table, key: Mapping[str, Any], changes: Mapping[str, Any]
) -> None:
    """Change some columns of the row with ``key``; :class:`MissingRow` if there is none."""
    result = await conn.execute(update(table).where(_where(table, key)).values(dict(changes)))
    if result.rowcount == 0:
        raise MissingRow("/".join(str(v) for v in key.values()))


async def upsert_row(conn: AsyncConnection, table: Table, row: Mapping[str, Any]) -> None:
    """Replace the row with the same key in place, or append it (the reference's patch upsert)."""
    key = {name: row.get(name) for name in _primary(table)}
    values = {c.name: row.get(c.name) for c in table.columns if c.name != SEQ}
    result = await conn.execute(update(table).where(_where(table, key)).values(values))
    if result.rowcount == 0:
        await conn.execute(insert(table).values({**values, SEQ: await _next_seq(conn, table)}))


async def delete_row(conn: AsyncConnection, table: Table, key: Mapping[str, Any]) -> None:
    result = await conn.execute(delete(table).where(_where(table, key)))
    if result.rowcount == 0:
        raise MissingRow("/".join(str(v) for v in key.values()))


def first_unused(existing: Iterable[Any], template: str, start: int) -> str:
    """The first ``template.format(n)`` for n = start, start+1, … that is not in ``existing``."""
    taken = set(existing)
    n = start
    while (candidate := template.format(n)) in taken:
        n += 1
    return candidate
