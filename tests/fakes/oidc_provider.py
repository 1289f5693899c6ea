"""A real OpenID Connect / OAuth 2.1 authorization server on loopback, to test the guard as a resource server.

It is a Starlette app served by uvicorn (``serving`` from the guard's conftest)
that publishes discovery metadata (OpenID Connect Discovery and RFC 8414), a
JWK set, a token endpoint, an auto-approving authorization endpoint and RFC 7591
dynamic client registration. Access tokens are JWTs (RFC 9068, ``typ: at+jwt``)
signed with an RSA key (RS256), or an EC P-256 key (ES256) on request::

    provider = OpenIdProvider(audience="http://127.0.0.1:9/mcp")
    provider.add_client("agent-7", "s3cret", claims={"groups": ["support-lead"]})
    async with provider.serve() as issuer:
        token = provider.mint({"sub": "agent-7"})
        expired = provider.mint(expires_in=-60)
        forged = provider.mint(key=OpenIdProvider.foreign_key())

Grants: ``client_credentials`` (confidential clients), ``authorization_code``
with PKCE S256 (required), and ``refresh_token`` (rotated on use). An RFC 8707
``resource`` parameter, at the authorization or the token endpoint, becomes the
token's ``aud``; without one, ``aud`` is the provider's ``audience``. Errors are
RFC 6749 §5.2 JSON bodies.

Keys: :meth:`OpenIdProvider.rotate` makes a new RSA key current, the previous
ones stay in the JWK set until :meth:`OpenIdProvider.retire` removes them. The
EC key is published for the provider's lifetime.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import hashlib
import hmac
import json
import math
import secrets
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias
from urllib.parse import parse_qsl, unquote_plus, urlencode, urlsplit, urlunsplit

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm
from starlette.applications import Starlette
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from tests.guard.conftest import serving

__all__ = ["OAuthError", "OpenIdProvider", "pkce_challenge"]

PrivateKey: TypeAlias = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey
Audience: TypeAlias = str | list[str]

SCOPES = ("mcp", "openid")
DEFAULT_SCOPE = "mcp"
GRANT_TYPES = ("authorization_code", "client_credentials", "refresh_token")
AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")
CODE_TTL_S = 60
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _segment(value: Mapping[str, Any]) -> str:
    return _b64url(json.dumps(value, separators=(",", ":")).encode())


def _compact(header: Mapping[str, Any], payload: Mapping[str, Any], sign: Callable[[bytes], bytes]) -> str:
    """A JWS compact serialization: the header and payload exactly as given, ``sign`` over both."""
    signing_input = f"{_segment(header)}.{_segment(payload)}"
    return f"{signing_input}.{_b64url(sign(signing_input.encode('ascii')))}"


def pkce_challenge(verifier: str) -> str:
    """The PKCE ``S256`` code challenge of ``verifier`` (RFC 7636 §4.2)."""
    return _b64url(hashlib.sha256(verifier.encode()).digest())


class OAuthError(Exception):
    """An RFC 6749 §5.2 error: ``error`` code, description and HTTP status (401 asks for Basic auth)."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(f"{error}: {description}")
        self.error = error
        self.description = description
        self.status = status

    def response(self) -> JSONResponse:
        headers = dict(NO_STORE)
        if self.status == 401:
            headers["WWW-Authenticate"] = 'Basic realm="oidc-provider"'
        body = {"error": self.error, "error_description": self.description}
        return JSONResponse(body, status_code=self.status, headers=headers)


@dataclass(frozen=True)
class _Key:
    kid: str
    alg: str
    private: PrivateKey

    def jwk(self) -> dict[str, Any]:
        public = self.private.public_key()
        if isinstance(public, rsa.RSAPublicKey):
            body = RSAAlgorithm.to_jwk(public, as_dict=True)
        else:
            body = ECAlgorithm.to_jwk(public, as_dict=True)
        body.pop("key_ops", None)
        return {**body, "kid": self.kid, "use": "sig", "alg": self.alg}


@dataclass
class _Client:
    client_id: str
    secret: str | None
    claims: dict[str, Any]
    redirect_uris: list[str]
    grant_types: tuple[str, ...]
    scope: str | None = None


