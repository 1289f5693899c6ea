"""The HTTP door: the checks every request passes, in this order, before any route runs.

1. **Host and Origin** (Requirement G18), on every route. The Host header must match
   ``server.allowed_hosts`` — by default ``127.0.0.1``, ``localhost`` and ``[::1]`` on any port,
   plus ``server.host`` when it names one address — else the answer is **421** Misdirected
   Request. An Origin header, when there is one, must be a loopback origin
   (``http://127.0.0.1:*``, ``http://localhost:*``, ``http://[::1]:*``) or one of
   ``server.allowed_origins``, else **403**. A web page that reaches the guard through DNS
   rebinding sends its own name as Host and its own origin as Origin, so it gets no further;
   clients that send no Origin (anything but a browser) pass this check.
2. **Body size** (Requirement G19). A Content-Length above the route's limit is answered
   **413** at once; a body without one (chunked) is counted as the route reads it, and the
   request ends with 413 as soon as the count passes the limit (Starlette's
   ``RequestBodyLimitMiddleware``; nothing is buffered here). Limits:
   ``server.max_request_bytes`` on ``/mcp`` and ``/mcp/t/<id>``,
   ``server.admin_max_request_bytes`` on every other route.
3. **Authentication** (Requirements G38, G39): a bearer token of ``auth.agent_tokens`` on ``/mcp*``
   (its agent name becomes the request's principal, ``scope[PRINCIPAL]``), of
   ``auth.operator_tokens`` on the admin API (every route but ``/healthz``, ``/readyz`` and the
   console), else **401**. The console (``/console*``) takes no token but the session its cookie
   names (:mod:`guard.edge.console_sessions`; ``scope[CONSOLE_SESSION]``), which its sign-in page
   opens for an operator token; a page load without one is sent to the sign-in page (**303**), any
   other request refused 401. An empty token set leaves that surface open (the console then opens
   a session on the first page, to bind its forms to). Tokens are compared in constant time.
   Every wrong token (a bearer token, or the sign-in form's) is counted against its source
   (:mod:`guard.edge.throttle`: the peer address, or what a ``server.trusted_proxies`` proxy says
   in X-Forwarded-For), agents' and operators' apart, and logged as a WARNING naming the surface
   and the source, never the token; past ``auth.max_failures`` in ``auth.failure_window_s`` the
   source is answered **429** with Retry-After, whatever it sends, until its budget refills.
4. The route, which is the first to read and parse the body.

From a ``server.trusted_proxies`` peer, ``X-Forwarded-Proto`` sets the request's scheme (the
console's cookie is ``Secure`` when the client used https); from anyone else it is ignored.
Refusals are short JSON objects ``{"error": "..."}`` that never repeat what the client sent.
WebSocket connections are closed (no route uses them). :func:`check_exposure`, when the app is
created, refuses agent tokens without operator tokens (every agent would be an operator: it could
approve its own held commit), and a non-loopback bind while either token set is empty unless
``server.insecure``.
"""

from __future__ import annotations

import hmac
import logging
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from starlette.datastructures import Headers
from starlette.middleware.body_limit import RequestBodyLimitMiddleware
from starlette.responses import JSONResponse, RedirectResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from guard.clock import Clock
from guard.edge.console_sessions import ConsoleSessions
from guard.edge.oauth import METADATA_PATH, challenge
from guard.edge.throttle import Failures, Network, forwarded_scheme, networks, source_of
from guard.errors import ConfigError
from guard.identity import ANONYMOUS, Principal, TokenRefused, TokenVerifier, looks_like_jwt
from guard.settings import GuardSettings, JwtSettings, ServerSettings
from guard.settings.identity import is_loopback

__all__ = [
    "ANONYMOUS",
    "CONSOLE_COOKIE",
    "CONSOLE_SESSION",
    "OPERATOR",
    "PRINCIPAL",
    "Door",
    "HostPolicy",
    "McpRoutes",
    "Refusal",
    "check_exposure",
    "host_policy",
]

log = logging.getLogger(__name__)

