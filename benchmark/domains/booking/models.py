"""Row models of the booking systems (StayBridge), mirroring the reference's models.

Field names, types, defaults and enum values follow the reference, so seed
and patch rows validate (and coerce) exactly as there: money is ``Decimal``
(stored as its text, e.g. ``"457.5"``), most dates are plain strings, CRM and
corporate timestamps are datetimes. Extra keys are ignored, as in the
reference. Class names follow it too, because they appear in validation
messages; the four ``lookup_*`` copies keep the reference's names through
their titles.

Three reference quirks are kept: ``CorporateAccount`` and the lookup models
carry a hashed ``table_name`` field; the lookup copies type their dates as
datetimes where the originals use strings; and ``special_requests`` is
unhashed only in ``booking_api_bookings``. Two defaults differ, on purpose
and unreachably in v1.0 (every patch row sets these fields):
``CustomerProfile.lifetime_value`` defaults to ``Decimal(0)`` (the
reference's int ``0`` would not fit a text column), and
``CorporateAccount.created_at``/``updated_at`` default to the scenario's
"now", 2025-10-01T13:00 (the reference reads the wall clock).

The booking Zendesk ticket adds ten custom fields to the base ticket and its
item payloads.
"""

# ruff: noqa: UP042 - (str, Enum) as in the reference: it formats as "Class.MEMBER", which messages show
from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark.domains.zendesk import models as zd

__all__ = [
    "AccountStatus",
    "BoardType",
    "Booking",
    "BookingStatus",
    "CorporateAccount",
    "CorporateAccountTier",
    "CustomerProfile",
    "EscalationReason",
    "GroupBooking",
    "Hotel",
    "HotelInventory",
    "HotelPartnerTier",
    "LookupBooking",
    "LookupCorporateAccount",
    "LookupGroupBooking",
    "LookupHotel",
    "PaymentStatus",
    "RequestTypeDetail",
    "ResolutionAction",
    "RoomType",
    "Ticket",
    "TicketCreateInput",
    "TicketUpdateInput",
    "Transaction",
    "TransactionType",
    "VipTier",
]

_SCENARIO_NOW = datetime(2025, 10, 1, 13, 0)


class BookingStatus(str, Enum):
    CONFIRMED = "confirmed"
    CANCELLED = "cancelled"
    CHECKED_IN = "checked_in"
    CHECKED_OUT = "checked_out"


class RoomType(str, Enum):
    STANDARD_ROOM = "standard_room"
    DELUXE_ROOM = "deluxe_room"
    SUITE = "suite"
    EXECUTIVE_SUITE = "executive_suite"
    PRESIDENTIAL_SUITE = "presidential_suite"
    FAMILY_ROOM = "family_room"
    ACCESSIBLE_ROOM = "accessible_room"


class BoardType(str, Enum):
    WITHOUT_BREAKFAST = "without_breakfast"
    WITH_BREAKFAST = "with_breakfast"
    HALF_BOARD = "half_board"
    FULL_BOARD = "full_board"
    ALL_INCLUSIVE = "all_inclusive"


class HotelPartnerTier(str, Enum):
    PREMIUM = "premium"
    STANDARD = "standard"
    BUDGET = "budget"


class CorporateAccountTier(str, Enum):
    ENTERPRISE = "enterprise"
    MID_MARKET = "mid_market"
    SMALL_BUSINESS = "small_business"


class AccountStatus(str, Enum):
    ACTIVE = "active"
    EXPIRED = "expired"
    PENDING = "pending"


class VipTier(str, Enum):
    STANDARD = "standard"
    VIP = "vip"
    PLATINUM = "platinum"


class TransactionType(str, Enum):
    CHARGE = "charge"
    REFUND = "refund"
    DISPUTE = "dispute"


class PaymentStatus(str, Enum):
    SUCCESSFUL = "successful"
    PENDING = "pending"
    FAILED = "failed"


class EscalationReason(str, Enum):
    SAME_DAY_MODIFICATION = "same-day-modification"
    HOTEL_CONFIRMATION_REQUIRED = "hotel-confirmation-required"
    LARGE_GROUP_BOOKING = "large-group-booking"
    SYSTEM_ERROR = "system-error"
    HIGH_VALUE_DISPUTE = "high-value-dispute"
    GUEST_COMPLAINT = "guest-complaint"


