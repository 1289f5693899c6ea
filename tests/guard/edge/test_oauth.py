"""Agents and operators by identity: the guard as an OAuth 2.1 resource server in front of a real local
OpenID provider, over real sockets, with the official MCP client (Requirements G57-G61).

The provider (:mod:`tests.fakes.oidc_provider`) publishes discovery, keys, a token endpoint, an
authorization endpoint and dynamic registration; the guard is configured from
``deploy/guard.jwt.example.yaml`` with its issuer, audience and key URL replaced by the provider's, so
the example is what is tested.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import mcp_types as types
import yaml
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from guard.clock import FixedClock
from guard.edge.http import create_app
from guard.runtime import Runtime, build_runtime
from guard.settings import GuardSettings, load_settings
from guard.store.migrate import upgrade
from tests.fakes.oidc_provider import OpenIdProvider
from tests.guard.conftest import bound_socket, no_sleep, serving, ticket_status

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "deploy" / "guard.jwt.example.yaml"
ESCALATE_PENDING = {
    "name": "supervision",
    "rules": [
        {
            "id": "pending-needs-a-supervisor",
            "when": {"table": "tickets", "kind": ["update"], "changed": ["status"]},
            "require": "effect.after.status != 'pending'",
            "decision": "escalate",
            "message": "ticket {{effect.key}}: pending is reviewed by a supervisor",
        }
    ],
}


class MemoryTokens:
    """The client's token storage, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


@dataclass
class Stack:
    idp: OpenIdProvider
    url: str
    """The guard's base URL."""
    runtime: Runtime
    settings: GuardSettings
    spans: InMemorySpanExporter

    @property
    def mcp(self) -> str:
        return f"{self.url}/mcp"


def example_settings(tmp_path: Path, issuer: str, audience: str, **changes: Any) -> GuardSettings:
    """``deploy/guard.jwt.example.yaml`` with its provider's values and files replaced, as a user would."""
    data = yaml.safe_load(EXAMPLE.read_text())
    data["auth"]["jwt"].update(issuer=issuer, audience=audience, jwks_url=f"{issuer}/jwks")
    data["backend"]["url"] = f"sqlite:///{tmp_path / 'demo.db'}"
    data["audit"]["url"] = f"sqlite:///{tmp_path / 'audit.db'}"
    data["judges"]["chain"] = [{"judge": "rules", "path": str(ROOT / "deploy" / "rules" / "identity.yaml")}]
    _merge(data, changes)
    config = tmp_path / "guard.yaml"
    config.write_text(yaml.safe_dump(data))
    return load_settings(config)


def _merge(into: dict[str, Any], changes: dict[str, Any]) -> None:
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


@asynccontextmanager
async def stack(tmp_path: Path, **changes: Any) -> AsyncIterator[Stack]:
    idp = OpenIdProvider(audience="unset")
    sock = bound_socket()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    idp.audience = f"{url}/mcp"
    exporter = InMemorySpanExporter()
    tracer = TracerProvider()
    tracer.add_span_processor(SimpleSpanProcessor(exporter))
    async with idp.serve() as issuer:
        settings = example_settings(tmp_path, issuer, f"{url}/mcp", **changes)
        clock = FixedClock(datetime.now(UTC))  # the tokens' times are the wall clock's
        runtime = build_runtime(settings, clock=clock, provider=tracer, sleep=no_sleep)
        await upgrade(runtime.audit_engine)
        async with serving(create_app(runtime), sock):
            yield Stack(idp, url, runtime, settings, exporter)


