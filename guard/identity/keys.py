"""The issuer's signing keys, fetched over HTTP and kept: what a JWT's ``kid`` names.

Where the keys are: ``auth.jwt.jwks_url``, or the ``jwks_uri`` of the issuer's discovery document
(OpenID Connect Discovery's ``/.well-known/openid-configuration``, else RFC 8414's
``/.well-known/oauth-authorization-server``), whose ``issuer`` must be the configured one. The keys are
used for ``jwks_cache_s``, then fetched again in the background while the held ones still serve, so a
provider that hangs never holds up a token whose key is held (a retired key is refused once that fetch
has come back). A token naming a key not among them (the provider
rotated its keys) fetches them again at once, but never more often than once per ``jwks_min_refetch_s``
however many such tokens arrive, so that tokens with made-up key ids cannot make the guard hammer the
provider; concurrent fetches are one fetch. A fetch that fails leaves the keys held before in use (and
is not tried again for ``jwks_min_refetch_s``); with none ever fetched a token cannot be checked, which
is :class:`KeysUnavailable`, never a verdict on the token.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx2

from guard.clock import Clock
from guard.settings import JwtSettings

__all__ = ["KeySet", "KeysUnavailable", "UnknownKey"]

log = logging.getLogger(__name__)

_MAX_DOCUMENT_BYTES = 1_048_576
_MAX_KEYS = 100
_NO_KID = ""


class KeysUnavailable(Exception):
    """The keys could not be fetched and none are held: no token can be checked now."""


class UnknownKey(Exception):
    """The token names a key the issuer does not publish (after fetching the keys again if allowed)."""


class KeySet:
    """The issuer's public keys as JWK objects by ``kid``; :meth:`find` is the one way in."""

    def __init__(self, settings: JwtSettings, clock: Clock, client: httpx2.AsyncClient | None = None) -> None:
        self._settings = settings
        self._clock = clock
        self._client = client
        self._own_client = client is None
        self._jwks_url = settings.jwks_url
        self._keys: dict[str, Mapping[str, Any]] = {}
        self._fetched_at: float | None = None
        self._tried_at: float | None = None
        self._lock = asyncio.Lock()
        self._behind: asyncio.Task[None] | None = None
        self.fetches = 0
        """Fetches of the key set attempted."""

    @property
    def loaded(self) -> bool:
        """Whether keys were ever fetched."""
        return self._fetched_at is not None

    async def find(self, kid: str | None) -> Mapping[str, Any]:
        """The JWK named ``kid`` (a token without one: the only key); fetched again as the module says."""
        now = self._clock.monotonic()
        stale = self._fetched_at is None or now - self._fetched_at >= self._settings.jwks_cache_s
        held = self._pick(kid)
        if held is not None and stale:
            self._refresh_behind(now)
        elif held is None and (stale or self._may_try(now)):
            await self._refresh(now)
        found = self._pick(kid)
        if found is not None:
            return found
        if not self.loaded:
            raise KeysUnavailable("the issuer's signing keys could not be fetched")
        raise UnknownKey(
            "the token names no key (kid) and the issuer publishes several"
            if kid is None
            else "the token is signed with a key the issuer does not publish"
        )

    def _pick(self, kid: str | None) -> Mapping[str, Any] | None:
        if kid is not None:
            return self._keys.get(kid)
        return next(iter(self._keys.values())) if len(self._keys) == 1 else None

    def _refresh_behind(self, now: float) -> None:
        """Fetch the keys again without making anyone wait: the key a token names is held already."""
        if self._behind is None or self._behind.done():
            self._behind = asyncio.get_running_loop().create_task(self._refresh(now))

    async def settle(self) -> None:
        """Wait for a fetch in the background, if one runs."""
        if self._behind is not None:
            await asyncio.shield(self._behind)

    def _may_try(self, now: float) -> bool:
        # while no key was ever fetched, every token waits for them: try again within a second
        wait = (
            self._settings.jwks_min_refetch_s if self.loaded else min(1.0, self._settings.jwks_min_refetch_s)
        )
        return self._tried_at is None or now - self._tried_at >= wait

    async def _refresh(self, asked_at: float) -> None:
        async with self._lock:
            if self._tried_at is not None and self._tried_at >= asked_at:
                return  # another request fetched them while this one waited
            if self._tried_at is not None and not self._may_try(self._clock.monotonic()):
                return
            self._tried_at = self._clock.monotonic()
            self.fetches += 1
            try:
                async with asyncio.timeout(self._settings.jwks_timeout_s):  # the whole fetch, not each read
                    keys = await self._fetch()
            except Exception as exc:
                log.warning(
                    "could not fetch the signing keys of %s (%s); %s",
                    self._settings.issuer,
                    exc,
                    "keeping the keys held" if self.loaded else "no token can be checked until they come",
                )
                return
            self._keys = keys
            self._fetched_at = self._clock.monotonic()

    async def _fetch(self) -> dict[str, Mapping[str, Any]]:
        url = self._jwks_url or await self._discover()
        document = await self._get_json(url)
        entries = document.get("keys")
        if not isinstance(entries, list):
            raise ValueError(f"{url} is not a JWK set (no keys list)")
        keys: dict[str, Mapping[str, Any]] = {}
        for entry in entries[:_MAX_KEYS]:
            if isinstance(entry, dict) and entry.get("use", "sig") == "sig" and "kty" in entry:
                kid = entry.get("kid")
                keys[kid if isinstance(kid, str) else _NO_KID] = entry
        self._jwks_url = url
        return keys

    async def _discover(self) -> str:
        issuer = self._settings.issuer.rstrip("/")
        parts = urlsplit(issuer)
        origin = f"{parts.scheme}://{parts.netloc}"
        candidates = (
            f"{issuer}/.well-known/openid-configuration",
            f"{origin}/.well-known/oauth-authorization-server{parts.path}",
        )
        problems = []
        for url in candidates:
            try:
                metadata = await self._get_json(url)
            except Exception as exc:
                problems.append(f"{url}: {exc}")
                continue
            if str(metadata.get("issuer", "")).rstrip("/") != issuer:
                raise ValueError(f"{url} names another issuer ({metadata.get('issuer')!r})")
            jwks_uri = metadata.get("jwks_uri")
            if not isinstance(jwks_uri, str):
                raise ValueError(f"{url} names no jwks_uri")
            scheme = urlsplit(jwks_uri).scheme
            if scheme != "https" and not (scheme == "http" and parts.scheme == "http"):
                raise ValueError(f"{url} names a jwks_uri that is not https: {jwks_uri!r}")
            return jwks_uri
        raise ValueError("no discovery document: " + "; ".join(problems))

    async def _get_json(self, url: str) -> dict[str, Any]:
        client = self._http()
        async with client.stream("GET", url, headers={"Accept": "application/json"}) as response:
            if response.status_code != 200:
                raise ValueError(f"HTTP {response.status_code}")
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > _MAX_DOCUMENT_BYTES:
                    raise ValueError(f"more than {_MAX_DOCUMENT_BYTES} bytes")
        document = json.loads(bytes(body))
        if not isinstance(document, dict):
            raise ValueError("not a JSON object")
        return document

    def _http(self) -> httpx2.AsyncClient:
        if self._client is None:
            self._client = httpx2.AsyncClient(timeout=self._settings.jwks_timeout_s, follow_redirects=False)
        return self._client

    async def aclose(self) -> None:
        """Stop a fetch in the background and close the HTTP client (one it was handed stays open)."""
        if self._behind is not None:
            self._behind.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._behind
        if self._own_client and self._client is not None:
            await self._client.aclose()
            self._client = None