class RequestTypeDetail(str, Enum):
    MODIFY_DATES = "modify-dates"
    MODIFY_GUESTS = "modify-guests"
    MODIFY_ROOM_TYPE = "modify-room-type"
    MODIFY_BOARD_TYPE = "modify-board-type"
    CANCEL_BOOKING = "cancel-booking"
    REQUEST_REFUND = "request-refund"
    ADD_SPECIAL_REQUEST = "add-special-request"
    BILLING_INQUIRY = "billing-inquiry"
    POST_STAY_ISSUE = "post-stay-issue"
    OTHER = "other"


class ResolutionAction(str, Enum):
    REFUND_FULL = "refund-full"
    REFUND_PARTIAL = "refund-partial"
    MODIFICATION_COMPLETED = "modification-completed"
    ESCALATED_HOTEL = "escalated-hotel"
    POLICY_APPLIED_NO_ACTION = "policy-applied-no-action"
    INFORMATION_PROVIDED = "information-provided"
    VOUCHER_ISSUED = "voucher-issued"


class Booking(BaseModel):
    """A booking (``booking_api_bookings``); ``special_requests`` is unhashed."""

    id: str
    booking_reference: str
    customer_id: str
    hotel_id: str
    check_in_date: str
    check_out_date: str
    booking_value: Decimal
    room_type: RoomType
    board_type: BoardType
    adults_count: int
    children_count: int = 0
    booking_status: BookingStatus = BookingStatus.CONFIRMED
    corporate_account_id: str | None = None
    group_booking_id: str | None = None
    modification_history: list[str] = Field(default_factory=list)
    special_requests: list[str] = Field(default_factory=list)
    created_at: str
    updated_at: str


class GroupBooking(BaseModel):
    id: str
    group_booking_id: str
    coordinator_name: str
    coordinator_email: str
    coordinator_phone: str
    total_rooms: int
    check_in_date: str
    check_out_date: str
    hotel_id: str
    booking_references: list[str]
    created_at: str
    updated_at: str


class HotelInventory(BaseModel):
    """One night's availability and price of a room and board type at a hotel."""

    id: str
    hotel_id: str
    room_type: RoomType
    board_type: BoardType
    date: str
    available_count: int
    price_per_night: Decimal
    created_at: str
    updated_at: str


class CorporateAccount(BaseModel):
    table_name: str = "corporate_accounts"
    id: str
    corporate_account_id: str
    company_name: str
    account_tier: CorporateAccountTier
    account_status: AccountStatus
    contact_name: str
    contact_email: str
    contact_phone: str
    booking_limit: int
    credit_limit: Decimal
    payment_terms: str
    expiration_date: datetime | None = None
    created_at: datetime = Field(default_factory=lambda: _SCENARIO_NOW)
    updated_at: datetime = Field(default_factory=lambda: _SCENARIO_NOW)


class CustomerProfile(BaseModel):
    """A CRM customer; ``preferences`` and ``special_notes`` are unhashed."""

    id: str
    customer_id: str
    email: str
    full_name: str
    vip_tier: VipTier = VipTier.STANDARD
    loyalty_program_status: str | None = None
    lifetime_value: Decimal = Decimal(0)
    total_bookings_count: int = 0
    preferences: list[str] = Field(default_factory=list)
    special_notes: list[str] = Field(default_factory=list)
    complaint_count: int = 0
    last_booking_date: datetime | None = None
    created_at: datetime
    updated_at: datetime


class Hotel(BaseModel):
    """A partner hotel. Its ``id`` and ``hotel_id`` may differ; one tool finds hotels by ``id``."""

    id: str
    hotel_id: str
    hotel_name: str
    location: str
    partner_tier: HotelPartnerTier
    contact_name: str
    contact_email: str
    contact_phone: str
    escalation_contact: str | None = None
    amenities: list[str] = Field(default_factory=list)
    supports_pets: bool = False
    accessible_rooms_available: bool = False
    created_at: str
    updated_at: str


