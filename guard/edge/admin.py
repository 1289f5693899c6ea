"""The admin API: health, readiness, the audit log, and an operator's commit, rollback, review, and the
finishing of a partial commit (resume, resolve).

One class holds the endpoints over a runtime; :func:`admin_router` lists them
as routes, one line each. Authentication and the Host/Origin and size checks
happen before any of them, in :mod:`guard.edge.door`. A commit's text is
``summary`` here as in the commit tool (``final_message``, its earlier name,
is still read); its optional ``conversation`` is the turns said since the
last call, as ``_meta["guard/conversation"]`` carries them on the commit tool
(:mod:`guard.transaction.conversation`; past the per-request limits it is a 400).
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import AliasChoices, BaseModel, Field

from guard.audit.log import LISTING_FILTERS
from guard.edge.door import PRINCIPAL
from guard.errors import RequestRejected
from guard.identity import Principal
from guard.runtime import Runtime
from guard.transaction.conversation import TurnIn, checked
from guard.transaction.recovery import Resolve
from guard.transaction.replies import CommitReply
from guard.transaction.state import Via

__all__ = [
    "CommitBody",
    "ResolveBody",
    "ResumeBody",
    "ReviewBody",
    "RollbackBody",
    "acting",
    "admin_router",
]


class CommitBody(BaseModel):
    summary: str = Field(
        "",
        max_length=32_000,
        validation_alias=AliasChoices("summary", "final_message"),
        description="What was done and what the user is told (the agent's final message).",
    )
    conversation: list[TurnIn] | None = Field(
        None,
        description="The turns said since the transaction's last call, in order (absent: none handed over).",
    )


class RollbackBody(BaseModel):
    reason: str = Field("rolled back by an operator", max_length=2000)


class ReviewBody(BaseModel):
    reviewer: str | None = Field(
        None,
        min_length=1,
        max_length=128,
        description="Who reviews it; an operator signed in with a JWT is that token's principal instead.",
    )


class ResumeBody(BaseModel):
    operator: str | None = Field(
        None,
        min_length=1,
        max_length=128,
        description="Who resumes it (for the audit log); a JWT operator is that token's principal instead.",
    )


class ResolveBody(ResumeBody):
    call: int = Field(ge=1, description="The write's number (its ``seq`` in the commit's dispatch).")
    outcome: Literal["applied", "failed"] = Field(description="What the operator found upstream.")


class _Admin:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.manager = runtime.manager
        jwt = runtime.settings.auth.jwt
        self.marked = jwt is not None and jwt.operators
        """Operators also sign in by JWT: a name a static token's holder gives is recorded as such."""

    async def healthz(self) -> dict[str, str]:
        return {"status": "ok"}

    async def readyz(self) -> JSONResponse:
        problems = await self.runtime.ready()
        return JSONResponse(
            {"status": "ready" if not problems else "not ready", "problems": problems},
            status_code=200 if not problems else 503,
        )

    async def list_transactions(self, status: str | None = None, limit: int = 100) -> dict[str, Any]:
        if status is not None and status not in LISTING_FILTERS:
            raise RequestRejected(f"unknown status {status!r}: use one of {', '.join(LISTING_FILTERS)}")
        if not 1 <= limit <= 1000:
            raise RequestRejected(f"limit {limit} is out of range: use 1 to 1000")
        records = await self.manager.audit.list_transactions(status, limit)
        return {"transactions": [r.to_dict() for r in records]}

    async def show_transaction(self, transaction_id: str) -> dict[str, Any]:
        detail = await self.manager.audit.get_transaction(transaction_id)
        if detail is None:
            raise HTTPException(404, f"no transaction {transaction_id}")
        shown = detail.to_dict()
        binding = self.manager.approval(transaction_id)
        if binding is not None:
            shown["approval"] = binding.to_dict()
        return shown

    async def commit(self, transaction_id: str, body: CommitBody) -> dict[str, Any]:
        turns = None
        if body.conversation is not None:
            turns = checked(body.conversation, self.runtime.settings.limits, "conversation")
        return _body(
            await self.manager.commit_by_id(transaction_id, body.summary, via=Via.ADMIN, turns=turns)
        )

    async def rollback(self, transaction_id: str, body: RollbackBody) -> dict[str, Any]:
        return _body(await self.manager.rollback_by_id(transaction_id, body.reason, via=Via.ADMIN))

    async def resume(self, request: Request, transaction_id: str, body: ResumeBody) -> dict[str, Any]:
        await self.manager.finish(
            transaction_id, None, acting(request, body.operator, "operator", marked=self.marked)
        )
        return await self.show_transaction(transaction_id)

    async def resolve(self, request: Request, transaction_id: str, body: ResolveBody) -> dict[str, Any]:
        step = Resolve(body.call, body.outcome == "applied")
        await self.manager.finish(
            transaction_id, step, acting(request, body.operator, "operator", marked=self.marked)
        )
        return await self.show_transaction(transaction_id)

    async def approve(self, request: Request, transaction_id: str, body: ReviewBody) -> dict[str, Any]:
        reviewer = acting(request, body.reviewer, "reviewer", marked=self.marked)
        return _body(await self.manager.review(transaction_id, approve=True, reviewer=reviewer))

    async def reject(self, request: Request, transaction_id: str, body: ReviewBody) -> dict[str, Any]:
        reviewer = acting(request, body.reviewer, "reviewer", marked=self.marked)
        return _body(await self.manager.review(transaction_id, approve=False, reviewer=reviewer))


def acting(request: Request, named: str | None, field: str, *, marked: bool) -> str:
    """Who acts, for the audit log: a verified operator's own name (the request may only repeat it), else
    the name the request gives; ``marked``, that name says it was given by a static token's holder (so it
    cannot pass for a verified operator's)."""
    principal = request.scope.get(PRINCIPAL)
    if isinstance(principal, Principal) and principal.verified:
        if named and named != principal.name:
            raise RequestRejected(f"{field} {named!r}: your token names you {principal.name!r}")
        return principal.name
    if not named:
        raise RequestRejected(f'name the {field}: {{"{field}": "<name>"}}')
    return f"{named} (operator token)" if marked else named


def _body(reply: CommitReply) -> dict[str, Any]:
    return reply.to_dict()


def admin_router(runtime: Runtime) -> APIRouter:
    """The admin API's routes over ``runtime``."""
    admin = _Admin(runtime)
    router = APIRouter()
    for method, path, endpoint in (
        ("GET", "/healthz", admin.healthz),
        ("GET", "/readyz", admin.readyz),
        ("GET", "/transactions", admin.list_transactions),
        ("GET", "/transactions/{transaction_id}", admin.show_transaction),
        ("POST", "/transactions/{transaction_id}/commit", admin.commit),
        ("POST", "/transactions/{transaction_id}/rollback", admin.rollback),
        ("POST", "/transactions/{transaction_id}/resume", admin.resume),
        ("POST", "/transactions/{transaction_id}/resolve", admin.resolve),
        ("POST", "/transactions/{transaction_id}/approve", admin.approve),
        ("POST", "/transactions/{transaction_id}/reject", admin.reject),
    ):
        router.add_api_route(path, endpoint, methods=[method])
    return router
