"""Commit attempts are written before the system of record commits (one row per attempt), and live instances.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_guard_commits_transaction", table_name="guard_commits")
    op.create_index(
        "ix_guard_commits_transaction", "guard_commits", ["transaction_id", "attempt"], unique=True
    )
    with op.batch_alter_table("guard_commits") as batch:
        batch.alter_column("via", type_=sa.String(32), existing_type=sa.String(16))
    op.create_table(
        "guard_instances",
        sa.Column("instance", sa.String(128), primary_key=True),
        sa.Column("host", sa.String(256), nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("stopped_at", sa.DateTime(timezone=True)),
    )


def downgrade() -> None:
    op.drop_table("guard_instances")
    with op.batch_alter_table("guard_commits") as batch:
        batch.alter_column("via", type_=sa.String(16), existing_type=sa.String(32))
    op.drop_index("ix_guard_commits_transaction", table_name="guard_commits")
    op.create_index("ix_guard_commits_transaction", "guard_commits", ["transaction_id", "attempt"])
