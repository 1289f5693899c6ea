"""The console's sessions: what its cookie names, kept in this process.

A session is opened by a sign-in with an operator token (or, when the guard has no operator tokens,
by a first page load) and is a random id (256 bits) mapped to its principal, its form token (another
256 random bits, which every form of that session carries) and its end. The cookie holds only the
id, so a copied cookie never reveals a token, and ending a session (sign-out, ``ttl_s`` after it was
opened, or being the oldest of ``capacity`` when another opens) makes its id worthless everywhere.
Sessions live in one process: behind several replicas a browser must keep reaching the one it
signed in on (``deploy/haproxy/haproxy.cfg`` routes ``/console`` by client address). Time comes from
a :class:`~guard.clock.Clock`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from guard.clock import Clock
from guard.identity import Principal

__all__ = ["ConsoleSession", "ConsoleSessions"]


@dataclass(frozen=True)
class ConsoleSession:
    """One browser's session: its id (the cookie's value), its form token, whose it is, when it ends."""

    id: str
    form_token: str
    principal: Principal
    ends: float
    """On the clock's monotonic scale."""


class ConsoleSessions:
    """Sessions by id, at most ``capacity`` of them, each ending ``ttl_s`` after it opened."""

    def __init__(self, clock: Clock, *, ttl_s: float, capacity: int) -> None:
        if ttl_s <= 0 or capacity < 1:
            raise ValueError("ttl_s must be above 0 and capacity at least 1")
        self._clock = clock
        self._ttl = ttl_s
        self._capacity = capacity
        self._open: dict[str, ConsoleSession] = {}
        """Oldest first (they all live equally long, so also the first to end)."""

    def __len__(self) -> int:
        return len(self._open)

    def open(self, principal: Principal) -> ConsoleSession:
        """A new session for ``principal``; the oldest one ends if there would be too many. A session of a
        principal whose token expires (a JWT's ``exp``) ends then, if that comes before ``ttl_s``."""
        now = self._clock.monotonic()
        ttl = self._ttl
        if principal.expires_at is not None:
            ttl = min(ttl, max(0.0, principal.expires_at - self._clock.now().timestamp()))
        for session_id, session in list(self._open.items()):
            if session.ends > now and len(self._open) < self._capacity:
                break
            del self._open[session_id]
        session = ConsoleSession(
            id=secrets.token_urlsafe(32),
            form_token=secrets.token_urlsafe(32),
            principal=principal,
            ends=now + ttl,
        )
        self._open[session.id] = session
        return session

    def get(self, session_id: str | None) -> ConsoleSession | None:
        """The live session of this id; None when there is none (unknown, ended or expired)."""
        session = self._open.get(session_id) if session_id else None
        if session is None:
            return None
        if session.ends <= self._clock.monotonic():
            del self._open[session.id]
            return None
        return session

    def end(self, session_id: str | None) -> None:
        """End the session of this id, if there is one."""
        if session_id:
            self._open.pop(session_id, None)
