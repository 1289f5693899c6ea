"""A domain declared in one value, and the :class:`~benchmark.domains.base.Domain` built from it.

A domain's ``__init__.py`` holds one :class:`DomainSpec`: its name, its
:class:`Tables` (the table definitions in creation order, each with its seed
file, their SQL tables and the policy documents table), its Zendesk variant
and tables, its systems (the modules holding its tools), its rule pack, the
factory of its Python judges, the scenario's "now" and the name of its
policy search tool. :meth:`DomainSpec.build` makes the domain from it; nothing
is registered by importing a module.

The tool list is built from the declaration, in this order: the seven
Zendesk tools, then each system's own registry (its module's ``tools``) in
the order the systems are listed, then the policy search tool. The judge
chain is the compiled rule pack, then the judges the factory makes (they
read the commit time from their context).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Protocol

from sqlalchemy import MetaData, Table

from benchmark.domains.base import DataSet, Domain, TableDef, envelope_error_text, sql_table
from benchmark.domains.coverage import load_coverage
from benchmark.domains.knowledge import documents_table, register_policy_search
from benchmark.domains.zendesk import ZendeskTables, zendesk_tools
from benchmark.errors import BenchmarkError
from guard.tools import ErrorText, ToolRegistry
from judges import Judge, RulePack, load_rule_pack

__all__ = ["DomainSpec", "System", "Tables"]


class System(Protocol):
    """A module holding some of a domain's tools, in its own registry (its ``@tools.tool`` functions)."""

    @property
    def tools(self) -> ToolRegistry: ...


@dataclass(frozen=True, slots=True, eq=False)
class Tables:
    """A domain's tables: definitions in creation order, SQL tables by our name, the documents table."""

    defs: tuple[TableDef, ...]
    metadata: MetaData
    sql: Mapping[str, Table]
    documents: Table

    @classmethod
    def of(cls, metadata: MetaData, defs: Iterable[TableDef]) -> Tables:
        """The SQL table of each definition in ``metadata``, then the policy documents table.

        A definition whose table ``metadata`` holds already (Zendesk's, made
        with its variant; the status-violation audit's) keeps that table.
        """
        defs = tuple(defs)
        sql = {
            d.name: metadata.tables[d.name] if d.name in metadata.tables else sql_table(d, metadata)
            for d in defs
        }
        return cls(defs, metadata, MappingProxyType(sql), documents_table(metadata))


@dataclass(frozen=True, slots=True, kw_only=True)
class DomainSpec:
    """Everything a benchmark domain is made of (see the module docstring for the order of its tools).

    ``name`` is the benchmark's domain name (the task files' prefix),
    ``rules`` the path of its CEL rule pack, ``judges`` makes its Python
    judges in chain order, ``scenario_now`` is the scenario's "now" (the clock
    its tools run on) and ``search_tool`` names the policy search tool
    (``None``: the agent has none, its policy is in its instructions).
    ``zendesk`` is ``None`` for a domain without a Zendesk copy.
    ``error_text`` renders a tool's refusal (the reference's envelope unless
    the domain says otherwise) and ``dataset`` names the data set its seeds
    and tasks come from (what ``--data`` must point at).
    """

    name: str
    tables: Tables
    zendesk: ZendeskTables | None
    systems: tuple[System, ...]
    rules: Path
    judges: Callable[[], Sequence[Judge]]
    scenario_now: datetime
    search_tool: str | None
    error_text: ErrorText = envelope_error_text
    dataset: DataSet = "thinkingbox"
    coverage: Path | None = None
    """Its policy clause by clause, and the rules that judge each (:mod:`benchmark.domains.coverage`)."""

    def registry(self) -> ToolRegistry:
        """The domain's tools, built from the declaration (a new registry on each call)."""
        registry = ToolRegistry(self.name, error_text=self.error_text)
        if self.zendesk is not None:
            registry.extend(zendesk_tools(self.zendesk))
        for system in self.systems:
            registry.extend(system.tools)
        if self.search_tool is not None:
            register_policy_search(registry, self.search_tool, self.tables.documents)
        return registry

    def rule_pack(self) -> RulePack:
        """The rule pack, compiled (every expression and name checked) from ``rules``."""
        return load_rule_pack(self.rules)

    def build(self) -> Domain:
        """The domain the harness uses; :class:`BenchmarkError` if the declaration does not hold together."""
        names = {d.name for d in self.tables.defs}
        missing = [d.name for d in self.zendesk.defs if d.name not in names] if self.zendesk else []
        if missing:
            raise BenchmarkError(f"domain {self.name}: the Zendesk tables {missing} are not among its tables")
        return Domain(
            name=self.name,
            tables=self.tables.defs,
            registry=self.registry(),
            metadata=self.tables.metadata,
            sql=self.tables.sql,
            scenario_now=self.scenario_now,
            search_tool=self.search_tool,
            documents=self.tables.documents,
            judges=(self.rule_pack(), *self.judges()),
            dataset=self.dataset,
            coverage=None if self.coverage is None else load_coverage(self.coverage),
        )
