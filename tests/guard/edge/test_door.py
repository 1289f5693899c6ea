"""The HTTP door: Host and Origin on every route, body limits before auth and parsing, no echo, safe binds."""

from __future__ import annotations

import dataclasses
import logging
import select
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from opentelemetry.sdk.trace import TracerProvider

from guard.clock import FixedClock
from guard.edge.door import host_policy
from guard.edge.http import create_app
from guard.errors import ConfigError
from guard.runtime import Runtime, build_runtime
from guard.settings import GuardSettings, ServerSettings, load_settings
from guard.store.migrate import upgrade
from tests.guard.conftest import demo_settings, free_port, no_sleep, serving, ticket_status
from tests.guard.test_process import guard
from tests.guard.test_process import serving as serving_process

MCP_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
}
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/transactions", None),
    ("GET", "/transactions/door-1", None),
    ("POST", "/transactions/door-1/commit", {"final_message": "done"}),
    ("POST", "/transactions/door-1/rollback", {"reason": "not wanted"}),
    ("POST", "/transactions/door-1/approve", {"reviewer": "page"}),
    ("POST", "/transactions/door-1/reject", {"reviewer": "page"}),
    ("GET", "/healthz", None),
    ("GET", "/readyz", None),
    ("POST", "/mcp", PING),
    ("POST", "/mcp/t/door-1", PING),
]
MB = 1024 * 1024


@asynccontextmanager
async def guard_server(settings: GuardSettings, provider: TracerProvider) -> AsyncIterator[str]:
    runtime = build_runtime(settings, clock=FixedClock(), provider=provider, sleep=no_sleep)
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    async with serving(create_app(runtime)) as url:
        yield url


async def call(
    http: httpx2.AsyncClient, method: str, path: str, body: Any, **headers: str
) -> httpx2.Response:
    extra = MCP_HEADERS if path.startswith("/mcp") else {}
    return await http.request(method, path, json=body, headers={**extra, **headers})


async def test_a_foreign_host_or_origin_is_refused_on_every_route(
    settings: GuardSettings, provider: TracerProvider
) -> None:
    """Requirement G18: every HTTP route refuses a Host or Origin outside the allowed policy."""
    async with guard_server(settings, provider) as url:
        port = url.rsplit(":", 1)[1]
        async with (
            httpx2.AsyncClient(timeout=30) as plain,
            Client(streamable_http_client(f"{url}/mcp/t/door-1", http_client=plain)) as agent,
        ):
            await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "solved"})
        async with httpx2.AsyncClient(base_url=url, timeout=30) as http:
            for method, path, body in ROUTES:
                for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}"):
                    refused = await call(http, method, path, body, Host=host)
                    assert (refused.status_code, path, host) == (421, path, host)
                    assert "Host not allowed" in refused.json()["error"]
                for origin in (f"http://evil.example:{port}", "null", "http://localhost.evil.example"):
                    refused = await call(http, method, path, body, Origin=origin)
                    assert (refused.status_code, path, origin) == (403, path, origin)
                    assert "Origin not allowed" in refused.json()["error"]
            assert ticket_status(settings, 21) == "open"
            for host in (f"localhost:{port}", f"[::1]:{port}", "127.0.0.1"):
                listed = await http.get(
                    "/transactions", headers={"Host": host, "Origin": "http://localhost:3000"}
                )
                assert listed.status_code == 200
                assert {t["id"]: t["status"] for t in listed.json()["transactions"]} == {"door-1": "open"}
            assert (await http.get("/healthz", headers={"Origin": "http://[::1]:8080"})).status_code == 200
            assert (await http.get("/readyz", headers={"Origin": "http://127.0.0.1"})).status_code == 200
            committed = await http.post(
                "/transactions/door-1/commit",
                json={"final_message": "done"},
                headers={"Origin": "http://127.0.0.1:5173"},
            )
            assert committed.json()["status"] == "committed"
        assert ticket_status(settings, 21) == "solved"
        async with (
            httpx2.AsyncClient(headers={"Origin": "http://localhost:5173"}, timeout=30) as browserish,
            Client(streamable_http_client(f"{url}/mcp/t/door-2", http_client=browserish)) as agent,
        ):
            assert "guard_commit" in {tool.name for tool in (await agent.list_tools()).tools}


