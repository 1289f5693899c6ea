"""A light load generator for MCP servers: raw streamable-HTTP JSON-RPC over keep-alive sockets.

The stateless protocol (2026-07-28) makes a tool call one POST; this module sends it as pre-built
bytes on a plain asyncio stream and reads the answer with a minimal HTTP/1.1 parser (Content-Length or
chunked), so that a call costs the generator a few tens of microseconds of CPU — a small share of what
either server spends on it — instead of the official client's milliseconds. It measures itself
(:func:`time.process_time`) beside what it drives.

:class:`Flow` is what one connection sends: the same request again and again, or (a guarded agent's
reads) requests in a transaction named by ``Guard-Transaction``, committed every ``per_transaction``
calls and continued in a new one. :func:`closed_loop` runs ``connections`` flows as fast as the server
answers (saturation); :func:`paced` sends at a fixed rate and measures latency from when each call was
due (so a slow answer delays no measurement: no coordinated omission).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Flow", "Probe", "Requests", "Step", "call_body", "closed_loop", "paced"]

PROTOCOL = "2026-07-28"
_META = {
    "io.modelcontextprotocol/protocolVersion": PROTOCOL,
    "io.modelcontextprotocol/clientInfo": {"name": "raw-load", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def call_body(tool: str, arguments: dict[str, Any]) -> bytes:
    """A ``tools/call`` request's JSON-RPC body."""
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": _META},
    }
    return json.dumps(request, separators=(",", ":")).encode()


def _request(host: str, path: str, tool: str, body: bytes, transaction: str | None) -> bytes:
    lines = [
        f"POST {path} HTTP/1.1",
        f"Host: {host}",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        f"MCP-Protocol-Version: {PROTOCOL}",
        "Mcp-Method: tools/call",
        f"Mcp-Name: {tool}",
        f"Content-Length: {len(body)}",
    ]
    if transaction is not None:
        lines.append(f"Guard-Transaction: {transaction}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


@dataclass
class Flow:
    """What one connection sends: ``tool`` with ``arguments``; with ``per_transaction`` (a guard), each
    ``per_transaction`` calls run in one transaction, then ``commit_tool`` ends it (counted apart)."""

    host: str
    port: int
    tool: str
    arguments: dict[str, Any]
    path: str = "/mcp"
    per_transaction: int | None = None
    commit_tool: str = "guard_commit"
    name: str = "flow"
    _keys: itertools.count[int] = field(default_factory=itertools.count)

    def requests(self) -> Requests:
        """A source of requests for one connection."""
        return Requests(self)


class Requests:
    """One connection's requests: (request, is a commit), and the commit that closes a transaction left
    open when the connection stops (so that no step leaves transactions behind for the next)."""

    def __init__(self, flow: Flow) -> None:
        self._flow = flow
        authority = f"{flow.host}:{flow.port}"
        self._authority = authority
        self._call = call_body(flow.tool, flow.arguments)
        self._commit = call_body(flow.commit_tool, {"summary": "reads"})
        self._plain = _request(authority, flow.path, flow.tool, self._call, None)
        self._calls = 0
        self._read = self._end = b""
        """The requests of the transaction open now (its key in their header), made once per transaction."""

    def __call__(self) -> tuple[bytes, bool]:
        flow = self._flow
        if flow.per_transaction is None:
            return self._plain, False
        if self._calls == 0:
            key = f"{flow.name}-{next(flow._keys)}-{time.monotonic_ns()}"
            self._read = _request(self._authority, flow.path, flow.tool, self._call, key)
            self._end = _request(self._authority, flow.path, flow.commit_tool, self._commit, key)
        if self._calls == flow.per_transaction:
            self._calls = 0
            return self._end, True
        self._calls += 1
        return self._read, False

    def closing(self) -> bytes | None:
        """The commit of the transaction this connection has open, if any."""
        if self._flow.per_transaction is None or self._calls == 0:
            return None
        self._calls = 0
        return self._end


@dataclass
class Step:
    """One measured interval of one flow at one load."""

    connections: int
    seconds: float
    calls: int = 0
    commits: int = 0
    errors: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    generator_cpu_s: float = 0.0
    server_cpu_s: float = 0.0
    first_error: str | None = None

    @property
    def calls_per_s(self) -> float:
        return self.calls / self.seconds if self.seconds else 0.0

    @property
    def server_cpu_ms_per_call(self) -> float:
        """The server's CPU per call, its commits' included (they are part of what a read costs it)."""
        return self.server_cpu_s * 1000 / self.calls if self.calls else float("nan")

    def quantile(self, q: float) -> float:
        ordered = sorted(self.latencies_ms)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes) -> bytes:
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    status = head[9:12]
    length = None
    chunked = False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        lowered = name.strip().lower()
        if lowered == b"content-length":
            length = int(value)
        elif lowered == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
    if chunked:
        body = bytearray()
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            body += await reader.readexactly(size + 2)
            del body[-2:]
        payload = bytes(body)
    else:
        payload = await reader.readexactly(length or 0)
    if status != b"200":
        raise RuntimeError(f"HTTP {status.decode()}: {payload[:200]!r}")
    return payload


