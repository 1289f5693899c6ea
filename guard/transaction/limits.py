"""What one agent and one transaction may use: pure checks, each a refusal text or None.

An agent's limits are its :class:`Quota`: ``limits``' defaults, with those the first entry of
``limits.principals`` that matches it (by name, or by a value of one of its token's claims) sets
(:func:`quota_for`); each refusal names the setting that set the limit it met. Calls per minute are
counted per agent across its transactions (:class:`CallRate`, on this replica).

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
import math
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from guard.identity.principal import claim_values
from guard.settings import LimitSettings, PrincipalLimits
from guard.store.storable import nesting

__all__ = [
    "ArgumentsMeasured",
    "CallRate",
    "Quota",
    "call_refusal",
    "measure_arguments",
    "open_refusal",
    "quota_for",
    "rate_refusal",
]

_QUOTA_FIELDS = (
    "max_open_per_agent",
    "calls_per_minute_per_agent",
    "max_calls_per_transaction",
    "max_argument_bytes_per_transaction",
)
_WINDOW_S = 60.0


@dataclass(frozen=True, slots=True)
class Quota:
    """One agent's limits, and for each the setting it came from (``limits.<name>`` or
    ``limits.principals[i].<name>``)."""

    max_open_per_agent: int
    calls_per_minute_per_agent: int
    max_calls_per_transaction: int
    max_argument_bytes_per_transaction: int
    sources: Mapping[str, str]

    def source(self, name: str) -> str:
        return self.sources.get(name, f"limits.{name}")


def _matches(entry: PrincipalLimits, principal: str, claims: Mapping[str, Any]) -> bool:
    match = entry.match
    if match.principal is not None:
        return match.principal == principal
    return match.claim is not None and match.value in claim_values(claims, match.claim)


def quota_for(principal: str, claims: Mapping[str, Any], limits: LimitSettings) -> Quota:
    """The limits of the agent ``principal`` whose token carried ``claims`` (module docstring)."""
    values = {name: getattr(limits, name) for name in _QUOTA_FIELDS}
    sources: dict[str, str] = {}
    for index, entry in enumerate(limits.principals):
        if _matches(entry, principal, claims):
            for name in _QUOTA_FIELDS:
                if (value := getattr(entry, name)) is not None:
                    values[name] = value
                    sources[name] = f"limits.principals[{index}].{name}"
            break
    return Quota(**values, sources=sources)


class CallRate:
    """The calls each agent made in the last minute: a log of their times per agent, never longer
    than its limit, so memory is bounded by the agents that called within the minute."""

    def __init__(self) -> None:
        self._calls: dict[str, deque[float]] = {}

    def admit(self, principal: str, limit: int, now: float) -> float | None:
        """Count one call of ``principal`` at ``now`` (monotonic seconds) and say None, or say how many
        seconds until its oldest counted call leaves the window (the call is then not counted).
        ``limit`` 0: no limit, nothing kept."""
        if limit <= 0:
            return None
        log = self._calls.get(principal)
        if log is None:
            if len(self._calls) >= 10_000:
                self._forget(now)
            log = self._calls[principal] = deque()
        while log and log[0] <= now - _WINDOW_S:
            log.popleft()
        while len(log) > limit:  # the limit was lowered
            log.popleft()
        if len(log) >= limit:
            return log[0] + _WINDOW_S - now
        log.append(now)
        return None

    def _forget(self, now: float) -> None:
        for principal, log in list(self._calls.items()):
            if not log or log[-1] <= now - _WINDOW_S:
                del self._calls[principal]


def rate_refusal(principal: str, wait_s: float, quota: Quota) -> str:
    """The refusal of a call over the agent's calls per minute."""
    limit = quota.calls_per_minute_per_agent
    return (
        f"agent {principal!r} has made {limit} calls in the last minute, the limit "
        f"({quota.source('calls_per_minute_per_agent')}); nothing was run or changed. "
        f"Try again in {max(1, math.ceil(wait_s))} s."
    )


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
    principal: str, open_total: int, open_by_principal: int, quota: Quota, max_open: int
) -> str | None:
    """Why a new transaction may not open now, or None."""
    if open_total >= max_open:
        return (
            f"{open_total} transactions are open, the limit is {max_open} "
            "(backend.max_open_transactions); commit or roll back one first"
        )
    if open_by_principal >= quota.max_open_per_agent:
        return (
            f"agent {principal!r} has {open_by_principal} open transactions, the limit is "
            f"{quota.max_open_per_agent} ({quota.source('max_open_per_agent')}); commit or roll back "
            "one first"
        )
    return None


def call_refusal(
    transaction_id: str, calls: int, spent_bytes: int, call_bytes: int, quota: Quota
) -> str | None:
    """Why a transaction may not take one more call of ``call_bytes`` argument bytes, or None."""
    if calls >= quota.max_calls_per_transaction:
        return (
            f"transaction {transaction_id} has made {calls} calls, the limit is "
            f"{quota.max_calls_per_transaction} ({quota.source('max_calls_per_transaction')}); nothing "
            "was changed. Commit or roll back this transaction and continue in a new one."
        )
    if spent_bytes + call_bytes > quota.max_argument_bytes_per_transaction:
        return (
            f"transaction {transaction_id} would hold {spent_bytes + call_bytes} bytes of call arguments, "
            f"the limit is {quota.max_argument_bytes_per_transaction} "
            f"({quota.source('max_argument_bytes_per_transaction')}); nothing was changed. "
            "Commit or roll back this transaction and continue in a new one."
        )
    return None