def test_the_host_policy_reads_its_entries_as_documented() -> None:
    """Requirement G18: a host entry matches its name on any port unless it names one; origins are exact."""
    default = host_policy(ServerSettings())
    assert default.refusal("127.0.0.1:1", None) is None
    assert default.refusal("LOCALHOST", "http://localhost") is None
    assert default.refusal("[::1]:8765", "http://[::1]:9") is None
    assert default.refusal(None, None) is not None
    assert default.refusal("127.0.0.1:80:80", None) is not None
    assert default.refusal("127.0.0.1", "https://localhost:8765") is not None
    assert default.refusal("127.0.0.1", "") is not None
    bound = host_policy(ServerSettings(host="10.1.2.3"))
    assert bound.refusal("10.1.2.3:8765", None) is None
    assert host_policy(ServerSettings(host="0.0.0.0")).refusal("0.0.0.0:8765", None) is not None
    named = host_policy(
        ServerSettings(
            allowed_hosts=["guard.internal", "api.example.com:443", "fd00::1"],
            allowed_origins=["https://console.example.com", "http://tools.example:*"],
        )
    )
    assert named.refusal("guard.internal:8765", None) is None
    assert named.refusal("api.example.com:443", None) is None
    assert named.refusal("api.example.com:8443", None) is not None
    assert named.refusal("[fd00::1]:8765", None) is None
    assert named.refusal("127.0.0.1:8765", None) is not None
    assert named.refusal("guard.internal", "https://console.example.com") is None
    assert named.refusal("guard.internal", "https://console.example.com:8443") is not None
    assert named.refusal("guard.internal", "http://tools.example:3000") is None
    assert named.refusal("guard.internal", "http://localhost:3000") is None
    assert host_policy(ServerSettings(allowed_hosts=["*"])).refusal("anything.example:1", None) is None
    with pytest.raises(ValueError, match="is not host, host:port"):
        ServerSettings(allowed_hosts=["http://guard.internal"])
    with pytest.raises(ValueError, match="is not scheme://host"):
        ServerSettings(allowed_origins=["https://console.example.com/path"])


def status_of(sock: socket.socket) -> int:
    head = b""
    while b"\r\n" not in head:
        data = sock.recv(4096)
        assert data, f"the connection closed before a status line: {head!r}"
        head += data
    return int(head.split(b" ", 2)[1])


def post_huge(port: int, path: str, total: int, *, chunked: bool) -> tuple[int, int]:
    """POST a ``total``-byte body, made as it is sent; stop once the server answers. (status, bytes sent)."""
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {total}"
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
        f"{framing}\r\n\r\n"
    )
    piece = b"x" * 65536
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head.encode())
        sent = 0
        while sent < total and not select.select([sock], [], [], 0)[0]:
            sock.sendall(b"%x\r\n%b\r\n" % (len(piece), piece) if chunked else piece)
            sent += len(piece)
        if sent >= total and chunked:
            sock.sendall(b"0\r\n\r\n")
        return status_of(sock), sent


def memory_kb(pid: int) -> dict[str, int]:
    status = Path(f"/proc/{pid}/status").read_text()
    return {
        key: int(value.split()[0])
        for key, _, value in (line.partition(":") for line in status.splitlines())
        if key in ("VmRSS", "VmHWM")
    }


@pytest.mark.parametrize(
    "auth",
    [{"operator_tokens": ["ops-secret"], "agent_tokens": {"agent-secret": "agent-a"}}, {}],
    ids=["tokens", "no-auth"],
)
def test_oversized_bodies_are_refused_before_they_are_read(tmp_path: Path, auth: dict[str, Any]) -> None:
    """Requirement G19: request bodies are limited before authentication and parsing on every route."""
    port = free_port()
    config = tmp_path / "guard.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "server": {"port": port},
                "backend": {"url": f"sqlite:///{tmp_path / 'shop.db'}", "prepare": True},
                "audit": {"url": f"sqlite:///{tmp_path / 'audit.db'}"},
                "auth": auth,
            }
        )
    )
    assert guard("db", "upgrade", "--config", str(config)).returncode == 0
    expected = {413, 401} if auth else {413}
    with serving_process(config, port, tmp_path / "serve.log") as process:
        base = f"http://127.0.0.1:{port}"
        warm = httpx2.post(f"{base}/transactions/none/rollback", json={}, timeout=30)
        assert warm.status_code == (401 if auth else 404)
        assert httpx2.post(f"{base}/mcp", json=PING, headers=MCP_HEADERS, timeout=30).status_code < 500
        before = memory_kb(process.pid)
        for path in ("/transactions/none/commit", "/mcp"):
            for chunked in (True, False):
                status, sent = post_huge(port, path, 200 * MB, chunked=chunked)
                assert (path, chunked, status in expected) == (path, chunked, True), status
                assert sent < 100 * MB
        after = memory_kb(process.pid)
        assert process.poll() is None
    assert after["VmHWM"] - before["VmRSS"] < 30 * 1024, (before, after)