@asynccontextmanager
async def agent(url: str, auth: httpx2.Auth | None, transaction: str) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(auth=auth, headers={"Guard-Transaction": transaction}, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


def machine(s: Stack, client_id: str, **claims: Any) -> ClientCredentialsOAuthProvider:
    """An agent that is a client of the provider (client credentials), as the official SDK runs one."""
    s.idp.add_client(client_id, f"{client_id}-secret", claims=claims)
    return ClientCredentialsOAuthProvider(
        server_url=s.mcp,
        storage=MemoryTokens(),
        client_id=client_id,
        client_secret=f"{client_id}-secret",
        issuer=s.idp.issuer,
        scope="mcp",
    )


def body(result: types.CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


def text(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def test_the_official_client_gets_a_token_by_client_credentials_and_works(tmp_path: Path) -> None:
    """Requirements G57, G58, G60: discovery from the 401 (resource metadata, then the provider's), a token
    for this resource, calls and a commit; the principal and its claims are in the audit log and spans."""
    async with stack(tmp_path) as s:
        async with agent(s.mcp, machine(s, "billing-bot", roles=["support-lead"]), "cc-1") as client:
            await client.call_tool("update_ticket", {"ticket_id": 21, "status": "closed"})
            committed = body(await client.call_tool("guard_commit", {"summary": "closed"}))
        assert committed["status"] == "committed"
        assert ticket_status(s.settings, 21) == "closed"
        assert s.idp.issued[-1]["aud"] == s.mcp  # RFC 8707: the client asked for this resource
        detail = await s.runtime.manager.audit.get_transaction("cc-1")
        assert detail is not None
        assert detail.transaction.principal == "billing-bot"
        assert detail.transaction.claims is not None
        assert detail.transaction.claims["roles"] == ["support-lead"]
        (span,) = [x for x in s.spans.get_finished_spans() if x.name == "guard.transaction"]
        assert span.attributes is not None
        assert span.attributes["guard.principal"] == "billing-bot"
        assert tuple(span.attributes["guard.principal.claim.roles"]) == ("support-lead",)  # type: ignore[arg-type]


async def test_the_official_client_registers_and_signs_in_by_authorization_code(tmp_path: Path) -> None:
    """Requirement G58: a client with no credentials registers itself (RFC 7591) and gets a token by
    authorization code with PKCE, all found from the guard's 401."""
    async with stack(tmp_path) as s:
        s.idp.default_claims_for_registered = {"roles": ["support-lead"]}
        redirect = "http://127.0.0.1:1/callback"
        answer: dict[str, str] = {}

        async def open_browser(url: str) -> None:
            async with httpx2.AsyncClient() as browser:
                found = (await browser.get(url)).headers["location"]
            answer.update({k: v[0] for k, v in parse_qs(urlsplit(found).query).items()})

        async def callback() -> AuthorizationCodeResult:
            return AuthorizationCodeResult(
                code=answer["code"], state=answer.get("state"), iss=answer.get("iss")
            )

        oauth = OAuthClientProvider(
            server_url=s.mcp,
            client_metadata=OAuthClientMetadata(
                redirect_uris=[redirect],  # type: ignore[list-item]
                grant_types=["authorization_code", "refresh_token"],
                token_endpoint_auth_method="client_secret_post",
                client_name="desk-agent",
            ),
            storage=MemoryTokens(),
            redirect_handler=open_browser,
            callback_handler=callback,
        )
        async with agent(s.mcp, oauth, "ac-1") as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            assert "guard_commit" in names
        assert s.idp.registrations  # it registered itself


async def test_static_tokens_still_work_beside_jwts(tmp_path: Path) -> None:
    """Requirement G57: a static agent token still names its agent (no claims)."""
    async with stack(tmp_path, auth={"agent_tokens": {"static-secret": "script-1"}}) as s:
        headers = {"Authorization": "Bearer static-secret", "Guard-Transaction": "st-1"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            Client(streamable_http_client(s.mcp, http_client=http)) as client,
        ):
            await client.call_tool("get_ticket", {"ticket_id": 21})
        detail = await s.runtime.manager.audit.get_transaction("st-1")
        assert detail is not None
        assert (detail.transaction.principal, detail.transaction.claims) == ("script-1", None)


async def test_the_resource_metadata_and_the_challenges_follow_the_spec(tmp_path: Path) -> None:
    """Requirement G58: RFC 9728 metadata at both well-known paths; a 401 names it; a token that is not
    the provider's is invalid_token; a token without a required scope is 403 insufficient_scope."""
    scoped_settings = {"jwt": {"required_scopes": ["tickets"]}}
    async with stack(tmp_path, auth=scoped_settings) as s, httpx2.AsyncClient(base_url=s.url) as http:
        for path in (
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-protected-resource",
        ):
            metadata = (await http.get(path)).json()
            assert metadata["resource"] == s.mcp
            assert metadata["authorization_servers"] == [s.idp.issuer]
            assert metadata["scopes_supported"] == ["tickets"]
        bare = await http.post("/mcp", json={})
        assert bare.status_code == 401
        expected = f'Bearer resource_metadata="{s.url}/.well-known/oauth-protected-resource/mcp"'
        assert bare.headers["www-authenticate"] == expected
        forged = s.idp.mint(key=OpenIdProvider.foreign_key())
        wrong = await http.post("/mcp", json={}, headers={"Authorization": f"Bearer {forged}"})
        assert wrong.status_code == 401
        assert 'error="invalid_token"' in wrong.headers["www-authenticate"]
        assert forged not in wrong.text
        narrow = s.idp.mint({"scope": "mcp"})
        scoped = await http.post("/mcp", json={}, headers={"Authorization": f"Bearer {narrow}"})
        assert scoped.status_code == 403
        assert 'error="insufficient_scope"' in scoped.headers["www-authenticate"]
        assert 'scope="tickets"' in scoped.headers["www-authenticate"]


async def test_operators_by_claim_use_the_admin_api_not_mcp_and_approve_as_themselves(tmp_path: Path) -> None:
    """Requirement G59: a token in the operators' group is refused at /mcp and admitted to the admin API; an
    agent's token is refused there; the agent's own name cannot approve its commit; an approval is
    recorded under the operator's own name, which the body cannot change."""
    rules = tmp_path / "supervision.yaml"
    rules.write_text(yaml.safe_dump(ESCALATE_PENDING))
    async with stack(tmp_path, judges={"chain": [{"judge": "rules", "path": str(rules)}]}) as s:
        ann = {"Authorization": f"Bearer {s.idp.mint({'sub': 'ops-ann', 'groups': ['guard-operators']})}"}
        bob = {"Authorization": f"Bearer {s.idp.mint({'sub': 'ops-bob', 'groups': ['guard-operators']})}"}
        agent_ann = {"Authorization": f"Bearer {s.idp.mint({'sub': 'ops-ann'})}", "Guard-Transaction": "p-1"}
        async with httpx2.AsyncClient(base_url=s.url) as http:
            at_mcp = await http.post("/mcp", json={}, headers=ann)
            assert at_mcp.status_code == 403
            assert "names an operator" in at_mcp.json()["error"]
            as_agent = await http.get("/transactions", headers=agent_ann)
            assert as_agent.status_code == 403
            assert (await http.get("/transactions", headers=ann)).status_code == 200
        async with (
            httpx2.AsyncClient(headers=agent_ann, timeout=30) as raw,
            Client(streamable_http_client(s.mcp, http_client=raw)) as client,
        ):
            await client.call_tool("update_ticket", {"ticket_id": 21, "status": "pending"})
            waiting = body(await client.call_tool("guard_commit", {"summary": "pending"}))
        assert waiting["status"] == "pending_approval"
        async with httpx2.AsyncClient(base_url=s.url) as http:
            own = await http.post("/transactions/p-1/approve", json={}, headers=ann)
            assert own.status_code == 409
            assert "ops-ann is the agent whose commit it is" in own.json()["error"]
            posing = await http.post("/transactions/p-1/approve", json={"reviewer": "ceo"}, headers=bob)
            assert posing.status_code == 400
            approved = await http.post("/transactions/p-1/approve", json={}, headers=bob)
            assert approved.status_code == 200
            assert approved.json()["status"] == "committed"
        detail = await s.runtime.manager.audit.get_transaction("p-1")
        assert detail is not None
        assert detail.commits[-1].via.value == "review"
        assert detail.transaction.close_reason == "approved by ops-bob"
        assert ticket_status(s.settings, 21) == "pending"


async def test_an_operator_signs_in_to_the_console_with_a_jwt_and_acts_as_itself(tmp_path: Path) -> None:
    """Requirement G59: the console's sign-in takes an operator's JWT; the page names the operator; an
    agent's JWT is refused there as a wrong operator token."""
    async with stack(tmp_path) as s, httpx2.AsyncClient(base_url=s.url, follow_redirects=False) as page:
        agent_token = s.idp.mint({"sub": "desk-1"})
        assert (await page.post("/console/sign-in", data={"token": agent_token})).status_code == 401
        operator = s.idp.mint({"sub": "ops-ann", "groups": ["guard-operators"]})
        assert (await page.post("/console/sign-in", data={"token": operator})).status_code == 303
        listing = await page.get("/console")
        assert listing.status_code == 200
        assert "signed in as ops-ann" in listing.text


async def test_a_rule_keyed_on_a_claim_blocks_one_principal_and_not_another(tmp_path: Path) -> None:
    """Requirement G60: deploy/rules/identity.yaml: closing a ticket needs the support-lead role; the same
    change by two agents, one with the role, is committed for it and blocked for the other."""
    async with stack(tmp_path) as s:
        lead = machine(s, "lead-bot", roles=["support-lead"])
        intern = machine(s, "intern-bot", roles=["trial"])
        async with agent(s.mcp, intern, "intern-1") as client:
            await client.call_tool("update_ticket", {"ticket_id": 21, "status": "closed"})
            blocked = body(await client.call_tool("guard_commit", {"summary": "closing"}))
            await client.call_tool("guard_rollback", {"reason": "not mine to close"})
        assert blocked["status"] == "blocked"
        assert "intern-bot may not close tickets" in blocked["findings"][0]["message"]
        assert ticket_status(s.settings, 21) == "open"
        async with agent(s.mcp, lead, "lead-1") as client:
            await client.call_tool("update_ticket", {"ticket_id": 21, "status": "closed"})
            assert (
                body(await client.call_tool("guard_commit", {"summary": "closing"}))["status"] == "committed"
            )
        assert ticket_status(s.settings, 21) == "closed"


async def test_a_per_principal_limit_refuses_only_the_principal_over_it(tmp_path: Path) -> None:
    """Requirement G61: agents with the trial role may hold one transaction and make 3 calls a minute
    (limits.principals); past each they are refused as a tool result naming the setting, while another
    agent goes on."""
    trial_limits = {
        "principals": [
            {
                "match": {"claim": "roles", "value": "trial"},
                "calls_per_minute_per_agent": 3,
                "max_open_per_agent": 1,
            }
        ]
    }
    async with stack(tmp_path, limits=trial_limits) as s:
        trial = machine(s, "trial-bot", roles=["trial"])
        staff = machine(s, "staff-bot", roles=["staff"])
        async with agent(s.mcp, trial, "trial-1") as first, agent(s.mcp, trial, "trial-2") as second:
            assert not (await first.call_tool("get_ticket", {"ticket_id": 21})).is_error
            opened = await second.call_tool("get_ticket", {"ticket_id": 21})
            assert opened.is_error
            assert "agent 'trial-bot' has 1 open transactions, the limit is 1" in text(opened)
            assert "(limits.principals[0].max_open_per_agent)" in text(opened)
            assert not (await first.call_tool("get_ticket", {"ticket_id": 21})).is_error
            refused = await first.call_tool("get_ticket", {"ticket_id": 21})
        assert refused.is_error
        assert "agent 'trial-bot' has made 3 calls in the last minute" in text(refused)
        assert "limits.principals[0].calls_per_minute_per_agent" in text(refused)
        async with agent(s.mcp, staff, "staff-1") as client, agent(s.mcp, staff, "staff-2") as other:
            for _ in range(5):
                assert not (await client.call_tool("get_ticket", {"ticket_id": 21})).is_error
            assert not (await other.call_tool("get_ticket", {"ticket_id": 21})).is_error
        assert (await s.runtime.manager.audit.get_transaction("trial-2")) is None  # nothing was opened


async def test_the_console_shows_the_principal_and_its_claims(tmp_path: Path) -> None:
    """Requirement G60: a transaction's page names its agent and the claims kept from its token."""
    async with stack(tmp_path) as s:
        async with agent(s.mcp, machine(s, "lead-bot", roles=["support-lead"]), "shown-1") as client:
            await client.call_tool("get_ticket", {"ticket_id": 21})
        async with httpx2.AsyncClient(base_url=s.url, follow_redirects=False) as page:
            operator = s.idp.mint({"sub": "ops-ann", "groups": ["guard-operators"]})
            await page.post("/console/sign-in", data={"token": operator})
            shown = await page.get("/console/t/shown-1")
        assert "lead-bot" in shown.text
        assert "roles=[&#34;support-lead&#34;]" in shown.text or 'roles=["support-lead"]' in shown.text


async def test_challenges_name_the_metadata_only_where_an_oauth_client_can_act(tmp_path: Path) -> None:
    """Requirement G58: only the /mcp resource has metadata (any other suffix is 404); the admin API's 401
    names none (operators are no MCP clients); an operator's token at /mcp is a plain 403, with no
    challenge an OAuth client would answer by asking for a token again."""
    async with stack(tmp_path) as s, httpx2.AsyncClient(base_url=s.url) as http:
        assert (await http.get("/.well-known/oauth-protected-resource/transactions")).status_code == 404
        assert (await http.get("/.well-known/oauth-protected-resource/mcp")).status_code == 200
        admin = await http.get("/transactions")
        assert admin.status_code == 401
        assert "resource_metadata" not in admin.headers["www-authenticate"]
        operator = s.idp.mint({"sub": "ops-ann", "groups": ["guard-operators"]})
        at_mcp = await http.post("/mcp", json={}, headers={"Authorization": f"Bearer {operator}"})
        assert at_mcp.status_code == 403
        assert "www-authenticate" not in at_mcp.headers
        poisoned = await http.get(
            "/.well-known/oauth-protected-resource/mcp", headers={"Host": "localhost:1"}
        )
        assert poisoned.json()["resource"] == s.mcp  # configured, never the request's Host


async def test_a_console_session_ends_when_its_token_expires(tmp_path: Path) -> None:
    """Requirement G59: an operator signed in with a JWT is signed out when the token expires (before
    console.session_ttl_s), so that leaving the operators' group takes effect."""
    async with stack(tmp_path) as s, httpx2.AsyncClient(base_url=s.url, follow_redirects=False) as page:
        short = s.idp.mint({"sub": "ops-ann", "groups": ["guard-operators"]}, expires_in=-5)
        # within the leeway: accepted, and the session ends at the token's exp, which has passed
        assert (await page.post("/console/sign-in", data={"token": short})).status_code == 303
        assert (await page.get("/console")).status_code == 303  # back to the sign-in page


async def test_a_static_operators_name_cannot_pass_for_a_verified_one(tmp_path: Path) -> None:
    """Requirement G59: beside JWT operators, a name given with a static operator token is recorded as
    such, so an audit reader can tell it from a verified operator's."""
    rules = tmp_path / "supervision.yaml"
    rules.write_text(yaml.safe_dump(ESCALATE_PENDING))
    changes = {
        "judges": {"chain": [{"judge": "rules", "path": str(rules)}]},
        "auth": {"operator_tokens": ["ops-static"]},
    }
    async with stack(tmp_path, **changes) as s:
        agent_headers = {
            "Authorization": f"Bearer {s.idp.mint({'sub': 'desk-1'})}",
            "Guard-Transaction": "m-1",
        }
        async with (
            httpx2.AsyncClient(headers=agent_headers, timeout=30) as raw,
            Client(streamable_http_client(s.mcp, http_client=raw)) as client,
        ):
            await client.call_tool("update_ticket", {"ticket_id": 21, "status": "pending"})
            assert (
                body(await client.call_tool("guard_commit", {"summary": "x"}))["status"] == "pending_approval"
            )
        async with httpx2.AsyncClient(base_url=s.url) as http:
            done = await http.post(
                "/transactions/m-1/approve",
                json={"reviewer": "ops-bob"},
                headers={"Authorization": "Bearer ops-static"},
            )
        assert done.status_code == 200
        detail = await s.runtime.manager.audit.get_transaction("m-1")
        assert detail is not None
        assert detail.transaction.close_reason == "approved by ops-bob (operator token)"


async def test_console_sign_in_while_the_provider_is_down_is_not_a_wrong_token(tmp_path: Path) -> None:
    """Requirement G57: with the provider's keys unavailable the sign-in answers 503 and spends nothing of
    the address's budget of wrong tokens."""
    unreachable = {"max_failures": 1, "jwt": {"jwks_url": "http://127.0.0.1:9/jwks", "jwks_timeout_s": 1}}
    async with stack(tmp_path, auth=unreachable) as s:
        token = s.idp.mint({"sub": "ops-ann", "groups": ["guard-operators"]})
        async with httpx2.AsyncClient(base_url=s.url, follow_redirects=False) as page:
            for _ in range(3):
                assert (await page.post("/console/sign-in", data={"token": token})).status_code == 503
