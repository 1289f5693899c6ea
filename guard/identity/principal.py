"""Who is calling: a principal's name, the claims its token carried, and whether it is an operator.

A static token (``auth.agent_tokens``, ``auth.operator_tokens``) names a principal and carries no
claims; a verified JWT access token (:mod:`guard.identity.tokens`) names one by a claim and carries the
claims ``auth.jwt.claims`` keeps, bounded (:func:`kept_claims`) because they are audited with every
transaction and handed to every rule.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["ANONYMOUS", "MAX_CLAIM_BYTES", "MAX_CLAIM_ITEMS", "Principal", "claim_values", "kept_claims"]

MAX_CLAIM_BYTES = 4096
"""A kept claim's value, as compact JSON, is at most this long; a token with a longer one is refused."""
MAX_CLAIM_ITEMS = 256
"""A kept list claim has at most this many items; a token with a longer one is refused."""
_SPACED = frozenset({"scope", "scp"})
"""Claims whose string value is a space-separated list (RFC 8693 ``scope``; ``scp`` of some providers)."""


@dataclass(frozen=True, slots=True)
class Principal:
    """An authenticated caller.

    ``verified``: the name comes from a token the issuer signed (a person or a client the identity
    provider knows), not from a shared static token, so it can stand for who approved a commit.
    ``scopes`` are the token's granted scopes (``scope`` or ``scp``), empty for a static token.
    """

    name: str
    claims: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    operator: bool = False
    verified: bool = False
    scopes: frozenset[str] = frozenset()
    expires_at: float | None = None
    """When the token that names it expires (seconds since the epoch; None: a static token)."""


ANONYMOUS = Principal("anonymous")
"""Everyone, where a surface asks for no token."""


def claim_values(claims: Mapping[str, Any], name: str) -> tuple[str, ...]:
    """The values of claim ``name`` as strings: a list's items, a scope string's words, or the one value;
    empty when the claim is absent or null. Objects are never values (only their keys would be)."""
    value = claims.get(name)
    if value is None or isinstance(value, Mapping):
        return ()
    if isinstance(value, str):
        return tuple(value.split()) if name in _SPACED else (value,)
    if isinstance(value, list | tuple):
        return tuple(_text(item) for item in value if item is not None and not isinstance(item, Mapping))
    return (_text(value),)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def kept_claims(payload: Mapping[str, Any], names: Iterable[str]) -> Mapping[str, Any]:
    """The claims of ``payload`` named in ``names`` whose values are small enough to keep, read-only (a
    verifier refuses a token with one that is not: rules and limits must never miss a claim silently)."""
    kept: dict[str, Any] = {}
    for name in names:
        if name not in payload:
            continue
        value = payload[name]
        if isinstance(value, list) and len(value) > MAX_CLAIM_ITEMS:
            continue
        try:
            size = len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
        except (TypeError, ValueError):
            continue
        if size <= MAX_CLAIM_BYTES:
            kept[name] = value
    return MappingProxyType(kept)
