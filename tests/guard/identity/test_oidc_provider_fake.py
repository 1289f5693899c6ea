"""The fake OpenID provider: discovery, JWKS, grants, key rotation, and tokens minted for negative tests."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import jwt
import pytest

from tests.fakes.oidc_provider import OpenIdProvider, pkce_challenge

AUDIENCE = "http://127.0.0.1:9/mcp"
REDIRECT = "http://127.0.0.1:9/callback"


@pytest.fixture
async def provider() -> AsyncIterator[OpenIdProvider]:
    provider = OpenIdProvider(audience=AUDIENCE)
    provider.add_client("agent-7", "s3cret", claims={"groups": ["support-lead"], "roles": ["refunds"]})
    provider.add_client("cli", None, redirect_uris=[REDIRECT])
    async with provider.serve():
        yield provider


@pytest.fixture
async def http(provider: OpenIdProvider) -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(base_url=provider.issuer) as client:
        yield client


async def verify(http: httpx2.AsyncClient, token: str, audience: str = AUDIENCE) -> dict[str, Any]:
    """Verify ``token`` as a resource server would: against the JWK set fetched over HTTP."""
    metadata = (await http.get("/.well-known/oauth-authorization-server")).json()
    keys = jwt.PyJWKSet.from_dict((await http.get(metadata["jwks_uri"])).json())
    header = jwt.get_unverified_header(token)
    claims: dict[str, Any] = jwt.decode(
        token,
        keys[header["kid"]],
        algorithms=["RS256", "ES256"],
        audience=audience,
        issuer=metadata["issuer"],
    )
    return claims


def header_of(token: str) -> dict[str, Any]:
    encoded = token.split(".")[0]
    decoded: dict[str, Any] = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    return decoded


async def test_discovery_and_jwks(provider: OpenIdProvider, http: httpx2.AsyncClient) -> None:
    oidc = (await http.get("/.well-known/openid-configuration")).json()
    oauth = (await http.get("/.well-known/oauth-authorization-server")).json()
    assert oidc == oauth
    assert oidc["issuer"] == provider.issuer
    assert not provider.issuer.endswith("/")
    assert oidc["jwks_uri"] == f"{provider.issuer}/jwks"
    assert oidc["code_challenge_methods_supported"] == ["S256"]
    assert "client_credentials" in oidc["grant_types_supported"]
    jwks = (await http.get("/jwks")).json()
    by_kid = {key["kid"]: key for key in jwks["keys"]}
    assert set(by_kid) == {provider.current_kid, provider.ec_kid}
    assert by_kid[provider.current_kid].keys() >= {"kty", "use", "alg", "n", "e"}
    assert by_kid[provider.ec_kid] | {"x": "", "y": ""} == {
        "kty": "EC",
        "crv": "P-256",
        "kid": provider.ec_kid,
        "use": "sig",
        "alg": "ES256",
        "x": "",
        "y": "",
    }
    assert (provider.discovery_requests, provider.jwks_requests) == (2, 1)


async def test_client_credentials_token_verifies_against_jwks(
    provider: OpenIdProvider, http: httpx2.AsyncClient
) -> None:
    basic = await http.post(
        "/token", data={"grant_type": "client_credentials"}, auth=httpx2.BasicAuth("agent-7", "s3cret")
    )
    assert basic.status_code == 200
    body = basic.json()
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 300
    assert "refresh_token" not in body
    assert header_of(body["access_token"]) == {"alg": "RS256", "typ": "at+jwt", "kid": provider.current_kid}
    claims = await verify(http, body["access_token"])
    assert claims["sub"] == claims["client_id"] == "agent-7"
    assert claims["groups"] == ["support-lead"]
    assert claims["scope"] == body["scope"] == "mcp"
    assert claims["exp"] - claims["iat"] == 300
    assert provider.issued == [claims]

    form = {"grant_type": "client_credentials", "client_id": "agent-7", "client_secret": "s3cret"}
    posted = await http.post("/token", data={**form, "scope": "mcp tickets"})
    assert (await verify(http, posted.json()["access_token"]))["scope"] == "mcp tickets"

    wrong = await http.post("/token", data={**form, "client_secret": "nope"})
    assert wrong.status_code == 401
    assert wrong.json()["error"] == "invalid_client"
    unsupported = await http.post("/token", data={**form, "grant_type": "password"})
    assert (unsupported.status_code, unsupported.json()["error"]) == (400, "unsupported_grant_type")


async def test_resource_parameter_becomes_the_audience(
    provider: OpenIdProvider, http: httpx2.AsyncClient
) -> None:
    form = {"grant_type": "client_credentials", "client_id": "agent-7", "client_secret": "s3cret"}
    other = "https://tickets.example/mcp"
    token = (await http.post("/token", data={**form, "resource": other})).json()["access_token"]
    assert (await verify(http, token, audience=other))["aud"] == other
    with pytest.raises(jwt.InvalidAudienceError):
        await verify(http, token)
    fragment = await http.post("/token", data={**form, "resource": "https://tickets.example/#x"})
    assert fragment.json()["error"] == "invalid_target"


async def test_rotation_publishes_both_keys_until_one_retires(
    provider: OpenIdProvider, http: httpx2.AsyncClient
) -> None:
    old = provider.current_kid
    old_token = provider.mint()
    new = provider.rotate()
    kids = {key["kid"] for key in (await http.get("/jwks")).json()["keys"]}
    assert {old, new} <= kids
    assert header_of(provider.mint())["kid"] == new
    assert (await verify(http, old_token))["sub"] == "test-agent"

    provider.retire(old)
    kids = {key["kid"] for key in (await http.get("/jwks")).json()["keys"]}
    assert old not in kids
    assert new in kids
    with pytest.raises(KeyError):
        await verify(http, old_token)
    with pytest.raises(ValueError, match="still signs"):
        provider.retire(new)


async def test_authorization_code_with_pkce(provider: OpenIdProvider, http: httpx2.AsyncClient) -> None:
    verifier = "v" * 64

    async def authorize() -> str:
        query = {
            "response_type": "code",
            "client_id": "cli",
            "redirect_uri": REDIRECT,
            "code_challenge": pkce_challenge(verifier),
            "code_challenge_method": "S256",
            "state": "xyz",
            "scope": "mcp openid",
        }
        response = await http.get("/authorize", params=query)
        assert response.status_code == 302
        location = urlsplit(response.headers["location"])
        assert f"{location.scheme}://{location.netloc}{location.path}" == REDIRECT
        params = parse_qs(location.query)
        assert params["state"] == ["xyz"]
        return params["code"][0]

    exchange = {"grant_type": "authorization_code", "client_id": "cli", "redirect_uri": REDIRECT}
    wrong = await http.post("/token", data={**exchange, "code": await authorize(), "code_verifier": "w" * 64})
    assert (wrong.status_code, wrong.json()["error"]) == (400, "invalid_grant")

    code = await authorize()
    right = await http.post("/token", data={**exchange, "code": code, "code_verifier": verifier})
    assert right.status_code == 200
    body = right.json()
    assert (await verify(http, body["access_token"]))["sub"] == "cli"
    assert (await verify(http, body["id_token"], audience="cli"))["azp"] == "cli"
    replay = await http.post("/token", data={**exchange, "code": code, "code_verifier": verifier})
    assert replay.json()["error"] == "invalid_grant"

    refresh = {"grant_type": "refresh_token", "client_id": "cli", "refresh_token": body["refresh_token"]}
    refreshed = await http.post("/token", data=refresh)
    assert refreshed.status_code == 200
    assert refreshed.json()["refresh_token"] != body["refresh_token"]

    missing_pkce = await http.get(
        "/authorize", params={"response_type": "code", "client_id": "cli", "redirect_uri": REDIRECT}
    )
    assert parse_qs(urlsplit(missing_pkce.headers["location"]).query)["error"] == ["invalid_request"]
    unregistered = await http.get(
        "/authorize", params={"response_type": "code", "client_id": "cli", "redirect_uri": "http://evil/"}
    )
    assert unregistered.status_code == 400


async def test_dynamic_registration_then_a_token(provider: OpenIdProvider, http: httpx2.AsyncClient) -> None:
    provider.default_claims_for_registered = {"groups": ["tier-1"]}
    metadata = {
        "client_name": "robot",
        "grant_types": ["client_credentials"],
        "token_endpoint_auth_method": "client_secret_post",
        "scope": "mcp",
    }
    registered = await http.post("/register", json=metadata)
    assert registered.status_code == 201
    client = registered.json()
    assert client.keys() >= {"client_id", "client_secret", "client_id_issued_at"}
    assert client["client_name"] == "robot"
    assert client["token_endpoint_auth_method"] == "client_secret_post"

    form = {"grant_type": "client_credentials", "client_id": client["client_id"]}
    token = await http.post("/token", data={**form, "client_secret": client["client_secret"]})
    claims = await verify(http, token.json()["access_token"])
    assert claims["sub"] == client["client_id"]
    assert claims["groups"] == ["tier-1"]

    public = await http.post(
        "/register", json={"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}
    )
    assert "client_secret" not in public.json()
    no_redirect = await http.post("/register", json={"grant_types": ["authorization_code"]})
    assert (no_redirect.status_code, no_redirect.json()["error"]) == (400, "invalid_redirect_uri")


async def test_minted_tokens_for_negative_tests(provider: OpenIdProvider, http: httpx2.AsyncClient) -> None:
    unsigned = provider.mint_unsigned({"sub": "mallory"})
    assert unsigned.endswith(".")
    assert header_of(unsigned) == {"alg": "none", "typ": "JWT"}

    assert (await verify(http, provider.mint(alg="ES256")))["iss"] == provider.issuer
    with pytest.raises(jwt.ExpiredSignatureError):
        await verify(http, provider.mint(expires_in=-60))
    with pytest.raises(jwt.InvalidSignatureError):
        await verify(http, provider.mint(key=OpenIdProvider.foreign_key()))
    with pytest.raises(jwt.MissingRequiredClaimError):
        jwt.decode(
            provider.mint(omit=("exp",)),
            provider.public_pem(),
            algorithms=["RS256"],
            audience=AUDIENCE,
            options={"require": ["exp"]},
        )
    assert header_of(provider.mint(kid="unknown"))["kid"] == "unknown"
    assert "kid" not in header_of(provider.mint(headers={"kid": None}))

    confused = provider.mint_hs256(provider.public_pem())
    assert header_of(confused)["alg"] == "HS256"
    with pytest.raises(jwt.InvalidAlgorithmError):
        await verify(http, confused)
