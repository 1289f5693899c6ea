"""The neobank's Zendesk: eleven custom ticket fields, comma-separated lists and the status audit.

* **Custom ticket fields**: ``resolution_category``, ``owner``,
  ``access_expiry_date``, ``approval_required``, ``approval_status``,
  ``approver_id``, ``approval_request_ids``, ``business_justification``,
  ``incident_severity``, ``customer_impact`` and ``asset_id``, on the ticket
  row and on both item payloads. ``access_expiry_date`` and
  ``business_justification`` are free text and not hashed.
* **Comma-separated lists**: a ticket's ``tags`` and an organization's
  ``domain_names`` arrive as text (``"escalated,production_access"``) and are
  split on commas, each part stripped (an empty text gives ``[]``). Ticket
  tags are also lower-cased and sorted. Tags already stored are left as they
  are when an update does not send new ones.
* **Status audit**: a ticket created with any status but ``open`` (a missing
  status is ``new``) adds ``VIOLATION-<n+1>`` (n = rows in the audit table) to
  ``zendesk_ticket_status_violations``, after the ticket is stored; when that
  id is taken the call fails with the ticket already written.

The payload classes keep the reference's names (``TicketCreateInput``, …):
pydantic's union validation messages show them.
"""

# ruff: noqa: UP042 - (str, Enum) as in the reference: it formats as "Class.MEMBER", which messages show
from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

from benchmark.domains.zendesk import models as m

__all__ = [
    "ApprovalRequired",
    "ApprovalStatus",
    "CustomerImpact",
    "IncidentSeverity",
    "OrganizationCreateInput",
    "OrganizationUpdateInput",
    "Owner",
    "ResolutionCategory",
    "Ticket",
    "TicketCreateInput",
    "TicketUpdateInput",
    "prepare_organization",
    "prepare_ticket",
    "split_commas",
]


_TAGS = (
    "Comma-separated tags, no spaces; allowed: system_error, license_waitlist, production_access, "
    "offboarding, temporary_access, redirected, escalated (e.g. 'escalated,production_access')"
)


class Owner(str, Enum):
    IT_SUPPORT = "it_support"
    IT_OPS_TEAM = "it_ops_team"
    IT_INF_TEAM = "it_inf_team"
    IT_SEC_TEAM = "it_sec_team"
    OPS_TEAM = "ops_team"
    COMP_TEAM = "comp_team"
    ENGIN_TEAM = "engin_team"


class ResolutionCategory(str, Enum):
    PROVISIONED = "provisioned"
    APPROVED = "approved"
    DENIED = "denied"
    INFORMATION_PROVIDED = "information_provided"
    ESCALATED_IT_OPS = "escalated_it_ops"
    ESCALATED_IT_INF = "escalated_it_inf"
    ESCALATED_IT_SEC = "escalated_it_sec"
    ESCALATED_OPS = "escalated_ops"
    ESCALATED_COMPL = "escalated_compl"
    ESCALATED_ENGIN = "escalated_engin"
    BACKLOGGED = "backlogged"
    DUPLICATE = "duplicate"
    CANCELLED = "cancelled"
    RESOLVED_BY_REQUESTER = "resolved_by_requester"


class ApprovalRequired(str, Enum):
    YES = "yes"
    NO = "no"


class ApprovalStatus(str, Enum):
    NOT_REQUIRED = "not_required"
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    ESCALATED = "escalated"


class IncidentSeverity(str, Enum):
    SEV1_CRITICAL = "sev1_critical"
    SEV2_HIGH = "sev2_high"
    SEV3_MEDIUM = "sev3_medium"
    SEV4_LOW = "sev4_low"


class CustomerImpact(str, Enum):
    YES_ACTIVE = "yes_active"
    YES_POTENTIAL = "yes_potential"
    NO_IMPACT = "no_impact"


class Ticket(m.Ticket):
    resolution_category: ResolutionCategory | None = None
    owner: Owner | None = None
    access_expiry_date: str | None = None
    approval_required: ApprovalRequired | None = None
    approval_status: ApprovalStatus | None = None
    approver_id: str | None = None
    approval_request_ids: str | None = None
    business_justification: str | None = None
    incident_severity: IncidentSeverity | None = None
    customer_impact: CustomerImpact | None = None
    asset_id: str | None = None


def _payload(name: str, base: type[BaseModel]) -> type[BaseModel]:
    """A ticket payload: the base one with text ``tags`` and the custom fields, in the reference's order."""
    fields: dict[str, Any] = {
        "tags": (str | None, Field(None, description=_TAGS)),
        "resolution_category": (ResolutionCategory | None, Field(None, description="How it was resolved")),
        "owner": (Owner | None, Field(None, description="Team the ticket is escalated to")),
        "access_expiry_date": (str | None, Field(None, description="When temporary access ends, ISO 8601")),
        "approval_required": (ApprovalRequired | None, Field(None, description="Whether approval is needed")),
        "approval_status": (ApprovalStatus | None, Field(None, description="Where the approval stands")),
        "approver_id": (str | None, Field(None, description="Employee id of the approver")),
        "approval_request_ids": (
            str | None,
            Field(None, description="Approval request ids, comma-separated"),
        ),
        "business_justification": (str | None, Field(None, description="Why the requester needs it")),
        "incident_severity": (IncidentSeverity | None, Field(None, description="Incident severity")),
        "customer_impact": (CustomerImpact | None, Field(None, description="Whether customers are affected")),
        "asset_id": (str | None, Field(None, description="Hardware asset id the ticket is about")),
    }
    return m.with_custom_fields(base, name, fields, module=__name__)


TicketCreateInput = _payload("TicketCreateInput", m.TicketCreateInput)
TicketUpdateInput = _payload("TicketUpdateInput", m.TicketUpdateInput)

_DOMAINS = "Comma-separated domain names, no spaces (e.g. 'example.com,example.net')"


class OrganizationCreateInput(m.OrganizationCreateInput):
    domain_names: str | None = Field(None, description=_DOMAINS)  # type: ignore[assignment]


class OrganizationUpdateInput(m.OrganizationUpdateInput):
    domain_names: str | None = Field(None, description=_DOMAINS)  # type: ignore[assignment]


def split_commas(text: str) -> list[str]:
    """``"a, b"`` → ``["a", "b"]``; the empty text → ``[]``."""
    return [part.strip() for part in text.split(",")] if text else []


def prepare_ticket(ticket: dict[str, Any]) -> dict[str, Any]:
    """Split, lower-case and sort tags given as text; a stored tag list is kept as it is."""
    tags = ticket.get("tags")
    if isinstance(tags, str):
        return {**ticket, "tags": sorted(tag.strip().lower() for tag in split_commas(tags))}
    return ticket


def prepare_organization(organization: dict[str, Any]) -> dict[str, Any]:
    """Split domain names given as text; a stored list is kept as it is."""
    names = organization.get("domain_names")
    if isinstance(names, str):
        return {**organization, "domain_names": split_commas(names)}
    return organization
