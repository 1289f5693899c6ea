"""Bad input over the real HTTP door: arguments that are not JSON data the guard can carry, arguments nested
too deeply, invalid calls past the limits, a call to a transaction that waits for a person, and admin
filters that name nothing (Requirements G4, G20, G41). Each is answered in words the caller can act on,
changes nothing, and leaves the audit log readable by every reader."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from opentelemetry.sdk.trace import TracerProvider

from guard.clock import FixedClock
from guard.edge.http import create_app
from guard.runtime import Runtime, build_runtime
from guard.settings import GuardSettings
from guard.store.migrate import upgrade
from tests.guard.conftest import demo_settings, no_sleep, serving, ticket_status

ESCALATE_HOLD = """\
name: supervision
rules:
  - id: hold-needs-a-supervisor
    when: {table: tickets, kind: [update], changed: [status]}
    require: "effect.after.status != 'hold'"
    decision: escalate
    message: "ticket {{effect.key}}: a hold is reviewed by a supervisor"
"""


@asynccontextmanager
async def guard_server(settings: GuardSettings) -> AsyncIterator[tuple[str, Runtime]]:
    runtime = build_runtime(settings, clock=FixedClock(), provider=TracerProvider(), sleep=no_sleep)
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    async with serving(create_app(runtime)) as url:
        yield url, runtime


def _call(ident: int, tool: str, arguments_json: str) -> bytes:
    """A 2026-07-28 ``tools/call`` by hand (the official client cannot send NaN or a lone surrogate)."""
    envelope = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    return (
        f'{{"jsonrpc": "2.0", "id": {ident}, "method": "tools/call", "params": {{"_meta": '
        f'{json.dumps(envelope)}, "name": "{tool}", "arguments": {arguments_json}}}}}'
    ).encode()


async def raw_call(
    http: httpx2.AsyncClient, url: str, key: str, tool: str, arguments_json: str
) -> dict[str, Any]:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": tool,
        "Guard-Transaction": key,
    }
    reply = await http.post(f"{url}/mcp", content=_call(1, tool, arguments_json), headers=headers)
    answer: dict[str, Any] = reply.json()
    return answer


def _deep(levels: int) -> str:
    return "[" * levels + "1" + "]" * levels


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ('{"ticket_id": 20, "extra": NaN}', "a number JSON cannot carry (NaN or Infinity)"),
        ('{"ticket_id": 20, "extra": -Infinity}', "a number JSON cannot carry (NaN or Infinity)"),
        ('{"ticket_id": 20, "extra": "a\\ud800b"}', "text that is not valid Unicode (an unpaired surrogate)"),
        ('{"ticket_id": 20, "extra": ' + _deep(64) + "}", "nest deeper than 64 levels"),
    ],
)
async def test_arguments_the_guard_cannot_carry_are_refused_with_the_reason(
    tmp_path: Path, arguments: str, problem: str
) -> None:
    """Requirement G4: NaN, Infinity, an unpaired surrogate, or nesting past ``limits.max_argument_depth``
    is a tool error naming the problem (never -32603), the call is recorded without those arguments, the
    transaction goes on, and the admin API shows it all."""
    async with (
        guard_server(demo_settings(tmp_path)) as (url, runtime),
        httpx2.AsyncClient(timeout=30) as http,
    ):
        first = await raw_call(http, url, "bad-1", "get_ticket", '{"ticket_id": 20}')
        assert first["result"]["isError"] is False
        refused = await raw_call(http, url, "bad-1", "get_ticket", arguments)
        assert refused["result"]["isError"] is True, refused
        assert problem in refused["result"]["content"][0]["text"]
        after = await raw_call(http, url, "bad-1", "update_ticket", '{"ticket_id": 21, "status": "pending"}')
        assert after["result"]["isError"] is False, "the transaction goes on"
        shown = await http.get(f"{url}/transactions/bad-1")
        assert shown.status_code == 200
        calls = shown.json()["call_log"]
        assert [c["outcome"] for c in calls] == ["ok", "error", "ok"]
        assert problem in calls[1]["arguments"]["_omitted"]
        assert calls[1]["error_class"] == "invalid_arguments"
        assert runtime.manager.backlog == 0
    assert ticket_status(runtime.settings, 21) == "open", "nothing was committed"


async def test_json_nested_past_the_parser_is_a_parse_error_and_the_guard_goes_on(tmp_path: Path) -> None:
    """Requirement G4: a body nested 3,000 levels deep is a JSON-RPC parse error; the next one is served."""
    async with guard_server(demo_settings(tmp_path)) as (url, _), httpx2.AsyncClient(timeout=30) as http:
        deep = await raw_call(http, url, "deep-1", "get_ticket", '{"ticket_id": ' + _deep(3000) + "}")
        assert deep["error"]["code"] == -32700
        fine = await raw_call(http, url, "deep-1", "get_ticket", '{"ticket_id": 20}')
        assert fine["result"]["isError"] is False


async def test_a_transaction_that_nests_data_as_deep_as_allowed_is_shown_whole(tmp_path: Path) -> None:
    """Requirement G41: arguments 63 levels deep (the limit is 64) are recorded whole, and the admin API's
    view of the transaction answers 200 (a 900-deep argument made it answer 500)."""
    async with guard_server(demo_settings(tmp_path)) as (url, _), httpx2.AsyncClient(timeout=30) as http:
        allowed = _deep(62)
        await raw_call(http, url, "nest-1", "get_ticket", '{"ticket_id": 20}')
        await raw_call(http, url, "nest-1", "get_ticket", '{"ticket_id": 20, "extra": ' + allowed + "}")
        shown = await http.get(f"{url}/transactions/nest-1")
        assert shown.status_code == 200, shown.text
        assert json.dumps(shown.json()["call_log"][1]["arguments"]["extra"], separators=(",", ":")) == allowed


async def test_invalid_calls_count_toward_the_transaction_limits(tmp_path: Path) -> None:
    """Requirement G20: a call refused for its arguments spends the transaction's calls and bytes like any
    other (150 invalid calls of 0.9 MB grew the audit by 128 MB); past the limit its arguments are logged
    by size only."""
    limits = {"max_calls_per_transaction": 4, "max_argument_bytes_per_transaction": 200_000}
    async with guard_server(demo_settings(tmp_path, limits=limits)) as (url, runtime):
        big = json.dumps({"ticket_id": 20, "extra": "x" * 70_000})
        small_invalid = '{"ticket_id": 20, "extra": 1}'
        async with httpx2.AsyncClient(timeout=30) as http:

            async def text(arguments: str) -> str:
                answer = await raw_call(http, url, "lim-1", "get_ticket", arguments)
                assert answer["result"]["isError"] is True
                return str(answer["result"]["content"][0]["text"])

            await raw_call(http, url, "lim-1", "get_ticket", '{"ticket_id": 20}')
            assert "Extra inputs are not permitted" in await text(big)
            assert "Extra inputs are not permitted" in await text(big)
            assert "the limit is 200000 (limits.max_argument_bytes_per_transaction)" in await text(big)
            assert "Extra inputs are not permitted" in await text(small_invalid)
            assert "has made 4 calls, the limit is 4" in await text('{"ticket_id": 21}')
            assert "has made 4 calls, the limit is 4" in await text(small_invalid)
        detail = await runtime.manager.audit.get_transaction("lim-1")
    assert detail is not None
    logged = [c.arguments for c in detail.calls]
    assert len(logged) == 7, "every refused call is recorded"
    assert logged[3] == {"_omitted": f"{len(big.replace(' ', ''))} bytes"}
    assert sum(len(json.dumps(a)) for a in logged) < 200_000


async def test_a_call_while_the_commit_waits_for_a_person_is_a_tool_result(tmp_path: Path) -> None:
    """Requirement G4: a call in a transaction whose commit waits for a reviewer is a tool error saying so
    and what to do (it was a JSON-RPC -32603, which agent frameworks raise mid-escalation)."""
    (tmp_path / "supervision.yaml").write_text(ESCALATE_HOLD)
    settings = demo_settings(
        tmp_path, judges={"chain": [{"judge": "rules", "path": str(tmp_path / "supervision.yaml")}]}
    )
    async with guard_server(settings) as (url, _), Client(f"{url}/mcp/t/wait-1") as agent:
        await agent.call_tool(
            "update_ticket", {"ticket_id": 21, "status": "hold", "note": "waiting on carrier"}
        )
        held = await agent.call_tool("guard_commit", {"summary": "put it on hold"})
        assert isinstance(held.structured_content, dict)
        assert held.structured_content["status"] == "pending_approval"
        waiting = await agent.call_tool("get_ticket", {"ticket_id": 21})
        assert waiting.is_error is True
        assert "waiting for a reviewer to approve or reject its commit" in waiting.content[0].text  # type: ignore[union-attr]
        rolled = await agent.call_tool("guard_rollback", {"reason": "no longer needed"})
        assert rolled.is_error is False


async def test_admin_filters_name_the_values_they_take(tmp_path: Path) -> None:
    """Requirement G4: an unknown ``status`` (the README once said ``pending``) or a ``limit`` out of range
    is a 400 naming what is allowed, never a 200 with an empty list."""
    async with guard_server(demo_settings(tmp_path)) as (url, _), httpx2.AsyncClient(base_url=url) as http:
        unknown = await http.get("/transactions", params={"status": "pending"})
        assert unknown.status_code == 400
        assert "unknown status 'pending': use one of open, pending_approval" in unknown.json()["error"]
        assert "blocked, would_block" in unknown.json()["error"]
        assert (await http.get("/transactions", params={"limit": 0})).status_code == 400
        assert (await http.get("/transactions", params={"status": "pending_approval"})).status_code == 200
