"""Tiny Shop's row models: a customer, an order, a refund."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel

__all__ = ["Customer", "Order", "OrderStatus", "Refund", "Tier"]


class Tier(StrEnum):
    STANDARD = "standard"
    VIP = "vip"


class OrderStatus(StrEnum):
    PLACED = "placed"
    SHIPPED = "shipped"
    CANCELLED = "cancelled"


class Customer(BaseModel):
    id: str
    name: str
    email: str
    tier: Tier = Tier.STANDARD


class Order(BaseModel):
    id: str
    customer_id: str
    status: OrderStatus
    total: float
    refunded: float = 0.0
    placed_at: datetime
    updated_at: datetime | None = None


class Refund(BaseModel):
    id: str
    order_id: str
    amount: float
    reason: str
    created_at: datetime
