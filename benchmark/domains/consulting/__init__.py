"""The consulting domain (``sandbox_consulting``): IT and HR support, 27 tools over 30 tables.

Seven Zendesk tools (consulting's variant: thirteen custom ticket fields, a
hidden ``VIOLATION-n`` audit of tickets created with a status other than
``open``, nulls in updates ignored, ``ne``/``ge``/``le`` evaluated in
``$filter``; :mod:`.zendesk`) and twenty consulting tools split by system:
:mod:`.catalog` (software catalog), :mod:`.salesforce` (engagements,
assignment checks), :mod:`.workday` (employees, approver contacts),
:mod:`.okta` (application access), :mod:`.mavenlink` (engagements and
staffing), :mod:`.concur` (expenses, travel), :mod:`.assets` (devices,
hardware orders), :mod:`.licenses` (software licenses), :mod:`.degreed`
(training), :mod:`.client_access` (VPN, client systems, prerequisites),
:mod:`.approval` (approval requests), :mod:`.background_check`
(clearances), :mod:`.nda` (NDAs), :mod:`.box` (document folders), and
``knowledge_base_search_policy`` over the scenario's policy sources.

Judges: the support policy as the guard's commit gate checks it
(``rules.yaml`` and :mod:`.judges`).

Ten of them are multi-action tools (an ``action`` argument; some actions
write, others read). New ids take the first unused ``<PREFIX>-nnnnnn`` from
000000 (APR-2, AAL-2, ASMT-2, LIC-2, ENR-2, FAL-2, VPN-2, CSA-2). The only
frozen clock outside Zendesk is ``revoke_vpn``'s 2025-10-01T00:00Z; no tool
reads the wall clock. ``hardware_procurement_create_order`` writes nothing.
"""

from __future__ import annotations

from pathlib import Path

from benchmark.domains.consulting import (
    approval,
    assets,
    background_check,
    box,
    catalog,
    client_access,
    concur,
    degreed,
    licenses,
    mavenlink,
    nda,
    okta,
    salesforce,
    workday,
)
from benchmark.domains.consulting.common import SCENARIO_NOW
from benchmark.domains.consulting.judges import consulting_judges
from benchmark.domains.consulting.schema import TABLES, ZENDESK
from benchmark.domains.declare import DomainSpec

__all__ = ["DOMAIN", "SPEC"]

SPEC = DomainSpec(
    name="sandbox_consulting",
    tables=TABLES,
    zendesk=ZENDESK,
    systems=(
        approval,
        assets,
        background_check,
        box,
        catalog,
        client_access,
        concur,
        degreed,
        licenses,
        mavenlink,
        nda,
        okta,
        salesforce,
        workday,
    ),
    rules=Path(__file__).with_name("rules.yaml"),
    judges=consulting_judges,
    scenario_now=SCENARIO_NOW,
    search_tool="knowledge_base_search_policy",
)
"""The consulting domain, declared: tables and seeds, Zendesk copy, systems (in tool-list order), rules."""

DOMAIN = SPEC.build()