def _failed(payload: bytes, commit: bool) -> str | None:
    """Why an answer is not a successful call (None: it is)."""
    if b'"isError":false' not in payload and b'"isError": false' not in payload:
        return payload[:300].decode(errors="replace")
    if commit and b'"committed"' not in payload:
        return payload[:300].decode(errors="replace")
    return None


async def _connection(
    flow: Flow,
    step: Step,
    measuring: asyncio.Event,
    stop: asyncio.Event,
    due: Callable[[], float | None] | None,
) -> None:
    reader, writer = await asyncio.open_connection(flow.host, flow.port)
    source = flow.requests()
    try:
        while not stop.is_set():
            started = time.perf_counter()
            if due is not None:
                when = due()
                if when is None:
                    return
                if when > started:
                    await asyncio.sleep(when - started)
                started = when
            request, commit = source()
            try:
                payload = await _exchange(reader, writer, request)
                problem = _failed(payload, commit)
            except (OSError, RuntimeError, asyncio.IncompleteReadError, ValueError) as exc:
                problem = f"{type(exc).__name__}: {exc}"
                writer.close()
                reader, writer = await asyncio.open_connection(flow.host, flow.port)
            if not measuring.is_set():
                continue
            if problem is not None:
                step.errors += 1
                step.first_error = step.first_error or problem
            elif commit:
                step.commits += 1
            else:
                step.calls += 1
                step.latencies_ms.append((time.perf_counter() - started) * 1000)
        if (last := source.closing()) is not None:
            with contextlib.suppress(OSError, RuntimeError, asyncio.IncompleteReadError, ValueError):
                await _exchange(reader, writer, last)
    finally:
        writer.close()


Probe = Callable[[], float]
"""The CPU seconds the server has spent so far (read at the start and end of the measured interval)."""


async def _run(
    flow: Flow,
    connections: int,
    seconds: float,
    warmup_s: float,
    due: Callable[[], float | None] | None,
    probe: Probe | None,
) -> Step:
    step = Step(connections, seconds)
    measuring, stop = asyncio.Event(), asyncio.Event()
    tasks = [asyncio.create_task(_connection(flow, step, measuring, stop, due)) for _ in range(connections)]
    await asyncio.sleep(warmup_s)
    measuring.set()
    cpu, server = time.process_time(), probe() if probe else 0.0
    await asyncio.sleep(seconds)
    step.generator_cpu_s = time.process_time() - cpu
    step.server_cpu_s = probe() - server if probe else 0.0
    measuring.clear()
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return step


async def closed_loop(
    flow: Flow, connections: int, seconds: float, warmup_s: float = 0.5, probe: Probe | None = None
) -> Step:
    """``connections`` connections each calling as soon as the last answer came; calls counted for
    ``seconds`` after ``warmup_s``; ``probe`` reads the server's CPU."""
    return await _run(flow, connections, seconds, warmup_s, None, probe)


async def paced(
    flow: Flow,
    rate_per_s: float,
    connections: int,
    seconds: float,
    warmup_s: float = 0.5,
    probe: Probe | None = None,
) -> Step:
    """Calls due every ``1 / rate_per_s`` seconds, spread over ``connections`` connections; each call's
    latency from when it was due."""
    start = time.perf_counter() + 0.05
    counter = itertools.count()
    interval = 1.0 / rate_per_s
    end = start + warmup_s + seconds + 1.0

    def due() -> float | None:
        when = start + next(counter) * interval
        return None if when > end else when

    return await _run(flow, connections, seconds, warmup_s, due, probe)
