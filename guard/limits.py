"""What one agent and one transaction may use: pure checks, each a refusal text or None.

The guard holds every open transaction's connection, trace and arguments in
memory, and logs every argument; without limits one agent could hold every
transaction slot, or grow one transaction by hundreds of megabytes. A refusal
changes nothing and says what to do instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from guard.settings import LimitSettings

__all__ = ["argument_bytes", "call_refusal", "open_refusal"]


def argument_bytes(arguments: Mapping[str, Any]) -> int:
    """The size of a call's arguments as compact JSON text (UTF-8), as the audit log stores them."""
    return len(json.dumps(arguments, separators=(",", ":"), ensure_ascii=False, default=str).encode())


def open_refusal(
    principal: str, open_total: int, open_by_principal: int, limits: LimitSettings, max_open: int
) -> str | None:
    """Why a new transaction may not open now, or None."""
    if open_total >= max_open:
        return (
            f"{open_total} transactions are open, the limit is {max_open} "
            "(backend.max_open_transactions); commit or roll back one first"
        )
    if open_by_principal >= limits.max_open_per_agent:
        return (
            f"agent {principal!r} has {open_by_principal} open transactions, the limit is "
            f"{limits.max_open_per_agent} (limits.max_open_per_agent); commit or roll back one first"
        )
    return None


def call_refusal(
    transaction_id: str, calls: int, spent_bytes: int, call_bytes: int, limits: LimitSettings
) -> str | None:
    """Why a transaction may not take one more call of ``call_bytes`` argument bytes, or None."""
    if calls >= limits.max_calls_per_transaction:
        return (
            f"transaction {transaction_id} has made {calls} calls, the limit is "
            f"{limits.max_calls_per_transaction} (limits.max_calls_per_transaction); nothing was changed. "
            "Commit or roll back this transaction and continue in a new one."
        )
    if spent_bytes + call_bytes > limits.max_argument_bytes_per_transaction:
        return (
            f"transaction {transaction_id} would hold {spent_bytes + call_bytes} bytes of call arguments, "
            f"the limit is {limits.max_argument_bytes_per_transaction} "
            "(limits.max_argument_bytes_per_transaction); nothing was changed. "
            "Commit or roll back this transaction and continue in a new one."
        )
    return None
