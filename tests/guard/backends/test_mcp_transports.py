"""The ``mcp`` backend over real transports: an upstream over stdio (a subprocess) and over HTTP (a socket).

stdio: ``guard serve --stdio`` as a subprocess, its upstream the fake shop as
another subprocess it launches; the agent is the official client. HTTP: the
shop on a real loopback socket, the guard's app on another, the agent over
streamable HTTP with a transaction header.
"""

from __future__ import annotations

import subprocess
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx2
import yaml
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from starlette.types import Receive, Scope, Send

from guard.clock import FixedClock
from guard.edge.http import create_app
from guard.runtime import build_runtime
from guard.store.migrate import upgrade
from tests.conftest import ROOT
from tests.fakes.mcp_shop import Shop, journal, shop_server
from tests.guard.conftest import no_sleep, serving
from tests.guard.mcp_support import body, mcp_settings


async def test_guard_serve_stdio_in_front_of_a_stdio_upstream(tmp_path: Path) -> None:
    """Requirements G11, G12 over stdio: nothing reaches the upstream before commit; then all, in order."""
    shop_journal = tmp_path / "shop.json"
    config = tmp_path / "guard.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "backend": {
                    "kind": "mcp",
                    "mcp": {
                        "command": sys.executable,
                        "args": ["-m", "tests.fakes.mcp_shop"],
                        "env": {"SHOP_JOURNAL": str(shop_journal)},
                        "cwd": str(ROOT),
                    },
                },
                "audit": {"url": f"sqlite:///{tmp_path / 'guard.db'}"},
            }
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "guard", "db", "upgrade", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "guard", "serve", "--stdio", "--config", str(config)],
        cwd=str(ROOT),
    )
    async with Client(params) as agent:
        tools = {tool.name: tool for tool in (await agent.list_tools()).tools}
        assert tools["get_order"].annotations is not None
        assert tools["get_order"].annotations.read_only_hint is True
        assert tools["create_order"].output_schema is None
        receipt = body(await agent.call_tool("create_order", {"item": "lamp", "quantity": 1}))
        assert receipt["status"] == "deferred"
        await agent.call_tool("add_note", {"order_id": "ORD-1", "text": "fragile"})
        assert journal(shop_journal) == []
        committed = body(await agent.call_tool("guard_commit", {"summary": "ordered a lamp"}))
        assert committed["status"] == "committed"
        assert [entry["tool"] for entry in journal(shop_journal)] == ["create_order", "add_note"]
        assert journal(shop_journal)[0]["key"] == receipt["idempotency_key"]
        read = body(await agent.call_tool("get_order", {"order_id": "ORD-1"}))
        assert read["status"] == "placed"
        await agent.call_tool("refund", {"order_id": "ORD-1", "amount": -1})
        second = body(await agent.call_tool("guard_commit", {"summary": "nothing"}))
        assert second["transaction"] != committed["transaction"]
    assert len(journal(shop_journal)) == 2
    shown = subprocess.run(
        [
            sys.executable,
            "-m",
            "guard",
            "transactions",
            "show",
            committed["transaction"],
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    assert "> #1 create_order applied (1 attempt(s))" in shown.stdout
    assert "> #2 add_note applied (1 attempt(s))" in shown.stdout


class _Headers:
    """Records the headers of every request an ASGI app receives."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seen: list[dict[str, str]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self.seen.append({k.decode(): v.decode() for k, v in scope["headers"]})
        await self.app(scope, receive, send)


async def test_the_guard_over_http_in_front_of_an_http_upstream(tmp_path: Path) -> None:
    """Requirements G11, G14 over streamable HTTP on real sockets, with the configured upstream headers."""
    shop = Shop()
    upstream_app = _Headers(shop_server(shop).streamable_http_app())
    async with AsyncExitStack() as stack:
        upstream_url = await stack.enter_async_context(serving(upstream_app))
        settings = mcp_settings(
            tmp_path,
            url=f"{upstream_url}/mcp",
            headers={"Authorization": "Bearer upstream-token"},
            tools={
                "create_order": {
                    "mode": "passthrough",
                    "compensate": {"tool": "cancel_order", "arguments": {"order_id": "$result.id"}},
                }
            },
        )
        runtime = build_runtime(settings, clock=FixedClock(), sleep=no_sleep)
        assert runtime.audit_engine is not None
        await upgrade(runtime.audit_engine)
        guard_url = await stack.enter_async_context(serving(create_app(runtime)))
        http = await stack.enter_async_context(
            httpx2.AsyncClient(headers={"Guard-Transaction": "h-1"}, timeout=30)
        )
        agent = await stack.enter_async_context(
            Client(streamable_http_client(f"{guard_url}/mcp", http_client=http))
        )
        placed = body(await agent.call_tool("create_order", {"item": "desk", "quantity": 1}))
        assert placed["id"] == "ORD-1"
        assert shop.orders["ORD-1"]["status"] == "placed"
        await agent.call_tool("refund", {"order_id": "ORD-1", "amount": 3})
        assert [entry["tool"] for entry in shop.journal] == ["create_order"]
        ready = await http.get(f"{guard_url}/readyz")
        assert ready.json() == {"status": "ready", "problems": {}}
        rolled = await http.post(f"{guard_url}/transactions/h-1/rollback", json={"reason": "wrong desk"})
        assert rolled.json()["message"] == (
            "rolled back: wrong desk; discarded 1 held write(s); undone: create_order (#1)"
        )
    assert [entry["tool"] for entry in shop.journal] == ["create_order", "cancel_order"]
    assert shop.orders["ORD-1"]["status"] == "cancelled"
    assert all(seen.get("authorization") == "Bearer upstream-token" for seen in upstream_app.seen)
    assert upstream_app.seen
