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
    assert refused.description == "the token's algorithm (alg) is not accepted"


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


async def test_the_operator_claim_makes_an_operator(provider: OpenIdProvider) -> None:
    verifier = _verifier(provider)
    principal = await verifier.verify(
        provider.mint({"sub": "ops-ann", "groups": ["staff", "guard-operators"]})
    )
    assert principal.operator
    assert principal.name == "ops-ann"
    assert principal.expires_at is not None


async def test_a_token_with_a_kept_claim_too_large_to_keep_is_refused(provider: OpenIdProvider) -> None:
    """Rules and limits read the kept claims: a claim dropped for its size would make a deny rule or a
    limit fail open, so the token is refused, saying which claim."""
    verifier = _verifier(provider)
    for claims in ({"roles": [f"r{n}" for n in range(300)]}, {"groups": "x" * 5000}):
        refused = await _refused(verifier, provider.mint(claims))
        assert f"{next(iter(claims))} claim is larger than the guard keeps" in refused.description
    assert await verifier.verify(provider.mint({"email": "x" * 5000}))  # not a kept claim: no matter


async def test_names_a_reader_cannot_see_or_tell_apart_are_refused(provider: OpenIdProvider) -> None:
    """A subject with a control, format or line-separating character, or a blank at either end, could
    pass for another principal on the console and in the log."""
    verifier = _verifier(provider)
    for sub in ("a\n", "a\x85b", "\u200bscript-1", "\u202etob", " x", "x ", "a\u2028b", "\ud800"):
        refused = await _refused(verifier, provider.mint({"sub": sub}))
        assert "is not a name" in refused.description, sub
    assert (await verifier.verify(provider.mint({"sub": "Zoë Müller"}))).name == "Zoë Müller"


async def test_a_subject_that_is_a_static_agents_name_is_refused(provider: OpenIdProvider) -> None:
    """JWT principals and static tokens' agents share one namespace: a token naming a static agent could
    take over its transactions and spend its limits, so it is refused."""
    settings = _settings(provider)
    keys = KeySet(settings, FixedClock())
    _MADE.append(keys)
    verifier = TokenVerifier(settings, keys, frozenset({"script-1", "anonymous", "operator"}))
    for sub in ("script-1", "operator", "anonymous"):
        refused = await _refused(verifier, provider.mint({"sub": sub}))
        assert "kept for a static token's agent" in refused.description


async def test_a_key_set_without_algorithms_cannot_be_used_with_a_key_of_another_type(
    provider: OpenIdProvider,
) -> None:
    """A provider that publishes keys without alg (Entra ID does): a token naming the EC key with an RSA
    algorithm, or the RSA key with an EC one, is refused (401), never a server error."""
    bare = {"keys": [{k: v for k, v in key.items() if k != "alg"} for key in provider.jwks()["keys"]]}

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=bare)

    settings = _settings(provider, jwks_url="https://id.example.com/jwks")
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as client:
        verifier = TokenVerifier(settings, KeySet(settings, FixedClock(), client))
        for alg, kid in (
            ("RS256", provider.ec_kid),
            ("ES256", provider.current_kid),
            ("ES384", provider.ec_kid),
        ):
            token = provider.mint(headers={"alg": alg, "kid": kid})
            refused = await _refused(verifier, token)
            assert refused.status == 401
        assert (await verifier.verify(provider.mint())).name == "test-agent"


async def test_an_unaccepted_algorithm_is_not_repeated_back(provider: OpenIdProvider) -> None:
    refused = await _refused(_verifier(provider), provider.mint_unsigned(headers={"alg": "\u20ac\u00e9"}))
    assert refused.description == "the token's algorithm (alg) is not accepted"


async def test_a_key_set_sent_a_byte_at_a_time_is_given_up_at_the_fetch_timeout(
    provider: OpenIdProvider,
) -> None:
    """jwks_timeout_s bounds the whole fetch, not each read: a provider dripping its key set does not
    hold the tokens that wait for it longer than that."""

    class Drip(httpx2.AsyncByteStream):
        async def __aiter__(self):  # type: ignore[no-untyped-def]
            yield b'{"keys": ['
            while True:
                await asyncio.sleep(0.05)
                yield b" "

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, stream=Drip())

    settings = _settings(provider, jwks_url="https://id.example.com/jwks", jwks_timeout_s=0.5)
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as client:
        verifier = TokenVerifier(settings, KeySet(settings, FixedClock(), client))
        refused = await asyncio.wait_for(_refused(verifier, provider.mint()), 3)
    assert refused.status == 503


async def test_keys_never_fetched_are_tried_again_within_a_second(provider: OpenIdProvider) -> None:
    """A provider down when the guard started: once it is back, tokens are checked within a second (not
    after jwks_min_refetch_s)."""
    clock = FixedClock()
    up = False

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=provider.jwks()) if up else httpx2.Response(503)

    settings = _settings(provider, jwks_url="https://id.example.com/jwks", jwks_min_refetch_s=30)
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as client:
        verifier = TokenVerifier(settings, KeySet(settings, clock, client))
        assert (await _refused(verifier, provider.mint())).status == 503
        up = True
        assert (await _refused(verifier, provider.mint())).status == 503  # tried under a second ago
        clock.advance(1.0)
        assert (await verifier.verify(provider.mint())).name == "test-agent"


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