async def test_errors_do_not_echo_the_request_body(runtime_app: httpx2.AsyncClient) -> None:
    """Requirement G19: no error answer repeats what the client sent in its body."""
    secret = "SECRET-7f3a"
    bodies = [
        {"reviewer": secret * 20},
        {"reviewer": [secret]},
        secret,
        [secret, {"reviewer": secret}],
    ]
    for body in bodies:
        answer = await runtime_app.post("/transactions/none/approve", json=body)
        assert answer.status_code == 422
        assert secret not in answer.text
        assert answer.json()["detail"][0]["loc"][0] == "body"
    for raw, content_type in ((f'{{"reviewer": {secret}', "application/json"), (secret, "text/plain")):
        answer = await runtime_app.post(
            "/transactions/none/approve", content=raw.encode(), headers={"Content-Type": content_type}
        )
        assert answer.status_code == 422
        assert secret not in answer.text
    for size, status in ((3000, 422), (8000, 413)):
        answer = await runtime_app.post("/transactions/none/commit", json={"final_message": secret * size})
        assert answer.status_code == status
        assert secret not in answer.text


@pytest.fixture
async def runtime_app(runtime: Runtime) -> AsyncIterator[httpx2.AsyncClient]:
    transport = httpx2.ASGITransport(app=create_app(runtime))
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        yield http


@pytest.mark.parametrize(
    ("auth", "missing"),
    [
        ({}, "auth.agent_tokens is empty and auth.operator_tokens is empty"),
        ({"operator_tokens": ["o"]}, "auth.agent_tokens is empty"),
    ],
)
async def test_a_non_loopback_bind_without_tokens_is_refused(
    runtime: Runtime, tmp_path: Path, auth: dict[str, Any], missing: str
) -> None:
    """Requirement G18: binding beyond loopback needs both token sets, or an explicit server.insecure."""
    exposed = demo_settings(tmp_path, server={"host": "0.0.0.0"}, auth=auth)
    with pytest.raises(
        ConfigError, match=rf"server.host 0.0.0.0 is not a loopback address, and {missing}:"
    ) as info:
        create_app(dataclasses.replace(runtime, settings=exposed))
    assert "server.insecure: true" in info.value.message
    assert "auth.agent_tokens and auth.operator_tokens" in info.value.message


