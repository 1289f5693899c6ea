"""Row models of the HorizonShield systems and its Zendesk copy, mirroring the reference's models.

Field names, types, defaults and enum values follow the reference, so seed
and patch rows validate (and coerce) exactly as there. Unlike retail's, the
reference's insurance models ignore unknown keys, and so do these. Class
names follow the reference too, because validation messages show them; the
billing enums are plain :class:`~enum.Enum` (not ``str``) as there.

The Zendesk ticket of this domain carries seven custom fields, in the row
model and in both item payloads; a ticket created with any status but
``open`` is recorded in the hidden ``ticket_status_violations`` table.
"""

# ruff: noqa: UP042 - (str, Enum) as in the reference: it formats as "Class.MEMBER", which ids and messages show
from __future__ import annotations

from enum import Enum
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from benchmark.domains.zendesk import models as zendesk

__all__ = [
    "ArrangementType",
    "BillingAccount",
    "BillingAccountStatus",
    "CancellationReason",
    "Claim",
    "ClaimSeverity",
    "ClaimStage",
    "ClaimType",
    "Customer",
    "CustomerTier",
    "DocumentType",
    "Driver",
    "DriverStatus",
    "Policy",
    "PolicyDocument",
    "PolicyStatus",
    "SIUFlag",
    "State",
    "Ticket",
    "TicketCreateInput",
    "TicketUpdateInput",
    "Vehicle",
    "VehicleStatus",
]

_M = TypeVar("_M", bound=BaseModel)


class PolicyStatus(str, Enum):
    ACTIVE = "Active"
    IN_GRACE_PERIOD = "In Grace Period"
    PENDING_CANCELLATION = "Pending Cancellation"
    CANCELLED_FOR_NON_PAYMENT = "Cancelled for Non-Payment"
    LAPSED = "Lapsed"
    NON_RENEWED = "Non-Renewed"


class CancellationReason(str, Enum):
    USER_REQUESTED = "User Requested"
    NON_PAYMENT = "Non-Payment"
    UNDERWRITING = "Underwriting"
    FRAUD = "Fraud"


class State(str, Enum):
    CA = "CA"
    TX = "TX"
    NY = "NY"
    FL = "FL"


class DriverStatus(str, Enum):
    RATED = "Rated"
    EXCLUDED = "Excluded"
    REMOVED = "Removed"


class VehicleStatus(str, Enum):
    ACTIVE = "Active"
    REMOVED = "Removed"


class DocumentType(str, Enum):
    PROOF_OF_INSURANCE = "proof_of_insurance"
    DECLARATIONS_PAGE = "declarations_page"
    ID_CARD = "id_card"


class Policy(BaseModel):
    """An auto policy; dates are ``YYYY-MM-DD`` text."""

    id: str
    customer_id: str
    state: State
    status: PolicyStatus = PolicyStatus.ACTIVE
    effective_date: str
    expiration_date: str
    renewal_date: str
    cancellation_date: str | None = None
    cancellation_reason: CancellationReason | None = None
    named_insured_id: str
    co_insured_id: str | None = None
    automatic_extension_days: int = 14
    at_fault_claims_3_years: int = 0
    lapse_flag: bool = False
    lapse_start: str | None = None
    lapse_end: str | None = None


class Vehicle(BaseModel):
    """A vehicle on a policy, with its coverage flags."""

    id: str
    policy_id: str
    vin: str
    year: int
    make: str
    model: str
    status: VehicleStatus = VehicleStatus.ACTIVE
    effective_date: str
    removal_date: str | None = None
    date_added_to_policy: str
    collision_coverage: bool = True
    comprehensive_coverage: bool = True
    rental_coverage: bool = False
    uw_pending: bool = False


class Driver(BaseModel):
    """A driver on a policy."""

    id: str
    policy_id: str
    customer_id: str | None = None
    name: str
    date_of_birth: str
    license_number: str | None = None
    license_state: str | None = None
    relationship: str
    status: DriverStatus = DriverStatus.RATED
    effective_date: str
    removal_date: str | None = None
    is_named_insured: bool = False
    is_co_insured: bool = False
    uw_pending: bool = False
    exclusion_form_required: bool = False


class PolicyDocument(BaseModel):
    """A secure document link generated for a ticket."""

    id: str
    policy_id: str
    ticket_id: str
    document_type: DocumentType
    url: str
    created_at: str
    expires_at: str


class BillingAccountStatus(Enum):
    CURRENT = "Current"
    PAST_DUE = "Past Due"
    IN_GRACE_PERIOD = "In Grace Period"
    PENDING_CANCELLATION = "Pending Cancellation"
    CANCELLED = "Cancelled"
    LAPSED = "Lapsed"


class ArrangementType(Enum):
    NONE = "None"
    EXTENSION = "Extension"
    INSTALLMENT_PLAN = "Installment Plan"


