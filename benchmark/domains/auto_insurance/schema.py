"""The auto insurance domain's tables, its Zendesk variant and tool registry (the systems add their tools)."""

from __future__ import annotations

from types import MappingProxyType

from pydantic import BaseModel
from sqlalchemy import MetaData

from benchmark.domains.auto_insurance import models as m
from benchmark.domains.base import TableDef, envelope_error_text, sql_table
from benchmark.domains.knowledge import documents_table
from benchmark.domains.zendesk import ALL_COMPARATORS, ZendeskVariant, zendesk_toolset
from benchmark.domains.zendesk.violations import status_violation_audit, violations_table_def
from guard.tools import ToolRegistry

__all__ = ["DOMAIN_NAME", "TABLE_DEFS", "ZENDESK", "documents", "metadata", "registry", "sql"]

DOMAIN_NAME = "sandbox_auto_insurance"
_SEEDS = "sandbox_auto_insurance"

metadata = MetaData()
registry = ToolRegistry(DOMAIN_NAME, error_text=envelope_error_text)

VIOLATIONS = violations_table_def(f"{_SEEDS}/zendesk/initial_data")
_violations = sql_table(VIOLATIONS, metadata)


ZENDESK = ZendeskVariant(
    seed_dir=f"{_SEEDS}/zendesk/initial_data",
    ticket_model=m.Ticket,
    ticket_create=m.TicketCreateInput,
    ticket_update=m.TicketUpdateInput,
    after_ticket_create=status_violation_audit(_violations),
    odata_comparators=ALL_COMPARATORS,
)
"""HorizonShield's Zendesk: seven custom ticket fields, nulls in updates ignored,
the status-violation audit, and ``ne``/``ge``/``le`` evaluated in ``$filter``."""

zendesk = zendesk_toolset(ZENDESK, metadata, registry)


def _table(
    name: str, system: str, stem: str, model: type[BaseModel], indexes: tuple[tuple[str, ...], ...] = ()
) -> TableDef:
    return TableDef(
        name=name,
        benchmark_name=f"{system}_{stem}",
        model=model,
        seed=f"{_SEEDS}/{system}/initial_data/{stem}.json",
        indexes=indexes,
    )


TABLE_DEFS: tuple[TableDef, ...] = (
    *zendesk.defs,
    VIOLATIONS,
    _table("policies", "policy", "policies", m.Policy),
    _table("vehicles", "policy", "vehicles", m.Vehicle, indexes=(("policy_id",),)),
    _table("drivers", "policy", "drivers", m.Driver),
    _table("policy_documents", "policy", "policy_documents", m.PolicyDocument),
    _table("billing_accounts", "billing", "billing_accounts", m.BillingAccount, indexes=(("policy_id",),)),
    _table("claims", "claims", "claims", m.Claim, indexes=(("policy_id",), ("vehicle_id",), ("driver_id",))),
    _table("customers", "crm", "customers", m.Customer),
)
"""The tables in creation order; ``indexes`` are the columns the commit gate's judges read by equality."""

sql = MappingProxyType(
    {
        **{f"zendesk_{name}": table for name, table in zendesk.sql.items()},
        VIOLATIONS.name: _violations,
        **{d.name: sql_table(d, metadata) for d in TABLE_DEFS[len(zendesk.defs) + 1 :]},
    }
)
"""SQL tables by our table name."""

documents = documents_table(metadata)
