"""The guard over streamable HTTP on a real socket: the official client, keys, bad input, admin API."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from opentelemetry.sdk.trace import TracerProvider

from guard.clock import FixedClock
from guard.edge.http import create_app
from guard.runtime import build_runtime
from guard.settings import GuardSettings
from guard.store.migrate import upgrade
from judges import Effect, EffectKind, MemoryState
from tests.guard.conftest import demo_settings, no_sleep, serving, ticket_status


@asynccontextmanager
async def guard_server(settings: GuardSettings, provider: TracerProvider) -> AsyncIterator[str]:
    runtime = build_runtime(settings, clock=FixedClock(), provider=provider, sleep=no_sleep)
    await upgrade(runtime.audit_engine)
    async with serving(create_app(runtime)) as url:
        yield url


@asynccontextmanager
async def agent(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(headers=headers or {}, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


def body(result: types.CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


@pytest.fixture
async def base_url(settings: GuardSettings, provider: TracerProvider) -> AsyncIterator[str]:
    async with guard_server(settings, provider) as url:
        yield url


async def test_official_client_over_a_real_socket(base_url: str, settings: GuardSettings) -> None:
    """Requirements G1, G2 over streamable HTTP: blocked persists nothing; allowed and repaired persist."""
    async with agent(f"{base_url}/mcp", {"Guard-Transaction": "h-1"}) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert "guard_commit" in names
        await client.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"})
        blocked = body(await client.call_tool("guard_commit", {"summary": "solved"}))
        assert blocked["status"] == "blocked"
        assert "carrier exception for ORD-10000020 is open" in blocked["findings"][0]["message"]
        assert ticket_status(settings, 20) == "open"
        await client.call_tool("update_ticket", {"ticket_id": 20, "status": "hold"})
        committed = body(await client.call_tool("guard_commit", {"summary": "on hold"}))
        assert committed["status"] == "committed"
    assert ticket_status(settings, 20) == "hold"
    async with agent(f"{base_url}/mcp", {"Guard-Transaction": "h-2"}) as client:
        await client.call_tool("update_ticket", {"ticket_id": 21, "status": "solved"})
        assert body(await client.call_tool("guard_commit", {"summary": "done"}))["status"] == "committed"
    assert ticket_status(settings, 21) == "solved"


async def test_keys_from_meta_and_url(base_url: str, settings: GuardSettings) -> None:
    async with agent(f"{base_url}/mcp/t/url-1") as client:
        await client.call_tool("update_ticket", {"ticket_id": 21, "status": "pending"})
        assert ticket_status(settings, 21) == "open"
        assert body(await client.call_tool("guard_commit", {"summary": "x"}))["status"] == "committed"
    assert ticket_status(settings, 21) == "pending"
    async with agent(f"{base_url}/mcp") as client:
        await client.call_tool(
            "update_ticket", {"ticket_id": 21, "status": "hold"}, meta={"guard/transaction": "m-1"}
        )
        reply = body(
            await client.call_tool("guard_commit", {"summary": "x"}, meta={"guard/transaction": "m-1"})
        )
        assert reply["transaction"] == "m-1"
        with pytest.raises(MCPError, match="no transaction key"):
            await client.call_tool("get_ticket", {"ticket_id": 21})
    assert ticket_status(settings, 21) == "hold"


async def test_malformed_and_oversized_requests_change_nothing(
    tmp_path: Path, provider: TracerProvider
) -> None:
    """Requirement G4: malformed JSON-RPC and oversized payloads are refused and change nothing."""
    settings = demo_settings(tmp_path, server={"max_request_bytes": 4096})
    async with guard_server(settings, provider) as url:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Guard-Transaction": "raw-1",
        }
        async with httpx2.AsyncClient(timeout=30) as http:
            garbage = await http.post(
                f"{url}/mcp", content=b'{"jsonrpc": "2.0", "id": 1, "method": ', headers=headers
            )
            assert garbage.json()["error"]["code"] == types.PARSE_ERROR
            not_rpc = await http.post(f"{url}/mcp", content=b'{"hello": "world"}', headers=headers)
            assert "error" in not_rpc.json()
            huge = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {
                    "name": "update_ticket",
                    "arguments": {"ticket_id": 20, "status": "hold", "note": "x" * 8000},
                },
            }
            too_big = await http.post(f"{url}/mcp", content=json.dumps(huge).encode(), headers=headers)
            assert too_big.status_code == 413
            listing = await http.get(f"{url}/transactions")
            assert listing.json()["transactions"] == []
    assert ticket_status(settings, 20) == "open"


async def test_agent_tokens_and_foreign_keys(tmp_path: Path, provider: TracerProvider) -> None:
    """Requirement G4: without a token nothing runs; another agent's transaction key is refused."""
    settings = demo_settings(
        tmp_path,
        auth={"agent_tokens": {"tok-a": "agent-a", "tok-b": "agent-b"}, "operator_tokens": ["tok-ops"]},
    )
    async with guard_server(settings, provider) as url:
        async with httpx2.AsyncClient(timeout=30) as http:
            anonymous = await http.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert anonymous.status_code == 401
        async with agent(f"{url}/mcp/t/shared", {"Authorization": "Bearer tok-a"}) as a:
            await a.call_tool("update_ticket", {"ticket_id": 21, "status": "solved"})
            async with agent(f"{url}/mcp/t/shared", {"Authorization": "Bearer tok-b"}) as b:
                with pytest.raises(MCPError, match="belongs to another agent"):
                    await b.call_tool("guard_commit", {"summary": "steal"})
            assert body(await a.call_tool("guard_commit", {"summary": "mine"}))["status"] == "committed"
    assert ticket_status(settings, 21) == "solved"


