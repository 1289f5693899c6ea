"""What the ``mcp`` backend costs: one call through the guard ÷ the same call made on the upstream directly.

The upstream is a small MCP server (the SDK's low-level ``Server``) with a read
tool and a write tool. Measured side by side, calls alternating:

* a read, forwarded by the guard (passthrough) vs the upstream called directly;
* a deferred write (appended to the outbox in a SQLite file, a provisional
  receipt back) vs the write called on the upstream directly.

Twice: the upstream in process (the SDK's direct dispatch), and the upstream
in its own process over streamable HTTP on loopback, where the network hop
the guard adds is the usual deployment's. The agent reaches the guard in
process in both, so the ratio is the guard's own work plus its hop upstream.

    .venv/bin/python perf/mcp_overhead.py [--calls 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from guard.edge.mcp_client import ClientUpstream
from guard.edge.server import build_server
from guard.runtime import build_runtime
from guard.settings import GuardSettings
from guard.store.migrate import upgrade
from guard.transaction.manager import TxnKey

_OBJECT = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}


def upstream_server() -> Server[Any]:
    rows: dict[str, dict[str, Any]] = {"A-1": {"id": "A-1", "status": "open"}}

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name="get_record",
                    input_schema=_OBJECT,
                    annotations=types.ToolAnnotations(read_only_hint=True),
                ),
                types.Tool(
                    name="touch_record",
                    input_schema=_OBJECT,
                    annotations=types.ToolAnnotations(read_only_hint=False, idempotent_hint=True),
                ),
            ]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        row = rows.setdefault(str((params.arguments or {})["id"]), {"id": "?", "status": "open"})
        if params.name == "touch_record":
            row["touched"] = row.get("touched", 0) + 1
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(row))], structured_content=row
        )

    return Server("records", on_list_tools=list_tools, on_call_tool=call_tool)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def serve_upstream(port: int) -> None:
    import uvicorn

    uvicorn.run(upstream_server().streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")


def quantiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


async def alternate(
    calls: int, warmup: int, guarded: Callable[[], Awaitable[Any]], direct: Callable[[], Awaitable[Any]]
) -> tuple[list[float], list[float]]:
    times: dict[str, list[float]] = {"guard": [], "direct": []}
    for i in range(warmup + calls):
        order = [("guard", guarded), ("direct", direct)]
        for name, call in order if i % 2 == 0 else reversed(order):
            started = time.perf_counter()
            result = await call()
            elapsed = (time.perf_counter() - started) * 1000
            if result.is_error:
                raise RuntimeError(f"{name} call failed: {result.content}")
            if i >= warmup:
                times[name].append(elapsed)
    return times["guard"], times["direct"]


def report(label: str, guard_ms: list[float], direct_ms: list[float]) -> None:
    g50, g99 = quantiles(guard_ms)
    d50, d99 = quantiles(direct_ms)
    print(f"{label}: {len(guard_ms)} calls each")
    print(f"  direct  p50 {d50:7.3f} ms   p99 {d99:7.3f} ms")
    print(f"  guard   p50 {g50:7.3f} ms   p99 {g99:7.3f} ms")
    print(f"  ratio   p50 {g50 / d50:7.2f}      p99 {g99 / d99:7.2f}")


async def measure(root: Path, label: str, target: Server[Any] | str, calls: int, warmup: int) -> None:
    settings = GuardSettings.model_validate(
        {
            "backend": {"kind": "mcp", "mcp": {"url": "http://upstream.invalid/mcp"}},
            "audit": {"url": f"sqlite:///{root / f'guard-{abs(hash(label))}.db'}"},
            "commit": {"idle_timeout_s": 3600},
            # every call of the run in one transaction (the outbox holds each deferred write)
            "limits": {"max_calls_per_transaction": 1_000_000, "max_argument_bytes_per_transaction": 1 << 30},
        }
    )
    runtime = build_runtime(settings, upstream=ClientUpstream(target, name="records"))
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    await runtime.start()
    try:
        guard_server = build_server(runtime.manager, lambda ctx: TxnKey("perf", "perf", None))
        async with Client(guard_server) as guard, Client(target) as direct:
            for tool, what in (("get_record", "read, passthrough"), ("touch_record", "write, deferred")):
                g, d = await alternate(
                    calls,
                    warmup,
                    lambda tool=tool: guard.call_tool(tool, {"id": "A-1"}),
                    lambda tool=tool: direct.call_tool(tool, {"id": "A-1"}),
                )
                report(f"{label}, {what}", g, d)
    finally:
        await runtime.stop()


async def main(calls: int, warmup: int) -> None:
    with tempfile.TemporaryDirectory(prefix="guard-perf-mcp-") as tmp:
        root = Path(tmp)
        await measure(root, "upstream in process", upstream_server(), calls, warmup)
        port = free_port()
        process = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--serve", str(port)])
        try:
            url = f"http://127.0.0.1:{port}/mcp"
            for _ in range(200):
                try:
                    async with httpx2.AsyncClient() as http:
                        await http.get(url)
                    break
                except httpx2.TransportError:
                    await asyncio.sleep(0.05)
            await measure(root, "upstream over streamable HTTP (own process, loopback)", url, calls, warmup)
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve_upstream(args.serve)
    else:
        asyncio.run(main(args.calls, args.warmup))
