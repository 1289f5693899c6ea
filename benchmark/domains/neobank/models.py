"""Row models of the neobank IT-support systems, mirroring the reference's models.

Field names, types, defaults and enum values follow the reference, so seed
and patch rows validate (and coerce) exactly as there; class names follow it
too, because they appear in validation messages. As in the reference, the
Workday, Okta, license and hardware models ignore unknown fields, while the
workflow models (approvals, procurement, email, incidents, security audit,
customer accounts) forbid them.
"""

# ruff: noqa: UP042 - (str, Enum) as in the reference: it formats as "Class.MEMBER", which messages show
from __future__ import annotations

from datetime import date, datetime
from enum import Enum

from pydantic import BaseModel, ConfigDict

__all__ = [
    "ApprovalRequest",
    "ApprovalRequestStatus",
    "ApprovalRequestType",
    "ApprovalUrgency",
    "AssetAssignment",
    "AvailabilityStatus",
    "CustomerAccount",
    "Department",
    "DeviceCondition",
    "DeviceType",
    "EmailDeliveryStatus",
    "EmailNotification",
    "EmailPriority",
    "Employee",
    "EmploymentStatus",
    "GenericAccessLevel",
    "HardwareAsset",
    "LicenseAllocation",
    "LicenseType",
    "NotificationType",
    "OfficeLocation",
    "OktaAppAccess",
    "OktaGroupMembership",
    "OktaSecurityAudit",
    "OktaSecurityOperation",
    "ProcurementOrder",
    "ProcurementOrderStatus",
    "SecurityIncident",
    "Severity",
    "SoftwareLicense",
    "WarehouseLocation",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, validate_assignment=True)


class ApprovalRequestType(str, Enum):
    ACCESS_REQUEST = "access_request"
    HARDWARE_PURCHASE = "hardware_purchase"
    DATA_EXPORT = "data_export"
    LICENSE_PURCHASE = "license_purchase"
    EXCEPTION_REQUEST = "exception_request"


