"""Who may call the guard and how much: bearer tokens, JWT access tokens, per-agent limits.

An agent is known by a name: a static token's (``auth.agent_tokens``), or a verified JWT's
``auth.jwt.principal_claim``; with a JWT it also has the claims ``auth.jwt.claims`` keeps. Limits are
per agent (per replica): the defaults of :class:`LimitSettings`, overridden for the agents an entry of
``limits.principals`` matches, by name or by a claim's value.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from guard.settings.base import Section

__all__ = ["AuthSettings", "JwtSettings", "LimitSettings", "PrincipalLimits", "PrincipalMatch", "is_loopback"]

ASYMMETRIC_ALGORITHMS = (
    *("RS256", "RS384", "RS512", "PS256", "PS384", "PS512"),
    *("ES256", "ES384", "ES512", "EdDSA"),
)
"""The JWS algorithms a JWKS can verify. ``none`` and the HMAC ones (HS*) never: with a public key set,
an HMAC "signature" is one anyone holding the published key can make."""

_DEFAULT_CLAIMS = ["sub", "iss", "client_id", "azp", "scope", "scp", "roles", "groups"]


def _http_url(value: str, where: str) -> str:
    """``value`` if it is an absolute https URL, or http to a loopback host (a local provider)."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{where}: {value!r} is not an absolute http(s) URL")
    if parts.scheme == "http" and not is_loopback(parts.hostname):
        raise ValueError(f"{where}: {value!r} must be https (http only to a loopback host)")
    return value


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name, an address, an IPv6 address in brackets) is this machine's loopback."""
    name = host.strip().lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


