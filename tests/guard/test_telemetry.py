"""Spans by the OpenTelemetry conventions, and their export as an OTLP receiver gets them.

A transaction is its own trace (``guard.transaction``, ``guard.call {tool}``,
``guard.commit``; ids in attributes, never in names); the MCP SDK's request
span is the one ``execute_tool`` span of a tool call; the standard ``OTEL_*``
variables configure export when the guard's settings do not; the resource
names the service, its version and instance. The in-process tests record on
the process's global provider, as ``guard serve`` does, so that the SDK's
spans are seen beside the guard's; the last test runs ``guard serve`` against
a fake OTLP/HTTP receiver and prints a blocked commit's span tree.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client
from opentelemetry import trace
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan
from opentelemetry.proto.trace.v1.trace_pb2 import Status as ProtoStatus
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from guard.clock import FixedClock
from guard.runtime import Runtime, build_runtime
from guard.settings import TelemetrySettings
from guard.store.migrate import upgrade
from guard.telemetry import provider_from_settings
from tests.guard.conftest import agent_client, demo_settings, free_port, meta, no_sleep, wait_until_ready

BLOCKED_MESSAGE = "ticket 20: status 'solved' while carrier exception for ORD-10000020 is open"


def _clear_otel(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("OTEL_"):
            monkeypatch.delenv(name)


# -- the process's global provider, as `guard serve` installs it ---------------------------------


class _Listening(SpanProcessor):
    """Hands finished spans to the current test's exporter; drops them between tests."""

    def __init__(self) -> None:
        self.exporter: InMemorySpanExporter | None = None

    def on_end(self, span: ReadableSpan) -> None:
        if self.exporter is not None:
            self.exporter.export((span,))


@pytest.fixture(scope="session")
def _global_spans() -> _Listening:
    """The global provider can be set once per process: set it (or join the one set), listen to it."""
    listening = _Listening()
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    provider.add_span_processor(listening)
    return listening


@pytest.fixture
def spans(_global_spans: _Listening) -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    _global_spans.exporter = exporter
    try:
        yield exporter
    finally:
        _global_spans.exporter = None


@pytest.fixture
async def guarded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spans: InMemorySpanExporter
) -> AsyncIterator[Runtime]:
    """The demo guard with no export configured: its spans go to the global provider."""
    _clear_otel(monkeypatch)
    runtime = build_runtime(demo_settings(tmp_path), clock=FixedClock(), sleep=no_sleep)
    assert runtime.telemetry.provider is None
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    await runtime.start()
    try:
        yield runtime
    finally:
        await runtime.stop()


def _scope(span: ReadableSpan) -> str:
    return span.instrumentation_scope.name if span.instrumentation_scope else ""


def _guard_spans(spans: InMemorySpanExporter) -> list[ReadableSpan]:
    return [s for s in spans.get_finished_spans() if _scope(s) == "guard"]


async def _blocked_then_repaired(runtime: Runtime, key: str) -> None:
    async with agent_client(runtime) as agent:
        await agent.call_tool("get_ticket", {"ticket_id": 20}, meta=meta(key))
        await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"}, meta=meta(key))
        blocked = await agent.call_tool("guard_commit", {"summary": "solved"}, meta=meta(key))
        assert blocked.is_error
        await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "hold"}, meta=meta(key))
        done = await agent.call_tool("guard_commit", {"summary": "on hold"}, meta=meta(key))
        assert not done.is_error


# -- in process ----------------------------------------------------------------------------------


async def test_blocked_commit_span(guarded: Runtime, spans: InMemorySpanExporter) -> None:
    """Requirement G10: transactions, calls and commit attempts are spans; a block is an ERROR with events."""
    await _blocked_then_repaired(guarded, "s-1")
    by_name: dict[str, list[ReadableSpan]] = {}
    for span in _guard_spans(spans):
        by_name.setdefault(span.name, []).append(span)
    (txn,) = by_name["guard.transaction"]
    assert txn.attributes is not None
    assert txn.context is not None
    assert txn.attributes["guard.transaction.id"] == "s-1"
    assert txn.attributes["guard.transaction.status"] == "committed"
    calls = by_name["guard.call update_ticket"]
    assert len(calls) == 2
    assert all(c.parent is not None and c.parent.span_id == txn.context.span_id for c in calls)
    assert calls[0].attributes == {
        "guard.operation.name": "call",
        "guard.transaction.id": "s-1",
        "gen_ai.tool.name": "update_ticket",
        "guard.tool.write": True,
        "guard.call.retries": 0,
    }
    blocked, committed = by_name["guard.commit"]
    assert blocked.status.status_code is StatusCode.ERROR
    assert blocked.attributes is not None
    assert committed.attributes is not None
    assert blocked.attributes["guard.operation.name"] == "commit"
    assert blocked.attributes["guard.transaction.id"] == "s-1"
    assert blocked.attributes["guard.commit.decision"] == "block"
    assert blocked.attributes["error.type"] == "guard.commit.blocked"
    assert blocked.attributes["guard.findings.count"] == 1
    assert blocked.attributes["guard.effects.count"] == 1
    (event,) = blocked.events
    assert event.name == "guard.finding"
    assert event.attributes is not None
    assert BLOCKED_MESSAGE in str(event.attributes["guard.finding.message"])
    assert event.attributes["guard.finding.hint"] == "allowed: hold, pending, open"
    assert committed.status.status_code is StatusCode.UNSET
    assert committed.attributes["guard.commit.decision"] == "allow"
    assert committed.parent is not None
    assert committed.parent.span_id == txn.context.span_id


