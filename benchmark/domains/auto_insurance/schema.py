"""The auto insurance domain's tables, its Zendesk variant and tool registry (the systems add their tools)."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from pydantic import BaseModel
from sqlalchemy import MetaData
from sqlalchemy.ext.asyncio import AsyncConnection

from benchmark.domains import store
from benchmark.domains.auto_insurance import models as m
from benchmark.domains.base import TableDef, envelope_error_text, sql_table
from benchmark.domains.knowledge import documents_table
from benchmark.domains.zendesk import ALL_COMPARATORS, ZendeskVariant, zendesk_toolset
from benchmark.domains.zendesk.models import TicketStatus
from guard.errors import PreconditionFailed
from guard.tools import ToolRegistry

__all__ = ["DOMAIN_NAME", "TABLE_DEFS", "ZENDESK", "documents", "metadata", "registry", "sql"]

DOMAIN_NAME = "sandbox_auto_insurance"
_TOOLSLIB = "sandbox_auto_insurance"

metadata = MetaData()
registry = ToolRegistry(DOMAIN_NAME, error_text=envelope_error_text)

VIOLATIONS = TableDef(
    name="zendesk_ticket_status_violations",
    benchmark_name="zendesk_ticket_status_violations",
    model=m.TicketStatusViolation,
    seed=f"{_TOOLSLIB}/zendesk/initial_data/ticket_status_violations.json",
)
_violations = sql_table(VIOLATIONS, metadata)


async def _record_status_violation(conn: AsyncConnection, ticket: dict[str, Any]) -> None:
    """Write ``VIOLATION-<n+1>`` for a ticket created with a status other than ``open``.

    It runs after the ticket row is written and is stamped with the Zendesk
    create time; if the id is taken, the call fails and the ticket stays (the
    reference's partial write).
    """
    if ticket["status"] == TicketStatus.OPEN.value:
        return
    count = await store.count_rows(conn, _violations)
    row = m.TicketStatusViolation(
        id=f"VIOLATION-{count + 1}",
        ticket_id=ticket["id"],
        created_status=ticket["status"],
        created_at=ZENDESK.created_at,
    ).model_dump(mode="json")
    try:
        await store.insert_row(conn, _violations, row)
    except store.DuplicateKey as exc:
        raise PreconditionFailed(str(exc)) from exc


ZENDESK = ZendeskVariant(
    seed_dir=f"{_TOOLSLIB}/zendesk/initial_data",
    ticket_model=m.Ticket,
    ticket_create=m.TicketCreateInput,
    ticket_update=m.TicketUpdateInput,
    after_ticket_create=_record_status_violation,
    odata_comparators=ALL_COMPARATORS,
)
"""HorizonShield's Zendesk: seven custom ticket fields, nulls in updates ignored,
the status-violation audit, and ``ne``/``ge``/``le`` evaluated in ``$filter``."""

zendesk = zendesk_toolset(ZENDESK, metadata, registry)


def _table(name: str, system: str, stem: str, model: type[BaseModel]) -> TableDef:
    return TableDef(
        name=name,
        benchmark_name=f"{system}_{stem}",
        model=model,
        seed=f"{_TOOLSLIB}/{system}/initial_data/{stem}.json",
    )


TABLE_DEFS: tuple[TableDef, ...] = (
    *zendesk.defs,
    VIOLATIONS,
    _table("policies", "policy", "policies", m.Policy),
    _table("vehicles", "policy", "vehicles", m.Vehicle),
    _table("drivers", "policy", "drivers", m.Driver),
    _table("policy_documents", "policy", "policy_documents", m.PolicyDocument),
    _table("billing_accounts", "billing", "billing_accounts", m.BillingAccount),
    _table("claims", "claims", "claims", m.Claim),
    _table("customers", "crm", "customers", m.Customer),
)

sql = MappingProxyType(
    {
        **{f"zendesk_{name}": table for name, table in zendesk.sql.items()},
        VIOLATIONS.name: _violations,
        **{d.name: sql_table(d, metadata) for d in TABLE_DEFS[len(zendesk.defs) + 1 :]},
    }
)
"""SQL tables by our table name."""

documents = documents_table(metadata)