async def test_insecure_and_any_host_start_with_a_warning(
    runtime: Runtime, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Requirement G18: what an operator chose to expose is named in a warning at start."""
    insecure = demo_settings(tmp_path, server={"host": "0.0.0.0", "insecure": True})
    with caplog.at_level(logging.WARNING, logger="guard.edge.door"):
        create_app(dataclasses.replace(runtime, settings=insecure))
    (warning,) = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "server.insecure is true: guard serves 0.0.0.0:8765 to the network" in warning
    assert "anyone who reaches it can call every tool at /mcp" in warning
    assert "commit, roll back, approve or reject any of them" in warning
    caplog.clear()
    any_host = demo_settings(tmp_path, server={"allowed_hosts": ["*"]}, auth={"operator_tokens": ["o"]})
    with caplog.at_level(logging.WARNING, logger="guard.edge.door"):
        create_app(dataclasses.replace(runtime, settings=any_host))
    (warning,) = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "server.allowed_hosts is '*': any web page can reach the guard through DNS rebinding" in warning
    assert "auth.agent_tokens is empty" in warning
    caplog.clear()
    guarded = demo_settings(
        tmp_path, server={"host": "10.1.2.3"}, auth={"operator_tokens": ["o"], "agent_tokens": {"a": "agent"}}
    )
    with caplog.at_level(logging.WARNING, logger="guard.edge.door"):
        create_app(dataclasses.replace(runtime, settings=guarded))
    assert not caplog.records


# -- who may act: operators apart from agents, and guessing slowed --------------------------------------

AGENT = "agent-secret-1"
OPERATOR = "operator-secret-1"
TOKENS = {"agent_tokens": {AGENT: "agent-a"}, "operator_tokens": [OPERATOR]}


async def test_agent_tokens_without_operator_tokens_refuse_to_start(runtime: Runtime, tmp_path: Path) -> None:
    """Requirement G38: with agent tokens and no operator tokens every agent would be an operator (approve its
    own held commit, commit or roll back another's), so the HTTP app is not built."""
    for server in ({}, {"host": "0.0.0.0", "insecure": True}):
        agents_only = demo_settings(tmp_path, server=server, auth={"agent_tokens": {AGENT: "agent-a"}})
        with pytest.raises(
            ConfigError, match=r"auth\.agent_tokens is set and auth\.operator_tokens is empty"
        ) as info:
            create_app(dataclasses.replace(runtime, settings=agents_only))
        assert AGENT not in info.value.message
        assert "\n" not in info.value.message


async def test_jwt_agents_without_any_operator_refuse_to_start(runtime: Runtime, tmp_path: Path) -> None:
    """Requirements G38, G59: JWT agents with neither operator tokens nor an operator claim would all be
    operators; with an operator claim the app is built."""
    jwt = {"issuer": "https://id.example.com", "audience": "https://guard.example.com/mcp"}
    agents_only = demo_settings(tmp_path, auth={"jwt": jwt})
    with pytest.raises(ConfigError, match=r"auth\.jwt admits agents and auth\.operator_tokens is empty and"):
        create_app(dataclasses.replace(runtime, settings=agents_only))
    claimed = {**jwt, "operator_claim": "groups", "operator_values": ["guard-operators"]}
    create_app(dataclasses.replace(runtime, settings=demo_settings(tmp_path, auth={"jwt": claimed})))


def test_guard_serve_with_agent_tokens_only_exits_2_in_one_line(tmp_path: Path) -> None:
    """Requirements G38, G27: the refusal is one line on stderr and the usage exit code, before it serves."""
    config = tmp_path / "guard.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "server": {"port": free_port()},
                "backend": {"url": f"sqlite:///{tmp_path / 'shop.db'}", "prepare": True},
                "audit": {"url": f"sqlite:///{tmp_path / 'audit.db'}"},
                "auth": {"agent_tokens": {AGENT: "agent-a"}},
            }
        )
    )
    assert guard("db", "upgrade", "--config", str(config)).returncode == 0
    done = guard("serve", "--config", str(config))
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "auth.operator_tokens is empty" in line
    assert AGENT not in line


def test_an_operator_token_that_is_also_an_agent_token_is_refused_at_load(tmp_path: Path) -> None:
    """Requirement G38: an operator's identity is distinct from every agent's."""
    config = tmp_path / "guard.yaml"
    config.write_text(
        yaml.safe_dump({"auth": {"agent_tokens": {AGENT: "agent-a"}, "operator_tokens": [AGENT]}})
    )
    with pytest.raises(ConfigError, match=r"auth\.operator_tokens: a token is also in") as info:
        load_settings(config)
    assert AGENT not in info.value.message
    with pytest.raises(ConfigError, match="empty"):
        load_settings(None, auth={"operator_tokens": [""]})


async def test_an_agent_token_opens_neither_the_admin_api_nor_the_console(
    runtime: Runtime, tmp_path: Path
) -> None:
    """Requirement G38: an agent cannot approve (or commit, roll back, read) through the operators' routes."""
    both = demo_settings(tmp_path, auth={"agent_tokens": {AGENT: "agent-a"}, "operator_tokens": [OPERATOR]})
    app = create_app(dataclasses.replace(runtime, settings=both), manage_runtime=False)
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url="http://127.0.0.1", follow_redirects=False
    ) as http:
        agent = {"Authorization": f"Bearer {AGENT}"}
        for method, path, body in ROUTES[:6]:
            assert (await http.request(method, path, json=body, headers=agent)).status_code == 401, path
        assert (await http.get("/console", headers=agent)).status_code == 303
        assert (await http.post("/console/t/door-1/approve", headers=agent)).status_code == 401
        signed = await http.post("/console/sign-in", data={"token": AGENT})
        assert signed.status_code == 401
        assert "set-cookie" not in signed.headers


@asynccontextmanager
async def served_with(settings: GuardSettings, clock: FixedClock) -> AsyncIterator[httpx2.AsyncClient]:
    runtime = build_runtime(settings, clock=clock, provider=TracerProvider(), sleep=no_sleep)
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    async with serving(create_app(runtime)) as url, httpx2.AsyncClient(base_url=url, timeout=30) as http:
        yield http


LIST_TOOLS = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/list",
    "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    },
}


async def _mcp(http: httpx2.AsyncClient, token: str) -> httpx2.Response:
    headers = {**MCP_HEADERS, "Mcp-Method": "tools/list", "Authorization": f"Bearer {token}"}
    return await http.post("/mcp", json=LIST_TOOLS, headers=headers)


