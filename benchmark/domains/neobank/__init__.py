"""The neobank IT-support domain (``sandbox_neobank_support_v1``, VDB): 32 tools over 20 tables.

Seven Zendesk tools (the neobank variant, :mod:`.zendesk`: eleven custom
ticket fields, comma-separated tags and domain names, nulls in updates
ignored, the hidden ``VIOLATION-n`` audit of tickets created other than
``open``) and 25 tools named after the backend API they call, split by
system: :mod:`.workday` (employees, managers), :mod:`.okta` (application
access, groups), :mod:`.security` (audited Okta security operations,
incidents), :mod:`.approvals` (approval workflow, approver directory),
:mod:`.assets` (devices, assignments, inventory), :mod:`.licenses` (license
pools), :mod:`.procurement` (hardware orders), :mod:`.notifications`
(emails) and ``knowledge_base_search_policy`` over the scenario's policy
sources.

Clocks: the reference stamps nothing with the prompts' 2025-10-01 except
Zendesk; device ages and retirements use 2025-12-17T10:00Z, security audit
rows and the incident window 2025-12-18T10:00Z (:mod:`.common`). New rows
count their table, 1-based (``APR-/ASN-/NTF-/OAA-/LAL-/OGM-/OSA-{n+1:08d}``,
``HW-ORDER-{n+1:07d}``), so a patched row can make a create collide.

Judges: the support policy as the guard's commit gate checks it
(:mod:`.judges`, ``rules.yaml``), on the scenario clock.
"""

from __future__ import annotations

from pathlib import Path

from benchmark.domains.declare import DomainSpec
from benchmark.domains.neobank import (
    approvals,
    assets,
    licenses,
    notifications,
    okta,
    procurement,
    security,
    workday,
)
from benchmark.domains.neobank.common import SCENARIO_NOW
from benchmark.domains.neobank.judges import neobank_judges
from benchmark.domains.neobank.schema import TABLES, ZENDESK

__all__ = ["DOMAIN", "SPEC"]

SPEC = DomainSpec(
    name="sandbox_neobank_support_v1",
    tables=TABLES,
    zendesk=ZENDESK,
    systems=(approvals, assets, licenses, notifications, okta, procurement, security, workday),
    rules=Path(__file__).with_name("rules.yaml"),
    judges=neobank_judges,
    scenario_now=SCENARIO_NOW,
    search_tool="knowledge_base_search_policy",
)
"""The neobank domain, declared: tables and seeds, Zendesk copy, systems (in tool-list order), rules."""

DOMAIN = SPEC.build()
