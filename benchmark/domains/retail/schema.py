"""The retail domain's tables and tool registry (the systems' modules add their tools to it)."""

from __future__ import annotations

from types import MappingProxyType

from pydantic import BaseModel
from sqlalchemy import MetaData

from benchmark.domains.base import TableDef, envelope_error_text, sql_table
from benchmark.domains.knowledge import documents_table
from benchmark.domains.retail import models as m
from benchmark.domains.zendesk import ZendeskVariant, zendesk_toolset
from guard.tools import ToolRegistry

__all__ = ["DOMAIN_NAME", "TABLE_DEFS", "ZENDESK", "documents", "metadata", "registry", "sql"]

DOMAIN_NAME = "sandbox_external_retail"

metadata = MetaData()
registry = ToolRegistry(DOMAIN_NAME, error_text=envelope_error_text)

ZENDESK = ZendeskVariant(
    null_clears=MappingProxyType({"tickets": ("tags",), "organizations": ("domain_names",)})
)
"""Retail's Zendesk: the base ticket model, no status-violation audit, ``null`` clears list fields."""

zendesk = zendesk_toolset(ZENDESK, metadata, registry)


def _table(
    name: str,
    system: str,
    stem: str,
    model: type[BaseModel],
    key: tuple[str, ...] = ("id",),
    indexes: tuple[tuple[str, ...], ...] = (),
) -> TableDef:
    return TableDef(
        name=name,
        benchmark_name=f"external_retail_toolset_{system}_models_{stem}",
        model=model,
        key=key,
        seed=f"external_retail_toolset/{system}/initial_data/{stem}.json",
        indexes=indexes,
    )


TABLE_DEFS: tuple[TableDef, ...] = (
    *zendesk.defs,
    _table("orders", "oms", "orders", m.Order, indexes=(("customer_id",),)),
    _table("carrier_tracking", "oms", "carrier_tracking", m.CarrierTracking, ("tracking_number",)),
    _table("shipments", "oms", "shipments", m.Shipment, indexes=(("order_id",),)),
    _table("order_line_items", "oms", "order_line_items", m.OrderLineItem, indexes=(("order_id",), ("sku",))),
    _table(
        "payment_transactions",
        "stripe",
        "payment_transactions",
        m.PaymentTransaction,
        indexes=(("order_id",),),
    ),
    _table("refunds", "stripe", "refunds", m.Refund, indexes=(("order_id",),)),
    _table("warranty_contracts", "extend", "warranty_contracts", m.WarrantyContract),
    _table("warranty_claims", "extend", "warranty_claims", m.WarrantyClaim),
    _table("installation_jobs", "jobber", "installation_jobs", m.InstallationJob, indexes=(("order_id",),)),
    _table("rma_records", "loop_returns", "rma_records", m.RMARecord, indexes=(("line_item_id",),)),
    _table("inventory_records", "netsuite", "inventory_records", m.InventoryRecord, ("sku",)),
    _table("discount_applications", "promo", "discount_applications", m.DiscountApplication),
    _table("active_promotions", "promo", "active_promotions", m.ActivePromotion),
    _table(
        "membership_records",
        "salesforce",
        "membership_records",
        m.MembershipRecord,
        indexes=(("customer_id", "status"),),
    ),
    _table("customer_profiles", "salesforce", "customer_profiles", m.CustomerProfile, indexes=(("email",),)),
    _table("products", "shopify_pim", "products", m.ProductDetails, ("sku",)),
)
"""The tables in creation order; ``indexes`` are the columns the commit gate's judges read by equality."""

sql = MappingProxyType(
    {
        **{f"zendesk_{name}": table for name, table in zendesk.sql.items()},
        **{d.name: sql_table(d, metadata) for d in TABLE_DEFS if d not in zendesk.defs},
    }
)
"""SQL tables by our table name."""

documents = documents_table(metadata)
