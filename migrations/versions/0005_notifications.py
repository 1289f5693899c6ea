"""Webhook deliveries: each notice sent to each receiver, delivered or given up (a dead letter).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "guard_notifications",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("transaction_id", sa.String(128), nullable=False),
        sa.Column("event", sa.String(32), nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("error", sa.Text),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_guard_notifications_transaction", "guard_notifications", ["transaction_id", "at"])
    op.create_index("ix_guard_notifications_status", "guard_notifications", ["status", "at"])


def downgrade() -> None:
    op.drop_index("ix_guard_notifications_status", "guard_notifications")
    op.drop_index("ix_guard_notifications_transaction", "guard_notifications")
    op.drop_table("guard_notifications")
