"""The guard over stdio: as a subprocess driven by the official client, and fed raw bytes."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
import yaml
from mcp import Client, StdioServerParameters

from guard.edge.stdio_framing import LineSplitter, Oversized, Rejected, decode_line
from tests.guard.conftest import demo_settings, ticket_status


def body(result: types.CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


def write_config(tmp_path: Path, **sections: dict[str, Any]) -> Path:
    config = tmp_path / "guard.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "backend": {
                    "module": "guard.demo.backend",
                    "url": f"sqlite:///{tmp_path / 'shop.db'}",
                    "prepare": True,
                },
                "audit": {"url": f"sqlite:///{tmp_path / 'audit.db'}"},
                **sections,
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
    return config


async def test_stdio_subprocess(tmp_path: Path) -> None:
    """Requirements G1, G2 over stdio: blocked persists nothing; repair then commit persists the repair."""
    config = write_config(tmp_path)
    settings = demo_settings(tmp_path)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "guard", "serve", "--stdio", "--config", str(config)]
    )
    async with Client(params) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert "guard_commit" in names
        await client.call_tool("update_ticket", {"ticket_id": 21, "status": "solved"})
        first = body(await client.call_tool("guard_commit", {"summary": "receipt"}))
        assert first["status"] == "committed"
        assert ticket_status(settings, 21) == "solved"
        await client.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"})
        blocked = body(await client.call_tool("guard_commit", {"summary": "solved"}))
        assert blocked["status"] == "blocked"
        assert blocked["transaction"] != first["transaction"]
        assert ticket_status(settings, 20) == "open"
        await client.call_tool("update_ticket", {"ticket_id": 20, "status": "hold"})
        repaired = body(await client.call_tool("guard_commit", {"summary": "hold"}))
        assert repaired["status"] == "committed"
        assert repaired["transaction"] == blocked["transaction"]
    assert ticket_status(settings, 20) == "hold"


def test_serve_refuses_an_unmigrated_audit_store(tmp_path: Path) -> None:
    config = tmp_path / "guard.yaml"
    config.write_text(yaml.safe_dump({"audit": {"url": f"sqlite:///{tmp_path / 'audit.db'}"}}))
    done = subprocess.run(
        [sys.executable, "-m", "guard", "serve", "--stdio", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 3
    assert "no audit database at" in done.stderr
    assert "run `guard db upgrade` first" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "audit.db").exists()


@pytest.mark.parametrize("content", ["commit: {max_blocked: 0}\n", "nonsense: 1\n", "backend: [\n"])
def test_bad_config_is_one_clear_line(tmp_path: Path, content: str) -> None:
    config = tmp_path / "guard.yaml"
    config.write_text(content)
    done = subprocess.run(
        [sys.executable, "-m", "guard", "db", "upgrade", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: ")
    assert str(config) in done.stderr
    assert "Traceback" not in done.stderr


LIMIT = 65536


class Wire:
    """``guard serve --stdio`` as a subprocess, written and read as raw bytes."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdin is not None
        assert process.stdout is not None
        self.process = process
        self.stdin = process.stdin
        self.stdout = process.stdout

    async def send(self, data: bytes) -> None:
        self.stdin.write(data)
        await self.stdin.drain()

    async def reply(self) -> dict[str, Any]:
        line = await asyncio.wait_for(self.stdout.readline(), 60)
        assert line.endswith(b"\n"), line
        message = json.loads(line)
        assert isinstance(message, dict)
        assert message["jsonrpc"] == "2.0"
        return message

    async def request(self, ident: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            body["params"] = params
        await self.send(json.dumps(body).encode() + b"\n")
        reply = await self.reply()
        assert reply["id"] == ident, reply
        return reply

    async def handshake_and_list_tools(self) -> None:
        """The stream still works: initialize, initialized, tools/list."""
        init = await self.request(
            1,
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        )
        assert "result" in init, init
        await self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        listed = await self.request(2, "tools/list")
        assert "guard_commit" in [tool["name"] for tool in listed["result"]["tools"]]


@asynccontextmanager
async def raw_stdio(tmp_path: Path) -> AsyncIterator[Wire]:
    """The guard with ``server.max_request_bytes`` at 64 KiB; on exit, stdin closes, the process must exit
    0 and everything else it wrote to stdout must be JSON-RPC."""
    config = write_config(tmp_path, server={"max_request_bytes": LIMIT})
    with (tmp_path / "stderr.txt").open("wb") as stderr:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            *["-m", "guard", "serve", "--stdio", "--config", str(config)],
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
        )
        wire = Wire(process)
        try:
            yield wire
            wire.stdin.close()
            rest = await asyncio.wait_for(wire.stdout.read(), 60)
            assert await asyncio.wait_for(process.wait(), 60) == 0
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    for line in rest.splitlines():
        assert json.loads(line)["jsonrpc"] == "2.0", line
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()


