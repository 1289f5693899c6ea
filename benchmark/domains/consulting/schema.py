"""The consulting domain's tables and tool registry (the systems' modules add their tools to it)."""

from __future__ import annotations

from types import MappingProxyType

from pydantic import BaseModel
from sqlalchemy import MetaData

from benchmark.domains.base import TableDef, envelope_error_text, sql_table
from benchmark.domains.consulting import models as m
from benchmark.domains.consulting import zendesk as z
from benchmark.domains.knowledge import documents_table
from benchmark.domains.zendesk import ZendeskVariant, zendesk_toolset
from benchmark.domains.zendesk.odata import ALL_COMPARATORS
from benchmark.domains.zendesk.violations import status_violation_audit, violations_table_def
from guard.tools import ToolRegistry

__all__ = ["DOMAIN_NAME", "TABLE_DEFS", "ZENDESK", "documents", "metadata", "registry", "sql"]

DOMAIN_NAME = "sandbox_consulting"

metadata = MetaData()
registry = ToolRegistry(DOMAIN_NAME, error_text=envelope_error_text)

_SEEDS = "sandbox_consulting"

_VIOLATIONS = violations_table_def(f"{_SEEDS}/zendesk/initial_data")
_violations_sql = sql_table(_VIOLATIONS, metadata)

ZENDESK = ZendeskVariant(
    seed_dir=f"{_SEEDS}/zendesk/initial_data",
    ticket_model=z.Ticket,
    ticket_create=z.TicketCreateInput,
    ticket_update=z.TicketUpdateInput,
    user_model=z.User,
    after_ticket_create=status_violation_audit(_violations_sql),
    odata_comparators=ALL_COMPARATORS,
)
"""Consulting's Zendesk: custom ticket fields, the status-violation audit, nulls in updates ignored,
``ne``/``ge``/``le`` evaluated in ``$filter``."""

zendesk = zendesk_toolset(ZENDESK, metadata, registry)


def _table(
    system: str,
    stem: str,
    model: type[BaseModel],
    key: tuple[str, ...] = ("id",),
    indexes: tuple[tuple[str, ...], ...] = (),
) -> TableDef:
    name = f"{system}_{stem}"
    return TableDef(
        name=name,
        benchmark_name=name,
        model=model,
        key=key,
        seed=f"{_SEEDS}/{system}/initial_data/{stem}.json",
        indexes=indexes,
    )


TABLE_DEFS: tuple[TableDef, ...] = (
    _VIOLATIONS,
    *zendesk.defs,
    _table("software_catalog", "software_catalog", m.SoftwareCatalog, indexes=(("name",),)),
    _table("salesforce_crm", "sf_engagements", m.SfEngagement, ("engagement_code",), (("client_id",),)),
    _table("salesforce_crm", "clients", m.Client),
    _table("workday", "employees", m.Employee, ("email",), (("level",), ("backup_approver_email",))),
    _table(
        "okta", "application_access_logs", m.ApplicationAccessLog, indexes=(("employee_email", "app_name"),)
    ),
    _table(
        "mavenlink",
        "employee_assignments",
        m.EmployeeAssignment,
        indexes=(("employee_email",), ("engagement_code",)),
    ),
    _table("mavenlink", "mv_engagements", m.MvEngagement, ("engagement_code",)),
    _table("concur", "travel_requests", m.TravelRequest),
    _table("concur", "expense_reports", m.ExpenseReport),
    _table("asset_management", "device_assignments", m.DeviceAssignment, indexes=(("asset_id",),)),
    _table(
        "asset_management",
        "devices",
        m.Device,
        indexes=(("device_type", "model", "location", "inventory_status"),),
    ),
    _table(
        "license_management",
        "license_allocation",
        m.LicenseAllocation,
        indexes=(("catalog_id", "pool_type"), ("employee_email",)),
    ),
    _table("license_management", "license_pool_record", m.LicensePoolRecord, ("catalog_id", "pool_type")),
    _table(
        "degreed", "training_enrollments", m.TrainingEnrollment, indexes=(("course_id",), ("employee_email",))
    ),
    _table("degreed", "training_courses", m.TrainingCourse),
    _table("degreed", "certifications", m.Certification),
    _table("client_access", "client_system_access", m.ClientSystemAccess, indexes=(("client_id",),)),
    _table("client_access", "clearance_record", m.ClearanceRecord, ("employee_email",)),
    _table("client_access", "nda_record", m.NdaRecord, ("employee_email", "client_id")),
    _table("client_access", "vpn_access", m.VpnAccess, indexes=(("client_id",),)),
    _table(
        "approval",
        "approval_requests",
        m.ApprovalRequest,
        indexes=(("requester_email",), ("approver_email",)),
    ),
    _table("box", "folder_access_logs", m.FolderAccessLog, indexes=(("folder_id", "employee_email"),)),
    _table("box", "folders", m.Folder),
)
"""The tables in creation order; ``indexes`` are the columns the commit gate's judges read by equality."""

sql = MappingProxyType(
    {
        _VIOLATIONS.name: _violations_sql,
        **{f"zendesk_{name}": table for name, table in zendesk.sql.items()},
        **{
            d.name: sql_table(d, metadata)
            for d in TABLE_DEFS
            if d is not _VIOLATIONS and d not in zendesk.defs
        },
    }
)
"""SQL tables by our table name."""

documents = documents_table(metadata)