class JwtSettings(Section):
    """JWT access tokens verified against the issuer's published keys (JWKS), as an OAuth 2.1 resource
    server: the signature (an asymmetric algorithm of ``algorithms``, the key named by ``kid``), ``iss``,
    ``aud``, ``exp`` and ``nbf`` within ``leeway_s``, and the ``required_scopes``."""

    issuer: str = Field(
        description="The authorization server's issuer identifier; a token's iss must equal it."
    )
    audience: list[str] = Field(
        min_length=1,
        description="Accepted aud values: the guard's resource identifier (RFC 8707), e.g. "
        "https://guard.example.com/mcp. A token for another resource is refused.",
    )
    jwks_url: str | None = Field(
        None,
        description="Where the signing keys are published. None: from the issuer's discovery document "
        "(/.well-known/openid-configuration, else /.well-known/oauth-authorization-server).",
    )
    resource: str | None = Field(
        None,
        description="The resource the protected resource metadata names (the URL clients reach /mcp at). "
        "None: the first audience, which must then be an http(s) URL.",
    )
    authorization_servers: list[str] | None = Field(
        None, description="Authorization servers the metadata lists. None: [issuer]."
    )
    algorithms: list[str] = Field(
        default_factory=lambda: list(ASYMMETRIC_ALGORITHMS),
        min_length=1,
        description="Signature algorithms accepted (asymmetric only: never none or HS*).",
    )
    leeway_s: float = Field(60.0, ge=0, le=600, description="Clock skew allowed on exp, nbf and iat.")
    principal_claim: str = Field(
        "sub", min_length=1, description="The claim whose value is the agent's (or operator's) name."
    )
    claims: list[str] = Field(
        default_factory=lambda: list(_DEFAULT_CLAIMS),
        description="Claims kept with the principal: audited, in spans and the console, and readable by "
        "rules as claims.<name>. A token with one over 4 KiB (or a list over 256 items) is refused.",
    )
    required_scopes: list[str] = Field(
        default_factory=list,
        description="Scopes an agent's token must carry (scope or scp); else 403 insufficient_scope.",
    )
    operator_claim: str | None = Field(
        None,
        description="The claim naming operators (e.g. groups or roles): a token whose claim holds one of "
        "operator_values is an operator's (admin API, console), and is refused at /mcp.",
    )
    operator_values: list[str] = Field(
        default_factory=list, description="The operator_claim values that make a token an operator's."
    )
    jwks_cache_s: float = Field(
        300.0, gt=0, description="How long fetched keys are used before they are fetched again."
    )
    jwks_min_refetch_s: float = Field(
        30.0,
        ge=0,
        description="A token naming an unknown key (a rotation) fetches the keys again at most this often.",
    )
    jwks_timeout_s: float = Field(5.0, gt=0, le=60, description="Timeout of one fetch of the keys.")

    @field_validator("audience", mode="before")
    @classmethod
    def _one_or_more(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("algorithms")
    @classmethod
    def _asymmetric(cls, value: list[str]) -> list[str]:
        wrong = [name for name in value if name not in ASYMMETRIC_ALGORITHMS]
        if wrong:
            raise ValueError(
                f"auth.jwt.algorithms: {', '.join(wrong)} not accepted; use asymmetric ones of "
                f"{', '.join(ASYMMETRIC_ALGORITHMS)} (never none, never HMAC beside a public key set)"
            )
        return value

    @model_validator(mode="after")
    def _consistent(self) -> JwtSettings:
        _http_url(self.issuer, "auth.jwt.issuer")
        for url, where in (
            (self.jwks_url, "auth.jwt.jwks_url"),
            (self.resource, "auth.jwt.resource"),
            *((server, "auth.jwt.authorization_servers") for server in self.authorization_servers or ()),
        ):
            if url is not None:
                _http_url(url, where)
        if any(not audience.strip() for audience in self.audience):
            raise ValueError("auth.jwt.audience: an audience is empty")
        if self.resource is None and urlsplit(self.audience[0]).scheme not in ("http", "https"):
            raise ValueError(
                "auth.jwt.resource: set it to the URL clients reach /mcp at; the first audience "
                f"({self.audience[0]!r}) is not one, and the guard never takes it from a request's Host"
            )
        if (self.operator_claim is None) != (not self.operator_values):
            raise ValueError("auth.jwt: set operator_claim and operator_values together (or neither)")
        if self.principal_claim not in self.claims:
            self.claims = [self.principal_claim, *self.claims]
        return self

    @property
    def operators(self) -> bool:
        """Whether tokens of this issuer can name operators."""
        return self.operator_claim is not None


class PrincipalMatch(Section):
    """Which agents a :class:`PrincipalLimits` entry is for: one by name, or those whose token's ``claim``
    holds ``value`` (equal to it, an item of a list, or a word of a space-separated scope string)."""

    principal: str | None = Field(None, min_length=1)
    claim: str | None = Field(None, min_length=1)
    value: str | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _one_way(self) -> PrincipalMatch:
        by_claim = self.claim is not None and self.value is not None
        if (self.principal is not None) == by_claim or (self.claim is None) != (self.value is None):
            raise ValueError("limits.principals[].match: give principal, or claim and value")
        return self


class PrincipalLimits(Section):
    """The limits of the agents ``match`` names; a limit left out comes from ``limits``."""

    match: PrincipalMatch
    max_open_per_agent: int | None = Field(None, ge=1)
    calls_per_minute_per_agent: int | None = Field(None, ge=0, description="0: no limit.")
    max_calls_per_transaction: int | None = Field(None, ge=1)
    max_argument_bytes_per_transaction: int | None = Field(None, ge=1024)


class LimitSettings(Section):
    """What one agent and one transaction may hold (refused past these, with nothing changed)."""

    max_open_per_agent: int = Field(10, ge=1, description="Open transactions one agent may hold at once.")
    calls_per_minute_per_agent: int = Field(
        0,
        ge=0,
        description="Tool calls one agent may make in any 60 s, across its transactions, on this replica; "
        "past it a call is refused (rate_limited) and changes nothing. 0: no limit.",
    )
    max_sessions_per_agent: int = Field(
        100,
        ge=1,
        description="Handshake-era (1.x protocol) MCP sessions one agent may hold open at once; its next "
        "initialize is refused (429) until it ends one or one idles out.",
    )
    max_calls_per_transaction: int = Field(1000, ge=1, description="Calls one transaction may make.")
    max_argument_bytes_per_transaction: int = Field(
        8_388_608,
        ge=1024,
        description="Total size of one transaction's call arguments, as JSON, with the conversation's turns "
        "handed over with its calls.",
    )
    max_argument_depth: int = Field(
        64,
        ge=2,
        le=100,
        description="Nesting levels a call's arguments may have (the arguments object is level 1); deeper "
        "ones are refused as invalid arguments.",
    )
    max_turns_per_request: int = Field(
        200,
        ge=1,
        description="Turns of the conversation one request may hand over (_meta['guard/conversation'], the "
        "admin commit's conversation); more is refused as invalid params.",
    )
    max_conversation_bytes_per_request: int = Field(
        262_144,
        ge=1024,
        description="Bytes of conversation (compact JSON, UTF-8) one request may hand over; a call's turns "
        "also count toward max_argument_bytes_per_transaction.",
    )
    principals: list[PrincipalLimits] = Field(
        default_factory=list,
        description="Limits for some agents: the first entry whose match names the agent (its name, or a "
        "value of one of its token's claims) sets what it gives; the rest come from above.",
    )


class AuthSettings(Section):
    """Who may call: agents on ``/mcp``, operators on the admin API and the console; how fast one may guess.

    Every token is non-empty without surrounding blanks, and no operator token is also an agent token
    (an operator's identity is distinct from every agent's). The values never appear in an error.
    """

    agent_tokens: dict[str, str] = Field(
        default_factory=dict, description="Bearer token → agent name, for /mcp. Empty: no agent auth."
    )
    operator_tokens: list[str] = Field(
        default_factory=list,
        description="Bearer tokens for the admin API and the console. Empty: no operator auth (loopback "
        "only, and not beside agent tokens).",
    )
    jwt: JwtSettings | None = Field(
        None,
        description="Agents and operators identified by JWT access tokens of an OAuth 2.1 authorization "
        "server (the MCP authorization spec); beside the static tokens, which still work. None: none.",
    )
    max_failures: int = Field(
        10,
        ge=1,
        description="Wrong tokens one source (address) may send at once per audience (agents, operators); "
        "then one more per failure_window_s / max_failures, and 429 meanwhile.",
    )
    failure_window_s: float = Field(
        60.0, gt=0, description="How long a source's spent budget of max_failures takes to come back whole."
    )

    @model_validator(mode="after")
    def _distinct_tokens(self) -> AuthSettings:
        for key, tokens in (
            ("agent_tokens", list(self.agent_tokens)),
            ("operator_tokens", self.operator_tokens),
        ):
            if any(not token.strip() or token != token.strip() for token in tokens):
                raise ValueError(f"auth.{key}: a token is empty or has blanks around it")
        if set(self.operator_tokens) & set(self.agent_tokens):
            raise ValueError(
                "auth.operator_tokens: a token is also in auth.agent_tokens; an operator needs a token no "
                "agent holds (or any agent could approve its own held commits)"
            )
        return self

    @property
    def agents_authenticated(self) -> bool:
        """Whether /mcp asks agents for a token (static or JWT)."""
        return bool(self.agent_tokens) or self.jwt is not None

    @property
    def operators_authenticated(self) -> bool:
        """Whether the admin API and the console ask for an operator's token (static or JWT)."""
        return bool(self.operator_tokens) or (self.jwt is not None and self.jwt.operators)
