"""A small in-memory Velocity Digital Bank for judging single commits without a database.

:data:`STAFF` is an org chart deep enough for the approval rules (a junior
three levels below a director), with the designated approvers of IT
Security, Finance and Compliance. :func:`judge` applies a commit's rows over
:func:`base_tables`, turns the difference into effects and runs the
neobank's judges over a :class:`~judges.MemoryState` of the result, exactly
as the gate would: queries first, then the verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from functools import cache
from typing import Any

from benchmark.domains.neobank import SPEC
from benchmark.domains.neobank import models as m
from benchmark.domains.neobank import zendesk as z
from judges import CommitContext, Finding, Judge, MemoryState, effects_between, gather_memory

__all__ = ["NOW", "STAFF", "base_tables", "employee", "judge", "rules", "ticket"]

NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)

_TABLES = (
    "employees",
    "zendesk_users",
    "zendesk_tickets",
    "zendesk_ticket_status_violations",
    "zendesk_comments",
    "zendesk_ticket_comments",
    "approval_requests",
    "okta_app_access",
    "okta_group_membership",
    "hardware_assets",
    "asset_assignments",
    "software_licenses",
    "license_allocations",
    "procurement_orders",
    "okta_security_audit",
    "email_notifications",
    "security_incidents",
)


def employee(
    id: str, level: int, department: str, role: str, manager: str | None, **extra: Any
) -> dict[str, Any]:
    row = m.Employee(
        id=id,
        email=f"{id.lower()}@vdb.com",
        full_name=id,
        level=level,
        department=department,
        role=role,
        office_location=extra.pop("office_location", "sf"),
        start_date="2020-01-01",
        manager_id=manager,
        **extra,
    )
    return row.model_dump(mode="json")


STAFF: tuple[dict[str, Any], ...] = (
    employee("WD-CEO", 9, "executive_leadership", "Chief Executive Officer", None),
    employee("WD-CFO", 8, "executive_leadership", "Chief Financial Officer", "WD-CEO"),
    employee("WD-VP", 8, "product_engineering", "VP of Engineering", "WD-CEO"),
    employee("WD-DIR", 7, "product_engineering", "Engineering Director", "WD-VP"),
    employee("WD-MGR", 5, "product_engineering", "Engineering Manager", "WD-DIR"),
    employee("WD-LEAD", 3, "product_engineering", "Team Lead", "WD-MGR"),
    employee("WD-JR", 1, "product_engineering", "Junior Developer", "WD-LEAD"),
    employee("WD-DEV", 3, "product_engineering", "Software Engineer", "WD-MGR"),
    employee("WD-PEER", 3, "product_engineering", "Software Engineer", "WD-MGR"),
    employee("WD-SEC", 6, "it_security", "Security Manager", "WD-CEO"),
    employee("WD-SECENG", 3, "it_security", "Security Engineer", "WD-SEC"),
    employee("WD-FIN", 7, "finance_accounting", "Head of Finance", "WD-CFO"),
    employee("WD-ANALYST", 3, "finance_accounting", "Financial Analyst", "WD-FIN"),
    employee("WD-COMP", 7, "compliance_risk", "Head of Compliance", "WD-CEO"),
    employee("WD-MKT", 3, "marketing", "Marketing Analyst", "WD-CEO", office_location="remote"),
    employee(
        "WD-CONTRACT",
        3,
        "product_engineering",
        "Contract Developer",
        "WD-MGR",
        is_contractor=True,
        contract_end_date="2026-01-31T00:00:00Z",
    ),
)


def base_tables() -> dict[str, list[dict[str, Any]]]:
    """The office before the commit: staff, their Zendesk users, an active SEV1 incident."""
    tables: dict[str, list[dict[str, Any]]] = {name: [] for name in _TABLES}
    tables["employees"] = [dict(row) for row in STAFF]
    tables["zendesk_users"] = [{"id": row["id"], "name": row["id"], "email": row["email"]} for row in STAFF]
    tables["security_incidents"] = [
        m.SecurityIncident(
            id="SEC-1",
            employee_id="WD-SEC",
            severity="SEV1",
            incident_type="outage",
            description="payments down",
            status="open",
            is_active=True,
            reported_at=NOW,
            reported_by="WD-SEC",
        ).model_dump(mode="json")
    ]
    return tables


def ticket(id: str, requester: str, status: str, **fields: Any) -> dict[str, Any]:
    """A ticket row of the neobank's Zendesk (custom fields default to null)."""
    fields.setdefault("type", "problem")
    fields.setdefault("priority", "normal")
    fields.setdefault("owner", "it_support")
    fields.setdefault("approval_required", "no")
    fields.setdefault("approval_status", "not_required")
    row = z.Ticket(
        id=id,
        subject="request",
        description="details",
        status=status,
        requester_id=requester,
        assignee_id="2",
        organization_id="1",
        created_at="2025-10-01T13:00:05Z",
        updated_at="2025-10-01T13:00:05Z",
        **fields,
    )
    return row.model_dump(mode="json")


def judge(
    changes: Mapping[str, Sequence[Mapping[str, Any]]],
    *,
    before: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
) -> list[Finding]:
    """The neobank judges' findings on a commit upserting ``changes`` over the office (and ``before``)."""
    tables = base_tables()
    for name, rows in (before or {}).items():
        tables[name] = _upsert(tables[name], rows)
    after = {name: _upsert(rows, changes.get(name, ())) for name, rows in tables.items()}
    touched = set(changes)
    effects = effects_between(
        {name: tables[name] for name in touched},
        {name: after[name] for name in touched},
        {name: ("id",) for name in touched},
    )
    state = MemoryState(after)
    chain = _chain()
    gathered = gather_memory(chain, tuple(effects), state)
    assert gathered.failures == {}
    context = CommitContext("t-1", tuple(effects), (), "", gathered.snapshot, NOW)
    return [finding for judge in chain for finding in judge(context).findings]


@cache
def _chain() -> tuple[Judge, ...]:
    return (SPEC.rule_pack(), *SPEC.judges())


def rules(findings: Sequence[Finding], severity: str = "block") -> set[str]:
    return {str(f.rule) for f in findings if f.severity.value == severity}


def _upsert(rows: Sequence[Mapping[str, Any]], changes: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = {row["id"]: dict(row) for row in rows}
    for row in changes:
        out[row["id"]] = {**out.get(row["id"], {}), **row}
    return list(out.values())
