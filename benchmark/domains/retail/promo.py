"""Promotions: discount applications of orders and promotion codes.

``get_promotion_details`` finds a code whose validity window contains *now*;
the reference reads the wall clock there, we use the scenario clock
(2025-10-01T13:00Z). An order without a discount application gets an empty
application (id ``""``), not an error, as in the reference.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.retail import models as m
from benchmark.domains.retail.common import SCENARIO_NOW, iso, parse_datetime, reference_errors
from benchmark.domains.retail.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)


class DiscountApplicationOut(BaseModel):
    discount_app_id: str
    order_id: str
    promo_code_used: str | None = None
    points_used: int
    loyalty_discount_applied: bool
    total_discount_amount: float
    stacking_rule_applied: str | None = None


class PromotionOut(BaseModel):
    promo_id: str
    promo_code: str
    discount_type: m.DiscountType
    discount_value: float
    stackable_with_points: bool
    stackable_with_loyalty: bool
    excluded_skus: list[str] | None = None
    valid_from: str
    valid_until: str


@tools.tool(write=False)
async def get_discount_application(ctx: ToolContext, order_id: str) -> DiscountApplicationOut:
    """How discounts were applied to an order: promo code, points, loyalty pricing, stacking rule."""
    with reference_errors("retrieve discount application"):
        found = await store.first_row(ctx.conn, sql["discount_applications"], order_id=order_id)
        if found is None:
            return DiscountApplicationOut(
                discount_app_id="",
                order_id=order_id,
                points_used=0,
                loyalty_discount_applied=False,
                total_discount_amount=0.0,
            )
        return DiscountApplicationOut.model_validate({**found, "discount_app_id": found["id"]})


@tools.tool(write=False)
async def get_promotion_details(
    ctx: ToolContext, promo_code: Annotated[str, Field(description="Promotion code, e.g. WELCOME10")]
) -> PromotionOut:
    """A currently valid promotion by code: discount, stacking rules, excluded SKUs, validity window."""
    with reference_errors("retrieve promotion details"):
        for promo in await store.all_rows(ctx.conn, sql["active_promotions"], promo_code=promo_code):
            if parse_datetime(promo["valid_from"]) <= SCENARIO_NOW <= parse_datetime(promo["valid_until"]):
                return PromotionOut(
                    promo_id=promo["id"],
                    promo_code=promo["promo_code"],
                    discount_type=promo["discount_type"],
                    discount_value=promo["discount_value"],
                    stackable_with_points=promo["stackable_with_points"],
                    stackable_with_loyalty=promo["stackable_with_loyalty"],
                    excluded_skus=promo["excluded_skus"] or None,
                    valid_from=str(iso(promo["valid_from"])),
                    valid_until=str(iso(promo["valid_until"])),
                )
        raise NotFound(f"Promotion code not found or expired: {promo_code}")