class BillingAccount(BaseModel):
    """A policy's billing account; amounts are in cents."""

    id: str
    policy_id: str
    customer_id: str
    status: BillingAccountStatus = BillingAccountStatus.CURRENT
    monthly_payment: int
    past_due_amount: int = 0
    current_due_date: str
    payment_received: bool = False
    arrangement_type: ArrangementType = ArrangementType.NONE
    arrangements_12_months: int = 0
    new_due_date: str | None = None
    installment_count: int | None = None
    installment_amount: int | None = None


class ClaimType(str, Enum):
    COLLISION_SINGLE = "Collision – Single Vehicle"
    COLLISION_MULTI = "Collision – Multi-Vehicle"
    COLLISION_HIT_RUN = "Collision – Hit and Run"
    COLLISION_PARKED = "Collision – Parked Vehicle"
    CMP_THEFT = "Comprehensive – Theft"
    CMP_VANDALISM = "Comprehensive – Vandalism"
    CMP_WEATHER = "Comprehensive – Weather"
    CMP_FIRE = "Comprehensive – Fire"
    CMP_GLASS = "Comprehensive – Glass Only"
    CMP_ANIMAL = "Comprehensive – Animal Strike"
    LIABILITY_ONLY = "Liability Only"


class ClaimStage(str, Enum):
    OPEN_INITIAL = "Open – Initial Review"
    OPEN_INVESTIGATION = "Open – Investigation"
    OPEN_REPAIR = "Open – Repair/Recovery"
    OPEN_SETTLEMENT = "Open – Settlement"
    CLOSED_PAID = "Closed – Paid"
    CLOSED_DENIED = "Closed – Denied"
    CLOSED_WITHDRAWN = "Closed – Withdrawn"


class ClaimSeverity(str, Enum):
    MINOR = "Minor"
    MODERATE = "Moderate"
    MAJOR = "Major"


class SIUFlag(str, Enum):
    NONE = "None"
    SUSPICIOUS = "Suspicious Activity Flagged"
    CONFIRMED = "Confirmed SIU Referral"


class Claim(BaseModel):
    """An insurance claim; ``created_date`` is ``YYYY-MM-DD`` text."""

    id: str
    policy_id: str
    vehicle_id: str | None = None
    vehicle_vin: str | None = None
    driver_id: str | None = None
    date_of_loss: str
    loss_location: str
    claim_type: ClaimType
    claim_stage: ClaimStage = ClaimStage.OPEN_INITIAL
    severity: ClaimSeverity = ClaimSeverity.MODERATE
    siu_flag: SIUFlag = SIUFlag.NONE
    unlisted_driver_flag: bool = False
    has_bodily_injury: bool = False
    police_report_required: bool = False
    police_report_number: str | None = None
    other_party_name: str | None = None
    other_party_phone: str | None = None
    other_party_insurance: str | None = None
    created_date: str


class CustomerTier(str, Enum):
    STANDARD = "Standard"
    PREFERRED = "Preferred"
    PREMIUM = "Premium"


class Customer(BaseModel):
    """A CRM customer, with the secrets identity checks compare against."""

    id: str
    email: str
    first_name: str = Field(min_length=1)
    last_name: str = Field(min_length=1)
    date_of_birth: str
    phone: str | None = None
    tier: CustomerTier = CustomerTier.STANDARD
    fraud_flag: bool = False
    ssn_last_4: str | None = None
    security_question: str | None = None
    security_answer: str | None = None


_CUSTOM_TICKET_FIELDS: tuple[tuple[str, str], ...] = (
    ("request_category", "Custom field: request category, e.g. Claims or Policy Servicing"),
    ("claims_action_type", "Custom field: claims action type, e.g. FNOL – Collision"),
    ("effective_date_of_change", "Custom field: when the change takes effect, YYYY-MM-DD"),
    ("internal_review_type", "Custom field: internal review, e.g. Underwriting or Not Required"),
    ("outcome_summary", "Custom field: outcome, e.g. Completed"),
    ("escalation_level", "Custom field: escalation level, e.g. Standard"),
    ("user_type", "Who the requester is, e.g. Named Insured or Third-Party Claimant"),
)


def _with_custom_fields(base: type[_M], name: str, doc: str) -> type[_M]:
    """``base`` with the seven custom ticket fields after its own (the reference's field order)."""
    fields: dict[str, Any] = {
        field: (str | None, Field(None, description=description))
        for field, description in _CUSTOM_TICKET_FIELDS
    }
    return zendesk.with_custom_fields(base, name, fields, module=__name__, doc=doc)


Ticket = _with_custom_fields(
    zendesk.Ticket, "Ticket", "A HorizonShield Zendesk ticket: the base ticket, then the custom fields."
)
TicketCreateInput = _with_custom_fields(
    zendesk.TicketCreateInput, "TicketCreateInput", "A ticket to create, with the custom fields."
)
TicketUpdateInput = _with_custom_fields(
    zendesk.TicketUpdateInput, "TicketUpdateInput", "The ticket fields to change, with the custom fields."
)
