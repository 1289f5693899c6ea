"""Inventory (NetSuite) and the product catalog (Shopify PIM): read-only lookups by SKU."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.retail import models as m
from benchmark.domains.retail.common import iso, reference_errors
from benchmark.domains.retail.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

Sku = Annotated[str, Field(description="Product SKU")]


class InventoryOut(BaseModel):
    sku: str
    available_quantity: int
    reserved_quantity: int
    warehouse_location: str | None = None
    restock_date: str | None = None
    expected_restock_quantity: int | None = None


class ProductOut(BaseModel):
    sku: str
    name: str
    category: m.ProductCategory
    brand: str
    base_price: float
    weight_lbs: float
    is_refurbished: bool
    points_redemption_eligible: bool
    requires_installation: bool


@tools.tool(write=False)
async def check_inventory(ctx: ToolContext, sku: Sku) -> InventoryOut:
    """Stock of a SKU: available and reserved quantity, warehouse, restock date and quantity."""
    with reference_errors("check inventory"):
        record = await store.first_row(ctx.conn, sql["inventory_records"], sku=sku)
        if record is None:
            raise NotFound(f"SKU not found in inventory system: {sku}")
        return InventoryOut.model_validate({**record, "restock_date": iso(record["restock_date"])})


@tools.tool(write=False)
async def get_product_details(ctx: ToolContext, sku: Sku) -> ProductOut:
    """A product's catalog data: name, category, brand, price, weight, refurbished/points/install flags."""
    with reference_errors("retrieve product details"):
        product = await store.first_row(ctx.conn, sql["products"], sku=sku)
        if product is None:
            raise NotFound(f"Product SKU not found: {sku}")
        return ProductOut.model_validate(product)