async def test_span_names_carry_no_ids(guarded: Runtime, spans: InMemorySpanExporter) -> None:
    """Requirement G31: span names are a bounded set whatever the transactions (ids are attributes)."""
    for key in ("names-1", "names-2"):
        await _blocked_then_repaired(guarded, key)
    guard_spans = _guard_spans(spans)
    assert {s.name for s in guard_spans} == {
        "guard.transaction",
        "guard.call get_ticket",
        "guard.call update_ticket",
        "guard.commit",
    }
    assert all("names-" not in s.name for s in spans.get_finished_spans())
    ids = {s.attributes["guard.transaction.id"] for s in guard_spans if s.attributes}
    assert ids == {"names-1", "names-2"}


async def test_one_execute_tool_span_per_tool_call(guarded: Runtime, spans: InMemorySpanExporter) -> None:
    """Requirement G31: of the MCP SDK's spans and the guard's, exactly one span per tool call claims
    ``gen_ai.operation.name=execute_tool``: the SDK's SERVER span. The guard's spans claim neither it nor
    ``mcp.method.name``; the transaction is its own trace, linked both ways with the request spans."""
    await _blocked_then_repaired(guarded, "count-1")
    finished = spans.get_finished_spans()
    executions = [s for s in finished if s.attributes and s.attributes.get("gen_ai.operation.name")]
    assert [(s.name, s.kind, _scope(s)) for s in executions] == [
        (f"tools/call {tool}", SpanKind.SERVER, "mcp-python-sdk")
        for tool in ("get_ticket", "update_ticket", "guard_commit", "update_ticket", "guard_commit")
    ]
    assert all(s.attributes and s.attributes["gen_ai.operation.name"] == "execute_tool" for s in executions)
    guard_spans = _guard_spans(spans)
    assert all(
        s.attributes and "gen_ai.operation.name" not in s.attributes and "mcp.method.name" not in s.attributes
        for s in guard_spans
    )
    (txn,) = [s for s in guard_spans if s.name == "guard.transaction"]
    assert txn.parent is None
    assert txn.context is not None
    steps = [s for s in guard_spans if s.name != "guard.transaction"]
    assert len(steps) == len(executions)
    for request, step in zip(executions, steps, strict=True):
        assert request.context is not None
        assert step.context is not None
        assert request.context.trace_id != txn.context.trace_id
        assert step.context.trace_id == txn.context.trace_id
        assert [link.context.span_id for link in step.links] == [request.context.span_id]
        assert [link.context.span_id for link in request.links] == [step.context.span_id]
        assert request.attributes is not None
        assert request.attributes["guard.transaction.id"] == "count-1"


# -- export: settings first, then the OTEL_* variables -------------------------------------------


@dataclass(frozen=True)
class Received:
    """One span as an OTLP receiver decoded it."""

    name: str
    kind: str
    trace_id: str
    span_id: str
    parent_span_id: str
    status: str
    status_message: str
    attributes: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]]
    links: list[str]
    resource: dict[str, Any]
    scope: str
    start: int


def _values(pairs: Any) -> dict[str, Any]:
    def one(value: AnyValue) -> Any:
        which = value.WhichOneof("value")
        return None if which is None else getattr(value, which)

    found: dict[str, Any] = {}
    for pair in pairs:
        assert isinstance(pair, KeyValue)
        found[pair.key] = one(pair.value)
    return found


