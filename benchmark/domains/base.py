"""The shape every benchmark domain has: tables, a tool registry and its clocks.

A :class:`TableDef` couples three names for one table: our SQL table name,
the benchmark's table name (the key of ``data_patch`` and of the dumped
state), and a pydantic *row model* that mirrors the reference's model field
for field. Rows are validated by that model exactly as the reference
validates seed and patch rows, and stored as the model's JSON form, so
datetimes and dates are kept as the reference's ISO text, decimals as their text
and enums as their values.
The SQLAlchemy :class:`~sqlalchemy.Table` is derived from the model: typed
columns, lists and dicts as JSON, and a hidden ``_seq`` column that keeps the
reference's list order (tools that take "the first match" depend on it).
A table may declare secondary indexes (``indexes``) for the equality reads
the commit gate's judges make; they change how rows are found, never what
is stored or hashed.

A domain names its tables and seed files after one pattern, the reference's
folder layout: a :class:`TableNaming` makes its :class:`TableDef` from the
system (the toolset's folder) and the stem (the seed file's name).

A :class:`Domain` is the unit the rest of the harness works with: its tables
in creation order, its :class:`~guard.tools.ToolRegistry`, the scenario clock
and the name of its knowledge-base search tool. It is built from the domain's
declaration (:class:`benchmark.domains.declare.DomainSpec`).
"""

from __future__ import annotations

import enum
import hashlib
import json
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from pydantic import BaseModel
from sqlalchemy import JSON, BigInteger, Boolean, Column, Double, Index, MetaData, Table, Text

from benchmark.domains.coverage import Coverage
from guard.errors import ToolError
from guard.tools import ToolRegistry
from judges.canonical import TableSpec
from judges.verdict import Judge

__all__ = [
    "SEQ",
    "DataSet",
    "Domain",
    "TableDef",
    "TableNaming",
    "add_indexes",
    "envelope_error_text",
    "sql_table",
]

DataSet = typing.Literal["thinkingbox", "tau-bench-airline"]
"""Where a domain's seeds and tasks come from: a ThinkingBox checkout, or tau-bench's airline folder."""

SEQ = "_seq"
"""The hidden column holding a row's position in the reference's list order."""


