"""Handshake-era (1.x protocol) MCP sessions belong to the agent that opened them, and each agent has its own
share of them: over a real socket, with raw JSON-RPC and with the official client in legacy mode."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from opentelemetry.sdk.trace import TracerProvider

from guard.clock import FixedClock
from guard.edge.http import create_app
from guard.edge.mcp_sessions import AgentSessions
from guard.runtime import build_runtime
from guard.settings import GuardSettings
from guard.store.migrate import upgrade
from tests.guard.conftest import demo_settings, no_sleep, serving, ticket_status

LEGACY = "2025-06-18"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
A, B, OPS = "agent-a-secret", "agent-b-secret", "operator-secret"
AUTH = {"agent_tokens": {A: "agent-a", B: "agent-b"}, "operator_tokens": [OPS]}


def rpc(method: str, ident: int | None, **params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if ident is not None:
        message["id"] = ident
    return message


def answer(response: httpx2.Response) -> dict[str, Any]:
    """A JSON-RPC answer, whether the server sent it as JSON or as one server-sent event."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return dict(json.loads(data[-1]))
    return dict(response.json())


@asynccontextmanager
async def guard_at(settings: GuardSettings) -> AsyncIterator[str]:
    runtime = build_runtime(settings, clock=FixedClock(), provider=TracerProvider(), sleep=no_sleep)
    await upgrade(runtime.audit_engine)
    async with serving(create_app(runtime)) as url:
        yield url


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def initialize(http: httpx2.AsyncClient, token: str) -> httpx2.Response:
    return await http.post(
        "/mcp",
        json=rpc(
            "initialize",
            1,
            protocolVersion=LEGACY,
            capabilities={},
            clientInfo={"name": "legacy", "version": "1"},
        ),
        headers=bearer(token),
    )


async def open_session(http: httpx2.AsyncClient, token: str) -> dict[str, str]:
    """A handshake (initialize, then initialized) by the agent of ``token``: the headers of its session."""
    hello = await initialize(http, token)
    assert hello.status_code == 200, hello.text
    session = {
        **bearer(token),
        "Mcp-Session-Id": hello.headers["mcp-session-id"],
        "Mcp-Protocol-Version": LEGACY,
    }
    await http.post("/mcp", json=rpc("notifications/initialized", None), headers=session)
    return session


def as_agent(session: dict[str, str], token: str) -> dict[str, str]:
    return {**session, **bearer(token)}


async def test_another_agent_can_neither_use_nor_end_a_handshake_era_session(tmp_path: Path) -> None:
    """Requirement G40: agent B presenting agent A's Mcp-Session-Id is answered as if the session did not
    exist (404) for a call, the GET stream and DELETE; A's session and its transaction go on untouched."""
    settings = demo_settings(tmp_path, auth=AUTH)
    async with (
        guard_at(settings) as url,
        httpx2.AsyncClient(base_url=url, headers=ACCEPT, timeout=30) as http,
    ):
        mine = await open_session(http, A)
        wrote = await http.post(
            "/mcp",
            json=rpc("tools/call", 2, name="update_ticket", arguments={"ticket_id": 21, "status": "pending"}),
            headers=mine,
        )
        assert answer(wrote)["result"]["isError"] is False
        theirs = as_agent(mine, B)
        used = await http.post(
            "/mcp", json=rpc("tools/call", 3, name="get_ticket", arguments={"ticket_id": 21}), headers=theirs
        )
        assert used.status_code == 404
        assert (await http.get("/mcp", headers=theirs)).status_code == 404
        ended = await http.delete("/mcp", headers=theirs)
        assert ended.status_code == 404
        key = f"session-{mine['Mcp-Session-Id']}"
        assert (await http.get(f"/transactions/{key}", headers=bearer(OPS))).json()["status"] == "open"
        again = await http.post(
            "/mcp", json=rpc("tools/call", 4, name="get_ticket", arguments={"ticket_id": 21}), headers=mine
        )
        assert again.status_code == 200
        assert answer(again)["result"]["isError"] is False
        assert (await http.delete("/mcp", headers=mine)).status_code in (200, 204)
        closed = (await http.get(f"/transactions/{key}", headers=bearer(OPS))).json()
    assert closed["status"] == "rolled_back"
    assert ticket_status(settings, 21) == "open"


async def test_sessions_are_limited_per_agent_and_one_agent_cannot_take_the_others_share(
    tmp_path: Path,
) -> None:
    """Requirement G40: past limits.max_sessions_per_agent an agent's handshake is refused (429) with an error
    naming the limit; another agent still opens sessions (the official client in legacy mode), and the first
    opens one again once it ended one."""
    settings = demo_settings(tmp_path, auth=AUTH, limits={"max_sessions_per_agent": 2})
    async with (
        guard_at(settings) as url,
        httpx2.AsyncClient(base_url=url, headers=ACCEPT, timeout=30) as http,
    ):
        first, _second = await open_session(http, A), await open_session(http, A)
        refused = await initialize(http, A)
        assert refused.status_code == 429
        error = refused.json()["error"]["message"]
        assert "limits.max_sessions_per_agent" in error
        assert "2 open" in error
        async with (
            httpx2.AsyncClient(headers=bearer(B), timeout=30) as other,
            Client(streamable_http_client(f"{url}/mcp", http_client=other), mode="legacy") as agent_b,
        ):
            assert "guard_commit" in {tool.name for tool in (await agent_b.list_tools()).tools}
            async with Client(
                streamable_http_client(f"{url}/mcp", http_client=other), mode="legacy"
            ) as again:
                assert (await again.call_tool("get_ticket", {"ticket_id": 21})).is_error is False
        assert (await http.delete("/mcp", headers=first)).status_code in (200, 204)
        await open_session(http, A)
        assert (await initialize(http, A)).status_code == 429


@pytest.mark.parametrize("limit", [0, -1])
def test_the_per_agent_limit_is_positive(tmp_path: Path, limit: int) -> None:
    """Requirement G40: a session limit of none would lock every handshake-era client out."""
    with pytest.raises(ValueError, match="max_sessions_per_agent"):
        demo_settings(tmp_path, limits={"max_sessions_per_agent": limit})


def test_an_sdk_without_the_session_hooks_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Requirement G40: a session manager whose admission the guard cannot count would be unlimited."""
    monkeypatch.delattr(StreamableHTTPSessionManager, "_admit_session")
    with pytest.raises(RuntimeError, match="_admit_session"):
        AgentSessions(object(), limit=1, max_request_body_size=1024)
