"""The retail domain's tables (its seeds, its Zendesk variant's tables) and their SQL tables."""

from __future__ import annotations

from types import MappingProxyType

from sqlalchemy import MetaData

from benchmark.domains.base import TableNaming
from benchmark.domains.declare import Tables
from benchmark.domains.retail import models as m
from benchmark.domains.zendesk import ZendeskVariant, zendesk_tables

__all__ = ["TABLES", "ZENDESK", "sql"]

metadata = MetaData()

ZENDESK = zendesk_tables(
    ZendeskVariant(null_clears=MappingProxyType({"tickets": ("tags",), "organizations": ("domain_names",)})),
    metadata,
)
"""Retail's Zendesk: the base ticket model, no status-violation audit, ``null`` clears list fields."""

_table = TableNaming("external_retail_toolset", benchmark="external_retail_toolset_{system}_models_{stem}")

TABLES = Tables.of(
    metadata,
    (
        *ZENDESK.defs,
        _table("oms", "orders", m.Order, indexes=(("customer_id",),)),
        _table("oms", "carrier_tracking", m.CarrierTracking, key=("tracking_number",)),
        _table("oms", "shipments", m.Shipment, indexes=(("order_id",),)),
        _table("oms", "order_line_items", m.OrderLineItem, indexes=(("order_id",), ("sku",))),
        _table("stripe", "payment_transactions", m.PaymentTransaction, indexes=(("order_id",),)),
        _table("stripe", "refunds", m.Refund, indexes=(("order_id",),)),
        _table("extend", "warranty_contracts", m.WarrantyContract),
        _table("extend", "warranty_claims", m.WarrantyClaim),
        _table("jobber", "installation_jobs", m.InstallationJob, indexes=(("order_id",),)),
        _table("loop_returns", "rma_records", m.RMARecord, indexes=(("line_item_id",),)),
        _table("netsuite", "inventory_records", m.InventoryRecord, key=("sku",)),
        _table("promo", "discount_applications", m.DiscountApplication),
        _table("promo", "active_promotions", m.ActivePromotion),
        _table("salesforce", "membership_records", m.MembershipRecord, indexes=(("customer_id", "status"),)),
        _table("salesforce", "customer_profiles", m.CustomerProfile, indexes=(("email",),)),
        _table("shopify_pim", "products", m.ProductDetails, key=("sku",)),
    ),
)
"""The tables in creation order; ``indexes`` are the columns the commit gate's judges read by equality."""

sql = TABLES.sql
"""SQL tables by our table name."""