@dataclass(frozen=True, slots=True)
class TableDef:
    """One table of a domain.

    ``seed`` is the seed file's path relative to the checkout's seed folder
    (:func:`benchmark.world.seed_dir`), or absolute for a domain that ships
    its seeds (``None`` for tables that start empty and are not in the
    reference's state). ``hashed`` is false for tables that are ours alone,
    such as the knowledge-base documents, and are never dumped.
    ``indexes`` are the column lists of secondary indexes (non-unique, in
    column order), declared for the judges' lookups by equality.
    """

    name: str
    benchmark_name: str
    model: type[BaseModel]
    key: tuple[str, ...] = ("id",)
    unstable: frozenset[str] = field(default_factory=frozenset)
    seed: str | None = None
    hashed: bool = True
    indexes: tuple[tuple[str, ...], ...] = ()

    @property
    def spec(self) -> TableSpec:
        return TableSpec(self.benchmark_name, self.key, self.unstable)

    def validate_row(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """The row as the reference would store it; raises pydantic's ``ValidationError``."""
        return self.model.model_validate(dict(row)).model_dump(mode="json")

    def key_of(self, row: Mapping[str, Any]) -> tuple[Any, ...]:
        return tuple(row[c] for c in self.key)


@dataclass(frozen=True, slots=True)
class TableNaming:
    """How a domain names its tables after the reference's layout, and where their seed files are.

    ``seeds`` is the domain's folder under the seed root; a table of
    ``system`` whose seed file is ``<stem>.json`` has its seed at
    ``<seeds>/<system>/initial_data/<stem>.json``, the benchmark name
    ``benchmark.format(system=…, stem=…)`` and our name ``name.format(…)``
    (unless the call gives one)::

        table = TableNaming("sandbox_auto_insurance")
        table("policy", "vehicles", m.Vehicle)
        # name "vehicles", benchmark name "policy_vehicles",
        # seed "sandbox_auto_insurance/policy/initial_data/vehicles.json"
    """

    seeds: str
    benchmark: str = "{system}_{stem}"
    name: str = "{stem}"

    def __call__(
        self,
        system: str,
        stem: str,
        model: type[BaseModel],
        *,
        name: str | None = None,
        key: tuple[str, ...] = ("id",),
        unstable: frozenset[str] = frozenset(),
        indexes: tuple[tuple[str, ...], ...] = (),
    ) -> TableDef:
        return TableDef(
            name=name or self.name.format(system=system, stem=stem),
            benchmark_name=self.benchmark.format(system=system, stem=stem),
            model=model,
            key=key,
            unstable=unstable,
            seed=f"{self.seeds}/{system}/initial_data/{stem}.json",
            indexes=indexes,
        )


def _column_type(annotation: Any) -> tuple[Any, bool]:
    """The SQL type for a field annotation, and whether it is nullable."""
    nullable = False
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        nullable = len(members) < len(typing.get_args(annotation))
        annotation = members[0] if len(members) == 1 else Any
        origin = typing.get_origin(annotation)
    if origin in (list, dict) or annotation in (list, dict) or annotation is Any:
        return JSON(none_as_null=True), nullable
    if isinstance(annotation, type):
        if issubclass(annotation, bool):
            return Boolean(), nullable
        if issubclass(annotation, enum.Enum) or issubclass(annotation, str | date | Decimal):
            return Text(), nullable
        if issubclass(annotation, int):
            return BigInteger(), nullable
        if issubclass(annotation, float):
            return Double(), nullable
    raise TypeError(f"no SQL column type for {annotation!r}")


def sql_table(table: TableDef, metadata: MetaData) -> Table:
    """The SQLAlchemy table of a row model, with ``_seq``, the key as primary key and its ``indexes``."""
    columns = []
    for name, info in table.model.model_fields.items():
        sql_type, nullable = _column_type(info.annotation)
        columns.append(Column(name, sql_type, primary_key=name in table.key, nullable=nullable))
    columns.append(Column(SEQ, BigInteger, nullable=False, index=True))
    sql = Table(table.name, metadata, *columns)
    add_indexes(sql, table.indexes)
    return sql


_MAX_NAME = 63
"""PostgreSQL's identifier limit; a longer index name ends in a digest of the full one instead."""


def add_indexes(table: Table, indexes: Iterable[tuple[str, ...]]) -> None:
    """Add a non-unique index per column list to ``table`` (one not built by :func:`sql_table`, too).

    Each is named ``ix_<table>_<columns>``, cut to PostgreSQL's 63 characters
    with a digest when longer; a column the table does not have raises ``KeyError``.
    """
    for columns in indexes:
        name = f"ix_{table.name}_{'_'.join(columns)}"
        if len(name) > _MAX_NAME:
            digest = hashlib.sha256(name.encode()).hexdigest()[:8]
            name = f"{name[: _MAX_NAME - 9]}_{digest}"
        Index(name, *(table.c[column] for column in columns))


def envelope_error_text(tool: str, error: ToolError) -> str:
    """The reference's error reply: ``{"error": "Tool execution failed: …", "tool": name}``."""
    return json.dumps({"error": f"Tool execution failed: {error.message}", "tool": tool})


@dataclass(frozen=True, slots=True, eq=False)
class Domain:
    """A benchmark domain: its tables (in creation order), tools and clocks.

    ``scenario_now`` is the scenario's "now" (the prompts say
    2025-10-01T13:00Z); the few reference tools that read the wall clock use
    it instead, so that replays do not drift with the calendar. ``judges`` are
    the domain's business rules for the guard's commit gate (rule packs written
    from the scenario's policy, over our SQL table names).
    """

    name: str
    tables: tuple[TableDef, ...]
    registry: ToolRegistry
    metadata: MetaData
    sql: Mapping[str, Table]
    scenario_now: datetime
    search_tool: str | None
    documents: Table
    judges: tuple[Judge, ...] = ()
    """What the guard checks at commit for this domain, as production would (never golden data)."""
    dataset: DataSet = "thinkingbox"
    """Where its seeds and tasks come from; a relative ``seed`` is under that data set's seed folder."""
    coverage: Coverage | None = None
    """Its policy clause by clause, when it declares it (:mod:`benchmark.domains.coverage`)."""

    @property
    def hashed_tables(self) -> tuple[TableDef, ...]:
        return tuple(t for t in self.tables if t.hashed)

    @property
    def specs(self) -> dict[str, TableSpec]:
        return {t.benchmark_name: t.spec for t in self.hashed_tables}

    def table(self, name: str) -> TableDef:
        for table in self.tables:
            if name in (table.name, table.benchmark_name):
                return table
        raise KeyError(name)

    def by_benchmark_name(self) -> dict[str, TableDef]:
        return {t.benchmark_name: t for t in self.hashed_tables}
