"""The audit log: transactions, calls and commit attempts.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "guard_transactions",
        sa.Column("id", sa.String(128), primary_key=True),
        sa.Column("principal", sa.String(128), nullable=False),
        sa.Column("instance", sa.String(128), nullable=False),
        sa.Column("backend", sa.String(256), nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True)),
        sa.Column("close_reason", sa.Text),
        sa.Column("calls", sa.Integer, nullable=False),
        sa.Column("blocked_attempts", sa.Integer, nullable=False),
        sa.Column("summary", sa.Text),
    )
    op.create_index("ix_guard_transactions_status", "guard_transactions", ["status"])
    op.create_index("ix_guard_transactions_instance_status", "guard_transactions", ["instance", "status"])
    op.create_table(
        "guard_calls",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "transaction_id",
            sa.String(128),
            sa.ForeignKey("guard_transactions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("tool", sa.String(256), nullable=False),
        sa.Column("arguments", sa.JSON, nullable=False),
        sa.Column("write", sa.Boolean, nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("error_class", sa.String(32)),
        sa.Column("error_message", sa.Text),
        sa.Column("retries", sa.Integer, nullable=False),
        sa.Column("latency_ms", sa.Float, nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_guard_calls_transaction", "guard_calls", ["transaction_id", "seq"])
    op.create_table(
        "guard_commits",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "transaction_id",
            sa.String(128),
            sa.ForeignKey("guard_transactions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("via", sa.String(16), nullable=False),
        sa.Column("decision", sa.String(16), nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("findings", sa.JSON, nullable=False),
        sa.Column("effects", sa.JSON, nullable=False),
        sa.Column("summary", sa.Text),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("duration_ms", sa.Float, nullable=False),
    )
    op.create_index("ix_guard_commits_transaction", "guard_commits", ["transaction_id", "attempt"])


def downgrade() -> None:
    op.drop_table("guard_commits")
    op.drop_table("guard_calls")
    op.drop_table("guard_transactions")