PRINCIPAL = "guard.principal"
"""The ASGI scope key holding the authenticated agent's (or operator's)
:class:`~guard.identity.principal.Principal`."""
OPERATOR = Principal("operator", operator=True)
"""The principal of every operator who signs in with a static token (or of the console without tokens)."""
CONSOLE_SESSION = "guard.console_session"
"""The ASGI scope key holding the console request's :class:`~guard.edge.console_sessions.ConsoleSession`
(or None: no operator tokens, and no session yet)."""

_ANY = "*"
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
_LOOPBACK_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")
_UNSPECIFIC_BINDS = frozenset({"", "0.0.0.0", "::", "[::]"})
_PUBLIC_PATHS = frozenset({"/healthz", "/readyz"})
_CONSOLE = "/console"
_SIGN_IN = "/console/sign-in"
_AGENT_AUDIENCE = "agent"
_OPERATOR_AUDIENCE = "operator"
CONSOLE_COOKIE = "guard_console"
"""The cookie that names a console session (its id, never a token; :mod:`guard.edge.console`)."""

_Authority = tuple[str, str | None]
"""A host name (IPv6 in brackets, lower case) and a port: digits, ``*``, or None when absent."""


@dataclass(frozen=True)
class Refusal:
    """Why a request is turned away at the door: an HTTP status and a short message."""

    status: int
    message: str


_BAD_HOST = Refusal(421, "Host not allowed: this guard answers only to the names in server.allowed_hosts")
_BAD_ORIGIN = Refusal(
    403, "Origin not allowed: web pages may call this guard only from server.allowed_origins"
)


def _authority(value: str, *, wildcard: bool) -> _Authority | None:
    """``host``, ``host:port``, ``[v6]:port`` (``host:*`` if ``wildcard``) split; None if malformed."""
    value = value.strip().lower()
    if wildcard and value.count(":") > 1 and not value.startswith("["):
        return f"[{value}]", None
    if value.startswith("["):
        end = value.find("]") + 1
        if end == 0:
            return None
        name, rest = value[:end], value[end:]
    else:
        name, colon, after = value.partition(":")
        rest = colon + after
    if not name:
        return None
    if not rest:
        return name, None
    port = rest[1:]
    digits = port.isascii() and port.isdigit()
    if not rest.startswith(":") or not (digits or (wildcard and port == _ANY)):
        return None
    return name, port


def _origin(value: str, *, wildcard: bool) -> tuple[str, _Authority] | None:
    scheme, sep, rest = value.strip().lower().partition("://")
    if not sep or not scheme or "/" in rest:
        return None
    authority = _authority(rest, wildcard=wildcard)
    return None if authority is None else (scheme, authority)


@dataclass(frozen=True)
class HostPolicy:
    """Which Host and Origin headers a request may carry; built by :func:`host_policy`.

    A host entry without a port matches its name on any port; an origin entry without a port
    matches only that exact origin (browsers leave default ports out), with ``:*`` any port.
    """

    hosts: tuple[_Authority, ...] | None
    """None: any Host."""
    origins: tuple[tuple[str, _Authority], ...]

    def refusal(self, host: str | None, origin: str | None) -> Refusal | None:
        """None when a request with these headers may pass; else why not."""
        if not self._host_allowed(host):
            return _BAD_HOST
        if origin is not None and not self._origin_allowed(origin):
            return _BAD_ORIGIN
        return None

    def _host_allowed(self, host: str | None) -> bool:
        if self.hosts is None:
            return True
        found = None if host is None else _authority(host, wildcard=False)
        if found is None:
            return False
        name, port = found
        return any(name == allowed and want in (None, _ANY, port) for allowed, want in self.hosts)

    def _origin_allowed(self, origin: str) -> bool:
        found = _origin(origin, wildcard=False)
        if found is None:
            return False
        scheme, (name, port) = found
        return any(
            scheme == allowed_scheme and name == allowed and want in (_ANY, port)
            for allowed_scheme, (allowed, want) in self.origins
        )


