"""Requirement G57: JWT access tokens checked as an OAuth 2.1 resource server does, against a real local
OpenID provider over HTTP (its discovery document, its JWK set, its keys rotated and retired).

One test per case a token can present: valid (RS256 and ES256), expired, expired within the clock skew,
not yet valid, for another audience, from another issuer, unsigned (``alg: none``), HMAC-signed with the
published public key (algorithm confusion), signed by a foreign key under a published ``kid``, signed
with a rotated-in key (fetched once, accepted), with a retired key (refused once the keys are fetched
again), with made-up key ids (the keys fetched at most once per ``jwks_min_refetch_s``), without the
principal claim, and anything at all (a property: only ever :class:`TokenRefused`)."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard.clock import FixedClock
from guard.identity import KeySet, Principal, TokenRefused, TokenVerifier
from guard.settings import JwtSettings
from tests.fakes.oidc_provider import OpenIdProvider

AUDIENCE = "http://127.0.0.1:8765/mcp"


_MADE: list[KeySet] = []
"""Key sets the tests made, closed when their provider stops."""


@pytest.fixture
async def provider() -> AsyncIterator[OpenIdProvider]:
    idp = OpenIdProvider(audience=AUDIENCE)
    try:
        async with idp.serve():
            yield idp
    finally:
        while _MADE:
            await _MADE.pop().aclose()


def _settings(provider: OpenIdProvider, **more: Any) -> JwtSettings:
    values: dict[str, Any] = {
        "issuer": provider.issuer,
        "audience": [AUDIENCE],
        "operator_claim": "groups",
        "operator_values": ["guard-operators"],
        "jwks_min_refetch_s": 30,
        **more,
    }
    return JwtSettings.model_validate(values)


def _verifier(provider: OpenIdProvider, clock: FixedClock | None = None, **more: Any) -> TokenVerifier:
    settings = _settings(provider, **more)
    keys = KeySet(settings, clock or FixedClock())
    _MADE.append(keys)
    return TokenVerifier(settings, keys)


async def _refused(verifier: TokenVerifier, token: str) -> TokenRefused:
    with pytest.raises(TokenRefused) as caught:
        await verifier.verify(token)
    return caught.value


async def test_a_valid_token_names_its_principal_and_keeps_the_chosen_claims(
    provider: OpenIdProvider,
) -> None:
    verifier = _verifier(provider)
    token = provider.mint({"sub": "agent-7", "roles": ["support-lead"], "email": "a@example.com"})
    principal = await verifier.verify(token)
    assert principal.name == "agent-7"
    assert principal.verified
    assert not principal.operator
    assert principal.claims["roles"] == ["support-lead"]
    assert "email" not in principal.claims  # not in auth.jwt.claims
    assert principal.scopes == frozenset({"mcp"})
    assert provider.discovery_requests >= 1  # no jwks_url: discovered from the issuer


async def test_an_es256_token_from_the_configured_jwks_url_is_accepted(provider: OpenIdProvider) -> None:
    verifier = _verifier(provider, jwks_url=f"{provider.issuer}/jwks")
    assert (await verifier.verify(provider.mint(alg="ES256"))).name == "test-agent"
    assert provider.discovery_requests == 0


async def test_an_expired_token_is_refused_and_not_counted_as_a_guess(provider: OpenIdProvider) -> None:
    refused = await _refused(_verifier(provider), provider.mint(expires_in=-120))
    assert (refused.status, refused.error, refused.guess) == (401, "invalid_token", False)
    assert "expired" in refused.description


async def test_a_token_expired_within_the_clock_skew_is_accepted(provider: OpenIdProvider) -> None:
    assert await _verifier(provider, leeway_s=60).verify(provider.mint(expires_in=-30))
    await _refused(_verifier(provider, leeway_s=10), provider.mint(expires_in=-30))


async def test_a_token_not_valid_yet_is_refused(provider: OpenIdProvider) -> None:
    import time

    later = int(time.time()) + 600
    refused = await _refused(_verifier(provider), provider.mint({"nbf": later, "iat": later}))
    assert "not valid yet" in refused.description


async def test_a_token_for_another_audience_is_refused(provider: OpenIdProvider) -> None:
    refused = await _refused(_verifier(provider), provider.mint(audience="https://other.example.com/mcp"))
    assert "another resource" in refused.description
    assert refused.guess


async def test_a_token_from_another_issuer_is_refused(provider: OpenIdProvider) -> None:
    refused = await _refused(_verifier(provider), provider.mint(issuer="https://evil.example.com"))
    assert "another issuer" in refused.description


async def test_an_unsigned_alg_none_token_is_refused(provider: OpenIdProvider) -> None:
    for variant in ({}, {"alg": "None"}, {"alg": "NONE"}):
        refused = await _refused(
            _verifier(provider), provider.mint_unsigned({"sub": "admin"}, headers=variant)
        )
        assert "algorithm" in refused.description
        assert refused.status == 401


async def test_an_hmac_token_keyed_with_the_published_public_key_is_refused(provider: OpenIdProvider) -> None:
    refused = await _refused(_verifier(provider), provider.mint_hs256(provider.public_pem()))
    assert "'HS256' is not accepted" in refused.description


async def test_a_token_with_critical_header_extensions_is_refused(provider: OpenIdProvider) -> None:
    token = provider.mint(headers={"crit": ["exp-policy"], "exp-policy": "lenient"})
    refused = await _refused(_verifier(provider), token)
    assert refused.status == 401
    assert refused.description in {
        "the token's header has extensions (crit, b64) the guard does not take",
        "the token's header is not readable",
    }
    bare = await _refused(_verifier(provider), provider.mint(headers={"crit": ["b64"], "b64": True}))
    assert bare.status == 401


async def test_a_token_signed_by_a_foreign_key_under_a_published_kid_is_refused(
    provider: OpenIdProvider,
) -> None:
    refused = await _refused(_verifier(provider), provider.mint(key=OpenIdProvider.foreign_key()))
    assert "signature does not verify" in refused.description


async def test_a_rotated_key_is_fetched_once_and_accepted(provider: OpenIdProvider) -> None:
    clock = FixedClock()
    verifier = _verifier(provider, clock)
    await verifier.verify(provider.mint())
    fetched = verifier.keys.fetches
    provider.rotate()
    clock.advance(31)  # past jwks_min_refetch_s since the last fetch
    for _ in range(3):
        assert (await verifier.verify(provider.mint())).name == "test-agent"
    assert verifier.keys.fetches == fetched + 1


async def test_a_retired_key_is_refused_once_the_keys_are_fetched_again(provider: OpenIdProvider) -> None:
    clock = FixedClock()
    verifier = _verifier(provider, clock, jwks_cache_s=300)
    old = provider.mint()
    await verifier.verify(old)
    retired = provider.current_kid
    provider.rotate()
    provider.retire(retired)
    await verifier.verify(old)  # the keys held are used until they are fetched again
    clock.advance(301)
    await verifier.verify(old)  # stale: still served while the keys are fetched behind it
    await verifier.keys.settle()
    refused = await _refused(verifier, old)
    assert "a key the issuer does not publish" in refused.description


async def test_made_up_key_ids_fetch_the_keys_at_most_once_per_min_refetch(provider: OpenIdProvider) -> None:
    clock = FixedClock()
    verifier = _verifier(provider, clock, jwks_min_refetch_s=30)
    await verifier.verify(provider.mint())
    before = provider.jwks_requests
    clock.advance(31)
    tokens = [provider.mint(kid=f"made-up-{n}") for n in range(20)]
    results = await asyncio.gather(*(verifier.verify(t) for t in tokens), return_exceptions=True)
    assert all(isinstance(r, TokenRefused) and r.status == 401 for r in results)
    assert provider.jwks_requests == before + 1
    await _refused(verifier, provider.mint(kid="made-up-again"))
    assert provider.jwks_requests == before + 1
    clock.advance(31)
    await _refused(verifier, provider.mint(kid="made-up-again"))
    assert provider.jwks_requests == before + 2


async def test_a_hung_provider_holds_up_no_token_whose_key_is_held(provider: OpenIdProvider) -> None:
    """Requirement G57: past jwks_cache_s the keys are fetched again behind the requests; while that fetch
    hangs, tokens signed with a held key are checked at once."""
    clock = FixedClock()
    release = asyncio.Event()
    served = provider.jwks()

    async def hang(request: httpx2.Request) -> httpx2.Response:
        if hang.calls:  # type: ignore[attr-defined]
            await release.wait()
        hang.calls += 1  # type: ignore[attr-defined]
        return httpx2.Response(200, json=served)

    hang.calls = 0  # type: ignore[attr-defined]
    settings = _settings(provider, jwks_url=f"{provider.issuer}/jwks", jwks_cache_s=60)
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(hang)) as client:
        verifier = TokenVerifier(settings, KeySet(settings, clock, client))
        await verifier.verify(provider.mint())
        clock.advance(61)
        for _ in range(5):
            assert (await asyncio.wait_for(verifier.verify(provider.mint()), 1)).name == "test-agent"
        release.set()
        await verifier.keys.settle()
        assert hang.calls == 2  # type: ignore[attr-defined]


async def test_an_unreachable_issuer_leaves_tokens_uncheckable_not_wrong() -> None:
    settings = JwtSettings(issuer="http://127.0.0.1:9", audience=[AUDIENCE], jwks_timeout_s=1)
    verifier = TokenVerifier(settings, KeySet(settings, FixedClock()))
    provider = OpenIdProvider(audience=AUDIENCE)
    async with provider.serve():
        token = provider.mint()
    refused = await _refused(verifier, token)
    await verifier.keys.aclose()
    assert (refused.status, refused.error, refused.guess) == (503, "temporarily_unavailable", False)


async def test_a_token_without_a_usable_principal_claim_is_refused(provider: OpenIdProvider) -> None:
    verifier = _verifier(provider)
    for claims, omit in (({}, ("sub",)), ({"sub": ""}, ()), ({"sub": "x" * 129}, ()), ({"sub": "a\nb"}, ())):
        refused = await _refused(verifier, provider.mint(claims, omit=omit))
        assert "sub claim is not a name" in refused.description
    refused = await _refused(verifier, provider.mint(omit=("exp",)))
    assert "lacks a required claim (exp)" in refused.description


async def test_the_operator_claim_makes_an_operator_and_big_claims_are_left_out(
    provider: OpenIdProvider,
) -> None:
    verifier = _verifier(provider)
    principal = await verifier.verify(
        provider.mint({"sub": "ops-ann", "groups": ["staff", "guard-operators"]})
    )
    assert principal.operator
    assert principal.name == "ops-ann"
    huge = await verifier.verify(
        provider.mint({"roles": [f"r{n}" for n in range(300)], "groups": "x" * 2000})
    )
    assert "roles" not in huge.claims
    assert "groups" not in huge.claims
    assert not huge.operator


def _b64(value: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


_TOKENISH = st.one_of(
    st.text(max_size=300),
    st.builds(
        lambda h, p, s: f"{_b64(h)}.{_b64(p)}.{s}",
        st.dictionaries(
            st.sampled_from(["alg", "kid", "typ", "crit", "jku"]), st.text(max_size=12) | st.none()
        ),
        st.dictionaries(
            st.sampled_from(["iss", "aud", "exp", "sub", "nbf"]), st.integers() | st.text(max_size=8)
        ),
        st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEF0123456789-_", max_size=40),
    ),
)


_OFFLINE = OpenIdProvider(audience=AUDIENCE)
"""Keys only (never served): the property below fetches its JWK set from memory."""


@settings(max_examples=150, deadline=None)
@given(_TOKENISH)
def test_anything_presented_as_a_token_is_accepted_only_if_signed_else_refused(token: str) -> None:
    """Requirement G57: whatever the text, verify answers a principal or TokenRefused, never another error,
    and never fetches the keys more than once (made-up kids are bounded)."""
    jwks = _OFFLINE.jwks()
    calls = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        calls.append(request.url)
        return httpx2.Response(200, json=jwks)

    settings_ = JwtSettings(
        issuer="https://id.example.com", audience=[AUDIENCE], jwks_url="https://id.example.com/jwks"
    )

    async def check() -> None:
        async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as client:
            verifier = TokenVerifier(settings_, KeySet(settings_, FixedClock(), client))
            try:
                result = await verifier.verify(token)
            except TokenRefused:
                return
            assert isinstance(result, Principal)

    asyncio.run(check())
    assert len(calls) <= 1
