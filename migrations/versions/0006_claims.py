"""The claims of a transaction's principal (a verified JWT's kept claims).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05

A nullable JSON column: transactions of static tokens, and rows written before this
revision, hold none (read as None).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("guard_transactions", sa.Column("claims", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("guard_transactions") as batch:
        batch.drop_column("claims")
