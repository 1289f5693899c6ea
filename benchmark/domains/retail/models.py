"""Row models of the retail systems (TechHome Direct), mirroring the reference's models.

Field names, types, defaults and enum values follow the reference, so seed
and patch rows validate (and coerce) exactly as there; class names follow it
too, because they appear in validation messages. Every model forbids extra
fields, as the reference's do.
"""

# ruff: noqa: UP042 - (str, Enum) as in the reference: it formats as "Class.MEMBER", which messages show
from __future__ import annotations

from datetime import datetime
from enum import Enum

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ActivePromotion",
    "BehavioralSegment",
    "CarrierTracking",
    "ChargeReason",
    "CustomerProfile",
    "CustomerTier",
    "DiscountApplication",
    "DiscountType",
    "FulfillmentType",
    "InstallationCancellationReason",
    "InstallationJob",
    "InstallationJobStatus",
    "InstallationRescheduleReason",
    "InstallationServiceType",
    "InventoryRecord",
    "MembershipRecord",
    "MembershipStatus",
    "Order",
    "OrderCancellationReason",
    "OrderLineItem",
    "OrderStatus",
    "PaymentStatus",
    "PaymentTransaction",
    "PointsAdjustmentReason",
    "ProductCategory",
    "ProductDetails",
    "RMARecord",
    "RMAReturnReason",
    "RMAStatus",
    "Refund",
    "RefundReason",
    "Shipment",
    "ShippingSpeed",
    "TrackingStatus",
    "WarrantyClaim",
    "WarrantyClaimStatus",
    "WarrantyContract",
    "WarrantyIssueType",
    "WarrantyType",
]


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, validate_assignment=True)


class OrderStatus(str, Enum):
    PENDING_PAYMENT = "pending_payment"
    PROCESSING = "processing"
    SHIPPED = "shipped"
    INSTALLATION_SCHEDULED = "installation_scheduled"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"


class ShippingSpeed(str, Enum):
    STANDARD = "standard"
    EXPEDITED = "expedited"
    NEXT_DAY = "next_day"


class FulfillmentType(str, Enum):
    WAREHOUSE = "warehouse"
    DROP_SHIP = "drop_ship"


class OrderCancellationReason(str, Enum):
    CUSTOMER_REQUEST = "customer_request"
    PAYMENT_FAILED = "payment_failed"
    ADDRESS_UNDELIVERABLE = "address_undeliverable"
    OUT_OF_STOCK = "out_of_stock"


class TrackingStatus(str, Enum):
    PENDING = "pending"
    IN_TRANSIT = "in_transit"
    DELAYED = "delayed"
    DELIVERED = "delivered"
    EXCEPTION = "exception"
    RETURNED_TO_SENDER = "returned_to_sender"


class Order(_Row):
    id: str
    customer_id: str
    order_date: datetime
    status: OrderStatus = OrderStatus.PENDING_PAYMENT
    subtotal_amount: float
    discount_amount: float = 0.0
    points_used: int = 0
    points_value: float = 0.0
    shipping_cost: float = 0.0
    total_amount: float
    shipping_address_line1: str
    shipping_address_city: str
    shipping_address_state: str
    shipping_address_zip: str
    shipping_speed: ShippingSpeed = ShippingSpeed.STANDARD
    fulfillment_type: FulfillmentType = FulfillmentType.WAREHOUSE
    installation_service_id: str | None = None


class OrderLineItem(_Row):
    id: str
    order_id: str
    sku: str
    product_name: str
    quantity: int
    base_price: float
    discount_amount: float = 0.0
    final_price: float


class Shipment(_Row):
    id: str
    order_id: str
    carrier: str
    tracking_number: str
    ship_date: datetime
    estimated_delivery_date: datetime
    actual_delivery_date: datetime | None = None