async def test_stdio_answers_malformed_lines_and_goes_on(tmp_path: Path) -> None:
    """Requirement G4 over stdio: a line that is not JSON gets a parse error (id null), JSON that is not
    JSON-RPC gets an invalid request error (with its id when it has a valid one), and the stream goes on."""
    async with raw_stdio(tmp_path) as wire:
        await wire.send(b"this is not json\n")
        parse = await wire.reply()
        assert parse["id"] is None
        assert parse["error"]["code"] == -32700
        assert parse["error"]["message"].startswith("Parse error: the line is not JSON")
        await wire.send(b'{"hello": "world"}\n')
        invalid = await wire.reply()
        assert invalid["id"] is None
        assert invalid["error"]["code"] == -32600
        await wire.send(b'{"jsonrpc": "2.0", "id": 7, "method": 5}\n')
        with_id = await wire.reply()
        assert (with_id["id"], with_id["error"]["code"]) == (7, -32600)
        await wire.handshake_and_list_tools()


async def test_stdio_refuses_a_line_over_the_limit_without_losing_the_stream(tmp_path: Path) -> None:
    """Requirement G4 over stdio: a 5 MB line (limit 64 KiB) gets an error naming the limit, its bytes are
    dropped up to its newline, and the requests after it are served."""
    padding = b"x" * 5_000_000
    async with raw_stdio(tmp_path) as wire:
        await wire.send(
            b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"pad": "' + padding + b'"}}\n'
        )
        refused = await wire.reply()
        assert refused["id"] is None
        assert refused["error"]["code"] == -32600
        assert f"longer than the limit of {LIMIT} bytes" in refused["error"]["message"]
        await wire.handshake_and_list_tools()


async def test_stdio_answers_a_line_nested_too_deeply_and_goes_on(tmp_path: Path) -> None:
    """Requirement G4 over stdio: a line nested 3,000 levels deep (which killed the server) is a parse error,
    and so is a tools/call whose arguments nest that deep; the requests after them are served."""
    deep = b"[" * 3000 + b"]" * 3000
    call = b'{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "get_ticket", '
    async with raw_stdio(tmp_path) as wire:
        await wire.send(deep + b"\n")
        assert (await wire.reply())["error"]["code"] == -32700
        await wire.send(call + b'"arguments": {"ticket_id": ' + deep + b"}}}\n")
        refused = await wire.reply()
        assert (refused["id"], refused["error"]["code"]) == (None, -32700)
        assert refused["error"]["message"] == "Parse error: the line nests JSON too deeply to read"
        await wire.handshake_and_list_tools()


def test_line_splitter_holds_no_more_than_the_limit() -> None:
    """Requirement G4: a line over the limit is reported once, as soon as it passes the limit, and dropped
    chunk by chunk; lines around it, split anywhere across chunks, come out whole."""
    lines = LineSplitter(10)
    assert lines.feed(b"ab") == []
    assert lines.feed(b"c\n0123456789\nxy") == [b"abc", b"0123456789"]
    assert lines.feed(b"z" * 8) == []
    assert lines.feed(b"zz") == [Oversized(10)]
    assert lines.held == 0
    for _ in range(100):
        assert lines.feed(b"z" * 1000) == []
        assert lines.held == 0
    assert lines.feed(b"zz\nok\n01234567890\nend") == [b"ok", Oversized(10)]
    assert lines.held == 3
    assert lines.close() == [b"end"]


@pytest.mark.parametrize(
    ("line", "code", "ident"),
    [
        (b"{not json", -32700, None),
        (b"\xff\xfe", -32700, None),
        (b"[1, 2]", -32600, None),
        (b'{"jsonrpc": "2.0", "id": "a", "method": "x", "params": [1]}', -32600, "a"),
        (b'{"jsonrpc": "1.0", "id": true, "method": "x"}', -32600, None),
        (b'{"jsonrpc": "2.0", "id": 3, "result": "not an object"}', -32600, None),
    ],
)
def test_decode_line_rejections(line: bytes, code: int, ident: object) -> None:
    """Requirement G4: each malformed line gets the error code and the id JSON-RPC prescribes."""
    rejected = decode_line(line)
    assert isinstance(rejected, Rejected)
    assert (rejected.reply.error.code, rejected.reply.id) == (code, ident)


def test_decode_line_passes_messages_and_skips_blank_lines() -> None:
    message = decode_line(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\r')
    assert isinstance(message, types.JSONRPCRequest)
    assert (message.id, message.method) == (1, "ping")
    assert decode_line(b"  \r") is None
