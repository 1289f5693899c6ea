"""JWT access tokens checked as an OAuth 2.1 resource server does (the MCP authorization spec), with PyJWT.

:meth:`TokenVerifier.verify` takes a token to a :class:`~guard.identity.principal.Principal` or refuses
it (:class:`TokenRefused`, whose ``description`` says why without repeating the token). In order: the
token's header must declare no extension (``crit``, RFC 7515 §4.1.11), and name an algorithm of
``auth.jwt.algorithms`` (never ``none``, never HMAC) and a key the issuer publishes
(:class:`~guard.identity.keys.KeySet`) of that algorithm's type; the signature must verify with it;
``iss`` must be the issuer, ``aud`` one of the audiences, ``exp`` in the future and ``nbf``/``iat`` not
(each within ``leeway_s``); the ``principal_claim`` must be a short name. Operators are the tokens whose
``operator_claim`` holds one of ``operator_values``.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

import jwt

from guard.identity.keys import KeySet, KeysUnavailable, UnknownKey
from guard.identity.principal import MAX_CLAIM_BYTES, MAX_CLAIM_ITEMS, Principal, claim_values, kept_claims
from guard.settings import JwtSettings

__all__ = ["TokenRefused", "TokenVerifier", "looks_like_jwt"]

log = logging.getLogger(__name__)

_JWT = re.compile(r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$")
_MAX_TOKEN_CHARS = 16_384

_REFUSED: tuple[tuple[type[jwt.InvalidTokenError], str], ...] = (
    (jwt.ExpiredSignatureError, "the token has expired"),
    (jwt.ImmatureSignatureError, "the token is not valid yet (nbf or iat in the future)"),
    (jwt.InvalidAudienceError, "the token is for another resource (its aud is not this guard's audience)"),
    (jwt.InvalidIssuerError, "the token is from another issuer (iss)"),
    (jwt.InvalidSignatureError, "the token's signature does not verify"),
    (jwt.MissingRequiredClaimError, "the token lacks a required claim"),
)


def looks_like_jwt(token: str) -> bool:
    """Whether ``token`` has a JWS compact form (three base64url parts), so is worth verifying."""
    return len(token) <= _MAX_TOKEN_CHARS and _JWT.match(token) is not None


class TokenRefused(Exception):
    """A token the guard does not accept: the HTTP status, the OAuth ``error`` code, and why.

    ``guess``: the refusal says the token was wrong (counted against its source's budget of failures),
    not merely old (``expired``) or uncheckable now (status 503).
    """

    def __init__(self, status: int, error: str, description: str, guess: bool = True) -> None:
        super().__init__(description)
        self.status = status
        self.error = error
        self.description = description
        self.guess = guess


class TokenVerifier:
    """Verifies the issuer's JWT access tokens against its published keys."""

    def __init__(self, settings: JwtSettings, keys: KeySet, reserved: frozenset[str] = frozenset()) -> None:
        self.settings = settings
        self.keys = keys
        self.reserved = reserved
        """Names no token may take: the static tokens' agents, ``anonymous``, ``operator``."""
        self._parsed: dict[tuple[str | None, str], tuple[Mapping[str, Any], jwt.PyJWK]] = {}
        """Keys parsed, by (kid, algorithm), with the JWK each was parsed from (a fetch replaces it)."""

    async def verify(self, token: str) -> Principal:
        """The principal ``token`` names, or :class:`TokenRefused` (whatever is wrong with it)."""
        try:
            return await self._verify(token)
        except TokenRefused:
            raise
        except Exception as exc:  # a token no check foresaw is a wrong one, never a server error
            log.warning("a token failed verification unexpectedly: %s", type(exc).__name__)
            raise TokenRefused(401, "invalid_token", "the token is not valid") from None

    async def _verify(self, token: str) -> Principal:
        if not looks_like_jwt(token):
            raise TokenRefused(401, "invalid_token", "the token is not a JWT")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError:
            raise TokenRefused(401, "invalid_token", "the token's header is not readable") from None
        if "crit" in header or header.get("b64") is not None:
            raise TokenRefused(
                401, "invalid_token", "the token's header has extensions (crit, b64) the guard does not take"
            )
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self.settings.algorithms:
            raise TokenRefused(401, "invalid_token", "the token's algorithm (alg) is not accepted")
        kid = header.get("kid")
        key = await self._key(kid if isinstance(kid, str) else None, alg)
        payload = self._decode(token, key, alg)
        return self._principal(payload)

    async def _key(self, kid: str | None, alg: str) -> jwt.PyJWK:
        try:
            jwk = await self.keys.find(kid)
        except KeysUnavailable as exc:
            raise TokenRefused(503, "temporarily_unavailable", str(exc), guess=False) from None
        except UnknownKey as exc:
            raise TokenRefused(401, "invalid_token", str(exc)) from None
        published = jwk.get("alg")
        if published is not None and published != alg:
            raise TokenRefused(401, "invalid_token", "the token's algorithm is not its key's")
        held = self._parsed.get((kid, alg))
        if held is not None and held[0] is jwk:
            return held[1]
        try:
            parsed = jwt.PyJWK(dict(jwk), algorithm=alg)
        except (jwt.PyJWKError, jwt.InvalidKeyError):
            raise TokenRefused(401, "invalid_token", "the token's key does not fit its algorithm") from None
        if len(self._parsed) >= 256:
            self._parsed.clear()
        self._parsed[(kid, alg)] = (jwk, parsed)
        return parsed

    def _decode(self, token: str, key: jwt.PyJWK, alg: str) -> dict[str, Any]:
        try:
            payload: dict[str, Any] = jwt.decode(
                token,
                key.key,
                algorithms=[alg],
                audience=self.settings.audience,
                issuer=self.settings.issuer,
                leeway=self.settings.leeway_s,
                options={"require": ["exp", "iss", "aud"], "strict_aud": False},
            )
        except jwt.InvalidTokenError as exc:
            raise _refusal(exc) from None
        return payload

    def _principal(self, payload: Mapping[str, Any]) -> Principal:
        settings = self.settings
        kept = kept_claims(payload, settings.claims)
        name = payload.get(settings.principal_claim)
        if isinstance(name, int) and not isinstance(name, bool):
            name = str(name)
        if not isinstance(name, str) or not _is_name(name):
            raise TokenRefused(
                401,
                "invalid_token",
                f"the token's {settings.principal_claim} claim is not a name (1-128 visible characters, "
                "no control, format or line-separating character, none at either end a space)",
            )
        if name in self.reserved:
            raise TokenRefused(
                401,
                "invalid_token",
                f"the token's {settings.principal_claim} is a name kept for a static token's agent "
                "(auth.agent_tokens) or for the guard itself",
            )
        oversized = [claim for claim in settings.claims if claim in payload and claim not in kept]
        if oversized:
            raise TokenRefused(
                401,
                "invalid_token",
                f"the token's {', '.join(oversized)} claim is larger than the guard keeps "
                f"({MAX_CLAIM_ITEMS} items, {MAX_CLAIM_BYTES} bytes): rules and limits could not read it",
            )
        operator = settings.operator_claim is not None and any(
            value in settings.operator_values for value in claim_values(payload, settings.operator_claim)
        )
        return Principal(
            name,
            kept,
            operator=operator,
            verified=True,
            scopes=frozenset((*claim_values(payload, "scope"), *claim_values(payload, "scp"))),
            expires_at=float(payload["exp"]),
        )


_UNSEEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories a name may not hold: controls, format characters (zero-width, direction
overrides), surrogates, private and unassigned code points, line and paragraph separators."""


def _is_name(text: str) -> bool:
    """Whether ``text`` can stand for someone: 1-128 characters a reader sees, no blank at either end."""
    if not 0 < len(text) <= 128 or text != text.strip():
        return False
    return not any(unicodedata.category(char) in _UNSEEN for char in text)


def _refusal(exc: jwt.InvalidTokenError) -> TokenRefused:
    for kind, description in _REFUSED:
        if isinstance(exc, kind):
            if isinstance(exc, jwt.MissingRequiredClaimError):
                description = f"{description} ({exc.claim})"
            guess = kind is not jwt.ExpiredSignatureError
            return TokenRefused(401, "invalid_token", description, guess=guess)
    return TokenRefused(401, "invalid_token", "the token is not valid")