class ApprovalRequestStatus(str, Enum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    CANCELLED = "cancelled"


class ApprovalUrgency(str, Enum):
    STANDARD = "standard"
    URGENT = "urgent"
    CRITICAL = "critical"


class AvailabilityStatus(str, Enum):
    AVAILABLE = "available"
    ON_LEAVE = "on_leave"
    UNAVAILABLE = "unavailable"


class GenericAccessLevel(str, Enum):
    NONE = "none"
    READ_ONLY = "read_only"
    READ_WRITE = "read_write"
    WRITE = "write"
    ADMIN = "admin"
    MEMBER = "member"
    USER = "user"
    VIEWER = "viewer"
    EDITOR = "editor"
    ANALYST = "analyst"
    STANDARD = "standard"
    ELEVATED = "elevated"
    STANDARD_EMPLOYEE = "standard_employee"
    WRITE_NON_PII_ONLY = "write non-PII only"
    ENGINEER_PROD = "engineer_prod"


class Severity(str, Enum):
    SEV1 = "SEV1"
    SEV2 = "SEV2"
    SEV3 = "SEV3"
    SEV4 = "SEV4"


class OktaSecurityOperation(str, Enum):
    SEND_VERIFICATION_MANAGER = "send_verification_manager"
    SEND_VERIFICATION_ASSISTANT = "send_verification_assistant"
    SEND_VERIFICATION_SMS = "send_verification_sms"
    SEND_VERIFICATION_VIDEO_CALL = "send_verification_video_call"
    UNLOCK_ACCOUNT = "unlock_account"
    FORCE_PASSWORD_RESET = "force_password_reset"
    INVALIDATE_ALL_SESSIONS = "invalidate_all_sessions"
    SET_TEMPORARY_BYPASS = "set_temporary_bypass"
    ADD_MFA_DEVICE = "add_mfa_device"
    SEND_MFA_ENROLLMENT_LINK = "send_mfa_enrollment_link"
    REMOVE_MFA_DEVICE = "remove_mfa_device"


class ProcurementOrderStatus(str, Enum):
    PENDING = "pending"
    ORDERED = "ordered"
    SHIPPED = "shipped"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"


class NotificationType(str, Enum):
    ACCESS_PROVISIONED = "access_provisioned"
    ACCESS_REVOKED = "access_revoked"
    INCIDENT_ACCESS_GRANTED = "incident_access_granted"
    POST_FACTO_MANAGER_ALERT = "post_facto_manager_alert"
    BREAKING_GLASS_ALERT = "breaking_glass_alert"
    HARDWARE_ASSIGNED = "hardware_assigned"
    HARDWARE_ORDERED = "hardware_ordered"
    TICKET_UPDATE = "ticket_update"
    ESCALATION_NOTICE = "escalation_notice"


class EmailPriority(str, Enum):
    LOW = "low"
    NORMAL = "normal"
    HIGH = "high"
    URGENT = "urgent"


class EmploymentStatus(str, Enum):
    ACTIVE = "active"
    ON_LEAVE = "on_leave"
    DEPARTING = "departing"
    TERMINATED = "terminated"


class Department(str, Enum):
    EXECUTIVE_LEADERSHIP = "executive_leadership"
    PRODUCT_ENGINEERING = "product_engineering"
    CUSTOMER_SUPPORT = "customer_support"
    SALES = "sales"
    MARKETING = "marketing"
    FINANCE_ACCOUNTING = "finance_accounting"
    HR = "hr"
    LEGAL = "legal"
    COMPLIANCE_RISK = "compliance_risk"
    IT_SECURITY = "it_security"
    IT_OPERATIONS = "it_operations"


class OfficeLocation(str, Enum):
    SF = "sf"
    NYC = "nyc"
    AUSTIN = "austin"
    REMOTE = "remote"


class LicenseType(str, Enum):
    STANDARD = "standard"
    ENTERPRISE = "enterprise"
    INDIVIDUAL = "individual"
    UNLIMITED = "unlimited"


class DeviceType(str, Enum):
    LAPTOP_STANDARD = "laptop_standard"
    LAPTOP_PREMIUM = "laptop_premium"
    MONITOR = "monitor"
    DOCKING_STATION = "docking_station"
    HEADSET = "headset"
    KEYBOARD = "keyboard"
    MOUSE = "mouse"


class WarehouseLocation(str, Enum):
    SF = "sf"
    NYC = "nyc"
    AUSTIN = "austin"
    REMOTE_SHIP = "remote_ship"


class DeviceCondition(str, Enum):
    NEW = "new"
    GOOD = "good"
    FAIR = "fair"
    POOR = "poor"
    RETIRED = "retired"


class EmailDeliveryStatus(str, Enum):
    QUEUED = "queued"
    SENT = "sent"
    DELIVERED = "delivered"
    FAILED = "failed"
    BOUNCED = "bounced"


class Employee(BaseModel):
    """A Workday employee (``WD-nnnnnn``); looked up by email everywhere."""

    id: str
    email: str
    full_name: str
    level: int
    department: Department
    role: str
    office_location: OfficeLocation
    start_date: str
    manager_id: str | None = None
    employment_status: EmploymentStatus = EmploymentStatus.ACTIVE
    is_contractor: bool = False
    remote_delivery_address: str | None = None
    contract_end_date: str | None = None


class OktaAppAccess(BaseModel):
    """An employee's access to one application (``OAA-…``); only active rows count."""

    id: str
    employee_id: str
    app_name: str
    access_level: GenericAccessLevel
    granted_at: str | None = None
    granted_by: str
    is_active: bool = True
    revoked_at: str | None = None
    is_temporary: bool = False
    expires_at: str | None = None


class OktaGroupMembership(BaseModel):
    """An employee's membership of an Okta group (``OGM-…``)."""

    id: str
    employee_id: str
    group_name: str
    added_at: str | None = None
    added_by: str
    is_active: bool = True


class SoftwareLicense(BaseModel):
    """A license pool (``LIC-…``); ``total_licenses`` is null for unlimited pools."""

    id: str
    software_name: str
    license_type: LicenseType
    total_licenses: int | None = None
    annual_cost_per_license: int | None = None


class LicenseAllocation(BaseModel):
    """A seat of a pool allocated to an employee (``LAL-…``)."""

    id: str
    license_id: str
    employee_id: str
    allocated_at: str | None = None
    allocated_by: str
    is_active: bool = True
    deallocated_at: str | None = None


class HardwareAsset(BaseModel):
    """A device in the inventory (``VDB-HW-nnnnn``); ``purchase_date`` is ISO text."""

    id: str
    device_type: DeviceType
    device_model: str
    purchase_date: str
    warehouse_location: WarehouseLocation
    condition: DeviceCondition = DeviceCondition.NEW
    is_assigned: bool = False


class AssetAssignment(BaseModel):
    """A device handed to an employee (``ASN-…``); retiring the device closes it."""

    id: str
    asset_id: str
    employee_id: str
    assigned_at: str | None = None
    assigned_by: str
    is_active: bool = True
    returned_at: str | None = None


class ApprovalRequest(_Strict):
    """A request waiting for an approver (``APR-…``); ``details`` is free text, not hashed."""

    id: str
    request_type: ApprovalRequestType
    requester_id: str
    approver_id: str
    status: ApprovalRequestStatus
    urgency: ApprovalUrgency = ApprovalUrgency.STANDARD
    details: str
    ticket_id: str | None = None
    created_at: datetime | None = None
    decided_at: datetime | None = None
    approver_feedback: str | None = None


class CustomerAccount(_Strict):
    """A core-banking customer account (no tool reads or writes it)."""

    id: str
    account_number: str
    account_type: str
    status: str
    balance: float
    currency: str = "USD"
    opened_date: str


class ProcurementOrder(_Strict):
    """A hardware order placed with a vendor (``HW-ORDER-nnnnnnn``)."""

    id: str
    device_type: DeviceType
    device_model: str
    quantity: int
    ship_to_location: str
    requester_id: str
    ticket_id: str | None = None
    status: ProcurementOrderStatus = ProcurementOrderStatus.PENDING
    created_at: datetime | None = None
    expected_delivery_date: date
    delivered_at: datetime | None = None


class EmailNotification(_Strict):
    """An email queued for an employee (``NTF-…``); subject and body are not hashed."""

    id: str
    recipient_id: str
    recipient_email: str
    notification_type: NotificationType
    subject: str
    body: str
    ticket_id: str | None = None
    priority: EmailPriority = EmailPriority.NORMAL
    cc_emails: list[str] | None = None
    sent_at: datetime | None = None
    delivery_status: EmailDeliveryStatus = EmailDeliveryStatus.QUEUED
    delivered_at: datetime | None = None
    sent_by: str


class SecurityIncident(_Strict):
    """A security incident (``SEC-…``), active or resolved."""

    id: str
    employee_id: str
    severity: Severity
    incident_type: str
    description: str
    status: str
    is_active: bool
    reported_at: datetime
    reported_by: str
    resolved_at: datetime | None = None
    resolution_notes: str | None = None


class OktaSecurityAudit(_Strict):
    """The audit row of one Okta security operation (``OSA-…``)."""

    id: str
    employee_id: str
    operation: OktaSecurityOperation
    performed_by: str
    performed_at: datetime
    reason: str
    ticket_id: str | None = None
    verification_method: str | None = None
    success: bool = True
    bypass_duration_hours: int | None = None
    bypass_expires_at: datetime | None = None
    mfa_device_id: str | None = None