def host_policy(server: ServerSettings) -> HostPolicy:
    """The policy ``server`` configures (entries were checked for form by the settings)."""
    hosts: tuple[_Authority, ...] | None = None
    if server.allowed_hosts is None:
        entries = [*_LOOPBACK_HOSTS]
        if server.host.strip().lower() not in _UNSPECIFIC_BINDS:
            entries.append(server.host)
        hosts = _authorities(entries)
    elif _ANY not in server.allowed_hosts:
        hosts = _authorities(server.allowed_hosts)
    origins = []
    for entry in (*_LOOPBACK_ORIGINS, *server.allowed_origins):
        found = _origin(entry, wildcard=True)
        if found is None:
            raise ConfigError(f"server.allowed_origins: {entry!r} is not scheme://host[:port|:*]")
        origins.append(found)
    return HostPolicy(hosts, tuple(origins))


def _authorities(entries: list[str]) -> tuple[_Authority, ...]:
    found = []
    for entry in entries:
        authority = _authority(entry, wildcard=True)
        if authority is None:
            raise ConfigError(f"server.allowed_hosts: {entry!r} is not host, host:port, host:* or *")
        found.append(authority)
    return tuple(found)


def _open_surfaces(settings: GuardSettings) -> list[tuple[str, str]]:
    """(the empty token setting, what anyone who reaches the guard can then do)."""
    surfaces = []
    if not settings.auth.agents_authenticated:
        surfaces.append(("auth.agent_tokens", "call every tool at /mcp and commit"))
    if not settings.auth.operators_authenticated:
        surfaces.append(
            (
                "auth.operator_tokens",
                "read every transaction and its calls at /transactions and commit, roll back, "
                "approve or reject any of them",
            )
        )
    return surfaces


def check_exposure(settings: GuardSettings) -> None:
    """Refuse (ConfigError) agent tokens without operator tokens, and a non-loopback bind without both
    token sets unless ``server.insecure``.

    Agent tokens make agents principals apart from each other; with no operator tokens every one of
    them would also be an operator (read every transaction, commit or roll back another agent's,
    approve its own held commit), and no setting allows that. With ``server.insecure`` an exposed
    bind is logged as a warning naming what is exposed, and so is ``server.allowed_hosts: ["*"]``
    without both token sets (DNS rebinding is then possible).
    """
    server = settings.server
    auth = settings.auth
    if auth.agents_authenticated and not auth.operators_authenticated:
        agents = "auth.agent_tokens is set" if auth.agent_tokens else "auth.jwt admits agents"
        operators = "auth.operator_tokens is empty" + (
            " and auth.jwt names no operator_claim" if auth.jwt is not None else ""
        )
        raise ConfigError(
            f"{agents} and {operators}: every agent could read, commit, roll back, approve and reject every "
            "transaction at /transactions and /console (its own held commits too); set "
            "auth.operator_tokens to tokens no agent holds, or auth.jwt.operator_claim and operator_values"
        )
    surfaces = _open_surfaces(settings)
    if not surfaces:
        return
    exposed = "; ".join(f"{key} is empty: anyone who reaches it can {what}" for key, what in surfaces)
    if not is_loopback(server.host):
        if not server.insecure:
            raise ConfigError(
                f"server.host {server.host} is not a loopback address, and "
                + " and ".join(f"{key} is empty" for key, _ in surfaces)
                + ": set auth.agent_tokens and auth.operator_tokens, bind server.host to 127.0.0.1, "
                "or set server.insecure: true to serve without them"
            )
        log.warning(
            "server.insecure is true: guard serves %s:%s to the network and %s",
            server.host,
            server.port,
            exposed,
        )
    if server.allowed_hosts is not None and _ANY in server.allowed_hosts:
        log.warning(
            "server.allowed_hosts is '*': any web page can reach the guard through DNS rebinding, and %s",
            exposed,
        )


