"""The HTTP app: MCP (streamable HTTP) at ``/mcp`` and ``/mcp/t/<id>``, health, the admin API, the console.

Every request first passes :class:`guard.edge.door.Door` (outermost): Host and Origin, body
size, then the agent's or operator's bearer token — static, or a JWT access token verified against
the issuer's keys (``auth.jwt``, :mod:`guard.identity`) — or the console's session, with wrong tokens
paced per source, before any route reads the body. With ``auth.jwt`` the guard is an OAuth protected
resource and serves its metadata (:mod:`guard.edge.oauth`). With no tokens configured the respective
surface is open, which only a loopback bind allows (or ``server.insecure``), and agent tokens
need operator tokens. Handshake-era MCP sessions belong to their agent and are limited per agent
(:mod:`guard.edge.mcp_sessions`). No error repeats the request body: validation errors carry
locations and messages only.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST
from starlette.routing import Route

from guard.clock import Clock
from guard.edge.admin import admin_router
from guard.edge.console import console_router
from guard.edge.console_sessions import ConsoleSessions
from guard.edge.door import OPERATOR, PRINCIPAL, Door, McpRoutes, check_exposure
from guard.edge.mcp_sessions import AgentSessions, LegacySessions
from guard.edge.oauth import METADATA_PATH, resource_metadata
from guard.edge.server import build_server
from guard.errors import GuardError, RequestRejected, TransactionClosed, TransactionError
from guard.identity import ANONYMOUS, KeySet, TokenVerifier
from guard.runtime import Runtime
from guard.settings import GuardSettings
from guard.transaction.keys import HEADER, key_from_http
from guard.transaction.manager import TxnKey

__all__ = ["create_app"]


def _resolve(ctx: ServerRequestContext[Any, Any]) -> TxnKey:
    request = ctx.request
    if request is None:
        raise MCPError(INVALID_REQUEST, "no HTTP request behind this call")
    meta = ctx.meta if isinstance(ctx.meta, dict) else None
    key = key_from_http(request.headers, meta, request.path_params)
    if key is None:
        raise RequestRejected(
            f"no transaction key: send the header {HEADER.title()}: <id>, "
            "or _meta['guard/transaction'], or use the URL /mcp/t/<id>"
        )
    who = request.scope.get(PRINCIPAL, ANONYMOUS)
    return TxnKey(key, who.name, meta, claims=who.claims)


async def _invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    """A 422 naming where and what, never the input (FastAPI's default echoes the body back)."""
    problems = [
        {"type": error.get("type"), "loc": list(error.get("loc", ())), "msg": error.get("msg")}
        for error in exc.errors()
    ]
    return JSONResponse({"detail": problems}, status_code=422)


async def _guard_error(request: Request, exc: GuardError) -> JSONResponse:
    if isinstance(exc, TransactionClosed):
        status = 404
    elif isinstance(exc, TransactionError):
        status = 409
    elif isinstance(exc, RequestRejected):
        status = 400
    else:
        status = 500
    return JSONResponse({"error": exc.message, "transaction": exc.transaction_id}, status_code=status)


def _verifier(settings: GuardSettings, clock: Clock) -> TokenVerifier | None:
    """The JWT verifier of ``auth.jwt`` (None without it); no token may name a static agent or the guard."""
    jwt = settings.auth.jwt
    if jwt is None:
        return None
    reserved = frozenset({*settings.auth.agent_tokens.values(), ANONYMOUS.name, OPERATOR.name})
    return TokenVerifier(jwt, KeySet(jwt, clock), reserved)


def create_app(
    runtime: Runtime,
    *,
    extra_routes: Callable[[FastAPI], None] | None = None,
    manage_runtime: bool = True,
) -> Door:
    """The ASGI app serving one runtime: the door (:class:`~guard.edge.door.Door`) in front of the MCP
    transport and of a FastAPI app for the admin API, the console and the health routes.

    With ``manage_runtime`` (the default) the app's lifespan starts and stops the runtime; without it
    the caller has started it and stops it (``guard serve``: a start-up failure is one line and a code).
    """
    settings = runtime.settings
    check_exposure(settings)
    manager = runtime.manager
    sessions = AgentSessions(
        build_server(manager, _resolve),
        limit=settings.limits.max_sessions_per_agent,
        max_request_body_size=settings.server.max_request_bytes,
    )
    mcp_asgi = LegacySessions(sessions, manager)
    console_sessions = ConsoleSessions(
        manager.clock, ttl_s=settings.console.session_ttl_s, capacity=settings.console.max_sessions
    )
    verifier = _verifier(settings, manager.clock)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            if verifier is not None:
                stack.push_async_callback(verifier.keys.aclose)
            if manage_runtime:
                await runtime.start()
                stack.push_async_callback(runtime.stop)
            await stack.enter_async_context(sessions.run())
            yield

    app = FastAPI(title="guard", version="0.1.0", lifespan=lifespan)

    for path in (METADATA_PATH, f"{METADATA_PATH}/{{resource:path}}"):
        endpoint = resource_metadata(settings.auth.jwt)
        app.router.routes.append(Route(path, endpoint=endpoint, methods=["GET"]))
    app.exception_handler(RequestValidationError)(_invalid_request)
    app.exception_handler(GuardError)(_guard_error)

    app.include_router(admin_router(runtime))
    if settings.console.enabled:
        app.include_router(console_router(runtime, console_sessions, verifier))

    if extra_routes is not None:
        extra_routes(app)
    # outermost: /mcp goes straight to the MCP transport, the rest through FastAPI, all after its checks
    return Door(
        app,
        settings=settings,
        clock=manager.clock,
        sessions=console_sessions,
        verifier=verifier,
        mcp=McpRoutes(mcp_asgi),
    )