async def test_admin_api(tmp_path: Path, provider: TracerProvider) -> None:
    settings = demo_settings(tmp_path, auth={"operator_tokens": ["ops-secret"]})
    async with guard_server(settings, provider) as url:
        async with agent(f"{url}/mcp/t/adm-1") as client:
            await client.call_tool("update_ticket", {"ticket_id": 21, "status": "solved"})
        async with httpx2.AsyncClient(base_url=url, timeout=30) as http:
            assert (await http.get("/healthz")).json() == {"status": "ok"}
            assert (await http.get("/readyz")).status_code == 200
            assert (await http.get("/transactions")).status_code == 401
            ops = {"Authorization": "Bearer ops-secret"}
            listing = (await http.get("/transactions", headers=ops)).json()["transactions"]
            assert {t["id"]: t["status"] for t in listing} == {"adm-1": "open"}
            committed = await http.post("/transactions/adm-1/commit", json={"summary": "done"}, headers=ops)
            assert committed.json()["status"] == "committed"
            async with agent(f"{url}/mcp/t/adm-2") as client:
                await client.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"})
            blocked = await http.post(
                "/transactions/adm-2/commit", json={"final_message": "tried"}, headers=ops
            )
            assert blocked.json()["status"] == "blocked"
            logged = (await http.get("/transactions/adm-1", headers=ops)).json()["commit_log"]
            assert [c["summary"] for c in logged] == ["done"]
            logged = (await http.get("/transactions/adm-2", headers=ops)).json()["commit_log"]
            assert [c["summary"] for c in logged] == ["tried"], "final_message is the summary's earlier name"
            rolled = await http.post("/transactions/adm-2/rollback", json={"reason": "operator"}, headers=ops)
            assert rolled.json()["status"] == "rolled_back"
            missing = await http.post("/transactions/nope/commit", json={}, headers=ops)
            assert missing.status_code == 404
            detail = (await http.get("/transactions/adm-2", headers=ops)).json()
            assert [c["status"] for c in detail["commit_log"]] == ["blocked"]
            assert detail["status"] == "rolled_back"
            blocked_only = (await http.get("/transactions?status=blocked", headers=ops)).json()[
                "transactions"
            ]
            assert [t["id"] for t in blocked_only] == ["adm-2"]
    assert ticket_status(settings, 21) == "solved"
    assert ticket_status(settings, 20) == "open"


async def test_readyz_names_a_backend_that_does_not_answer(
    tmp_path: Path, provider: TracerProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = demo_settings(tmp_path)
    runtime = build_runtime(settings, clock=FixedClock(), provider=provider, sleep=no_sleep)
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    await runtime.start()
    try:
        assert await runtime.ready() == {}

        async def down() -> None:
            raise ConnectionRefusedError("the system of record is down")

        monkeypatch.setattr(runtime.manager.backend, "ping", down)
        async with httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=create_app(runtime)), base_url="http://127.0.0.1"
        ) as http:
            answer = await http.get("/readyz")
        assert answer.status_code == 503
        assert answer.json() == {
            "status": "not ready",
            "problems": {"backend": "ConnectionRefusedError: the system of record is down"},
        }
    finally:
        await runtime.stop()