def _refuse(refusal: Refusal, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": refusal.message}, status_code=refusal.status, headers=headers)


def _bearer(headers: Headers) -> str | None:
    value = headers.get("authorization")
    if not value or not value.lower().startswith("bearer "):
        return None
    return value[7:].strip()


def _match(token: str | None, known: Mapping[str, Principal]) -> Principal | None:
    if token is None:
        return None
    found = None
    for candidate, principal in known.items():
        if hmac.compare_digest(candidate.encode(), token.encode()):
            found = principal
    return found


def _cookie(headers: Headers, name: str) -> str | None:
    for part in headers.get("cookie", "").split(";"):
        key, sep, value = part.strip().partition("=")
        if sep and key == name:
            return value.strip().strip('"') or None
    return None


class _Budget:
    """Wrong tokens per audience and source: the door's one place that refuses a source over its budget
    (429 with Retry-After), counts a failure and logs it (the source and the surface, never the token)."""

    def __init__(self, failures: Failures, proxies: tuple[Network, ...]) -> None:
        self._failures = failures
        self._proxies = proxies

    async def over(self, audience: str, scope: Scope, receive: Receive, send: Send) -> bool:
        """Answer 429 and say True when the request's source has spent its ``audience`` budget."""
        wait = self._failures.wait((audience, source_of(scope, self._proxies)))
        if wait <= 0:
            return False
        seconds = math.ceil(wait)
        refusal = Refusal(
            429, f"too many wrong {audience} tokens from this address: try again in {seconds} s"
        )
        await _refuse(refusal, {"Retry-After": str(seconds)})(scope, receive, send)
        return True

    def failed(self, audience: str, where: str, scope: Scope) -> None:
        source = source_of(scope, self._proxies)
        wait = self._failures.failed((audience, source))
        log.warning(
            "authentication failed: a wrong %s token on %s from %s (its next try allowed in %d s)",
            audience,
            where,
            source,
            math.ceil(wait),
        )


@dataclass(frozen=True)
class _Audience:
    """Who a surface admits: its static tokens, and whether a verified JWT must name an operator."""

    name: str
    where: str
    tokens: Mapping[str, Principal]
    operators: bool
    jwt: JwtSettings | None
    required_scopes: tuple[str, ...] = ()


class _Bearer:
    """Puts the principal the request's bearer token names into the scope: a static token's, or a verified
    JWT's (:mod:`guard.identity.tokens`) of the surface's kind (an operator's token at the admin API, any
    other at /mcp); else 401 with the OAuth challenge (:mod:`guard.edge.oauth`), 403 for a token of the
    wrong kind or without the required scopes, 503 while the issuer's keys cannot be had, or 429 while the
    source is over its budget. A wrong token is counted against its source (a request without one, or an
    expired one, is no guess). With no way to authenticate at all, everyone is :data:`ANONYMOUS`."""

    def __init__(
        self, app: ASGIApp, audience: _Audience, budget: _Budget, verifier: TokenVerifier | None
    ) -> None:
        self._app = app
        self._audience = audience
        self._budget = budget
        self._verifier = verifier if audience.jwt is not None else None
        self._open = not audience.tokens and self._verifier is None
        self._metadata = audience.jwt if not audience.operators else None
        """Where the resource metadata is, in a challenge: for agents (MCP clients), not operators."""
        self._message = f"unauthorized: send Authorization: Bearer <{audience.name} token>"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._open:
            scope[PRINCIPAL] = ANONYMOUS
            await self._app(scope, receive, send)
            return
        audience = self._audience
        if await self._budget.over(audience.name, scope, receive, send):
            return
        token = _bearer(Headers(scope=scope))
        found = _match(token, audience.tokens)
        if found is None and token is not None and self._verifier is not None and looks_like_jwt(token):
            try:
                found = await self._verifier.verify(token)
            except TokenRefused as refused:
                if refused.guess:
                    self._budget.failed(audience.name, audience.where, scope)
                await self._refuse(scope, receive, send, refused)
                return
            if (misfit := self._misfit(found)) is not None:
                await self._refuse(scope, receive, send, misfit)
                return
        if found is None:
            if token is not None:
                self._budget.failed(audience.name, audience.where, scope)
            error = None if token is None else "invalid_token"
            headers = {"WWW-Authenticate": challenge(self._metadata, error)}
            await _refuse(Refusal(401, self._message), headers)(scope, receive, send)
            return
        scope[PRINCIPAL] = found
        await self._app(scope, receive, send)

    def _misfit(self, principal: Principal) -> TokenRefused | None:
        """Why a verified token may not pass here: the wrong kind of principal, or scopes missing."""
        audience = self._audience
        if audience.operators and not principal.operator:
            return TokenRefused(403, "", "the token does not name an operator", False)
        if not audience.operators and principal.operator:
            return TokenRefused(
                403,
                "",
                "the token names an operator (auth.jwt.operator_claim); an agent needs a token of its own",
                False,
            )
        missing = [name for name in audience.required_scopes if name not in principal.scopes]
        if missing:
            return TokenRefused(
                403, "insufficient_scope", f"the token lacks the scopes {' '.join(missing)}", False
            )
        return None

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, refused: TokenRefused) -> None:
        headers: dict[str, str] = {}
        if refused.error:  # a token of the wrong kind has none: there is nothing for an OAuth client to do
            params = {"error_description": refused.description}
            if refused.error == "insufficient_scope" and self._audience.required_scopes:
                params["scope"] = " ".join(self._audience.required_scopes)
            headers["WWW-Authenticate"] = challenge(self._metadata, refused.error, params)
        if refused.status == 503:
            headers["Retry-After"] = "5"
        refusal = Refusal(refused.status, f"unauthorized: {refused.description}")
        await _refuse(refusal, headers)(scope, receive, send)


