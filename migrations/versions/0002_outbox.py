"""The outbox of mcp transactions, and what each commit dispatched.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "guard_outbox",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("transaction_id", sa.String(128), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("tool", sa.String(256), nullable=False),
        sa.Column("arguments", sa.JSON, nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("instance", sa.String(128), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("error_class", sa.String(32)),
        sa.Column("error", sa.Text),
        sa.Column("result", sa.JSON),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("committed_at", sa.DateTime(timezone=True)),
        sa.Column("lease_until", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_guard_outbox_transaction", "guard_outbox", ["transaction_id", "seq"])
    op.create_index("ix_guard_outbox_status", "guard_outbox", ["status", "lease_until"])
    op.add_column("guard_commits", sa.Column("dispatch", sa.JSON))


def downgrade() -> None:
    with op.batch_alter_table("guard_commits") as batch:
        batch.drop_column("dispatch")
    op.drop_table("guard_outbox")
