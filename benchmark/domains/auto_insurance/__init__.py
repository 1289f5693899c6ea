"""The auto insurance domain (``sandbox_auto_insurance``, HorizonShield): 33 tools over 14 tables.

Seven Zendesk tools (this domain's variant: seven custom ticket fields,
nulls in updates ignored, ``ne``/``ge``/``le`` evaluated in ``$filter``, and
the hidden ``ticket_status_violations`` audit of tickets created with a
status other than ``open``) and 26 insurance tools, prefixed by their
system as in the reference: ``policy_`` (:mod:`.policy`, :mod:`.vehicles`,
:mod:`.drivers`), ``billing_`` (:mod:`.billing`), ``claims_``
(:mod:`.claims`), ``crm_`` (:mod:`.crm`), ``lookup_`` (:mod:`.lookup`) and
``knowledge_base_search_policy`` over the scenario's policy sources.

Clocks: no insurance tool reads or stamps the time; dates come from the
arguments (a claim's ``created_date`` is its ``date_of_loss``, a document
link's ``created_at`` its ``expiration_date``), and
``claims_get_policy_claims`` counts months back from the newest claim. New
drivers, vehicles, document links and claims get content-hash ids
(:func:`.common.content_id`), so repeating a create finds the earlier row.

Judges (:mod:`.judges`, ``rules.yaml``): the policy's business rules for the
guard's commit gate; the date rules run on the scenario's clock, the time the
benchmark's world is frozen at.
"""

from __future__ import annotations

from pathlib import Path

from benchmark.domains.auto_insurance import billing, claims, crm, drivers, lookup, policy, vehicles
from benchmark.domains.auto_insurance.common import SCENARIO_NOW
from benchmark.domains.auto_insurance.judges import auto_insurance_judges
from benchmark.domains.auto_insurance.schema import TABLES, ZENDESK
from benchmark.domains.declare import DomainSpec

__all__ = ["DOMAIN", "SPEC"]

SPEC = DomainSpec(
    name="sandbox_auto_insurance",
    tables=TABLES,
    zendesk=ZENDESK,
    systems=(billing, claims, crm, policy, drivers, lookup, vehicles),
    rules=Path(__file__).with_name("rules.yaml"),
    judges=auto_insurance_judges,
    scenario_now=SCENARIO_NOW,
    search_tool="knowledge_base_search_policy",
)
"""The auto insurance domain, declared: tables and seeds, Zendesk copy, systems (tool-list order), rules."""

DOMAIN = SPEC.build()