class _SignIn:
    """The console's sign-in page: a ``POST`` (an operator token to check) is refused while its source is
    over the operators' budget, and the page's 401 (a wrong token) is counted as a bearer token's is."""

    def __init__(self, app: ASGIApp, budget: _Budget, *, counted: bool) -> None:
        self._app = app
        self._budget = budget
        self._counted = counted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[PRINCIPAL] = ANONYMOUS
        if not self._counted or scope.get("method") != "POST":
            await self._app(scope, receive, send)
            return
        if await self._budget.over(_OPERATOR_AUDIENCE, scope, receive, send):
            return
        refused = False

        async def watch(message: Message) -> None:
            nonlocal refused
            if message["type"] == "http.response.start":
                refused = message["status"] == 401
            await send(message)

        await self._app(scope, receive, watch)
        if refused:
            self._budget.failed(_OPERATOR_AUDIENCE, "the console sign-in", scope)


class _ConsoleSession:
    """The console's pages: the live session the cookie names goes into the scope (:data:`CONSOLE_SESSION`).

    With operator tokens a request without one is sent to the sign-in page (a ``GET``: a browser's page
    load) or refused 401; without them it passes with no session, and the page opens one.
    """

    def __init__(self, app: ASGIApp, sessions: ConsoleSessions, *, required: bool) -> None:
        self._app = app
        self._sessions = sessions
        self._required = required
        self._refusal = Refusal(401, "unauthorized: sign in at /console/sign-in")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        session = self._sessions.get(_cookie(Headers(scope=scope), CONSOLE_COOKIE))
        if session is None and self._required:
            if scope.get("method") == "GET":
                await RedirectResponse(_SIGN_IN, status_code=303)(scope, receive, send)
            else:
                await _refuse(self._refusal)(scope, receive, send)
            return
        scope[CONSOLE_SESSION] = session
        scope[PRINCIPAL] = ANONYMOUS if session is None else session.principal
        await self._app(scope, receive, send)


@dataclass(frozen=True)
class _Gate:
    """One family of paths: its body limit, and the app behind it (body counting, then its check)."""

    max_body: int
    app: ASGIApp

    @classmethod
    def build(cls, checked: ASGIApp, max_body: int) -> _Gate:
        return cls(max_body, RequestBodyLimitMiddleware(checked, max_body))


def _content_length(headers: Headers) -> int | None:
    try:
        return int(headers["content-length"])
    except (KeyError, ValueError):
        return None


def _route_path(scope: Scope) -> str:
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


_MCP_ROUTE = re.compile(r"^/mcp(?:/t/(?P<transaction>[^/]+))?$")
_MCP_METHODS = frozenset({"GET", "POST", "DELETE"})