class CarrierTracking(_Row):
    tracking_number: str
    shipment_id: str
    carrier: str
    status: TrackingStatus = TrackingStatus.PENDING
    current_location: str | None = None
    estimated_delivery: datetime
    last_update: datetime


class PaymentStatus(str, Enum):
    AUTHORIZED = "authorized"
    DECLINED = "declined"
    PENDING_AUTHORIZATION = "pending_authorization"
    FAILED = "failed"


class RefundReason(str, Enum):
    RMA_PROCESSED = "rma_processed"
    DISCOUNT_CORRECTION = "discount_correction"
    LATE_DELIVERY_COMPENSATION = "late_delivery_compensation"
    PARTIAL_REFUND_MINOR_DEFECT = "partial_refund_minor_defect"
    SHIPPING_DOWNGRADE = "shipping_downgrade"
    ORDER_CANCELLED = "order_cancelled"


class ChargeReason(str, Enum):
    SHIPPING_UPGRADE = "shipping_upgrade"
    RESHIP_FEE = "reship_fee"
    INSTALLATION_CANCELLED_SHIPPING = "installation_cancelled_shipping"


class PaymentTransaction(_Row):
    id: str
    order_id: str
    customer_id: str
    amount: float
    status: PaymentStatus
    payment_method: str
    transaction_date: datetime
    charge_reason: ChargeReason | None = None


class Refund(_Row):
    id: str
    transaction_id: str
    order_id: str
    amount: float
    refund_reason: RefundReason
    status: str = "pending"
    refund_date: datetime


class WarrantyType(str, Enum):
    manufacturer = "manufacturer"
    extended_warranty = "extended_warranty"
    protection_plan = "protection_plan"


class WarrantyClaimStatus(str, Enum):
    pending = "pending"
    approved = "approved"
    in_progress = "in_progress"
    completed = "completed"
    denied = "denied"


class WarrantyIssueType(str, Enum):
    product_not_functioning = "product_not_functioning"
    component_failed = "component_failed"
    performance_degradation = "performance_degradation"
    accidental_damage = "accidental_damage"


class WarrantyContract(_Row):
    id: str
    order_id: str
    sku: str
    customer_id: str
    warranty_type: WarrantyType
    start_date: datetime
    end_date: datetime
    coverage_details: str


class WarrantyClaim(_Row):
    id: str
    contract_id: str
    customer_id: str
    claim_date: datetime
    issue_description: str
    status: WarrantyClaimStatus
    resolution: str | None = None


class InstallationServiceType(str, Enum):
    APPLIANCE_BASIC = "appliance_basic"
    APPLIANCE_ADVANCED = "appliance_advanced"
    TV_MOUNTING = "tv_mounting"


class InstallationJobStatus(str, Enum):
    SCHEDULED = "scheduled"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    CANCELLED = "cancelled"
    ISSUE_REPORTED = "issue_reported"


class InstallationRescheduleReason(str, Enum):
    CUSTOMER_REQUEST = "customer_request"
    WORKMANSHIP_ISSUE = "workmanship_issue"
    TECHNICIAN_UNAVAILABLE = "technician_unavailable"
    WEATHER_DELAY = "weather_delay"


class InstallationCancellationReason(str, Enum):
    CUSTOMER_WANTS_SHIP_ONLY = "customer_wants_ship_only"
    CUSTOMER_CANCELLED_ORDER = "customer_cancelled_order"
    PRODUCT_INCOMPATIBLE = "product_incompatible"
    ADDRESS_INACCESSIBLE = "address_inaccessible"


class InstallationJob(_Row):
    id: str
    order_id: str
    customer_id: str
    service_type: InstallationServiceType
    scheduled_date: datetime
    technician_id: str | None = None
    status: InstallationJobStatus = InstallationJobStatus.SCHEDULED
    completion_date: datetime | None = None
    workmanship_warranty_end: datetime | None = None
    service_cost: float


