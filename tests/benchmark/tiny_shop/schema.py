"""Tiny Shop's tables (seed files beside this package) and their SQL tables."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import MetaData

from benchmark.domains.base import TableNaming
from benchmark.domains.declare import Tables
from tests.benchmark.tiny_shop import models as m

__all__ = ["TABLES", "sql"]

metadata = MetaData()

# the seeds ship with the domain, so their folder is absolute
_table = TableNaming(str(Path(__file__).with_name("seeds")), benchmark="tiny_shop_{system}_{stem}")

TABLES = Tables.of(
    metadata,
    (
        _table("crm", "customers", m.Customer),
        _table("oms", "orders", m.Order, indexes=(("customer_id",),)),
        _table("payments", "refunds", m.Refund, indexes=(("order_id",),)),
    ),
)
"""The tables in creation order; ``indexes`` are the columns the judges read by equality."""

sql = TABLES.sql
"""SQL tables by our table name."""
