"""A small order-support backend: orders, shipments with carrier status, support tickets.

It is the ``sql`` backend module ``guard demo`` and the quickstart serve:
``tools`` (the registry), ``metadata`` (the tables the guard captures),
``judges`` (what this business considers a bad end state: the CEL rule pack
``rules.yaml`` beside this file) and ``prepare`` (creates and seeds the
tables when they are missing).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import (
    Column,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from guard.errors import NotFound, PreconditionFailed
from guard.tools import ToolContext, ToolRegistry
from judges import load_rule_pack

__all__ = ["judges", "metadata", "prepare", "tools"]

metadata = MetaData()

orders = Table(
    "orders",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("customer", String(128), nullable=False),
    Column("status", String(32), nullable=False),
    Column("total", Integer, nullable=False),
)

shipments = Table(
    "shipments",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("order_id", String(32), ForeignKey("orders.id"), nullable=False, index=True),
    Column("carrier", String(32), nullable=False),
    Column("carrier_status", String(32), nullable=False),
)

tickets = Table(
    "tickets",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("order_id", String(32), ForeignKey("orders.id"), nullable=False, index=True),
    Column("subject", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("note", Text),
)

TicketStatus = Literal["new", "open", "pending", "hold", "solved", "closed"]
CarrierStatus = Literal["in_transit", "exception", "delivered", "returned"]

tools = ToolRegistry("guard-demo")
judges = [load_rule_pack(Path(__file__).with_name("rules.yaml"))]


class Order(BaseModel):
    id: str
    customer: str
    status: str
    total: int


class Shipment(BaseModel):
    id: str
    order_id: str
    carrier: str
    carrier_status: str


class Ticket(BaseModel):
    id: int
    order_id: str
    subject: str
    status: str
    note: str | None = None


class Shipments(BaseModel):
    order_id: str
    shipments: list[Shipment]


async def _ticket(conn: AsyncConnection, ticket_id: int) -> Ticket:
    row = (await conn.execute(select(tickets).where(tickets.c.id == ticket_id))).first()
    if row is None:
        raise NotFound(f"ticket {ticket_id} not found")
    return Ticket.model_validate(dict(row._mapping))


@tools.tool(write=False)
async def get_order(
    ctx: ToolContext, order_id: Annotated[str, Field(description="e.g. ORD-10000020")]
) -> Order:
    """Look up an order by id."""
    row = (await ctx.conn.execute(select(orders).where(orders.c.id == order_id))).first()
    if row is None:
        raise NotFound(f"order {order_id} not found")
    return Order.model_validate(dict(row._mapping))


@tools.tool(write=False)
async def get_shipments(ctx: ToolContext, order_id: str) -> Shipments:
    """The shipments of an order with each one's carrier status."""
    rows = await ctx.conn.execute(
        select(shipments).where(shipments.c.order_id == order_id).order_by(shipments.c.id)
    )
    return Shipments(order_id=order_id, shipments=[Shipment.model_validate(dict(r._mapping)) for r in rows])


@tools.tool(write=False)
async def get_ticket(ctx: ToolContext, ticket_id: int) -> Ticket:
    """Look up a support ticket by id."""
    return await _ticket(ctx.conn, ticket_id)


@tools.tool(write=True)
async def create_ticket(
    ctx: ToolContext,
    order_id: str,
    subject: Annotated[str, Field(min_length=1, max_length=500)],
    status: TicketStatus = "open",
) -> Ticket:
    """Open a support ticket about an order."""
    if (await ctx.conn.execute(select(orders.c.id).where(orders.c.id == order_id))).first() is None:
        raise NotFound(f"order {order_id} not found")
    next_id = (await ctx.conn.execute(select(func.coalesce(func.max(tickets.c.id), 0) + 1))).scalar_one()
    await ctx.conn.execute(
        insert(tickets).values(id=next_id, order_id=order_id, subject=subject, status=status)
    )
    return await _ticket(ctx.conn, next_id)


@tools.tool(write=True, idempotent=True)
async def update_ticket(
    ctx: ToolContext,
    ticket_id: int,
    status: TicketStatus,
    note: Annotated[str | None, Field(max_length=2000)] = None,
) -> Ticket:
    """Set a ticket's status, with an optional internal note."""
    ticket = await _ticket(ctx.conn, ticket_id)
    if ticket.status == "closed":
        raise PreconditionFailed(f"ticket {ticket_id} is closed and cannot change")
    values: dict[str, object] = {"status": status}
    if note is not None:
        values["note"] = note
    await ctx.conn.execute(update(tickets).where(tickets.c.id == ticket_id).values(**values))
    return await _ticket(ctx.conn, ticket_id)


@tools.tool(write=True, idempotent=True)
async def update_carrier_status(
    ctx: ToolContext, shipment_id: str, carrier_status: CarrierStatus
) -> Shipment:
    """Record a carrier's new status for a shipment."""
    result = await ctx.conn.execute(
        update(shipments).where(shipments.c.id == shipment_id).values(carrier_status=carrier_status)
    )
    if result.rowcount == 0:
        raise NotFound(f"shipment {shipment_id} not found")
    row = (await ctx.conn.execute(select(shipments).where(shipments.c.id == shipment_id))).one()
    return Shipment.model_validate(dict(row._mapping))


SEED: dict[str, list[dict[str, Any]]] = {
    "orders": [
        {"id": "ORD-10000020", "customer": "Dana Whitfield", "status": "shipped", "total": 1299},
        {"id": "ORD-10000021", "customer": "Luis Ortega", "status": "delivered", "total": 349},
    ],
    "shipments": [
        {"id": "SHP-20000020", "order_id": "ORD-10000020", "carrier": "UPS", "carrier_status": "exception"},
        {"id": "SHP-20000021", "order_id": "ORD-10000021", "carrier": "FedEx", "carrier_status": "delivered"},
    ],
    "tickets": [
        {
            "id": 20,
            "order_id": "ORD-10000020",
            "subject": "Package stuck, carrier says address problem",
            "status": "open",
            "note": None,
        },
        {
            "id": 21,
            "order_id": "ORD-10000021",
            "subject": "Where is my receipt?",
            "status": "open",
            "note": None,
        },
    ],
}


async def prepare(conn: AsyncConnection) -> None:
    """Create the demo tables and seed them if they are empty."""
    await conn.run_sync(metadata.create_all)
    if (await conn.execute(select(func.count()).select_from(orders))).scalar_one() == 0:
        for table in (orders, shipments, tickets):
            await conn.execute(insert(table), SEED[table.name])
