"""The CRM: customers."""

from __future__ import annotations

from typing import Any

from benchmark.domains import store
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry
from tests.benchmark.tiny_shop.schema import sql

__all__ = ["tools"]

tools = ToolRegistry(__name__)


@tools.tool(write=False)
async def get_customer(ctx: ToolContext, customer_id: str) -> dict[str, Any]:
    """A customer's profile: name, email and tier."""
    customer = await store.first_row(ctx.conn, sql["customers"], id=customer_id)
    if customer is None:
        raise NotFound(f"Customer {customer_id} not found")
    return customer
