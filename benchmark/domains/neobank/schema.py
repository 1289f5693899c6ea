"""The neobank domain's tables, its Zendesk variant and tool registry (the systems add their tools)."""

from __future__ import annotations

from types import MappingProxyType

from pydantic import BaseModel
from sqlalchemy import MetaData

from benchmark.domains.base import TableDef, envelope_error_text, sql_table
from benchmark.domains.knowledge import documents_table
from benchmark.domains.neobank import models as m
from benchmark.domains.neobank import zendesk as z
from benchmark.domains.zendesk import ALL_COMPARATORS, ZendeskVariant, zendesk_toolset
from benchmark.domains.zendesk.violations import status_violation_audit, violations_table_def
from guard.tools import ToolRegistry

__all__ = ["DOMAIN_NAME", "TABLE_DEFS", "ZENDESK", "documents", "metadata", "registry", "sql"]

DOMAIN_NAME = "sandbox_neobank_support_v1"
_SEEDS = "sandbox_neobank_support"

metadata = MetaData()
registry = ToolRegistry(DOMAIN_NAME, error_text=envelope_error_text)

VIOLATIONS = violations_table_def(f"{_SEEDS}/zendesk/initial_data")
_violations = sql_table(VIOLATIONS, metadata)

ZENDESK = ZendeskVariant(
    seed_dir=f"{_SEEDS}/zendesk/initial_data",
    ticket_model=z.Ticket,
    ticket_create=z.TicketCreateInput,
    ticket_update=z.TicketUpdateInput,
    ticket_unstable=frozenset({"subject", "description", "access_expiry_date", "business_justification"}),
    prepare_ticket=z.prepare_ticket,
    after_ticket_create=status_violation_audit(_violations),
    odata_comparators=ALL_COMPARATORS,
    organization_create=z.OrganizationCreateInput,
    organization_update=z.OrganizationUpdateInput,
    prepare_organization=z.prepare_organization,
)
"""The neobank's Zendesk (see :mod:`.zendesk`): custom ticket fields, comma-separated tags
and domain names, nulls in updates ignored, the status-violation audit, ``ne``/``ge``/``le``
evaluated in ``$filter``."""

zendesk = zendesk_toolset(ZENDESK, metadata, registry)


def _table(
    stem: str,
    model: type[BaseModel],
    unstable: frozenset[str] = frozenset(),
    indexes: tuple[tuple[str, ...], ...] = (),
) -> TableDef:
    return TableDef(
        name=stem,
        benchmark_name=f"sandbox_neobank_support_main_models_{stem}",
        model=model,
        unstable=unstable,
        seed=f"{_SEEDS}/main/initial_data/{stem}.json",
        indexes=indexes,
    )


TABLE_DEFS: tuple[TableDef, ...] = (
    VIOLATIONS,
    *zendesk.defs,
    _table("procurement_orders", m.ProcurementOrder, indexes=(("requester_id",),)),
    _table("license_allocations", m.LicenseAllocation, indexes=(("license_id", "is_active"),)),
    _table("hardware_assets", m.HardwareAsset, indexes=(("device_type", "is_assigned"),)),
    _table("software_licenses", m.SoftwareLicense),
    _table("okta_group_membership", m.OktaGroupMembership),
    _table("okta_app_access", m.OktaAppAccess),
    _table("asset_assignments", m.AssetAssignment),
    _table("security_incidents", m.SecurityIncident, indexes=(("is_active",),)),
    _table("okta_security_audit", m.OktaSecurityAudit),
    _table("approval_requests", m.ApprovalRequest, frozenset({"details"}), (("requester_id",),)),
    _table("employees", m.Employee, indexes=(("manager_id",), ("department",))),
    _table("email_notifications", m.EmailNotification, frozenset({"subject", "body"})),
    _table("customer_accounts", m.CustomerAccount),
)
"""The tables in creation order; ``indexes`` are the columns the commit gate's judges read by equality."""

sql = MappingProxyType(
    {
        VIOLATIONS.name: _violations,
        **{f"zendesk_{name}": table for name, table in zendesk.sql.items()},
        **{d.name: sql_table(d, metadata) for d in TABLE_DEFS[1 + len(zendesk.defs) :]},
    }
)
"""SQL tables by our table name."""

documents = documents_table(metadata)
