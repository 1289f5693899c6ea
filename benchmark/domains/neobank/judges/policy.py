"""The policy's tables as data: tool sensitivity, who may hold what, dashboards, approvals, lead times.

Transcribed from the scenario's policy sources: "Access to Tools" (§3.1
sensitivity groups, §3.3 employee limits, §3.4 role-based provision, §3.5
approval matrix), "BI Dashboard Access" (§4) and "Hardware Provision"
(§9.7 procurement lead times). Department names are Workday's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Literal

__all__ = [
    "BI_GROUPS",
    "INCIDENT_SEVERITIES",
    "LISTED_TOOLS",
    "Dashboard",
    "Provision",
    "Tool",
    "add_business_days",
    "approvals_needed",
    "dashboard_approval_needed",
    "lead_time_days",
    "provision",
    "tool_of",
]

Provision = Literal["default", "may_obtain", "forbidden", "temp_incident"]
"""§3.4: by default, through the approval matrix ("may obtain"), forbidden, or only for a SEV1/2 incident."""

INCIDENT_SEVERITIES = ("sev1_critical", "sev2_high")
"""Ticket severities under which production access is granted for incident response (§10.2)."""


@dataclass(frozen=True, slots=True)
class Tool:
    """A tool at one level of access, as the policy lists it: ``Name (level)`` and its group."""

    name: str
    level: str
    group: int

    @property
    def label(self) -> str:
        return f"{self.name} ({self.level})"


_GROUPS: dict[int, tuple[tuple[str, str], ...]] = {
    1: (
        ("Slack", "member"),
        ("Confluence", "user"),
        ("Zoom", "user"),
        ("Jira", "user"),
        ("Workday HRIS", "standard"),
        ("VPN", "standard_employee"),
    ),
    2: (("Salesforce CRM", "user"), ("Tableau", "viewer"), ("GitHub", "read_only"), ("Quantivate", "user")),
    3: (
        ("Admin Panel", "read_only"),
        ("Customer PII fields", "read_only"),
        ("Snowflake depersonalized", "analyst"),
        ("GitHub", "write"),
        ("Actimize", "user"),
        ("Workday HRIS", "elevated"),
    ),
    4: (
        ("Admin Panel", "write non-PII only"),
        ("Snowflake raw replica", "analyst"),
        ("Customer PII fields", "write"),
    ),
    5: (
        ("AWS Production", "user"),
        ("Production database", "read_only"),
        ("VPN", "engineer_prod"),
        ("Splunk SIEM", "user"),
    ),
}

LISTED_TOOLS: tuple[Tool, ...] = tuple(
    Tool(name, level, group) for group, tools in _GROUPS.items() for name, level in tools
)
"""Every tool and level of §3.1, lowest group first."""

_BY_KEY = {(tool.name.casefold(), tool.level): tool for tool in LISTED_TOOLS}
_ALIASES = {"salesforce": "salesforce crm", "production db": "production database", "splunk": "splunk siem"}


def tool_of(app_name: str, level: str) -> Tool | None:
    """The listed tool an Okta grant is for (names compared without case, the usual short names allowed)."""
    name = " ".join(app_name.split()).casefold()
    return _BY_KEY.get((_ALIASES.get(name, name), level))


_SUPPORT_TIER_2 = ("Tier 2", "Lead", "Senior", "Head", "Manager")
_ALL = "*"
_TIER_1 = "customer_support:tier1"
_TIER_2 = "customer_support:tier2"

# §3.4 B, per tool: default / may obtain / forbidden departments; "*" is "all (other) employees".
_MATRIX: dict[tuple[str, str], dict[Provision, tuple[str, ...]]] = {
    ("Salesforce CRM", "user"): {"default": ("sales",), "may_obtain": (_ALL,)},
    ("Workday HRIS", "elevated"): {"default": ("hr",), "forbidden": (_ALL,)},
    ("Tableau", "viewer"): {"may_obtain": (_ALL,)},
    ("GitHub", "read_only"): {"may_obtain": (_ALL,)},
    ("GitHub", "write"): {
        "may_obtain": ("product_engineering", "it_operations", "it_security"),
        "forbidden": (_ALL,),
    },
    ("Admin Panel", "read_only"): {
        "default": ("customer_support", "product_engineering", "compliance_risk", "it_operations"),
        "may_obtain": (_ALL,),
    },
    ("Admin Panel", "write non-PII only"): {
        "default": (_TIER_2,),
        "may_obtain": (_TIER_1, "compliance_risk", "it_operations"),
        "forbidden": (_ALL,),
    },
    ("Customer PII fields", "read_only"): {
        "default": (_TIER_2, "compliance_risk"),
        "may_obtain": (_TIER_1, "it_operations", "marketing"),
        "forbidden": (_ALL,),
    },
    ("Customer PII fields", "write"): {"forbidden": (_ALL,)},
    ("Snowflake depersonalized", "analyst"): {
        "default": ("product_engineering", "compliance_risk", "finance_accounting"),
        "may_obtain": (_ALL,),
    },
    ("Snowflake raw replica", "analyst"): {
        "may_obtain": ("product_engineering", "compliance_risk"),
        "forbidden": (_ALL,),
    },
    ("Actimize", "user"): {
        "default": ("compliance_risk",),
        "forbidden": ("hr", "sales"),
        "may_obtain": (_ALL,),
    },
    ("Quantivate", "user"): {"default": ("compliance_risk",), "may_obtain": (_ALL,)},
    ("Splunk SIEM", "user"): {
        "default": ("it_security",),
        "may_obtain": ("it_operations",),
        "forbidden": (_ALL,),
    },
}
_PRODUCTION: dict[Provision, tuple[str, ...]] = {
    "may_obtain": ("compliance_risk", "it_operations", "it_security"),
    "temp_incident": ("product_engineering",),
    "forbidden": (_ALL,),
}
_ORDER: tuple[Provision, ...] = ("default", "temp_incident", "forbidden", "may_obtain")


def _segment(employee: Mapping[str, Any]) -> tuple[str, ...]:
    department = str(employee.get("department"))
    if department != "customer_support":
        return (department,)
    role = str(employee.get("role") or "")
    tier = _TIER_2 if any(word in role for word in _SUPPORT_TIER_2) else _TIER_1
    return (department, tier)


def provision(tool: Tool, employee: Mapping[str, Any]) -> Provision:
    """How §3.4 provides ``tool`` to ``employee`` (a named department wins over "all")."""
    if tool.group == 1:
        return "default"
    rules = (
        _PRODUCTION if tool.group == 5 and tool.name != "Splunk SIEM" else _MATRIX[(tool.name, tool.level)]
    )
    segment = _segment(employee)
    for kind in _ORDER:
        if any(who in segment for who in rules.get(kind, ())):
            return kind
    for kind in _ORDER:
        if _ALL in rules.get(kind, ()):
            return kind
    return "forbidden"


def approvals_needed(tool: Tool, level: int) -> tuple[str, ...]:
    """The approvals §3.5 asks of a "may obtain" request at employee ``level`` (empty: auto-approved)."""
    if tool.group <= 1:
        return ()
    if tool.group == 2:
        return ("manager",) if level <= 4 else ()
    if tool.group == 3:
        if level <= 4:
            return ("manager", "it_security")
        return ("it_security",) if level <= 7 else ()
    if level <= 5:
        return ("director", "it_security")
    return ("it_security",)


@dataclass(frozen=True, slots=True)
class Dashboard:
    """A dashboard access group of §4.1: the department it belongs to and its sensitivity."""

    group: str
    department: str
    sensitivity: Literal["confidential", "financial_data", "compliance_restricted"]


BI_GROUPS: Mapping[str, Dashboard] = {
    d.group: d
    for d in (
        Dashboard("bi_finance_viewers", "finance_accounting", "financial_data"),
        Dashboard("bi_executive", "executive_leadership", "confidential"),
        Dashboard("bi_product_analytics", "product_engineering", "confidential"),
        Dashboard("bi_operations", "it_operations", "confidential"),
        Dashboard("bi_compliance", "compliance_risk", "compliance_restricted"),
        Dashboard("bi_marketing_viewers", "marketing", "confidential"),
    )
}


def dashboard_approval_needed(dashboard: Dashboard, employee: Mapping[str, Any]) -> str | None:
    """The approver §4.2 asks for (``None``: own department, or auto-approved for Executive & Leadership)."""
    department = employee.get("department")
    if department == dashboard.department:
        return None
    if dashboard.sensitivity == "compliance_restricted":
        return "Head of Compliance"
    if department == "executive_leadership":
        return None
    return "Manager" if dashboard.sensitivity == "confidential" else "Head of Finance & Accounting"


_LONG_LEAD = ("laptop_standard", "laptop_premium", "monitor")


def lead_time_days(device_type: str) -> int:
    """Business days from order to delivery (§9.7): laptops and monitors 10, accessories 5."""
    return 10 if device_type in _LONG_LEAD else 5


def add_business_days(start: date, days: int) -> date:
    """``start`` moved ``days`` working days (Monday to Friday) ahead."""
    current = start
    left = days
    while left > 0:
        current += timedelta(days=1)
        if current.weekday() < 5:
            left -= 1
    return current
