"""The operator's console: server-rendered pages over the audit log, with approve and reject.

Served beside the admin API under ``/console`` (``console.enabled``), behind the same door:
Host and Origin checks, body limits, and the operator tokens. A browser cannot send a bearer
header on a page load, so the sign-in page takes an operator token once and opens a session
(:mod:`guard.edge.console_sessions`) whose random id the cookie :data:`COOKIE` holds
(``HttpOnly``, ``SameSite=Strict``, path ``/console``, ``Secure`` over https); the door lets a
console request in only with a live session. Sign-out ends the session on the server. A wrong
token at sign-in answers 401, which the door counts against the source like a wrong bearer token.
Without operator tokens the first page opens an anonymous session instead. Forms that change
something carry their session's random form token, on top of the door's Origin check, so that
another site cannot make a browser approve a commit, nor one session's page act for another's.

Pages are plain HTML with no script: the list of transactions by status (newest first,
paged), a transaction with its calls, each commit attempt's findings and effects (a
before/after table per row, changed fields marked) and the outbox dispatch, the conversation
its host handed over (each call's turns before it, each commit attempt's in it, a rollback's
after the calls; a redacted turn as its role and length), and for a commit
waiting for a reviewer the approve and reject forms, which record the reviewer; for a commit left
partial, a form per write whose outcome is unknown (resolve it as applied or not) and the resume
form. Everything an agent wrote is escaped (Jinja2's autoescape). ``console.trace_url`` adds a link to the
transaction's trace.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape

from guard.edge.admin import acting
from guard.edge.console_sessions import ConsoleSession, ConsoleSessions
from guard.edge.door import CONSOLE_COOKIE as COOKIE
from guard.edge.door import CONSOLE_SESSION, OPERATOR
from guard.errors import GuardError, RequestRejected
from guard.identity import ANONYMOUS, Principal, TokenRefused, TokenVerifier, looks_like_jwt
from guard.runtime import Runtime
from guard.transaction.recovery import Resolve

__all__ = ["COOKIE", "PAGE_SIZE", "STATUSES", "console_router"]

log = logging.getLogger(__name__)

PAGE_SIZE = 50
_MAX_LISTED = 10_000  # the audit lists at most this many; pages past it are empty
STATUSES = (
    ("", "all"),
    ("open", "open"),
    ("pending_approval", "pending approval"),
    ("blocked", "blocked"),
    ("would_block", "would block (shadow)"),
    ("committed", "committed"),
    ("rolled_back", "rolled back"),
    ("aborted", "aborted"),
)
"""The list's filters: an audit status (or ``blocked``, ``would_block``) and its label."""