class RMAStatus(str, Enum):
    PENDING = "pending"
    APPROVED = "approved"
    SHIPPED_TO_WAREHOUSE = "shipped_to_warehouse"
    RECEIVED = "received"
    REFUNDED = "refunded"
    CANCELLED = "cancelled"


class RMAReturnReason(str, Enum):
    DEFECTIVE = "defective"
    WRONG_ITEM_RECEIVED = "wrong_item_received"
    CHANGED_MIND = "changed_mind"
    NOT_AS_EXPECTED = "not_as_expected"
    DAMAGED_IN_TRANSIT = "damaged_in_transit"


class RMARecord(_Row):
    id: str
    order_id: str
    line_item_id: str
    customer_id: str
    return_reason: RMAReturnReason
    is_defective: bool
    status: RMAStatus = RMAStatus.PENDING
    created_date: datetime
    refund_amount: float
    restocking_fee: float = 0.0
    return_shipping_cost: float = 0.0
    removal_fee: float = 0.0


class InventoryRecord(_Row):
    sku: str
    available_quantity: int
    reserved_quantity: int
    warehouse_location: str | None = None
    restock_date: datetime | None = None
    expected_restock_quantity: int | None = None


class DiscountType(str, Enum):
    PERCENTAGE = "percentage"
    FIXED_AMOUNT = "fixed_amount"
    BOGO = "bogo"
    BUNDLE = "bundle"
    LOYALTY_PRICING = "loyalty_pricing"


class ActivePromotion(_Row):
    id: str
    promo_code: str
    discount_type: DiscountType
    discount_value: float
    stackable_with_points: bool = False
    stackable_with_loyalty: bool = True
    excluded_skus: list[str] = Field(default_factory=list)
    valid_from: datetime
    valid_until: datetime


class DiscountApplication(_Row):
    id: str
    order_id: str
    promo_code_used: str | None = None
    points_used: int = 0
    loyalty_discount_applied: bool = False
    total_discount_amount: float
    stacking_rule_applied: str | None = None


class CustomerTier(str, Enum):
    STANDARD = "standard"
    PLUS_MEMBER = "plus_member"
    VIP = "vip"


class BehavioralSegment(str, Enum):
    REGULAR = "regular"
    OPPORTUNIST = "opportunist"
    BONUS_HUNTER = "bonus_hunter"


class MembershipStatus(str, Enum):
    ACTIVE = "active"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class PointsAdjustmentReason(str, Enum):
    REFUND_RETURN = "refund_return"
    SERVICE_RECOVERY = "service_recovery"
    MANUAL_ADJUSTMENT = "manual_adjustment"


class CustomerProfile(_Row):
    id: str
    email: str
    name: str
    phone: str | None = None
    registration_date: datetime
    customer_tier: CustomerTier = CustomerTier.STANDARD
    lifetime_value: float = 0.0
    total_orders: int = 0
    customer_score: int = 50
    behavioral_segment: BehavioralSegment = BehavioralSegment.OPPORTUNIST
    acquisition_source: str | None = None
    discount_usage_rate: float = 0.0


class MembershipRecord(_Row):
    id: str
    customer_id: str
    membership_type: str = "plus"
    start_date: datetime
    end_date: datetime
    status: MembershipStatus = MembershipStatus.ACTIVE
    points_balance: int = 0


class ProductCategory(str, Enum):
    ELECTRONICS = "electronics"
    APPLIANCES = "appliances"
    SMART_HOME = "smart_home"
    AUDIO_VIDEO = "audio_video"
    COMPUTING = "computing"
    GAMING = "gaming"
    WEARABLES = "wearables"
    NETWORKING = "networking"


class ProductDetails(_Row):
    sku: str
    name: str
    category: ProductCategory
    brand: str
    base_price: float
    weight_lbs: float
    is_refurbished: bool = False
    warranty_period_days: int
    points_redemption_eligible: bool = True
    requires_installation: bool = False