async def _admin(http: httpx2.AsyncClient, token: str) -> httpx2.Response:
    return await http.get("/transactions", headers={"Authorization": f"Bearer {token}"})


async def _sign_in(http: httpx2.AsyncClient, token: str) -> httpx2.Response:
    return await http.post("/console/sign-in", data={"token": token}, follow_redirects=False)


SURFACES = {
    "mcp bearer": (_mcp, AGENT, 200),
    "admin bearer": (_admin, OPERATOR, 200),
    "console sign-in": (_sign_in, OPERATOR, 303),
}


@pytest.mark.parametrize("surface", list(SURFACES))
async def test_wrong_tokens_are_slowed_per_source_logged_and_answered_429(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, surface: str
) -> None:
    """Requirement G39: ten wrong tokens from one address, then 429 with Retry-After for whatever it sends
    (a right token too, or a guess could be told from a refusal), one more try per six seconds; each failure
    is a WARNING that never holds the token."""
    ask, right, ok = SURFACES[surface]
    clock = FixedClock()
    caplog.set_level(logging.WARNING, logger="guard.edge.door")
    async with served_with(demo_settings(tmp_path, auth=TOKENS), clock) as http:
        for n in range(10):
            assert (await ask(http, f"guess-{n}")).status_code == 401, n
        blocked = await ask(http, "guess-10")
        assert blocked.status_code == 429
        assert blocked.headers["retry-after"] == "6"
        assert "guess" not in blocked.text
        assert (await ask(http, right)).status_code == 429
        clock.advance(5)
        assert (await ask(http, right)).status_code == 429
        clock.advance(1)
        assert (await ask(http, right)).status_code == ok, "a right token is not counted"
        assert (await ask(http, "guess-11")).status_code == 401
        assert (await ask(http, right)).status_code == 429
        clock.advance(60)
        assert (await ask(http, right)).status_code == ok
    failures = [
        r
        for r in caplog.records
        if r.levelno == logging.WARNING and "authentication failed" in r.getMessage()
    ]
    assert len(failures) == 11
    assert "127.0.0.1" in failures[0].getMessage()
    for record in caplog.records:
        assert "guess" not in record.getMessage()
        assert right not in record.getMessage()


async def test_agent_guesses_do_not_lock_operators_out_and_operator_surfaces_share_one_budget(
    tmp_path: Path,
) -> None:
    """Requirement G39: wrong agent tokens spend the agents' budget of an address, not the operators'; the
    console's sign-in and the admin API's bearer token are one budget (both try operator tokens)."""
    clock = FixedClock()
    async with served_with(demo_settings(tmp_path, auth=TOKENS), clock) as http:
        for n in range(11):
            await _mcp(http, f"guess-{n}")
        assert (await _mcp(http, AGENT)).status_code == 429
        assert (await _admin(http, OPERATOR)).status_code == 200
        for n in range(5):
            assert (await _sign_in(http, f"guess-{n}")).status_code == 401
        for n in range(5):
            assert (await _admin(http, f"guess-{n}")).status_code == 401
        assert (await _admin(http, OPERATOR)).status_code == 429
        assert (await _sign_in(http, OPERATOR)).status_code == 429


def test_guard_serve_does_not_take_the_source_from_x_forwarded_for(tmp_path: Path) -> None:
    """Requirement G39: a client cannot reset its budget by naming another address in X-Forwarded-For
    (uvicorn trusts it from loopback by default; guard serve does not)."""
    port = free_port()
    config = tmp_path / "guard.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "server": {"port": port},
                "backend": {"url": f"sqlite:///{tmp_path / 'shop.db'}", "prepare": True},
                "audit": {"url": f"sqlite:///{tmp_path / 'audit.db'}"},
                "auth": TOKENS,
            }
        )
    )
    assert guard("db", "upgrade", "--config", str(config)).returncode == 0
    with serving_process(config, port, tmp_path / "serve.log"):
        statuses = [
            httpx2.get(
                f"http://127.0.0.1:{port}/transactions",
                headers={"Authorization": f"Bearer guess-{n}", "X-Forwarded-For": f"203.0.113.{n}"},
                timeout=30,
            ).status_code
            for n in range(12)
        ]
    assert statuses[:10] == [401] * 10
    assert statuses[10:] == [429, 429]
    assert "203.0.113" not in (tmp_path / "serve.log").read_text()
