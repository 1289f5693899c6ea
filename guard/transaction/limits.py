"""What one agent and one transaction may use: pure checks, each a refusal text or None.

The guard holds every open transaction's connection, trace and arguments in
memory, and logs every argument; without limits one agent could hold every
transaction slot, or grow one transaction by hundreds of megabytes. A refusal
changes nothing and says what to do instead. Every call counts, valid or not:
a call refused for its arguments is recorded too, so it spends the
transaction's calls and bytes like any other.

Arguments must also be JSON data the guard can carry to a tool, a judge and
the audit log (:func:`measure_arguments`): no ``NaN`` or ``Infinity`` (not JSON
numbers), no unpaired surrogate (not Unicode text), and no deeper nesting than
``limits.max_argument_depth``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from guard.settings import LimitSettings
from guard.store.storable import nesting

__all__ = ["ArgumentsMeasured", "call_refusal", "measure_arguments", "open_refusal"]


@dataclass(frozen=True, slots=True)
class ArgumentsMeasured:
    """A call's arguments as the limits see them: their size as compact JSON text (UTF-8), and why
    they are not JSON data the guard takes (None when they are)."""

    size: int
    problem: str | None = None


def measure_arguments(arguments: Mapping[str, Any], max_depth: int) -> ArgumentsMeasured:
    """The size of ``arguments`` and what is wrong with them, if anything (module docstring)."""
    try:
        text = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except RecursionError:
        return ArgumentsMeasured(0, _too_deep(max_depth))
    except (ValueError, TypeError):
        loose = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False, default=str)
        size = len(loose.encode(errors="surrogatepass"))
        return ArgumentsMeasured(size, "the arguments hold a number JSON cannot carry (NaN or Infinity)")
    try:
        size = len(text.encode())
    except UnicodeEncodeError:
        size = len(text.encode(errors="surrogatepass"))
        return ArgumentsMeasured(
            size, "the arguments hold text that is not valid Unicode (an unpaired surrogate)"
        )
    if text.count("{") + text.count("[") > max_depth and nesting(arguments, max_depth + 1) > max_depth:
        return ArgumentsMeasured(size, _too_deep(max_depth))
    return ArgumentsMeasured(size)


def _too_deep(max_depth: int) -> str:
    return f"the arguments nest deeper than {max_depth} levels (limits.max_argument_depth)"


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