class Transaction(BaseModel):
    """A payment: charge, refund or dispute; ``reason`` is unhashed."""

    id: str
    transaction_id: str
    booking_reference: str
    customer_id: str
    amount: Decimal
    currency: str = "USD"
    transaction_type: TransactionType
    payment_status: PaymentStatus
    payment_method: str | None = None
    reason: str | None = None
    processing_time_estimate: str | None = None
    created_at: str
    updated_at: str


class LookupBooking(BaseModel):
    model_config = ConfigDict(title="Booking")

    table_name: str = "bookings"
    id: str
    booking_reference: str
    customer_id: str
    hotel_id: str
    check_in_date: datetime
    check_out_date: datetime
    booking_value: Decimal
    room_type: RoomType
    board_type: BoardType
    adults_count: int
    children_count: int = 0
    booking_status: BookingStatus = BookingStatus.CONFIRMED
    corporate_account_id: str | None = None
    group_booking_id: str | None = None
    modification_history: list[str] = Field(default_factory=list)
    special_requests: list[str] = Field(default_factory=list)
    created_at: datetime
    updated_at: datetime


class LookupHotel(BaseModel):
    model_config = ConfigDict(title="Hotel")

    table_name: str = "hotels"
    id: str
    hotel_id: str
    hotel_name: str
    location: str
    partner_tier: HotelPartnerTier
    contact_name: str
    contact_email: str
    contact_phone: str
    escalation_contact: str | None = None
    amenities: list[str] = Field(default_factory=list)
    supports_pets: bool = False
    accessible_rooms_available: bool = False
    created_at: datetime
    updated_at: datetime


class LookupCorporateAccount(BaseModel):
    model_config = ConfigDict(title="CorporateAccount")

    table_name: str = "corporate_accounts"
    id: str
    corporate_account_id: str
    company_name: str
    account_tier: CorporateAccountTier
    account_status: AccountStatus
    contact_name: str
    contact_email: str
    contact_phone: str
    booking_limit: int
    credit_limit: Decimal
    payment_terms: str
    expiration_date: datetime | None = None
    created_at: datetime
    updated_at: datetime


class LookupGroupBooking(BaseModel):
    model_config = ConfigDict(title="GroupBooking")

    table_name: str = "group_bookings"
    id: str
    group_booking_id: str
    coordinator_name: str
    coordinator_email: str
    coordinator_phone: str
    total_rooms: int
    check_in_date: datetime
    check_out_date: datetime
    hotel_id: str
    booking_references: list[str]
    created_at: datetime
    updated_at: datetime


_CUSTOM_TICKET_FIELDS: tuple[tuple[str, Any, str], ...] = (
    ("booking_reference", str | None, "Booking reference, e.g. BKG-00012345"),
    ("hotel_id", str | None, "Hotel id, e.g. HTL-00012345"),
    ("check_in_date", str | None, "Check-in date, ISO 8601"),
    ("booking_value", float | None, "Value of the booking"),
    ("request_type_detail", RequestTypeDetail | None, "What the customer asks for"),
    ("corporate_account_id", str | None, "Corporate account id, e.g. CRP-00012345"),
    ("group_booking_id", str | None, "Group booking id, e.g. GRP-00012345"),
    ("resolution_action", ResolutionAction | None, "How the request was resolved"),
    ("refund_amount", float | None, "Amount refunded to the customer"),
    ("escalation_reason", EscalationReason | None, "Why the ticket was escalated"),
)


def _custom_fields(*, described: bool) -> dict[str, Any]:
    """The custom ticket fields (all optional); the payloads' carry their descriptions."""
    return {
        name: (annotation, Field(None, description=text) if described else None)
        for name, annotation, text in _CUSTOM_TICKET_FIELDS
    }


Ticket = zd.with_custom_fields(
    zd.Ticket,
    "Ticket",
    _custom_fields(described=False),
    module=__name__,
    doc="A Zendesk ticket with the booking domain's custom fields.",
)
TicketCreateInput = zd.with_custom_fields(
    zd.TicketCreateInput, "TicketCreateInput", _custom_fields(described=True), module=__name__
)
TicketUpdateInput = zd.with_custom_fields(
    zd.TicketUpdateInput, "TicketUpdateInput", _custom_fields(described=True), module=__name__
)
