"""Failed authentications counted per source, and which source (and scheme) a request comes from.

A source is the peer's address (an IPv6 peer by its /64, the least a host is given), or, when the
peer is one of ``server.trusted_proxies``, the address its ``X-Forwarded-For`` names: the
rightmost entry that is not itself a trusted proxy. The header is ignored from any other peer, so a
client cannot pick its own source. Likewise only a trusted proxy's ``X-Forwarded-Proto`` says
whether the client used https (:func:`forwarded_scheme`).

:class:`Failures` keeps one number per key (the generic cell rate algorithm): a key may fail
``burst`` times at once, then once per ``window_s / burst`` seconds, and its budget is whole again
``window_s`` after its last failure. :meth:`Failures.wait` says how long a key that is over its
budget must wait; the door answers it 429 without looking at what it sent, so that a right guess
cannot be told from a wrong one. Successes are not counted. At most ``capacity`` keys are kept;
past that the key that failed longest ago is forgotten (it gets a whole budget again: whoever holds
that many addresses has that many budgets anyway), so memory does not grow with the number of
sources. Time comes from a :class:`~guard.clock.Clock`.
"""

from __future__ import annotations

import ipaddress
from collections import OrderedDict
from collections.abc import Hashable, Sequence

from starlette.types import Scope

from guard.clock import Clock

__all__ = ["Failures", "Network", "forwarded_scheme", "networks", "source_of"]

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
_IPV6_HOST_PREFIX = 64


class Failures:
    """A budget of failures per key, refilled over time, in a table of bounded size."""

    def __init__(self, burst: int, window_s: float, clock: Clock, *, capacity: int = 10_000) -> None:
        if burst < 1 or window_s <= 0 or capacity < 1:
            raise ValueError("burst and capacity must be at least 1, window_s above 0")
        self._interval = window_s / burst
        self._tolerance = window_s - self._interval
        self._clock = clock
        self._capacity = capacity
        self._due: OrderedDict[Hashable, float] = OrderedDict()
        """Per key, when its budget is whole again; oldest failure first."""

    def __len__(self) -> int:
        return len(self._due)

    def wait(self, key: Hashable) -> float:
        """Seconds until ``key`` may try again: 0 when it may now."""
        due = self._due.get(key)
        if due is None:
            return 0.0
        return max(0.0, due - self._clock.monotonic() - self._tolerance)

    def failed(self, key: Hashable) -> float:
        """Count one failure of ``key``; how long it must now wait (as :meth:`wait`)."""
        now = self._clock.monotonic()
        due = self._due.pop(key, now)
        self._forget_oldest(now)
        # capped: failures counted while over the budget never push it further than one window away
        self._due[key] = min(max(due, now) + self._interval, now + self._interval + self._tolerance)
        return self.wait(key)

    def _forget_oldest(self, now: float) -> None:
        """Drop keys whose budget is whole again, and the oldest ones while the table is full."""
        while self._due:
            key, due = next(iter(self._due.items()))
            if due > now and len(self._due) < self._capacity:
                return
            del self._due[key]


def networks(entries: Sequence[str]) -> tuple[Network, ...]:
    """``server.trusted_proxies`` parsed (the settings checked their form)."""
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in entries)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _trusted(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address | None, proxies: Sequence[Network]
) -> bool:
    return address is not None and any(address in network for network in proxies)


def _forwarded(scope: Scope) -> list[str]:
    values = [
        value.decode("latin-1") for name, value in scope.get("headers", ()) if name == b"x-forwarded-for"
    ]
    return [entry.strip() for entry in ",".join(values).split(",") if entry.strip()]


def _peer(scope: Scope) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    client = scope.get("client")
    return _address(str(client[0])) if client else None


def forwarded_scheme(scope: Scope, proxies: Sequence[Network]) -> str | None:
    """``http`` or ``https`` as a trusted proxy's X-Forwarded-Proto says; None from anyone else."""
    if not _trusted(_peer(scope), proxies):
        return None
    for name, value in scope.get("headers", ()):
        if name == b"x-forwarded-proto":
            scheme = value.decode("latin-1").split(",")[-1].strip().lower()
            return scheme if scheme in ("http", "https") else None
    return None


def source_of(scope: Scope, proxies: Sequence[Network] = ()) -> str:
    """The source a request is counted under (see the module's docstring); ``unknown`` without a peer."""
    client = scope.get("client")
    peer = _peer(scope)
    if _trusted(peer, proxies):
        for entry in reversed(_forwarded(scope)):
            named = _address(entry)
            if named is None:
                break  # a malformed hop: believe nothing further left of it
            peer = named
            if not _trusted(named, proxies):
                break
    if peer is None:
        return str(client[0]) if client else "unknown"
    if isinstance(peer, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((peer, _IPV6_HOST_PREFIX), strict=False))
    return str(peer)
