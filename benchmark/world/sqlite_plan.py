"""Pre-rendered SQL for building and dumping a domain's world on SQLite.

Building a world is a fixed script per domain — create the tables, insert
the seed rows, upsert the patch rows — and dumping one is a fixed set of
selects. Through SQLAlchemy Core each statement would be compiled again for
every new engine (the compiled cache belongs to the engine), which costs
more than running it. So, for SQLite only, the statements are rendered once
per domain and run as driver SQL, with values encoded and decoded here the
way SQLAlchemy's column types would (JSON as ``json.dumps`` text, booleans as
0/1). PostgreSQL takes the ordinary Core path.

A row read back is decoded once per process (and a JSON text parsed once):
equal stored values give the same (shared) row, so the rows of a dumped
state are to be read, never changed.
Most of a world's rows are its seed's, and parsing them again for every
dump cost more than the rest of a trial in the larger domains.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import JSON, Boolean, Table
from sqlalchemy.dialects import sqlite
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.schema import CreateIndex, CreateTable

from benchmark.domains.base import SEQ, Domain

__all__ = ["SqlitePlan", "sqlite_plan"]

_DIALECT = sqlite.dialect()


def _identity(value: Any) -> Any:
    return value


def _json_out(value: Any) -> Any:
    return None if value is None else json.dumps(value)


_MAX_ROWS = 1 << 16
_ROWS: dict[str, dict[tuple[Any, ...], dict[str, Any]]] = {}
"""A table's select → its rows read back, by their stored values (shared: never change them)."""


@lru_cache(maxsize=1 << 17)
def _parsed(text: str) -> Any:
    return json.loads(text)


def _json_in(value: Any) -> Any:
    return None if value is None else _parsed(value)


def _bool_in(value: Any) -> Any:
    return None if value is None else bool(value)


@dataclass(frozen=True, slots=True)
class _TablePlan:
    columns: tuple[str, ...]
    encoders: tuple[Callable[[Any], Any], ...]
    decoders: tuple[Callable[[Any], Any], ...]
    insert: str
    upsert: str
    select: str

    def encode(self, row: Mapping[str, Any]) -> tuple[Any, ...]:
        return tuple(enc(row.get(col)) for col, enc in zip(self.columns, self.encoders, strict=True))

    def decode(self, values: tuple[Any, ...]) -> dict[str, Any]:
        return {col: dec(v) for col, dec, v in zip(self.columns, self.decoders, values, strict=True)}


def _table_plan(table: Table) -> _TablePlan:
    columns = tuple(c.name for c in table.columns if c.name != SEQ)
    encoders = tuple(_json_out if isinstance(table.c[c].type, JSON) else _identity for c in columns)
    decoders = tuple(
        _json_in
        if isinstance(table.c[c].type, JSON)
        else _bool_in
        if isinstance(table.c[c].type, Boolean)
        else _identity
        for c in columns
    )
    quoted = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join("?" for _ in columns)
    key = ", ".join(f'"{c.name}"' for c in table.primary_key.columns)
    updates = ", ".join(f'"{c}" = excluded."{c}"' for c in columns if c not in table.primary_key.columns)
    return _TablePlan(
        columns=columns,
        encoders=encoders,
        decoders=decoders,
        insert=f'INSERT INTO "{table.name}" ({quoted}, "{SEQ}") VALUES ({marks}, ?)',
        upsert=(
            f'INSERT INTO "{table.name}" ({quoted}, "{SEQ}") VALUES ({marks}, '
            f'(SELECT coalesce(max("{SEQ}"), 0) + 1 FROM "{table.name}")) '
            f"ON CONFLICT ({key}) DO " + (f"UPDATE SET {updates}" if updates else "NOTHING")
        ),
        select=f'SELECT {quoted} FROM "{table.name}" ORDER BY "{SEQ}"',
    )


@dataclass(frozen=True, slots=True)
class SqlitePlan:
    """A domain's rendered DDL and per-table statements."""

    ddl: tuple[str, ...]
    tables: Mapping[str, _TablePlan]

    async def create(self, conn: AsyncConnection) -> None:
        for statement in self.ddl:
            await conn.exec_driver_sql(statement)

    async def insert(self, conn: AsyncConnection, table: str, rows: list[dict[str, Any]]) -> None:
        plan = self.tables[table]
        await conn.exec_driver_sql(plan.insert, [(*plan.encode(r), n) for n, r in enumerate(rows, start=1)])

    async def upsert(self, conn: AsyncConnection, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """Each row replaces the row with its key in place, or is appended; one after the other, in order."""
        plan = self.tables[table]
        driver = await _driver(conn)
        # each statement reads max(_seq) as the ones before it left it, as one execute per row would
        await driver.executemany(plan.upsert, [plan.encode(row) for row in rows])

    async def read(self, conn: AsyncConnection, tables: Sequence[str]) -> list[list[dict[str, Any]]]:
        """Each table's rows in list order, read on the driver's connection in ``conn``'s transaction.

        Through the driver's own ``execute_fetchall``: SQLAlchemy's result machinery has nothing
        to do for raw SQL whose values :meth:`_TablePlan.decode` reads, and cost five times the read.
        """
        driver = await _driver(conn)
        read = []
        for table in tables:
            plan = self.tables[table]
            seen = _ROWS.setdefault(plan.select, {})
            rows = []
            for values in await driver.execute_fetchall(plan.select):
                raw = tuple(values)
                row = seen.get(raw)
                if row is None:
                    row = plan.decode(raw)
                    if len(seen) < _MAX_ROWS:
                        seen[raw] = row
                rows.append(row)
            read.append(rows)
        return read


async def _driver(conn: AsyncConnection) -> Any:
    """The driver's connection under ``conn``, in ``conn``'s transaction (begun here if none is).

    Reading or writing on the driver bypasses SQLAlchemy's autobegin: without a transaction, each
    table would be read at its own moment (a commit in between would tear the state apart).
    """
    if not conn.in_transaction():
        await conn.begin()
    driver = (await conn.get_raw_connection()).driver_connection
    assert driver is not None
    return driver


@lru_cache(maxsize=16)
def sqlite_plan(domain: Domain) -> SqlitePlan:
    ddl: list[str] = []
    for table in domain.metadata.sorted_tables:
        ddl.append(str(CreateTable(table).compile(dialect=_DIALECT)).strip())
        ddl.extend(str(CreateIndex(index).compile(dialect=_DIALECT)) for index in table.indexes)
    return SqlitePlan(tuple(ddl), {name: _table_plan(table) for name, table in domain.sql.items()})