async def test_readyz_stays_ready_while_one_agent_is_held_back_and_not_once_the_pool_is_exhausted(
    tmp_path: Path, provider: TracerProvider
) -> None:
    """Requirement G22: a judge quarantined for one agent blocks only that agent's commits, so the guard
    is still ready; hung evaluations of several agents that exhaust the pool make it unready, counted."""
    (tmp_path / "any.yaml").write_text(
        "name: any\nrules:\n"
        "  - {id: r, when: {table: tickets}, require: 'true', decision: block, message: m}\n"
    )
    entry = {
        "judge": "python",
        "target": "tests.guard.sample_judges:HangingPack",
        "path": str(tmp_path / "any.yaml"),
    }
    commit = {"judge_timeout_s": 0.05, "max_hung_judges": 2, "max_hung_per_judge": 1}
    settings = demo_settings(tmp_path, commit=commit, judges={"chain": [entry]})
    runtime = build_runtime(settings, clock=FixedClock(), provider=provider, sleep=no_sleep)
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    await runtime.start()
    (pack,) = [judge for judge in runtime.manager.gate.judges if judge.name == "any"]
    effect = Effect("tickets", (21,), EffectKind.UPDATE, {"id": 21}, {"id": 21}, ())
    try:
        for agent in ("mallory", "eve"):
            result = await runtime.manager.gate.evaluate(
                "t", [effect], [], "", MemoryState({}), principal=agent
            )
            assert result.verdict.findings[0].message == "judge any did not answer within 0.05s"
            if agent == "mallory":
                assert runtime.manager.gate.pool_status().quarantined == (("any", "mallory"),)
                assert await runtime.ready() == {}
        assert await runtime.ready() == {"judges": "the judge pool is exhausted by 2 hung evaluations"}
    finally:
        pack.release.set()  # type: ignore[attr-defined]
        await runtime.stop()


def _rpc(method: str, ident: int | None, **params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if ident is not None:
        message["id"] = ident
    return message


def _answer(response: httpx2.Response) -> dict[str, Any]:
    """A JSON-RPC answer, whether the server sent it as JSON or as one server-sent event."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return dict(json.loads(data[-1]))
    return dict(response.json())


@pytest.mark.parametrize("version", ["2025-06-18", "2025-03-26"])
async def test_a_handshake_era_client_gets_one_transaction_per_session_rolled_back_when_it_ends(
    base_url: str, settings: GuardSettings, version: str
) -> None:
    """A 1.x client (handshake, ``Mcp-Session-Id``, no key of its own) writes inside ``session-<id>``; ending
    the session (``DELETE``) rolls that transaction back at once, so its locks do not wait for the idle
    timeout."""
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with httpx2.AsyncClient(base_url=base_url, headers=accept, timeout=30) as http:
        hello = await http.post(
            "/mcp",
            json=_rpc(
                "initialize",
                1,
                protocolVersion=version,
                capabilities={},
                clientInfo={"name": "legacy", "version": "1"},
            ),
        )
        assert hello.status_code == 200, hello.text
        assert _answer(hello)["result"]["protocolVersion"] == version
        session = {"Mcp-Session-Id": hello.headers["mcp-session-id"], "Mcp-Protocol-Version": version}
        await http.post("/mcp", json=_rpc("notifications/initialized", None), headers=session)
        wrote = await http.post(
            "/mcp",
            json=_rpc(
                "tools/call", 2, name="update_ticket", arguments={"ticket_id": 21, "status": "pending"}
            ),
            headers=session,
        )
        assert _answer(wrote)["result"]["isError"] is False
        key = f"session-{session['Mcp-Session-Id']}"
        listed = await http.get(f"/transactions/{key}")
        assert listed.json()["status"] == "open"
        ended = await http.delete("/mcp", headers=session)
        assert ended.status_code in (200, 204)
        closed = (await http.get(f"/transactions/{key}")).json()
    assert (closed["status"], closed["close_reason"]) == ("rolled_back", "the client ended its MCP session")
    assert ticket_status(settings, 21) == "open"


async def test_the_door_serves_only_the_mcp_routes_under_mcp(base_url: str) -> None:
    """Requirement G4: /mcp and /mcp/t/<id> reach the MCP transport straight from the door; another path
    under /mcp is 404 and another method 405, with nothing run."""
    async with httpx2.AsyncClient(base_url=base_url) as http:
        assert (await http.post("/mcp/other", json={})).status_code == 404
        assert (await http.post("/mcp/t/a/b", json={})).status_code == 404
        wrong = await http.put("/mcp", json={})
        assert wrong.status_code == 405
        assert wrong.headers["allow"] == "GET, POST, DELETE"
    async with agent(f"{base_url}/mcp/t/routed-1") as client:
        assert not (await client.call_tool("get_ticket", {"ticket_id": 21})).is_error
