"""Supervised upstreams: a stdio child that dies is respawned, an HTTP upstream that restarts is reconnected.

Real processes: the fake shop over stdio (launched by the guard through a shell
that refuses to start while a flag file exists, so a test can keep it down) and
over streamable HTTP on a fixed loopback port (killed and started again). The
guard is the durable one (SQLite audit and outbox) in this process; the agent
is the official client in process.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
from hypothesis import given
from hypothesis import strategies as st

from guard.backends.mcp import McpBackend
from guard.edge.mcp_client import ClientUpstream
from guard.runtime import Runtime
from tests.conftest import ROOT
from tests.fakes.mcp_shop import journal
from tests.fakes.upstream_shop_server import ServedShop, shop_app
from tests.guard.conftest import agent_client, free_port, meta, serving, until
from tests.guard.mcp_support import body, kill_child, listening, text, upstream_guard


def _upstream(runtime: Runtime) -> ClientUpstream:
    backend = runtime.manager.backend
    assert isinstance(backend, McpBackend)
    assert isinstance(backend.upstream, ClientUpstream)
    return backend.upstream


def _stdio_shop(tmp_path: Path) -> dict[str, Any]:
    """The shop over stdio, behind a shell that exits at once while ``down`` exists."""
    down = tmp_path / "down"
    python = shlex.quote(sys.executable)
    script = f"test -e {shlex.quote(str(down))} && exit 3; exec {python} -m tests.fakes.mcp_shop"
    return {
        "url": None,
        "command": "/bin/sh",
        "args": ["-c", script],
        "env": {"SHOP_JOURNAL": str(tmp_path / "shop.json"), "PATH": os.environ.get("PATH", "")},
        "cwd": str(ROOT),
    }


def _kill_stdio_shop(tmp_path: Path) -> None:
    kill_child(f"{sys.executable} -m tests.fakes.mcp_shop", str(tmp_path / "shop.json"))


async def test_a_stdio_upstream_that_dies_is_respawned_and_reads_go_on(tmp_path: Path) -> None:
    """Requirement G45: the child killed, the next read is answered by a new one; readiness stays true."""
    async with (
        upstream_guard(tmp_path, **_stdio_shop(tmp_path)) as runtime,
        agent_client(runtime) as agent,
    ):
        await agent.call_tool("create_order", {"item": "lamp", "quantity": 1}, meta=meta("s-1"))
        await agent.call_tool("guard_commit", {"summary": "a lamp"}, meta=meta("s-1"))
        _kill_stdio_shop(tmp_path)
        read = await agent.call_tool("get_order", {"order_id": "ORD-1"}, meta=meta("s-2"))
        assert read.is_error is False, text(read)
        assert _upstream(runtime).status.connections == 2
        assert await runtime.ready() == {}


async def test_a_write_while_the_upstream_is_down_is_recorded_as_not_sent(tmp_path: Path) -> None:
    """Requirement G45: down for good, a committed write fails as not sent (never "may have been applied"),
    readiness names the upstream, and once it is back the guard reconnects by itself."""
    down = tmp_path / "down"
    async with (
        upstream_guard(tmp_path, **_stdio_shop(tmp_path)) as runtime,
        agent_client(runtime) as agent,
    ):
        await agent.call_tool("create_order", {"item": "lamp", "quantity": 1}, meta=meta("d-1"))
        down.touch()
        _kill_stdio_shop(tmp_path)
        await until(lambda: not _upstream(runtime).status.connected)  # noticed without a call
        assert "is down" in (await runtime.ready())["backend"]
        reply = body(await agent.call_tool("guard_commit", {"summary": "a lamp"}, meta=meta("d-1")))
        assert reply["status"] == "partial", reply
        [write] = reply["dispatch"]
        assert (write["status"], write["error_class"]) == ("failed", "transient"), write
        assert "was not sent" in write["error"]
        assert "may have been applied" not in reply["message"]
        down.unlink()
        await until(lambda: _upstream(runtime).status.connected)
        assert await runtime.ready() == {}
        read = await agent.call_tool("get_order", {"order_id": "ORD-1"}, meta=meta("d-2"))
    assert read.is_error is True  # the write was never sent: no such order
    assert "ORD-1" in text(read)
    assert journal(tmp_path / "shop.json") == []


def _http_shop(port: int, journal_path: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.upstream_shop_server", str(port), str(journal_path)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def test_an_http_upstream_that_restarts_is_reconnected(tmp_path: Path) -> None:
    """Requirement G45: the HTTP upstream killed, a passthrough write is refused as not applied; started
    again on the same port, the guard's next calls reach it without a restart of the guard."""
    port = free_port()
    shop_journal = tmp_path / "shop.json"
    email = {"to": "ada@example.com", "body": "hello"}
    shops = [_http_shop(port, shop_journal)]
    try:
        await listening(port)
        settings = {"url": f"http://127.0.0.1:{port}/mcp", "tools": {"send_email": {"mode": "passthrough"}}}
        async with upstream_guard(tmp_path, **settings) as runtime, agent_client(runtime) as agent:
            sent = await agent.call_tool("send_email", email, meta=meta("h-1"))
            assert sent.is_error is False, text(sent)
            await agent.call_tool("guard_commit", {"summary": "mail"}, meta=meta("h-1"))
            shops[0].kill()
            shops[0].wait(10)
            refused = await agent.call_tool("send_email", email, meta=meta("h-2"))
            assert refused.is_error is True
            assert "it was not applied" in text(refused), text(refused)
            await agent.call_tool("guard_rollback", {}, meta=meta("h-2"))
            assert "backend" in await runtime.ready()
            shops.append(_http_shop(port, shop_journal))
            await listening(port)
            again = await agent.call_tool("send_email", email, meta=meta("h-3"))
            assert again.is_error is False, text(again)
            await agent.call_tool("guard_commit", {"summary": "mail"}, meta=meta("h-3"))
            assert await runtime.ready() == {}
    finally:
        for shop in shops:
            shop.kill()
            shop.wait(10)
    assert [entry["tool"] for entry in journal(shop_journal)] == ["send_email"]  # the restarted shop's own


