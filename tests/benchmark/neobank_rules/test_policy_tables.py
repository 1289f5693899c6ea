"""The policy's tables as the judges read them: §3.1 groups, §3.4 provision, §3.5 approvals, §4.2, §9.7."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from benchmark.domains.neobank.judges.policy import (
    BI_GROUPS,
    LISTED_TOOLS,
    add_business_days,
    approvals_needed,
    dashboard_approval_needed,
    lead_time_days,
    provision,
    tool_of,
)


def _who(department: str, role: str = "Analyst", level: int = 3) -> dict[str, Any]:
    return {"department": department, "role": role, "level": level}


def test_every_listed_tool_has_a_group_and_a_provision_rule() -> None:
    assert len(LISTED_TOOLS) == 23
    assert {tool.group for tool in LISTED_TOOLS} == {1, 2, 3, 4, 5}
    for tool in LISTED_TOOLS:
        assert provision(tool, _who("sales")) in ("default", "may_obtain", "forbidden", "temp_incident")


def test_tools_are_found_by_their_usual_names() -> None:
    assert tool_of("production db", "read_only") == tool_of("Production database", "read_only")
    assert tool_of("Salesforce", "user") == tool_of("Salesforce CRM", "user")
    assert tool_of("Slack", "admin") is None
    assert tool_of("Snowflake", "analyst") is None


@pytest.mark.parametrize(
    ("app", "level", "who", "expected"),
    [
        ("Slack", "member", _who("sales"), "default"),
        ("Admin Panel", "write non-PII only", _who("customer_support", "Customer Support Lead"), "default"),
        (
            "Admin Panel",
            "write non-PII only",
            _who("customer_support", "Customer Support Agent"),
            "may_obtain",
        ),
        ("Admin Panel", "write non-PII only", _who("sales"), "forbidden"),
        ("Customer PII fields", "read_only", _who("marketing"), "may_obtain"),
        ("Customer PII fields", "write", _who("compliance_risk"), "forbidden"),
        ("Workday HRIS", "elevated", _who("hr"), "default"),
        ("Workday HRIS", "elevated", _who("it_operations"), "forbidden"),
        ("Actimize", "user", _who("hr"), "forbidden"),
        ("Actimize", "user", _who("marketing"), "may_obtain"),
        ("AWS Production", "user", _who("product_engineering"), "temp_incident"),
        ("AWS Production", "user", _who("it_operations"), "may_obtain"),
        ("AWS Production", "user", _who("executive_leadership"), "forbidden"),
        ("Splunk SIEM", "user", _who("it_security"), "default"),
        ("Splunk SIEM", "user", _who("product_engineering"), "forbidden"),
    ],
)
def test_role_based_provision(app: str, level: str, who: dict[str, Any], expected: str) -> None:
    tool = tool_of(app, level)
    assert tool is not None
    assert provision(tool, who) == expected


@pytest.mark.parametrize(
    ("app", "level", "employee_level", "expected"),
    [
        ("Tableau", "viewer", 3, ("manager",)),
        ("Tableau", "viewer", 5, ()),
        ("GitHub", "write", 4, ("manager", "it_security")),
        ("GitHub", "write", 6, ("it_security",)),
        ("GitHub", "write", 8, ()),
        ("Snowflake raw replica", "analyst", 5, ("director", "it_security")),
        ("Snowflake raw replica", "analyst", 8, ("it_security",)),
    ],
)
def test_approval_matrix(app: str, level: str, employee_level: int, expected: tuple[str, ...]) -> None:
    tool = tool_of(app, level)
    assert tool is not None
    assert approvals_needed(tool, employee_level) == expected


def test_dashboard_approvers() -> None:
    finance = BI_GROUPS["bi_finance_viewers"]
    assert dashboard_approval_needed(finance, _who("finance_accounting")) is None
    assert dashboard_approval_needed(finance, _who("marketing")) == "Head of Finance & Accounting"
    assert dashboard_approval_needed(finance, _who("executive_leadership")) is None
    assert dashboard_approval_needed(BI_GROUPS["bi_compliance"], _who("executive_leadership")) == (
        "Head of Compliance"
    )
    assert dashboard_approval_needed(BI_GROUPS["bi_marketing_viewers"], _who("sales")) == "Manager"


def test_lead_times_count_business_days() -> None:
    wednesday = date(2025, 10, 1)
    assert lead_time_days("laptop_standard") == lead_time_days("monitor") == 10
    assert lead_time_days("headset") == lead_time_days("docking_station") == 5
    assert add_business_days(wednesday, 10) == date(2025, 10, 15)
    assert add_business_days(wednesday, 5) == date(2025, 10, 8)
    assert add_business_days(date(2025, 10, 3), 1) == date(2025, 10, 6)
