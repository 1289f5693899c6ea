"""The conversation a host hands over: the turns said before each call, commit attempt and rollback.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-05

Nullable JSON columns: rows written before this revision, and requests that hand
none over, hold none (read as None).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_COLUMNS = (("guard_calls", "turns"), ("guard_commits", "turns"), ("guard_transactions", "rollback_turns"))


def upgrade() -> None:
    for table, column in _COLUMNS:
        op.add_column(table, sa.Column(column, sa.JSON, nullable=True))


def downgrade() -> None:
    for table, column in _COLUMNS:
        with op.batch_alter_table(table) as batch:
            batch.drop_column(column)
