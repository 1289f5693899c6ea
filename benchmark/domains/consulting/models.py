"""Row models of the consulting systems (IT/HR support), mirroring the reference's models.

Field names, types, defaults and enum values follow the reference, so seed
and patch rows validate (and coerce) exactly as there; class names follow it
too. Every model forbids extra fields, as the reference's do. Where the
reference declares the same vocabulary in several systems (access types,
device types, office locations, engagement and assignment statuses, license
pools) one enum serves them all: the values and their order are identical.

Six tables have no ``id`` column; their keys are natural ones:
``SfEngagement`` and ``MvEngagement`` by ``engagement_code``, ``Employee``
and ``ClearanceRecord`` by email, ``LicensePoolRecord`` by
(``catalog_id``, ``pool_type``) and ``NdaRecord`` by (``employee_email``,
``client_id``).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AccessType",
    "ApplicationAccessLog",
    "ApprovalRequest",
    "ApprovalRequestStatus",
    "ApproverAvailability",
    "AssignmentStatus",
    "Certification",
    "ClearanceLevel",
    "ClearanceRecord",
    "ClearanceStatus",
    "Client",
    "ClientSystemAccess",
    "ConfidentialityLevel",
    "Device",
    "DeviceAssignment",
    "DeviceType",
    "Employee",
    "EmployeeAssignment",
    "EmployeeLevel",
    "EngagementStatus",
    "ExpenseCategory",
    "ExpenseReport",
    "FlightClass",
    "Folder",
    "FolderAccessLog",
    "InventoryStatus",
    "LicenseAllocation",
    "LicensePool",
    "LicensePoolRecord",
    "MvEngagement",
    "NdaRecord",
    "NdaStatus",
    "OfficeLocation",
    "OnboardingPhase",
    "OverrideReason",
    "PermissionLevel",
    "ReceiptStatus",
    "RequestType",
    "SfEngagement",
    "SoftwareCatalog",
    "TrainingCategory",
    "TrainingCourse",
    "TrainingEnrollment",
    "TravelRequest",
    "VpnAccess",
]


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, validate_assignment=True)


class AccessType(StrEnum):
    FULL_ACCESS = "full_access"
    READ_ONLY = "read_only"
    CONTRIBUTOR = "contributor"
    ADMIN = "admin"


class DeviceType(StrEnum):
    LAPTOP = "laptop"
    PHONE = "phone"
    MONITOR = "monitor"
    DOCKING_STATION = "docking_station"
    HEADSET = "headset"
    PERIPHERAL = "peripheral"


class OfficeLocation(StrEnum):
    NEW_YORK = "New York"
    SAN_FRANCISCO = "San Francisco"
    CHICAGO = "Chicago"
    AUSTIN = "Austin"


class LicensePool(StrEnum):
    STANDARD = "standard"
    ENTERPRISE = "enterprise"


class EngagementStatus(StrEnum):
    PIPELINE = "pipeline"
    ACTIVE = "active"
    COMPLETED = "completed"
    CANCELLED = "cancelled"


class AssignmentStatus(StrEnum):
    ACTIVE = "active"
    BOOKED = "booked"


class SoftwareCatalog(_Row):
    id: str
    name: str
    annual_cost: int
    pool_type: LicensePool


class ClearanceLevel(StrEnum):
    STANDARD = "standard"
    HIGH_SECURITY = "high_security"


class SfEngagement(_Row):
    engagement_code: str
    client_id: str
    engagement_manager_email: str
    status: EngagementStatus
    start_date: datetime
    end_date: datetime | None = None


class Client(_Row):
    id: str
    name: str
    requires_nda: bool = True
    clearance_level: ClearanceLevel = ClearanceLevel.STANDARD
    required_training_courses: list[str] = Field(default_factory=list)


class EmployeeLevel(StrEnum):
    ANALYST = "Analyst"
    CONSULTANT = "Consultant"
    SENIOR_CONSULTANT = "Senior Consultant"
    MANAGER = "Manager"
    SENIOR_MANAGER = "Senior Manager"
    PARTNER = "Partner"
    ADMINISTRATIVE = "Administrative"


class OnboardingPhase(StrEnum):
    DAY_0_1_IMMEDIATE = "day_0_1_immediate"
    DAY_1_3_INITIAL = "day_1_3_initial"
    DAY_3_7_PROVISIONING = "day_3_7_provisioning"
    DAY_7_30_ENGAGEMENT_RAMP = "day_7_30_engagement_ramp"
    COMPLETED = "completed"


class ApproverAvailability(StrEnum):
    AVAILABLE = "available"
    ON_LEAVE = "on_leave"


class Employee(_Row):
    email: str
    name: str
    level: EmployeeLevel
    office_location: OfficeLocation
    start_date: datetime
    manager_email: str | None = None
    partner_email: str | None = None
    onboarding_phase: OnboardingPhase | None = None
    availability_status: ApproverAvailability = ApproverAvailability.AVAILABLE
    backup_approver_email: str | None = None


class ApplicationAccessLog(_Row):
    id: str
    employee_email: str
    app_name: str
    access_type: AccessType | None = None


class MvEngagement(_Row):
    engagement_code: str
    status: EngagementStatus
    start_date: datetime
    end_date: datetime | None = None
    senior_manager_email: str


class EmployeeAssignment(_Row):
    id: str
    employee_email: str
    engagement_code: str
    assignment_status: AssignmentStatus
    start_date: datetime
    end_date: datetime | None = None
    senior_manager_email: str


class ExpenseCategory(StrEnum):
    MEALS = "meals"
    HOTEL = "hotel"
    TRANSPORT = "transport"
    PARKING = "parking"
    CLIENT_ENTERTAINMENT = "client_entertainment"
    OTHER = "other"


class ReceiptStatus(StrEnum):
    ATTACHED = "attached"
    MISSING = "missing"
    ITEMIZED = "itemized"


class OverrideReason(StrEnum):
    JUSTIFIED_EXCEPTION = "justified_exception"
    SYSTEM_ERROR = "system_error"
    RECEIPT_EXCEPTION = "receipt_exception"


class FlightClass(StrEnum):
    ECONOMY = "economy"
    BUSINESS = "business"
    FIRST = "first"


class ExpenseReport(_Row):
    id: str
    employee_email: str
    amount: int
    category: ExpenseCategory
    trip_location_city: str | None = None
    trip_location_state: str | None = None
    expense_date: datetime
    receipt_status: ReceiptStatus
    rejection_reason: str | None = None
    override_approved: bool = False
    override_approved_by: str | None = None
    override_reason: OverrideReason | None = None


class TravelRequest(_Row):
    id: str
    employee_email: str
    destination: str
    departure_date: datetime
    return_date: datetime
    flight_class: FlightClass = FlightClass.ECONOMY
    hotel_rate_per_night: int | None = None


class InventoryStatus(StrEnum):
    AVAILABLE = "available"
    RESERVED = "reserved"
    ASSIGNED = "assigned"
    RETIRED = "retired"
    IN_REPAIR = "in_repair"


class Device(_Row):
    id: str
    device_type: DeviceType
    model: str
    age_months: int
    inventory_status: InventoryStatus
    location: OfficeLocation


class DeviceAssignment(_Row):
    id: str
    asset_id: str
    employee_email: str
    returned_at: datetime | None = None


class LicensePoolRecord(_Row):
    catalog_id: str
    pool_type: LicensePool
    total_licenses: int | None = None


class LicenseAllocation(_Row):
    id: str
    catalog_id: str
    employee_email: str
    engagement_code: str | None = None
    pool_type: LicensePool
    deallocated_at: datetime | None = None


class TrainingCategory(StrEnum):
    MUST_HAVE = "must_have"
    NICE_TO_HAVE = "nice_to_have"
    CONFERENCE = "conference"


class TrainingCourse(_Row):
    id: str
    title: str
    cost: int
    training_category: TrainingCategory
    max_seats: int | None = None
    start_date: datetime | None = None
    end_date: datetime | None = None
    prerequisites: list[str] = Field(default_factory=list)


class TrainingEnrollment(_Row):
    id: str
    employee_email: str
    course_id: str
    completion_date: datetime | None = None


class Certification(_Row):
    id: str
    employee_email: str
    certification_name: str
    issued_date: datetime
    expiry_date: datetime | None = None


class ClearanceStatus(StrEnum):
    NOT_INITIATED = "not_initiated"
    IN_PROGRESS = "in_progress"
    CLEARED = "cleared"
    FAILED = "failed"
    EXPIRED = "expired"


class NdaStatus(StrEnum):
    NOT_SIGNED = "not_signed"
    SENT_FOR_SIGNATURE = "sent_for_signature"
    SIGNED = "signed"
    EXPIRED = "expired"


class VpnAccess(_Row):
    id: str
    employee_email: str
    client_id: str | None = None
    revoked_at: datetime | None = None


class ClientSystemAccess(_Row):
    id: str
    employee_email: str
    client_id: str
    system_name: str
    access_type: AccessType
    revoked_at: datetime | None = None


class ClearanceRecord(_Row):
    employee_email: str
    clearance_level: ClearanceLevel
    status: ClearanceStatus


class NdaRecord(_Row):
    employee_email: str
    client_id: str
    status: NdaStatus


class RequestType(StrEnum):
    SOFTWARE_ACCESS = "software_access"
    HARDWARE_REPLACEMENT = "hardware_replacement"
    CLIENT_ACCESS = "client_access"
    TRAINING_ENGAGEMENT_COORDINATION = "training_engagement_coordination"
    TRAINING_COST = "training_cost"
    EXPENSE_OVERRIDE = "expense_override"
    TRAVEL = "travel"
    DOCUMENT_ACCESS = "document_access"


class ApprovalRequestStatus(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    NOT_FOUND = "not_found"


class ApprovalRequest(_Row):
    id: str
    request_type: RequestType
    requester_email: str
    approver_email: str
    amount: int | None = None
    engagement_code: str | None = None
    status: ApprovalRequestStatus = ApprovalRequestStatus.PENDING


class ConfidentialityLevel(StrEnum):
    PUBLIC = "public"
    INTERNAL = "internal"
    CONFIDENTIAL = "confidential"
    CLIENT_CONFIDENTIAL = "client_confidential"


class PermissionLevel(StrEnum):
    VIEWER = "viewer"
    EDITOR = "editor"
    CO_OWNER = "co_owner"


class Folder(_Row):
    id: str
    folder_name: str
    confidentiality_level: ConfidentialityLevel
    owner_email: str
    client_id: str | None = None
    engagement_code: str | None = None


class FolderAccessLog(_Row):
    id: str
    folder_id: str
    employee_email: str
    permission_level: PermissionLevel
