"""Webhook deliveries in ``guard_notifications`` (:class:`guard.notify.Deliveries`)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.notify import Delivery
from guard.store.tables import notifications

__all__ = ["SqlDeliveries"]


class SqlDeliveries:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def record(self, delivery: Delivery) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(
                insert(notifications).values(
                    id=delivery.id,
                    transaction_id=delivery.transaction_id,
                    event=delivery.event,
                    url=delivery.url,
                    status=delivery.status,
                    attempts=delivery.attempts,
                    error=delivery.error,
                    at=delivery.at,
                )
            )

    async def of(self, transaction_id: str) -> list[Delivery]:
        query = (
            select(notifications)
            .where(notifications.c.transaction_id == transaction_id)
            .order_by(notifications.c.at, notifications.c.id)
        )
        async with self._engine.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [
            Delivery(
                id=r["id"],
                transaction_id=r["transaction_id"],
                event=r["event"],
                url=r["url"],
                status=r["status"],
                attempts=r["attempts"],
                error=r["error"],
                at=_utc(r["at"]),
            )
            for r in rows
        ]


def _utc(value: datetime) -> datetime:
    """SQLite keeps no zone: its times are the UTC ones the guard wrote."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
