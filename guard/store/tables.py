"""The guard's own tables: the audit log of transactions, calls and commit attempts, and the outbox.

Alembic migrations in ``migrations/`` create and evolve these; the store
reads and writes them through SQLAlchemy Core. JSON columns hold arguments,
findings, effects, what a commit dispatched and the conversation's turns handed
over with a call, a commit attempt or a rollback (None: none handed over) as
they were at the time; text
and JSON an agent chose are made storable on their way in (:mod:`guard.store.storable`).
``guard_outbox`` holds the writes of ``mcp`` transactions (:mod:`guard.backends.outbox`);
``guard_instances`` the guard processes that have run on this store (:mod:`guard.lease`);
``guard_notifications`` every webhook delivery and whether it arrived (:mod:`guard.notify`).
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
)

from guard.store.storable import StorableJSON, StorableText

__all__ = ["calls", "commits", "instances", "metadata", "notifications", "outbox", "transactions"]

metadata = MetaData()

transactions = Table(
    "guard_transactions",
    metadata,
    Column("id", String(128), primary_key=True),
    Column("principal", String(128), nullable=False),
    Column("instance", String(128), nullable=False),
    Column("backend", String(256), nullable=False),
    Column("status", String(32), nullable=False),
    Column("opened_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("closed_at", DateTime(timezone=True)),
    Column("close_reason", StorableText),
    Column("calls", Integer, nullable=False, default=0),
    Column("blocked_attempts", Integer, nullable=False, default=0),
    Column("summary", StorableText),
    Column("rollback_turns", StorableJSON),
    Column("claims", StorableJSON),
    Index("ix_guard_transactions_status", "status"),
    Index("ix_guard_transactions_instance_status", "instance", "status"),
)

calls = Table(
    "guard_calls",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column(
        "transaction_id", String(128), ForeignKey("guard_transactions.id", ondelete="CASCADE"), nullable=False
    ),
    Column("seq", Integer, nullable=False),
    Column("tool", String(256), nullable=False),
    Column("arguments", StorableJSON, nullable=False),
    Column("write", Boolean, nullable=False),
    Column("outcome", String(16), nullable=False),
    Column("error_class", String(32)),
    Column("error_message", StorableText),
    Column("retries", Integer, nullable=False, default=0),
    Column("latency_ms", Float, nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("turns", StorableJSON),
    Index("ix_guard_calls_transaction", "transaction_id", "seq"),
)

commits = Table(
    "guard_commits",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column(
        "transaction_id", String(128), ForeignKey("guard_transactions.id", ondelete="CASCADE"), nullable=False
    ),
    Column("attempt", Integer, nullable=False),
    Column("via", String(32), nullable=False),
    Column("decision", String(16), nullable=False),
    Column("status", String(32), nullable=False),
    Column("findings", StorableJSON, nullable=False),
    Column("effects", StorableJSON, nullable=False),
    Column("summary", StorableText),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("duration_ms", Float, nullable=False),
    Column("dispatch", StorableJSON),
    Column("turns", StorableJSON),
    Index("ix_guard_commits_transaction", "transaction_id", "attempt", unique=True),
)

instances = Table(
    "guard_instances",
    metadata,
    Column("instance", String(128), primary_key=True),
    Column("host", String(256), nullable=False),
    Column("pid", Integer, nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("heartbeat_at", DateTime(timezone=True), nullable=False),
    Column("stopped_at", DateTime(timezone=True)),
)

outbox = Table(
    "guard_outbox",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("transaction_id", String(128), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("tool", String(256), nullable=False),
    Column("arguments", StorableJSON, nullable=False),
    Column("mode", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("instance", String(128), nullable=False),
    Column("attempts", Integer, nullable=False, default=0),
    Column("error_class", String(32)),
    Column("error", StorableText),
    Column("result", StorableJSON),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("committed_at", DateTime(timezone=True)),
    Column("lease_until", DateTime(timezone=True)),
    Index("ix_guard_outbox_transaction", "transaction_id", "seq"),
    Index("ix_guard_outbox_status", "status", "lease_until"),
)

notifications = Table(
    "guard_notifications",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("transaction_id", String(128), nullable=False),
    Column("event", String(32), nullable=False),
    Column("url", StorableText, nullable=False),
    Column("status", String(16), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("error", StorableText),
    Column("at", DateTime(timezone=True), nullable=False),
    Index("ix_guard_notifications_transaction", "transaction_id", "at"),
    Index("ix_guard_notifications_status", "status", "at"),
)
