"""The benchmark domains: our own implementation of each domain's tools over SQL tables.

Every domain has the same shape (``README.md`` here says how to add one): its
package declares it in one :class:`~benchmark.domains.declare.DomainSpec` —
tables (:class:`~benchmark.domains.base.TableDef`, named by a
:class:`~benchmark.domains.base.TableNaming`), Zendesk variant, systems,
rules, judges, clock — and builds from it the
:class:`~benchmark.domains.base.Domain` the harness uses, whose
:class:`~guard.tools.ToolRegistry` is made from the listed systems. The
Zendesk toolset is shared and configured per domain (:mod:`.zendesk`); policy
search is shared too (:mod:`.knowledge`). :func:`get_domain` looks a domain
up by its benchmark name in :data:`DOMAIN_MODULES`.
"""

from __future__ import annotations

import importlib

from benchmark.domains.base import SEQ, Domain, TableDef, TableNaming, envelope_error_text, sql_table
from benchmark.domains.declare import DomainSpec, System, Tables
from benchmark.errors import BenchmarkError

__all__ = [
    "DOMAIN_MODULES",
    "SEQ",
    "Domain",
    "DomainSpec",
    "System",
    "TableDef",
    "TableNaming",
    "Tables",
    "domain_names",
    "envelope_error_text",
    "get_domain",
    "sql_table",
]

DOMAIN_MODULES: dict[str, str] = {
    "sandbox_external_retail": "benchmark.domains.retail",
    "sandbox_auto_insurance": "benchmark.domains.auto_insurance",
    "sandbox_neobank_support_v1": "benchmark.domains.neobank",
    "external_booking_v1": "benchmark.domains.booking",
    "sandbox_consulting": "benchmark.domains.consulting",
    "tau_airline": "benchmark.domains.tau_airline",
}
"""Benchmark domain name → the module that declares it and defines ``DOMAIN`` (built from its ``SPEC``)."""


def domain_names() -> list[str]:
    return list(DOMAIN_MODULES)


def get_domain(name: str) -> Domain:
    """The domain called ``name`` (its module is imported on first use)."""
    if name not in DOMAIN_MODULES:
        known = ", ".join(sorted(DOMAIN_MODULES))
        raise BenchmarkError(f"unknown domain {name!r} (known: {known})")
    try:
        module = importlib.import_module(DOMAIN_MODULES[name])
    except ModuleNotFoundError as exc:
        if exc.name != DOMAIN_MODULES[name]:
            raise
        raise BenchmarkError(f"domain {name!r} is not implemented yet") from exc
    domain = module.DOMAIN
    if not isinstance(domain, Domain):
        raise BenchmarkError(f"{DOMAIN_MODULES[name]}.DOMAIN is not a Domain")
    return domain