class McpRoutes:
    """``/mcp`` and ``/mcp/t/<id>`` straight to the MCP app, with the id as the route's path parameter
    (``transaction``): a call passes the door and the SDK's transport, and no router or web framework
    layer between them; another path under ``/mcp`` is 404, another method 405."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = _MCP_ROUTE.match(_route_path(scope))
        if found is None:
            await _refuse(Refusal(404, "not found: MCP is served at /mcp and /mcp/t/<id>"))(
                scope, receive, send
            )
            return
        if scope.get("method") not in _MCP_METHODS:
            refusal = Refusal(405, "method not allowed: /mcp takes GET, POST and DELETE")
            await _refuse(refusal, {"Allow": "GET, POST, DELETE"})(scope, receive, send)
            return
        transaction = found.group("transaction")
        scope["path_params"] = {} if transaction is None else {"transaction": transaction}
        await self._app(scope, receive, send)


class Door:
    """ASGI middleware applying the module's checks, in its order, to every request.

    ``clock`` paces the failure budgets; ``sessions`` are the console's (shared with its pages); ``mcp``
    serves ``/mcp*`` once its checks pass (:class:`McpRoutes`; else the app behind the door does).
    """

    def __init__(
        self,
        app: ASGIApp,
        settings: GuardSettings,
        *,
        clock: Clock,
        sessions: ConsoleSessions,
        verifier: TokenVerifier | None = None,
        mcp: ASGIApp | None = None,
    ) -> None:
        self._app = app
        self._policy = host_policy(settings.server)
        server, auth = settings.server, settings.auth
        self._proxies = networks(server.trusted_proxies)
        budget = _Budget(Failures(auth.max_failures, auth.failure_window_s, clock), self._proxies)
        jwt = auth.jwt
        agents = _Audience(
            _AGENT_AUDIENCE,
            "/mcp",
            {token: Principal(name) for token, name in auth.agent_tokens.items()},
            operators=False,
            jwt=jwt,
            required_scopes=tuple(jwt.required_scopes) if jwt is not None else (),
        )
        operators = _Audience(
            _OPERATOR_AUDIENCE,
            "the admin API",
            {token: OPERATOR for token in auth.operator_tokens},
            operators=True,
            jwt=jwt if jwt is not None and jwt.operators else None,
        )
        public = _Audience("anyone", "a public route", {}, operators=False, jwt=None)
        small = server.admin_max_request_bytes
        self._mcp = _Gate.build(_Bearer(mcp or app, agents, budget, verifier), server.max_request_bytes)
        self._admin = _Gate.build(_Bearer(app, operators, budget, verifier), small)
        self._public = _Gate.build(_Bearer(app, public, budget, None), small)
        required = auth.operators_authenticated
        self._sign_in = _Gate.build(_SignIn(app, budget, counted=required), small)
        console = _ConsoleSession(app, sessions, required=required)
        self._console = _Gate.build(console, small) if settings.console.enabled else self._admin

    def _gate(self, path: str) -> _Gate:
        if path == "/mcp" or path.startswith("/mcp/"):
            return self._mcp
        if path in _PUBLIC_PATHS or path == METADATA_PATH or path.startswith(f"{METADATA_PATH}/"):
            return self._public
        if path == _SIGN_IN:
            return self._sign_in
        if path == _CONSOLE or path.startswith(f"{_CONSOLE}/"):
            return self._console
        return self._admin

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self._policy.refusal(headers.get("host"), headers.get("origin"))
        if refusal is not None:
            log.warning(
                "refused a request: %s (Host %r, Origin %r)",
                refusal.message,
                headers.get("host"),
                headers.get("origin"),
            )
            await _refuse(refusal)(scope, receive, send)
            return
        if (scheme := forwarded_scheme(scope, self._proxies)) is not None:
            scope["scheme"] = scheme  # what the client used, for the console cookie's Secure flag
        gate = self._gate(_route_path(scope))
        length = _content_length(headers)
        if length is not None and length > gate.max_body:
            await _refuse(Refusal(413, f"request body over {gate.max_body} bytes"))(scope, receive, send)
            return
        await gate.app(scope, receive, send)