_templates = Environment(
    loader=PackageLoader("guard.edge", "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)
_templates.filters["pretty"] = lambda value: json.dumps(value, indent=2, sort_keys=True, default=str)
_templates.filters["cell"] = lambda value: json.dumps(value, default=str)
_templates.filters["claim"] = lambda value: (
    value if isinstance(value, str) else json.dumps(value, default=str)
)


def _when(value: datetime | str | None) -> str:
    """A time as people read it, always with its zone (UTC)."""
    if value is None:
        return ""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


_templates.filters["when"] = _when


def _rows_of(effect: dict[str, Any]) -> list[dict[str, Any]]:
    """An effect's fields as before/after rows, changed ones first marked."""
    before, after = effect.get("before") or {}, effect.get("after") or {}
    changed = set(effect.get("changed_fields") or ())
    if effect.get("kind") in ("insert", "delete"):
        changed = set(before) | set(after)
    names = sorted(set(before) | set(after), key=lambda name: (name not in changed, name))
    return [
        {"field": name, "before": before.get(name), "after": after.get(name), "changed": name in changed}
        for name in names
    ]


def _held_elsewhere(record: Any, runtime: Runtime) -> str | None:
    """The replica that holds a live transaction this one does not (None: this one, or none)."""
    here = runtime.settings.server.instance
    if record.status.value not in ("open", "pending_approval") or record.instance == here:
        return None
    return str(record.instance) if runtime.manager.live(record.id) is None else None


def _session(request: Request) -> ConsoleSession | None:
    """The live session the door found for this request (None: none, which only an open console allows)."""
    session = request.scope.get(CONSOLE_SESSION)
    return session if isinstance(session, ConsoleSession) else None


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


class _Console:
    def __init__(self, runtime: Runtime, sessions: ConsoleSessions, verifier: TokenVerifier | None) -> None:
        self.runtime = runtime
        self.audit = runtime.manager.audit
        self.sessions = sessions
        self.tokens = tuple(runtime.settings.auth.operator_tokens)
        jwt = runtime.settings.auth.jwt
        self.verifier = verifier if jwt is not None and jwt.operators else None
        self.required = runtime.settings.auth.operators_authenticated
        self.ttl_s = runtime.settings.console.session_ttl_s
        self.trace_url = runtime.settings.console.trace_url

    def _page(self, name: str, request: Request, status_code: int = 200, **values: Any) -> HTMLResponse:
        """A page; without operator tokens, a browser with no session yet is given one here."""
        session, opened = _session(request), None
        if session is None and not self.required:
            session = opened = self.sessions.open(ANONYMOUS)
        template = _templates.get_template(name)
        verified = session is not None and session.principal.verified
        html = template.render(
            signed_in=self.required and session is not None,
            identity=session.principal.name if session is not None and verified else None,
            form_token=session.form_token if session is not None else "",
            statuses=STATUSES,
            **values,
        )
        response = HTMLResponse(html, status_code=status_code, headers=_NO_STORE)
        if opened is not None:
            self._set_cookie(response, request, opened)
        return response

    def _set_cookie(self, response: Response, request: Request, session: ConsoleSession) -> None:
        response.set_cookie(
            COOKIE,
            session.id,
            max_age=int(self.ttl_s),
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
            path="/console",
        )

    def _stale(self, request: Request, token: str) -> HTMLResponse | None:
        """The refusal of a form whose token is not its session's; None when it is."""
        session = _session(request)
        if session is not None and _same(token, session.form_token):
            return None
        return self._page("error.html", request, 403, message="this form is stale: reload the page")

    async def transactions(self, request: Request, status: str = "", page: int = 1) -> HTMLResponse:
        known = {value for value, _ in STATUSES}
        if status not in known:
            return self._page("error.html", request, 400, message=f"no status {status!r}")
        page = max(page, 1)
        wanted = min(page * PAGE_SIZE + 1, _MAX_LISTED)
        records = await self.audit.list_transactions(status or None, wanted)
        shown = records[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
        more = len(records) > page * PAGE_SIZE

        def link(to_page: int) -> str:
            query = {"page": str(to_page)} | ({"status": status} if status else {})
            return f"/console?{urlencode(query)}"

        return self._page(
            "list.html",
            request,
            status=status,
            page=page,
            records=shown,
            previous=link(page - 1) if page > 1 else None,
            next=link(page + 1) if more else None,
        )

    async def transaction(self, request: Request, transaction_id: str) -> HTMLResponse:
        detail = await self.audit.get_transaction(transaction_id)
        if detail is None:
            return self._page("error.html", request, 404, message=f"no transaction {transaction_id}")
        attempts = [
            {**commit.to_dict(), "rows": [(e, _rows_of(e)) for e in commit.effects]}
            for commit in detail.commits
        ]
        trace = self.trace_url.replace("{transaction_id}", quote(transaction_id)) if self.trace_url else None
        dispatched = detail.commits[-1].dispatch or [] if detail.commits else []
        return self._page(
            "transaction.html",
            request,
            record=detail.transaction,
            calls=detail.calls,
            attempts=attempts,
            trace=trace,
            last=detail.commits[-1] if detail.commits else None,
            live=self.runtime.manager.live(transaction_id) is not None,
            elsewhere=_held_elsewhere(detail.transaction, self.runtime),
            replica=self.runtime.settings.server.instance,
            unknown=[w for w in dispatched if w.get("status") == "unknown"],
            approval=self.runtime.manager.approval(transaction_id),
        )

    async def _act(
        self,
        request: Request,
        transaction_id: str,
        token: str,
        who: str,
        role: str,
        action: Callable[[str], Awaitable[Any]],
    ) -> Response:
        """A form that changes a transaction: its session's form token, a named person (``role``), then
        ``action(name)``; back to the transaction's page, which tells the outcome from the audit log."""
        if (stale := self._stale(request, token)) is not None:
            return stale
        typed = who.strip()
        session = _session(request)
        verified = session is not None and session.principal.verified
        if not verified and (not typed or len(typed) > 128):
            return self._page("error.html", request, 400, message=f"{role} name (1-128 characters)")
        try:
            name = acting(request, typed, role, marked=self.verifier is not None)
        except RequestRejected as refused:
            return self._page("error.html", request, 400, message=refused.message)
        try:
            await action(name)
        except GuardError as exc:
            return self._page("error.html", request, 409, message=exc.message)
        log.info("console: %s acted on %s", name, transaction_id)
        return RedirectResponse(f"/console/t/{quote(transaction_id)}", status_code=303)

    async def finish(
        self, request: Request, transaction_id: str, operator: str, token: str, step: Resolve | None
    ) -> Response:
        """An operator's resume (``step`` None) or resolve of a partial commit, from its page."""
        manager = self.runtime.manager
        return await self._act(
            request,
            transaction_id,
            token,
            operator,
            "an operator",
            lambda name: manager.finish(transaction_id, step, name),
        )

    async def roll_back(self, request: Request, transaction_id: str, operator: str, token: str) -> Response:
        """An operator rolls back an open transaction, or one waiting for review, from its page."""
        manager = self.runtime.manager
        return await self._act(
            request,
            transaction_id,
            token,
            operator,
            "an operator",
            lambda name: manager.rollback_by_id(transaction_id, f"rolled back by {name}"),
        )

    async def review(
        self, request: Request, transaction_id: str, approve: bool, reviewer: str, token: str
    ) -> Response:
        manager = self.runtime.manager
        return await self._act(
            request,
            transaction_id,
            token,
            reviewer,
            "a reviewer",
            lambda name: manager.review(transaction_id, approve=approve, reviewer=name),
        )

    async def sign_in_page(self, request: Request, error: str = "") -> HTMLResponse:
        return self._page("sign_in.html", request, 401 if error else 200, error=error, auth=self.required)

    async def sign_in(self, request: Request, token: str = Form("")) -> Response:
        """An operator token opens a new session (ending the one the browser had); a wrong one is a 401,
        which the door counts."""
        response = RedirectResponse("/console", status_code=303)
        if not self.required:
            return response
        try:
            operator = await self._operator(token.strip())
        except TokenRefused as unavailable:  # the provider's keys cannot be had: no verdict on the token
            return self._page("sign_in.html", request, 503, error=unavailable.description, auth=True)
        if operator is None:
            return await self.sign_in_page(request, error="that is not an operator token")
        self.sessions.end(request.cookies.get(COOKIE))
        self._set_cookie(response, request, self.sessions.open(operator))
        return response

    async def _operator(self, token: str) -> Principal | None:
        """The operator a static token or a verified JWT names, or None; :class:`TokenRefused` (503) while
        the identity provider's keys cannot be had."""
        # a list, not a generator: every token is compared, with no early exit
        if token and any([_same(token, known) for known in self.tokens]):
            return OPERATOR
        if self.verifier is None or not looks_like_jwt(token):
            return None
        try:
            principal = await self.verifier.verify(token)
        except TokenRefused as refused:
            if refused.status == 503:
                raise
            log.info("console: a sign-in token was refused: %s", refused.description)
            return None
        return principal if principal.operator else None

    async def sign_out(self, request: Request, token: str = Form("")) -> Response:
        if (stale := self._stale(request, token)) is not None:
            return stale
        session = _session(request)
        self.sessions.end(session.id if session is not None else None)
        response = RedirectResponse("/console/sign-in", status_code=303)
        response.delete_cookie(COOKIE, path="/console")
        return response


_NO_STORE = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
    ),
}


def console_router(
    runtime: Runtime, sessions: ConsoleSessions, verifier: TokenVerifier | None = None
) -> APIRouter:
    """The console's routes over ``runtime``; ``sessions`` are the ones the door checks, ``verifier``
    checks operators' JWTs at sign-in (``auth.jwt``)."""
    console = _Console(runtime, sessions, verifier)
    router = APIRouter(include_in_schema=False)

    async def approve(
        request: Request, transaction_id: str, reviewer: str = Form(""), token: str = Form("")
    ) -> Response:
        return await console.review(request, transaction_id, True, reviewer, token)

    async def reject(
        request: Request, transaction_id: str, reviewer: str = Form(""), token: str = Form("")
    ) -> Response:
        return await console.review(request, transaction_id, False, reviewer, token)

    async def resume(
        request: Request, transaction_id: str, operator: str = Form(""), token: str = Form("")
    ) -> Response:
        return await console.finish(request, transaction_id, operator, token, None)

    async def resolve(
        request: Request,
        transaction_id: str,
        operator: str = Form(""),
        call: int = Form(0),
        outcome: str = Form(""),
        token: str = Form(""),
    ) -> Response:
        if outcome not in ("applied", "failed") or call < 1:
            return console._page("error.html", request, 400, message="a write (call) and its outcome")
        return await console.finish(
            request, transaction_id, operator, token, Resolve(call, outcome == "applied")
        )

    async def roll_back(
        request: Request, transaction_id: str, operator: str = Form(""), token: str = Form("")
    ) -> Response:
        return await console.roll_back(request, transaction_id, operator, token)

    for method, path, endpoint in (
        ("GET", "/console", console.transactions),
        ("GET", "/console/t/{transaction_id}", console.transaction),
        ("POST", "/console/t/{transaction_id}/approve", approve),
        ("POST", "/console/t/{transaction_id}/reject", reject),
        ("POST", "/console/t/{transaction_id}/resume", resume),
        ("POST", "/console/t/{transaction_id}/rollback", roll_back),
        ("POST", "/console/t/{transaction_id}/resolve", resolve),
        ("GET", "/console/sign-in", console.sign_in_page),
        ("POST", "/console/sign-in", console.sign_in),
        ("POST", "/console/sign-out", console.sign_out),
    ):
        router.add_api_route(path, endpoint, methods=[method], response_class=HTMLResponse)
    return router
