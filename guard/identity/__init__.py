"""Who calls the guard: principals, the issuer's keys, and JWT access tokens checked against them."""

from guard.identity.keys import KeySet, KeysUnavailable, UnknownKey
from guard.identity.principal import ANONYMOUS, Principal, claim_values, kept_claims
from guard.identity.tokens import TokenRefused, TokenVerifier, looks_like_jwt

__all__ = [
    "ANONYMOUS",
    "KeySet",
    "KeysUnavailable",
    "Principal",
    "TokenRefused",
    "TokenVerifier",
    "UnknownKey",
    "claim_values",
    "kept_claims",
    "looks_like_jwt",
]
