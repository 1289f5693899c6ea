"""The HTTP app: MCP (streamable HTTP) at ``/mcp`` and ``/mcp/t/<id>``, health, and the admin API.

Agents authenticate to ``/mcp`` with a bearer token mapped to an agent name
(``auth.agent_tokens``); operators to the admin API with one of
``auth.operator_tokens``. With no tokens configured the respective surface
is open, which is meant for loopback use.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from mcp.server.context import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST
from pydantic import BaseModel, Field
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from guard.edge.mcp import build_server
from guard.errors import GuardError, RequestRejected, TransactionClosed, TransactionError
from guard.keys import HEADER, key_from_http
from guard.manager import TxnKey
from guard.runtime import Runtime

__all__ = ["create_app"]

log = logging.getLogger(__name__)

_PRINCIPAL = "guard.principal"
_ANONYMOUS = "anonymous"


def _bearer(headers: Any) -> str | None:
    value = headers.get("authorization")
    if not value or not value.lower().startswith("bearer "):
        return None
    token: str = value[7:].strip()
    return token


def _match(token: str | None, known: dict[str, str]) -> str | None:
    if token is None:
        return None
    for candidate, name in known.items():
        if hmac.compare_digest(candidate.encode(), token.encode()):
            return name
    return None


class _AgentAuth:
    """Puts the agent's name into the ASGI scope, or answers 401."""

    def __init__(self, app: ASGIApp, tokens: dict[str, str]) -> None:
        self.app = app
        self.tokens = tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        principal = _ANONYMOUS
        if self.tokens:
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            found = _match(_bearer(headers), self.tokens)
            if found is None:
                response = JSONResponse(
                    {"error": "unauthorized: send Authorization: Bearer <agent token>"},
                    status_code=401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
                await response(scope, receive, send)
                return
            principal = found
        scope[_PRINCIPAL] = principal
        await self.app(scope, receive, send)


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
    return TxnKey(key, request.scope.get(_PRINCIPAL, _ANONYMOUS), meta)


class CommitBody(BaseModel):
    final_message: str = Field("", max_length=32_000, description="The agent's final message to the user.")


class RollbackBody(BaseModel):
    reason: str = Field("rolled back by an operator", max_length=2000)


class ReviewBody(BaseModel):
    reviewer: str = Field(min_length=1, max_length=128)


def _security(host: str, port: int) -> TransportSecuritySettings | None:
    if host not in ("127.0.0.1", "localhost", "::1"):
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


def create_app(runtime: Runtime, *, extra_routes: Callable[[FastAPI], None] | None = None) -> FastAPI:
    """The FastAPI app serving one runtime; starting it starts the runtime."""
    settings = runtime.settings
    manager = runtime.manager
    server = build_server(manager, _resolve)
    sessions = StreamableHTTPSessionManager(
        app=server,
        security_settings=_security(settings.server.host, settings.server.port),
        max_request_body_size=settings.server.max_request_bytes,
        max_sessions=1000,
    )
    mcp_asgi = _AgentAuth(sessions.handle_request, settings.auth.agent_tokens)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await runtime.start()
        try:
            async with sessions.run():
                yield
        finally:
            await runtime.stop()

    app = FastAPI(title="guard", version="0.1.0", lifespan=lifespan)
    app.router.routes.append(Route("/mcp", endpoint=mcp_asgi, methods=["GET", "POST", "DELETE"]))
    app.router.routes.append(
        Route("/mcp/t/{transaction}", endpoint=mcp_asgi, methods=["GET", "POST", "DELETE"])
    )

    operator_tokens = {token: "operator" for token in settings.auth.operator_tokens}

    def operator(request: Request) -> str:
        if not operator_tokens:
            return "operator"
        found = _match(_bearer(request.headers), operator_tokens)
        if found is None:
            raise HTTPException(401, "operator token required", headers={"WWW-Authenticate": "Bearer"})
        return found

    @app.exception_handler(GuardError)
    async def guard_error(request: Request, exc: GuardError) -> JSONResponse:
        if isinstance(exc, TransactionClosed):
            status = 404
        elif isinstance(exc, TransactionError):
            status = 409
        elif isinstance(exc, RequestRejected):
            status = 400
        else:
            status = 500
        return JSONResponse({"error": exc.message, "transaction": exc.transaction_id}, status_code=status)

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz")
    async def readyz() -> JSONResponse:
        problems = await runtime.ready()
        return JSONResponse(
            {"status": "ready" if not problems else "not ready", "problems": problems},
            status_code=200 if not problems else 503,
        )

    @app.get("/transactions")
    async def list_transactions(
        status: str | None = None, limit: int = 100, _: str = Depends(operator)
    ) -> dict[str, Any]:
        if not 1 <= limit <= 1000:
            raise HTTPException(422, "limit must be between 1 and 1000")
        await runtime.manager.audit.flush()
        records = await runtime.manager.audit.list_transactions(status, limit)
        return {"transactions": [r.to_dict() for r in records]}

    @app.get("/transactions/{transaction_id}")
    async def show_transaction(transaction_id: str, _: str = Depends(operator)) -> dict[str, Any]:
        detail = await runtime.manager.audit.get_transaction(transaction_id)
        if detail is None:
            raise HTTPException(404, f"no transaction {transaction_id}")
        return detail.to_dict()

    async def _act(work: Awaitable[Any]) -> dict[str, Any]:
        reply = await work
        result: dict[str, Any] = reply.to_dict()
        return result

    @app.post("/transactions/{transaction_id}/commit")
    async def commit(transaction_id: str, body: CommitBody, _: str = Depends(operator)) -> dict[str, Any]:
        return await _act(manager.commit_by_id(transaction_id, body.final_message, via="admin"))

    @app.post("/transactions/{transaction_id}/rollback")
    async def rollback(transaction_id: str, body: RollbackBody, _: str = Depends(operator)) -> dict[str, Any]:
        return await _act(manager.rollback_by_id(transaction_id, body.reason, via="admin"))

    @app.post("/transactions/{transaction_id}/approve")
    async def approve(transaction_id: str, body: ReviewBody, _: str = Depends(operator)) -> dict[str, Any]:
        return await _act(manager.review(transaction_id, approve=True, reviewer=body.reviewer))

    @app.post("/transactions/{transaction_id}/reject")
    async def reject(transaction_id: str, body: ReviewBody, _: str = Depends(operator)) -> dict[str, Any]:
        return await _act(manager.review(transaction_id, approve=False, reviewer=body.reviewer))

    if extra_routes is not None:
        extra_routes(app)
    return app
