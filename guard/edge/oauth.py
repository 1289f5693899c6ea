"""The guard as an OAuth 2.1 protected resource (the MCP authorization spec; RFC 9728, RFC 6750).

With ``auth.jwt`` set, ``GET /.well-known/oauth-protected-resource`` (and the same with the resource's
path after it, ``.../oauth-protected-resource/mcp``, which MCP clients ask first; any other path is 404)
answers the protected resource metadata: the resource (``auth.jwt.resource``, else the first audience,
a URL: never anything from the request), the authorization servers, the bearer method, the scopes.
Every 401 at ``/mcp`` then carries ``WWW-Authenticate: Bearer resource_metadata="..."`` (with
``error="invalid_token"`` when a token was sent), and a token without the required scopes is answered
403 ``error="insufficient_scope"`` naming them, so that a client can find where to get a token and
which. Without ``auth.jwt`` the metadata route answers 404 and the challenge is a bare ``Bearer``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from guard.settings import JwtSettings

__all__ = ["METADATA_PATH", "challenge", "metadata_url", "resource_metadata", "resource_of"]

METADATA_PATH = "/.well-known/oauth-protected-resource"


def resource_of(settings: JwtSettings) -> str:
    """The resource identifier of this guard's MCP endpoint, as the metadata names it (configured, never
    taken from a request: a Host header cannot change what clients are told)."""
    return settings.resource or settings.audience[0]


def metadata_url(resource: str) -> str:
    """Where the metadata of ``resource`` is (RFC 9728 §3.1: the well-known path before the resource's)."""
    parts = urlsplit(resource)
    path = parts.path.rstrip("/")
    return f"{parts.scheme}://{parts.netloc}{METADATA_PATH}{path}"


def challenge(
    settings: JwtSettings | None, error: str | None = None, params: Mapping[str, str] | None = None
) -> str:
    """The ``WWW-Authenticate`` value of a refusal: ``error`` (none: no token was sent) and ``params``
    (``error_description``, ``scope``), then where the resource metadata is (``settings``: for /mcp)."""
    parts = []
    if error is not None:
        parts.append(f'error="{error}"')
    parts.extend(f'{name}="{_quoted(value)}"' for name, value in (params or {}).items())
    if settings is not None:
        parts.append(f'resource_metadata="{_quoted(metadata_url(resource_of(settings)))}"')
    return "Bearer " + ", ".join(parts) if parts else "Bearer"


def _quoted(value: str) -> str:
    """``value`` as an RFC 6750 quoted string may hold it: printable ASCII, no quote or backslash."""
    return "".join(ch for ch in value if " " <= ch <= "~" and ch not in '"\\')


def resource_metadata(settings: JwtSettings | None) -> Callable[[Request], Awaitable[Response]]:
    """The metadata route's endpoint for ``settings`` (404 without them)."""

    async def endpoint(request: Request) -> Response:
        if settings is None:
            return JSONResponse({"error": "this guard takes no OAuth access tokens (auth.jwt)"}, 404)
        suffix = request.path_params.get("resource")
        if suffix is not None and f"/{suffix}".rstrip("/") != urlsplit(resource_of(settings)).path.rstrip(
            "/"
        ):
            return JSONResponse({"error": f"no protected resource at /{suffix[:64]}"}, 404)
        document: dict[str, object] = {
            "resource": resource_of(settings),
            "authorization_servers": settings.authorization_servers or [settings.issuer],
            "bearer_methods_supported": ["header"],
            "resource_name": "guard",
        }
        if settings.required_scopes:
            document["scopes_supported"] = settings.required_scopes
        return JSONResponse(document, headers={"Cache-Control": "max-age=300"})

    return endpoint