def _decoded(request: ExportTraceServiceRequest) -> list[Received]:
    out = []
    for resource_spans in request.resource_spans:
        resource = _values(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                out.append(
                    Received(
                        name=span.name,
                        kind=ProtoSpan.SpanKind.Name(span.kind).removeprefix("SPAN_KIND_"),
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        parent_span_id=span.parent_span_id.hex(),
                        status=ProtoStatus.StatusCode.Name(span.status.code).removeprefix("STATUS_CODE_"),
                        status_message=span.status.message,
                        attributes=_values(span.attributes),
                        events=[(event.name, _values(event.attributes)) for event in span.events],
                        links=[link.span_id.hex() for link in span.links],
                        resource=resource,
                        scope=scope_spans.scope.name,
                        start=span.start_time_unix_nano,
                    )
                )
    return out


class Receiver:
    """A fake OTLP/HTTP collector: takes ``POST /v1/traces`` (protobuf), keeps each span and the headers."""

    def __init__(self) -> None:
        self.spans: list[Received] = []
        self.headers: list[dict[str, str]] = []
        self._changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path != "/v1/traces":
                    self.send_error(404)
                    return
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                with receiver._changed:
                    receiver.spans.extend(_decoded(request))
                    receiver.headers.append({k.lower(): v for k, v in self.headers.items()})
                    receiver._changed.notify_all()
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def wait_for(self, done: Callable[[list[Received]], bool], timeout_s: float = 60) -> list[Received]:
        with self._changed:
            assert self._changed.wait_for(lambda: done(self.spans), timeout_s), [s.name for s in self.spans]
            return list(self.spans)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = Receiver()
    try:
        yield running
    finally:
        running.close()


@pytest.fixture
def other_receiver() -> Iterator[Receiver]:
    running = Receiver()
    try:
        yield running
    finally:
        running.close()


def _export_one(provider: TracerProvider) -> None:
    provider.get_tracer("test").start_span("probe").end()
    provider.shutdown()


@pytest.mark.parametrize(
    ("variables", "exported"),
    [
        ({}, False),
        ({"OTEL_SERVICE_NAME": "x"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:9/v1/traces"}, True),
        ({"OTEL_TRACES_EXPORTER": "otlp"}, True),
        ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}, False),
        ({"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}, False),
    ],
)
def test_the_otel_variables_decide_export_when_the_settings_do_not(
    monkeypatch: pytest.MonkeyPatch, variables: dict[str, str], exported: bool
) -> None:
    """Requirement G31: with no ``telemetry.otlp_endpoint``, the standard variables say whether to export."""
    _clear_otel(monkeypatch)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    provider = provider_from_settings(TelemetrySettings(), instance="guard-1")
    assert (provider is not None) == exported
    if provider is not None:
        provider.shutdown()


def test_the_otel_variables_configure_the_export(monkeypatch: pytest.MonkeyPatch, receiver: Receiver) -> None:
    """Requirement G31: endpoint, headers, service name and resource attributes from the variables alone;
    the resource also has the package's version and the instance."""
    _clear_otel(monkeypatch)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=shop")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "shop-guard")
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=test")
    provider = provider_from_settings(TelemetrySettings(), instance="guard-7")
    assert provider is not None
    _export_one(provider)
    (probe,) = receiver.wait_for(lambda spans: len(spans) == 1)
    assert probe.resource["service.name"] == "shop-guard"
    assert probe.resource["service.version"] == version("guard")
    assert probe.resource["service.instance.id"] == "guard-7"
    assert probe.resource["deployment.environment.name"] == "test"
    assert receiver.headers[0]["x-tenant"] == "shop"


def test_the_settings_win_over_the_otel_variables(
    monkeypatch: pytest.MonkeyPatch, receiver: Receiver, other_receiver: Receiver
) -> None:
    """Requirement G31: a key set in ``telemetry`` wins over its variable (headers merge, the setting's
    value first); unset, the service is ``guard``."""
    _clear_otel(monkeypatch)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", other_receiver.url)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=env,x-env=1")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "from-env")
    settings = TelemetrySettings(
        otlp_endpoint=f"{receiver.url}/v1/traces", otlp_headers={"x-tenant": "settings"}, service_name="shop"
    )
    provider = provider_from_settings(settings, instance="guard-1")
    assert provider is not None
    _export_one(provider)
    (probe,) = receiver.wait_for(lambda spans: len(spans) == 1)
    assert probe.resource["service.name"] == "shop"
    assert (receiver.headers[0]["x-tenant"], receiver.headers[0]["x-env"]) == ("settings", "1")
    assert other_receiver.spans == []
    _clear_otel(monkeypatch)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
    unnamed = provider_from_settings(TelemetrySettings(), instance="guard-1")
    assert unnamed is not None
    _export_one(unnamed)
    receiver.wait_for(lambda spans: len(spans) == 2)
    assert receiver.spans[1].resource["service.name"] == "guard"


# -- `guard serve` against a receiver ------------------------------------------------------------


def _span_tree(spans: list[Received], transaction_id: str) -> str:
    """The transaction's trace as a tree, then the request spans linked to it, as a user reads them."""
    by_id = {s.span_id: s for s in spans}
    (root,) = [
        s
        for s in spans
        if s.name == "guard.transaction" and s.attributes["guard.transaction.id"] == transaction_id
    ]
    resource = ", ".join(f"{k}={v}" for k, v in sorted(root.resource.items()) if k.startswith("service."))
    lines = [f"resource: {resource}", f"trace {root.trace_id}  (the transaction's own trace)"]

    def show(span: Received, depth: int) -> None:
        pad = "    " * depth
        status = f"  {span.status} {span.status_message!r}" if span.status != "UNSET" else ""
        lines.append(f"{pad}{span.name}  [{span.kind}]{status}")
        for key, value in sorted(span.attributes.items()):
            lines.append(f"{pad}    {key} = {value!r}")
        for name, attributes in span.events:
            lines.append(f"{pad}    event {name}: {attributes}")
        for link in span.links:
            target = by_id.get(link)
            shown = f"{target.name} (trace {target.trace_id})" if target else link
            lines.append(f"{pad}    link -> {shown}")
        for child in sorted((s for s in spans if s.parent_span_id == span.span_id), key=lambda s: s.start):
            show(child, depth + 1)

    show(root, 0)
    linked = {link for s in spans if s.trace_id == root.trace_id for link in s.links}
    lines.append("request spans linked to it (each in its request's trace):")
    for span in spans:
        if span.span_id in linked:
            lines.append(f"    trace {span.trace_id}: {span.name}  [{span.kind}] {span.status}")
            for key, value in sorted(span.attributes.items()):
                lines.append(f"        {key} = {value!r}")
            lines.extend(f"        link -> {by_id[link].name}" for link in span.links if link in by_id)
    return "\n".join(lines)


def _serve_command(tmp_path: Path, receiver: Receiver) -> tuple[list[str], dict[str, str], int]:
    """``guard serve``'s command line and environment (only the two OTEL variables), its port; migrated."""
    port = free_port()
    config = tmp_path / "guard.yaml"
    backend = {"module": "guard.demo.backend", "url": f"sqlite:///{tmp_path / 'shop.db'}", "prepare": True}
    audit = {"url": f"sqlite:///{tmp_path / 'audit.db'}"}
    server = {"port": port, "instance": "shop-guard-3"}
    config.write_text(yaml.safe_dump({"server": server, "backend": backend, "audit": audit}))
    env = {name: value for name, value in os.environ.items() if not name.startswith("OTEL_")}
    env |= {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "OTEL_SERVICE_NAME": "shop-guard"}
    guard = [sys.executable, "-m", "guard"]
    upgraded = subprocess.run(
        [*guard, "db", "upgrade", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert upgraded.returncode == 0, upgraded.stderr
    return [*guard, "serve", "--config", str(config)], env, port


async def test_guard_serve_exports_by_the_otel_variables(tmp_path: Path, receiver: Receiver) -> None:
    """Requirement G31 and G10: ``guard serve`` with only ``OTEL_EXPORTER_OTLP_ENDPOINT`` and
    ``OTEL_SERVICE_NAME`` set exports its spans and the SDK's, under that name with the package's version;
    one ``execute_tool`` span per tool call; a blocked commit's span is an ERROR with its finding."""
    command, env, port = _serve_command(tmp_path, receiver)
    with subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env
    ) as process:
        try:
            wait_until_ready(process, port, lambda: process.communicate()[1])
            async with Client(f"http://127.0.0.1:{port}/mcp/t/otlp-1") as agent:
                await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"})
                blocked = await agent.call_tool("guard_commit", {"summary": "solved ticket 20"})
            assert blocked.is_error
            process.send_signal(signal.SIGTERM)
            _, stderr = process.communicate(timeout=60)
            assert process.returncode == 0, stderr
        finally:
            if process.poll() is None:
                process.kill()
    spans = receiver.wait_for(lambda got: any(s.name == "guard.transaction" for s in got))
    assert {
        (s.resource["service.name"], s.resource["service.version"], s.resource["service.instance.id"])
        for s in spans
    } == {("shop-guard", version("guard"), "shop-guard-3")}, "the configured instance, not a random id"
    executions = sorted(s.name for s in spans if s.attributes.get("gen_ai.operation.name") == "execute_tool")
    assert executions == ["tools/call guard_commit", "tools/call update_ticket"]
    (commit,) = [s for s in spans if s.name == "guard.commit"]
    assert (commit.status, commit.status_message) == ("ERROR", "commit blocked: 1 finding(s)")
    ((event, finding),) = commit.events
    assert event == "guard.finding"
    assert BLOCKED_MESSAGE in finding["guard.finding.message"]
    tree = _span_tree(spans, "otlp-1")
    print(tree)
    assert "    guard.commit  [INTERNAL]  ERROR 'commit blocked: 1 finding(s)'" in tree
    assert "link -> tools/call guard_commit" in tree