@dataclass(frozen=True)
class _Grant:
    """What an authorization code or a refresh token stands for."""

    client_id: str
    scope: str
    audience: Audience
    redirect_uri: str | None = None
    challenge: str = ""
    nonce: str | None = None
    expires_at: float = math.inf


def _field(form: FormData, name: str) -> str | None:
    value = form.get(name)
    return value if isinstance(value, str) and value else None


def _resource(values: Sequence[object]) -> Audience | None:
    """The RFC 8707 ``resource`` values as an ``aud``: none, one (a string) or several (a list)."""
    uris: list[str] = []
    for value in values:
        if not isinstance(value, str) or not urlsplit(value).scheme or urlsplit(value).fragment:
            raise OAuthError(
                "invalid_target", f"resource must be an absolute URI without fragment: {value!r}"
            )
        uris.append(value)
    if not uris:
        return None
    return uris[0] if len(uris) == 1 else uris


def _with_query(uri: str, params: Mapping[str, str]) -> str:
    parts = urlsplit(uri)
    query = urlencode([*parse_qsl(parts.query, keep_blank_values=True), *params.items()])
    return urlunsplit(parts._replace(query=query))


class OpenIdProvider:
    """The authorization server; nothing listens until :meth:`serve`.

    ``audience`` is the ``aud`` of tokens requested without a ``resource``;
    ``token_ttl_s`` the lifetime of access tokens. ``jwks_requests`` and
    ``discovery_requests`` count GETs of the JWK set and of either metadata
    document; ``issued`` holds the claims of every access token the token
    endpoint issued, ``registrations`` every RFC 7591 registration response.
    A dynamically registered client gets a copy, taken at registration, of
    ``default_claims_for_registered`` as extra claims.
    """

    def __init__(self, audience: str, token_ttl_s: int = 300) -> None:
        self.audience = audience
        self.token_ttl_s = token_ttl_s
        self.jwks_requests = 0
        self.discovery_requests = 0
        self.default_claims_for_registered: dict[str, Any] = {}
        self.issued: list[dict[str, Any]] = []
        self.registrations: list[dict[str, Any]] = []
        self._issuer: str | None = None
        self._keys: dict[str, _Key] = {}
        self._clients: dict[str, _Client] = {}
        self._codes: dict[str, _Grant] = {}
        self._refresh_tokens: dict[str, _Grant] = {}
        self._current = self.rotate()
        self._ec_kid = f"ec-{secrets.token_hex(4)}"
        self._keys[self._ec_kid] = _Key(self._ec_kid, "ES256", ec.generate_private_key(ec.SECP256R1()))
        self._app = Starlette(
            routes=[
                Route("/.well-known/openid-configuration", self._discovery, methods=["GET"]),
                Route("/.well-known/oauth-authorization-server", self._discovery, methods=["GET"]),
                Route("/jwks", self._jwks, methods=["GET"]),
                Route("/token", self._token, methods=["POST"]),
                Route("/authorize", self._authorize, methods=["GET"]),
                Route("/register", self._register, methods=["POST"]),
            ]
        )

    @property
    def issuer(self) -> str:
        """The base URL the provider serves at (no trailing slash); set by :meth:`serve`."""
        if self._issuer is None:
            raise RuntimeError("the OpenID provider is not serving")
        return self._issuer

    @contextlib.asynccontextmanager
    async def serve(self) -> AsyncIterator[str]:
        """Serve on a loopback socket; yields the issuer URL."""
        async with serving(self._app) as base_url:
            self._issuer = base_url
            yield base_url

    @property
    def current_kid(self) -> str:
        """The ``kid`` of the RSA key that signs issued tokens."""
        return self._current

    @property
    def ec_kid(self) -> str:
        """The ``kid`` of the EC P-256 key (ES256)."""
        return self._ec_kid

    @property
    def kids(self) -> list[str]:
        """The ``kid`` of every published key."""
        return list(self._keys)

    def rotate(self) -> str:
        """Make a new RSA 2048 key current and return its ``kid``; earlier keys stay published."""
        kid = f"rsa-{secrets.token_hex(4)}"
        self._keys[kid] = _Key(kid, "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048))
        self._current = kid
        return kid

    def retire(self, kid: str) -> None:
        """Stop publishing a former RSA key (KeyError if unknown, ValueError for a key still in use)."""
        if kid not in self._keys:
            raise KeyError(kid)
        if kid in (self._current, self._ec_kid):
            raise ValueError(f"key {kid} still signs tokens")
        del self._keys[kid]

    def public_pem(self, kid: str | None = None) -> bytes:
        """The PEM (SubjectPublicKeyInfo) of a published key, the current RSA key by default."""
        public = self._keys[kid or self._current].private.public_key()
        return public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )

    @staticmethod
    def foreign_key() -> rsa.RSAPrivateKey:
        """A fresh RSA 2048 private key that no JWK set publishes."""
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def jwks(self) -> dict[str, Any]:
        """The JWK set as ``GET /jwks`` returns it."""
        return {"keys": [key.jwk() for key in self._keys.values()]}

    def metadata(self) -> dict[str, Any]:
        """The discovery document, the same at both well-known paths."""
        issuer = self.issuer
        return {
            "issuer": issuer,
            "authorization_endpoint": f"{issuer}/authorize",
            "token_endpoint": f"{issuer}/token",
            "registration_endpoint": f"{issuer}/register",
            "jwks_uri": f"{issuer}/jwks",
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": list(GRANT_TYPES),
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": list(AUTH_METHODS),
            "scopes_supported": list(SCOPES),
            "id_token_signing_alg_values_supported": ["RS256", "ES256"],
            "subject_types_supported": ["public"],
        }

    def add_client(
        self,
        client_id: str,
        secret: str | None,
        *,
        claims: Mapping[str, Any] | None = None,
        redirect_uris: list[str] | None = None,
    ) -> None:
        """Pre-register a client: confidential with a ``secret`` (Basic or form auth), else public.

        ``claims`` go into every access token issued to it (``sub`` defaults to
        ``client_id``). A public client may not use ``client_credentials``.
        """
        grants = GRANT_TYPES if secret is not None else ("authorization_code", "refresh_token")
        self._clients[client_id] = _Client(
            client_id, secret, copy.deepcopy(dict(claims or {})), list(redirect_uris or []), grants
        )

    def mint(
        self,
        claims: Mapping[str, Any] | None = None,
        *,
        alg: str = "RS256",
        kid: str | None = None,
        key: object | None = None,
        expires_in: int | None = None,
        audience: Audience | None = None,
        issuer: str | None = None,
        headers: Mapping[str, Any] | None = None,
        omit: tuple[str, ...] = (),
    ) -> str:
        """A token as the token endpoint would issue it, bent for negative tests.

        Claims default to ``iss`` (the issuer), ``sub``/``client_id``
        ``test-agent``, ``aud`` (``audience``), ``scope`` ``mcp``, ``iat``,
        ``nbf``, ``exp`` and ``jti``; ``claims`` override them and ``omit``
        drops names. ``expires_in`` is the seconds left (negative: expired);
        below ``token_ttl_s`` it backdates ``iat``/``nbf`` to keep the usual
        lifetime. ``alg`` ``ES*`` signs with the EC key, any other with the
        current RSA key; ``key`` signs with another private key instead (the
        header still names the published key's ``kid`` unless ``kid`` says
        otherwise). ``headers`` are merged last; a ``None`` value drops that
        header.
        """
        payload = self._claims(claims, expires_in, audience, issuer, omit)
        return self._signed(payload, alg=alg, kid=kid, key=key, headers=headers)

    def mint_unsigned(
        self,
        claims: Mapping[str, Any] | None = None,
        *,
        expires_in: int | None = None,
        audience: Audience | None = None,
        issuer: str | None = None,
        headers: Mapping[str, Any] | None = None,
        omit: tuple[str, ...] = (),
    ) -> str:
        """An unsecured JWT (header ``{"alg":"none","typ":"JWT"}``, empty signature: it ends in ``.``).

        Claims as :meth:`mint`; ``headers`` merged last (``{"alg": "None"}`` for
        a case variant).
        """
        header = {"alg": "none", "typ": "JWT", **(headers or {})}
        payload = self._claims(claims, expires_in, audience, issuer, omit)
        return _compact(_present(header), payload, lambda data: b"")

    def mint_hs256(
        self,
        secret: bytes,
        claims: Mapping[str, Any] | None = None,
        *,
        kid: str | None = None,
        expires_in: int | None = None,
        audience: Audience | None = None,
        issuer: str | None = None,
        headers: Mapping[str, Any] | None = None,
        omit: tuple[str, ...] = (),
    ) -> str:
        """A token HMAC-SHA256-signed with ``secret``, header ``kid`` the current RSA key's by default.

        For algorithm confusion: ``mint_hs256(provider.public_pem())`` signs
        with the published public key as the HMAC secret (computed here, since
        PyJWT refuses PEM secrets). Claims as :meth:`mint`.
        """
        header = {"alg": "HS256", "typ": "at+jwt", "kid": kid or self._current, **(headers or {})}
        payload = self._claims(claims, expires_in, audience, issuer, omit)
        return _compact(_present(header), payload, lambda data: hmac.digest(secret, data, "sha256"))

    def _signed(
        self,
        payload: Mapping[str, Any],
        *,
        alg: str = "RS256",
        kid: str | None = None,
        key: object | None = None,
        headers: Mapping[str, Any] | None = None,
    ) -> str:
        published = self._keys[self._ec_kid if alg.startswith("ES") else self._current]
        signer = jwt.get_algorithm_by_name(alg)
        private = signer.prepare_key(published.private if key is None else key)
        header = {"alg": alg, "typ": "at+jwt", "kid": kid or published.kid, **(headers or {})}
        return _compact(_present(header), payload, lambda data: signer.sign(data, private))

    def _claims(
        self,
        claims: Mapping[str, Any] | None,
        expires_in: int | None,
        audience: Audience | None,
        issuer: str | None,
        omit: tuple[str, ...],
    ) -> dict[str, Any]:
        now = int(time.time())
        expires = now + (self.token_ttl_s if expires_in is None else expires_in)
        issued = min(now, expires - self.token_ttl_s)
        payload: dict[str, Any] = {
            "iss": self.issuer if issuer is None else issuer,
            "sub": "test-agent",
            "aud": self.audience if audience is None else audience,
            "exp": expires,
            "iat": issued,
            "nbf": issued,
            "jti": secrets.token_urlsafe(16),
            "client_id": "test-agent",
            "scope": DEFAULT_SCOPE,
            **(claims or {}),
        }
        for name in omit:
            payload.pop(name, None)
        return payload

    def _issue(self, client: _Client, grant: _Grant, grant_type: str) -> dict[str, Any]:
        """The token response for ``grant``; records the access token's claims in ``issued``."""
        identity = {"sub": client.client_id, "client_id": client.client_id, "scope": grant.scope}
        claims = self._claims({**identity, **copy.deepcopy(client.claims)}, None, grant.audience, None, ())
        self.issued.append(claims)
        body: dict[str, Any] = {
            "access_token": self._signed(claims),
            "token_type": "Bearer",
            "expires_in": self.token_ttl_s,
            "scope": grant.scope,
        }
        if grant_type != "client_credentials" and "refresh_token" in client.grant_types:
            body["refresh_token"] = secrets.token_urlsafe(32)
            self._refresh_tokens[body["refresh_token"]] = _Grant(
                client.client_id, grant.scope, grant.audience
            )
        if grant_type == "authorization_code" and "openid" in grant.scope.split():
            id_claims = {"sub": claims["sub"], "azp": client.client_id, "nonce": grant.nonce}
            body["id_token"] = self._signed(
                self._claims(
                    _present(id_claims), None, client.client_id, None, ("client_id", "scope", "jti")
                ),
                headers={"typ": "JWT"},
            )
        return body

    def _authenticate(self, request: Request, form: FormData) -> _Client:
        """The client of a token request: HTTP Basic, else ``client_id``/``client_secret`` in the form."""
        client_id, secret = _field(form, "client_id"), _field(form, "client_secret")
        authorization = request.headers.get("authorization", "")
        if authorization[:6].lower() == "basic ":
            if secret is not None:
                raise OAuthError("invalid_request", "more than one client authentication method")
            try:
                decoded = base64.b64decode(authorization[6:].strip(), validate=True).decode()
            except ValueError:
                raise OAuthError("invalid_client", "malformed Basic credentials", 401) from None
            basic_id, _, basic_secret = decoded.partition(":")
            if client_id is not None and client_id != unquote_plus(basic_id):
                raise OAuthError("invalid_client", "client_id differs from the Basic credentials", 401)
            client_id, secret = unquote_plus(basic_id), unquote_plus(basic_secret) or None
        client = self._clients.get(client_id or "")
        if client is None:
            raise OAuthError("invalid_client", "unknown client", 401)
        if client.secret is not None and not (
            secret is not None and hmac.compare_digest(secret.encode(), client.secret.encode())
        ):
            raise OAuthError("invalid_client", "client authentication failed", 401)
        return client

    def _client_credentials(self, client: _Client, form: FormData) -> _Grant:
        scope = _field(form, "scope") or client.scope or DEFAULT_SCOPE
        audience = _resource(form.getlist("resource")) or self.audience
        return _Grant(client.client_id, scope, audience)

    def _authorization_code(self, client: _Client, form: FormData) -> _Grant:
        grant = self._codes.pop(_field(form, "code") or "", None)
        if grant is None or grant.expires_at < time.time() or grant.client_id != client.client_id:
            raise OAuthError("invalid_grant", "unknown, used or expired authorization code")
        if grant.redirect_uri is not None and _field(form, "redirect_uri") != grant.redirect_uri:
            raise OAuthError("invalid_grant", "redirect_uri differs from the authorization request")
        verifier = _field(form, "code_verifier") or ""
        if not hmac.compare_digest(pkce_challenge(verifier), grant.challenge):
            raise OAuthError("invalid_grant", "code_verifier does not match the code_challenge")
        audience = _resource(form.getlist("resource")) or grant.audience
        return _Grant(client.client_id, grant.scope, audience, nonce=grant.nonce)

    def _refresh_token(self, client: _Client, form: FormData) -> _Grant:
        grant = self._refresh_tokens.pop(_field(form, "refresh_token") or "", None)
        if grant is None or grant.client_id != client.client_id:
            raise OAuthError("invalid_grant", "unknown or used refresh token")
        scope = _field(form, "scope") or grant.scope
        if not set(scope.split()) <= set(grant.scope.split()):
            raise OAuthError("invalid_scope", "scope exceeds the original grant")
        audience = _resource(form.getlist("resource")) or grant.audience
        return _Grant(client.client_id, scope, audience)

    async def _discovery(self, request: Request) -> JSONResponse:
        self.discovery_requests += 1
        return JSONResponse(self.metadata())

    async def _jwks(self, request: Request) -> JSONResponse:
        self.jwks_requests += 1
        return JSONResponse(self.jwks())

    async def _token(self, request: Request) -> Response:
        form = await request.form()
        grants = {
            "client_credentials": self._client_credentials,
            "authorization_code": self._authorization_code,
            "refresh_token": self._refresh_token,
        }
        grant_type = _field(form, "grant_type")
        try:
            if grant_type is None:
                raise OAuthError("invalid_request", "grant_type is required")
            if grant_type not in grants:
                raise OAuthError("unsupported_grant_type", f"grant_type {grant_type!r} is not supported")
            client = self._authenticate(request, form)
            if grant_type not in client.grant_types:
                raise OAuthError("unauthorized_client", f"the client may not use {grant_type}")
            grant = grants[grant_type](client, form)
        except OAuthError as error:
            return error.response()
        return JSONResponse(self._issue(client, grant, grant_type), headers=NO_STORE)

    async def _authorize(self, request: Request) -> Response:
        params = request.query_params
        client = self._clients.get(params.get("client_id", ""))
        if client is None:
            return OAuthError("invalid_request", "unknown client_id").response()
        redirect_uri = params.get("redirect_uri")
        if redirect_uri is None and len(client.redirect_uris) == 1:
            redirect_uri = client.redirect_uris[0]
        if redirect_uri is None or redirect_uri not in client.redirect_uris:
            return OAuthError("invalid_request", "redirect_uri is not registered for the client").response()
        state = {"state": params["state"]} if "state" in params else {}
        challenge = params.get("code_challenge", "")
        try:
            if params.get("response_type") != "code":
                raise OAuthError("unsupported_response_type", "response_type must be code")
            if not challenge or params.get("code_challenge_method") != "S256":
                raise OAuthError("invalid_request", "PKCE is required: code_challenge with method S256")
            if "authorization_code" not in client.grant_types:
                raise OAuthError("unauthorized_client", "the client may not use authorization_code")
            audience = _resource(params.getlist("resource")) or self.audience
        except OAuthError as error:
            refusal = {"error": error.error, "error_description": error.description, **state}
            return RedirectResponse(_with_query(redirect_uri, refusal), status_code=302)
        code = secrets.token_urlsafe(32)
        scope = params.get("scope") or client.scope or DEFAULT_SCOPE
        self._codes[code] = _Grant(
            client.client_id,
            scope,
            audience,
            redirect_uri=params.get("redirect_uri"),
            challenge=challenge,
            nonce=params.get("nonce"),
            expires_at=time.time() + CODE_TTL_S,
        )
        return RedirectResponse(_with_query(redirect_uri, {"code": code, **state}), status_code=302)

    async def _register(self, request: Request) -> Response:
        try:
            metadata = await request.json()
            if not isinstance(metadata, dict):
                raise OAuthError("invalid_client_metadata", "the body must be a JSON object")
            client = self._registered(metadata)
        except ValueError:
            return OAuthError("invalid_client_metadata", "the body must be JSON").response()
        except OAuthError as error:
            return error.response()
        body: dict[str, Any] = {
            **metadata,
            "client_id": client.client_id,
            "client_id_issued_at": int(time.time()),
            "redirect_uris": client.redirect_uris,
            "grant_types": list(client.grant_types),
            "response_types": metadata.get("response_types", ["code"]),
            "token_endpoint_auth_method": metadata.get("token_endpoint_auth_method", "client_secret_basic"),
        }
        if client.secret is not None:
            body |= {"client_secret": client.secret, "client_secret_expires_at": 0}
        self.registrations.append(body)
        return JSONResponse(body, status_code=201, headers=NO_STORE)

    def _registered(self, metadata: dict[str, Any]) -> _Client:
        """Check RFC 7591 client metadata and register the client."""
        method = metadata.get("token_endpoint_auth_method", "client_secret_basic")
        grant_types = metadata.get("grant_types", ["authorization_code"])
        redirect_uris = metadata.get("redirect_uris", [])
        scope = metadata.get("scope")
        if method not in AUTH_METHODS:
            raise OAuthError("invalid_client_metadata", f"token_endpoint_auth_method {method!r}")
        if not isinstance(grant_types, list) or not all(grant in GRANT_TYPES for grant in grant_types):
            raise OAuthError("invalid_client_metadata", f"grant_types {grant_types!r}")
        if method == "none" and "client_credentials" in grant_types:
            raise OAuthError("invalid_client_metadata", "a public client may not use client_credentials")
        if scope is not None and not isinstance(scope, str):
            raise OAuthError("invalid_client_metadata", "scope must be a string")
        if not isinstance(redirect_uris, list) or not all(
            isinstance(uri, str) and urlsplit(uri).scheme and not urlsplit(uri).fragment
            for uri in redirect_uris
        ):
            raise OAuthError("invalid_redirect_uri", "redirect_uris must be absolute URIs without fragment")
        if "authorization_code" in grant_types and not redirect_uris:
            raise OAuthError("invalid_redirect_uri", "authorization_code needs redirect_uris")
        client = _Client(
            client_id=f"dcr-{secrets.token_hex(8)}",
            secret=None if method == "none" else secrets.token_urlsafe(32),
            claims=copy.deepcopy(self.default_claims_for_registered),
            redirect_uris=list(redirect_uris),
            grant_types=tuple(grant_types),
            scope=scope,
        )
        self._clients[client.client_id] = client
        return client


def _present(header: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in header.items() if value is not None}
