"""Handshake-era MCP sessions (the 1.x protocol's ``Mcp-Session-Id``): whose they are, how many each agent
may hold, and what ending one does (Requirement G40).

The SDK's :class:`~mcp.server.streamable_http_manager.StreamableHTTPSessionManager` keeps the sessions.
:class:`LegacySessions`, in front of it, names the request's agent (the door's principal) to the SDK
as the session's owner (an ``AuthenticatedUser`` in ``scope["user"]``, which is how the SDK binds a
session to a credential): a request of another agent that presents the session's id is answered as
if the session did not exist (404), whether it calls, listens or ends it (``DELETE``). When the
owner ends its session, the transaction keyed by it (``session-<id>``), if still open and not waiting
for review, is rolled back first, so that nothing holds its locks until the idle timeout.

:class:`AgentSessions` admits a new session only while its agent holds fewer than
``limits.max_sessions_per_agent``; past that the handshake is answered 429 with a JSON-RPC error
naming the limit, and the other agents' shares are untouched. Sessions end when their agent ends
them, after the SDK's idle timeout, or with the server; their number is thus bounded by the limit
times the number of agents, so there is no global limit for one agent to fill.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections import Counter
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, AuthorizationContext
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp_types import INVALID_REQUEST
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from guard.edge.door import PRINCIPAL
from guard.errors import GuardError
from guard.identity import ANONYMOUS
from guard.transaction.keys import session_key
from guard.transaction.manager import TransactionManager
from guard.transaction.state import Status, Via

__all__ = ["AgentSessions", "LegacySessions", "SessionLimitReached"]

log = logging.getLogger(__name__)

_HOOKS = ("_admit_session", "_discard_session")
"""The SDK's steps :class:`AgentSessions` hooks (private to it: checked when one is built)."""


class SessionLimitReached(Exception):
    """An agent's handshake past its share of sessions (raised while the SDK admits a session)."""

    def __init__(self, agent: str, held: int) -> None:
        super().__init__(agent, held)
        self.agent = agent
        self.held = held


class AgentSessions(StreamableHTTPSessionManager):
    """The SDK's session manager, its admission counted per agent (the session's owner) against ``limit``.

    It hooks the two steps every session passes, admission (under the SDK's creation lock, so two
    handshakes of one agent cannot both take its last place) and discarding (however the session ended).
    """

    def __init__(self, app: Any, *, limit: int, max_request_body_size: int) -> None:
        missing = [name for name in _HOOKS if not callable(getattr(StreamableHTTPSessionManager, name, None))]
        if missing:  # an SDK that renamed them would leave sessions unlimited, not merely unhooked
            raise RuntimeError(
                f"the MCP SDK's session manager has no {', '.join(missing)}: "
                "install mcp==2.3.0 (deploy/constraints.txt)"
            )
        super().__init__(
            app=app,
            security_settings=None,  # Host and Origin are the door's to check, on every route alike
            max_request_body_size=max_request_body_size,
            max_sessions=None,  # bounded per agent instead
        )
        self.limit = limit
        self._owners: dict[str, str] = {}
        self._held: Counter[str] = Counter()

    def held(self, agent: str) -> int:
        """How many sessions ``agent`` holds now."""
        return self._held[agent]

    def _admit_session(self, requestor: AuthorizationContext | None) -> StreamableHTTPServerTransport | None:
        agent = requestor["client_id"] if requestor is not None else ANONYMOUS.name
        if self._held[agent] >= self.limit:
            raise SessionLimitReached(agent, self._held[agent])
        transport = super()._admit_session(requestor)
        if transport is not None and transport.mcp_session_id is not None:
            self._owners[transport.mcp_session_id] = agent
            self._held[agent] += 1
        return transport

    async def _discard_session(self, session_id: str, transport: StreamableHTTPServerTransport) -> None:
        agent = self._owners.pop(session_id, None)
        if agent is not None:
            self._held[agent] -= 1
            if self._held[agent] <= 0:
                del self._held[agent]
        await super()._discard_session(session_id, transport)


@functools.lru_cache(maxsize=1024)
def _owner(principal: str) -> AuthenticatedUser:
    """The SDK's idea of a credential, for an agent: its name (the token itself is not kept); one object
    per agent, made once (the SDK reads it, never changes it)."""
    return AuthenticatedUser(AccessToken(token="", client_id=principal, scopes=[]))


class LegacySessions:
    """The MCP app as served: each request owned by its agent, a handshake past the agent's share refused,
    and an ended session's transaction rolled back (see the module). (A class: Starlette serves an
    instance as ASGI.)"""

    def __init__(self, sessions: AgentSessions, manager: TransactionManager) -> None:
        self._sessions = sessions
        self._app = StreamableHTTPASGIApp(sessions)
        self._manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["user"] = _owner(scope.get(PRINCIPAL, ANONYMOUS).name)
        if scope.get("method") == "DELETE":
            await self._end(scope)
        try:
            await self._app(scope, receive, send)
        except SessionLimitReached as full:
            log.warning(
                "refused an MCP session: agent %s holds %d, limits.max_sessions_per_agent",
                full.agent,
                full.held,
            )
            await self._refusal(full)(scope, receive, send)

    def _refusal(self, full: SessionLimitReached) -> JSONResponse:
        message = (
            f"too many MCP sessions: this agent has {full.held} open, its limit "
            f"(limits.max_sessions_per_agent); end one (DELETE /mcp with its Mcp-Session-Id) or let an "
            "idle one expire"
        )
        error = {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message}}
        return JSONResponse(error, status_code=429)

    async def _end(self, scope: Scope) -> None:
        """Before the session ends (so that the client's answer comes after the rollback)."""
        key = session_key(Headers(scope=scope), scope.get("path_params", {}))
        state = None if key is None else self._manager.live(key)
        if key is None or state is None or state.status is not Status.OPEN:
            return
        if state.principal != scope.get(PRINCIPAL, ANONYMOUS).name:
            return  # only the agent that holds it ends it
        with contextlib.suppress(GuardError):
            await self._manager.rollback_by_id(key, "the client ended its MCP session", via=Via.SESSION)