async def test_each_request_tells_the_upstream_which_agent_it_is_for(tmp_path: Path) -> None:
    """Requirement G51: agent_headers are rendered per request from the transaction's agent (URL-quoted);
    a read, a passthrough write and a commit's dispatch each carry their agent's, the tool list none."""
    seen: list[tuple[str, str | None, str | None]] = []
    app = shop_app(ServedShop())

    async def recording(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            body = b""
            more = True
            messages = []
            while more:
                message = await receive()
                messages.append(message)
                body += message.get("body", b"")
                more = message.get("more_body", False)
            request = json.loads(body) if body else {}
            tool = (request.get("params") or {}).get("name") or request.get("method")
            seen.append((str(tool), headers.get("x-on-behalf-of"), headers.get("x-static")))
            replay = iter(messages)

            async def again() -> Any:
                return next(replay)

            await app(scope, again, send)
            return
        await app(scope, receive, send)

    async with serving(recording) as base:
        settings = {
            "url": f"{base}/mcp",
            "headers": {"X-Static": "s"},
            "agent_headers": {"X-On-Behalf-Of": "agent={principal}"},
            "tools": {"send_email": {"mode": "passthrough"}},
        }
        async with upstream_guard(tmp_path, **settings) as runtime:
            async with agent_client(runtime, principal="ann lee") as ann:
                await ann.call_tool("get_order", {"order_id": "ORD-9"}, meta=meta("a-1"))
                await ann.call_tool("send_email", {"to": "x@example.com", "body": "b"}, meta=meta("a-1"))
                await ann.call_tool("create_order", {"item": "lamp", "quantity": 1}, meta=meta("a-1"))
                await ann.call_tool("guard_commit", {"summary": "x"}, meta=meta("a-1"))
            async with agent_client(runtime, principal="bob") as bob:
                await bob.call_tool("get_order", {"order_id": "ORD-1"}, meta=meta("b-1"))
    calls = [
        (tool, agent, static)
        for tool, agent, static in seen
        if tool not in ("initialize", "notifications/initialized")
    ]
    assert ("tools/list", None, "s") in calls
    assert [(tool, agent) for tool, agent, _ in calls if agent is not None] == [
        ("get_order", "agent=ann%20lee"),
        ("send_email", "agent=ann%20lee"),
        ("create_order", "agent=ann%20lee"),
        ("get_order", "agent=bob"),
    ]
    assert all(static == "s" for _, _, static in calls)


@given(st.text(min_size=1, max_size=64))
def test_an_agents_name_cannot_add_a_header_or_a_line(principal: str) -> None:
    """Requirement G51: whatever the agent's name, its rendered header is one printable token line."""
    import asyncio as aio

    from guard.backends.base import ACTING_FOR
    from guard.edge.mcp_client import _Transport

    seen: list[str] = []

    class Inner(httpx2.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            seen.append(request.headers["x-agent"])
            return httpx2.Response(200)

    async def send() -> None:
        ACTING_FOR.set(principal)
        transport = _Transport(Inner(), {"X-Agent": "a={principal}"})
        await transport.handle_async_request(httpx2.Request("POST", "http://u/mcp"))

    aio.run(send())
    [value] = seen
    assert value.startswith("a=")
    assert all(33 <= ord(c) < 127 for c in value), value
