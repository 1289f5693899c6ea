"""What the guard costs on a read: p50 and p99 of one call through the guard ÷ the same tool served plain.

Both servers serve the demo backend's ``get_ticket`` from the same SQLite file,
each in its own process, over streamable HTTP on loopback; the client sends
calls to the two alternately, so that machine noise falls on both alike.
The guarded calls all run inside one open transaction, as an agent's reads do.
A second measurement does the same in-process (the SDK's direct dispatch, no
socket), where the guard's own work is a larger share of the total.

    .venv/bin/python perf/guard_overhead.py [--calls 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client

from guard.clock import SystemClock
from guard.demo.backend import prepare, tools
from guard.edge.plain import build_plain_server
from guard.edge.server import build_server
from guard.runtime import build_runtime
from guard.settings import GuardSettings
from guard.store.engine import create_engine
from guard.store.migrate import upgrade
from guard.transaction.manager import TxnKey


def settings_for(root: Path, port: int = 0) -> GuardSettings:
    return GuardSettings.model_validate(
        {
            "server": {"port": port},
            "backend": {"module": "guard.demo.backend", "url": f"sqlite:///{root / 'shop.db'}"},
            "audit": {"url": f"sqlite:///{root / 'audit.db'}"},
            "commit": {"idle_timeout_s": 3600},
            "limits": {"max_calls_per_transaction": 1_000_000},  # every read of the run in one transaction
        }
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def serve_plain(root: Path, port: int) -> None:
    import uvicorn

    engine = create_engine(f"sqlite:///{root / 'shop.db'}")
    app = build_plain_server(engine, tools, SystemClock()).streamable_http_app()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def serve_guard(root: Path, port: int) -> None:
    import uvicorn

    from guard.edge.http import create_app

    uvicorn.run(
        create_app(build_runtime(settings_for(root, port))), host="127.0.0.1", port=port, log_level="warning"
    )


async def wait_ready(url: str) -> None:
    deadline = time.monotonic() + 30
    async with httpx2.AsyncClient() as http:
        while True:
            try:
                await http.post(url, json={})
                return
            except httpx2.TransportError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.05)


def quantiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered), p99


async def alternate(
    calls: int, warmup: int, guarded: Callable[[], Awaitable[Any]], plain: Callable[[], Awaitable[Any]]
) -> tuple[list[float], list[float]]:
    times: dict[str, list[float]] = {"guard": [], "plain": []}
    for i in range(warmup + calls):
        order = (
            (("guard", guarded), ("plain", plain)) if i % 2 == 0 else (("plain", plain), ("guard", guarded))
        )
        for name, call in order:
            started = time.perf_counter()
            result = await call()
            elapsed = time.perf_counter() - started
            if result.is_error:
                raise RuntimeError(f"{name} call failed: {result.content}")
            if i >= warmup:
                times[name].append(elapsed * 1000)
    return times["guard"], times["plain"]


def report(label: str, guard_ms: list[float], plain_ms: list[float]) -> None:
    g50, g99 = quantiles(guard_ms)
    p50, p99 = quantiles(plain_ms)
    print(f"{label}: {len(guard_ms)} calls each")
    print(f"  plain   p50 {p50:7.3f} ms   p99 {p99:7.3f} ms")
    print(f"  guard   p50 {g50:7.3f} ms   p99 {g99:7.3f} ms")
    print(f"  ratio   p50 {g50 / p50:7.3f}      p99 {g99 / p99:7.3f}      (goal at p50: <= 1.15)")


async def over_http(root: Path, calls: int, warmup: int) -> None:
    guard_port, plain_port = free_port(), free_port()
    script = str(Path(__file__).resolve())
    processes = [
        subprocess.Popen([sys.executable, script, "--serve", "guard", str(root), str(guard_port)]),
        subprocess.Popen([sys.executable, script, "--serve", "plain", str(root), str(plain_port)]),
    ]
    try:
        guard_url = f"http://127.0.0.1:{guard_port}/mcp/t/perf-reads"
        plain_url = f"http://127.0.0.1:{plain_port}/mcp"
        await wait_ready(guard_url)
        await wait_ready(plain_url)
        async with Client(guard_url) as guard, Client(plain_url) as plain:
            g, p = await alternate(
                calls,
                warmup,
                lambda: guard.call_tool("get_ticket", {"ticket_id": 20}),
                lambda: plain.call_tool("get_ticket", {"ticket_id": 20}),
            )
        report("streamable HTTP, loopback, separate server processes", g, p)
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=30)


async def in_process(root: Path, calls: int, warmup: int) -> None:
    runtime = build_runtime(settings_for(root))
    await runtime.start()
    engine = create_engine(f"sqlite:///{root / 'shop.db'}")
    try:
        guard_server = build_server(runtime.manager, lambda ctx: TxnKey("perf-in-process", "perf", None))
        plain_server = build_plain_server(engine, tools, SystemClock())
        async with Client(guard_server) as guard, Client(plain_server) as plain:
            g, p = await alternate(
                calls,
                warmup,
                lambda: guard.call_tool("get_ticket", {"ticket_id": 20}),
                lambda: plain.call_tool("get_ticket", {"ticket_id": 20}),
            )
        report("in-process (direct dispatch, no socket)", g, p)
    finally:
        await engine.dispose()
        await runtime.stop()


async def main(calls: int, warmup: int) -> None:
    with tempfile.TemporaryDirectory(prefix="guard-perf-") as tmp:
        root = Path(tmp)
        engine = create_engine(f"sqlite:///{root / 'shop.db'}")
        async with engine.begin() as conn:
            await prepare(conn)
        await engine.dispose()
        audit = create_engine(f"sqlite:///{root / 'audit.db'}")
        await upgrade(audit)
        await audit.dispose()
        await over_http(root, calls, warmup)
        await in_process(root, calls, warmup)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--serve", nargs=3, metavar=("KIND", "ROOT", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        kind, root, port = args.serve
        (serve_guard if kind == "guard" else serve_plain)(Path(root), int(port))
    else:
        asyncio.run(main(args.calls, args.warmup))
