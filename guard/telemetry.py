"""OpenTelemetry: the guard's spans, and OTLP export when configured.

One span per transaction (from open to close), and under it one span per
tool call and one per commit attempt; call and commit spans also link to the
MCP request span the SDK opened, so both views connect. A blocked commit is
an ERROR span with one ``guard.finding`` event per finding. With no OTLP
endpoint configured nothing is exported: the tracer is the no-op one unless
a provider is passed in (tests pass one with an in-memory exporter).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.propagate import extract
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Link, Span, SpanKind, Status, StatusCode

from guard.settings import TelemetrySettings
from judges import Finding

__all__ = ["Telemetry", "provider_from_settings"]

_TRACER = "guard"


def provider_from_settings(settings: TelemetrySettings) -> TracerProvider | None:
    """A provider exporting over OTLP/HTTP, or ``None`` when no endpoint is configured."""
    if not settings.otlp_endpoint:
        return None
    provider = TracerProvider(resource=Resource.create({"service.name": settings.service_name}))
    exporter = OTLPSpanExporter(endpoint=settings.otlp_endpoint, headers=dict(settings.otlp_headers))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def _links() -> list[Link]:
    current = trace.get_current_span().get_span_context()
    return [Link(current)] if current.is_valid else []


class Telemetry:
    """The guard's tracer, and the spans it opens."""

    def __init__(self, provider: TracerProvider | None = None) -> None:
        self.provider = provider
        source = provider if provider is not None else trace.get_tracer_provider()
        self.tracer = source.get_tracer(_TRACER)

    def open_transaction(self, transaction_id: str, principal: str, meta: Mapping[str, Any] | None) -> Span:
        """The transaction's span; a W3C trace context in the request's ``_meta`` becomes its parent."""
        parent: Context | None = None
        if meta:
            try:
                extracted = extract(dict(meta))
            except (TypeError, ValueError):
                extracted = None
            if extracted is not None and trace.get_current_span(extracted).get_span_context().is_valid:
                parent = extracted
        return self.tracer.start_span(
            f"guard.transaction {transaction_id}",
            context=parent if parent is not None else Context(),
            kind=SpanKind.INTERNAL,
            attributes={"guard.transaction.id": transaction_id, "guard.principal": principal},
            links=_links(),
        )

    @staticmethod
    def close_transaction(span: Span, status: str, reason: str | None, calls: int) -> None:
        span.set_attributes({"guard.transaction.status": status, "guard.transaction.calls": calls})
        if reason:
            span.set_attribute("guard.transaction.close_reason", reason)
        if status == "aborted":
            span.set_status(Status(StatusCode.ERROR, reason or "aborted"))
        span.end()

    @contextmanager
    def call_span(self, transaction: Span, transaction_id: str, tool: str, write: bool) -> Iterator[Span]:
        with self.tracer.start_as_current_span(
            f"guard.call {tool}",
            context=trace.set_span_in_context(transaction),
            kind=SpanKind.INTERNAL,
            links=_links(),
            attributes={
                "guard.transaction.id": transaction_id,
                "mcp.method.name": "tools/call",
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": tool,
                "guard.tool.write": write,
            },
            record_exception=True,
            set_status_on_exception=True,
        ) as span:
            yield span

    @staticmethod
    def end_call(span: Span, *, ok: bool, error_class: str | None, retries: int) -> None:
        span.set_attribute("guard.call.retries", retries)
        if not ok:
            span.set_attributes(
                {"error.type": error_class or "tool_error", "guard.error.class": error_class or ""}
            )
            span.set_status(Status(StatusCode.ERROR, error_class or "tool error"))

    @contextmanager
    def commit_span(self, transaction: Span, transaction_id: str, attempt: int, via: str) -> Iterator[Span]:
        with self.tracer.start_as_current_span(
            f"guard.commit {transaction_id}",
            context=trace.set_span_in_context(transaction),
            kind=SpanKind.INTERNAL,
            links=_links(),
            attributes={
                "guard.transaction.id": transaction_id,
                "guard.commit.attempt": attempt,
                "guard.commit.via": via,
                "mcp.method.name": "tools/call",
                "gen_ai.operation.name": "execute_tool",
            },
            record_exception=True,
            set_status_on_exception=True,
        ) as span:
            yield span

    @staticmethod
    def end_commit(
        span: Span, *, decision: str, status: str, findings: Sequence[Finding], effects: int
    ) -> None:
        span.set_attributes(
            {
                "guard.commit.decision": decision,
                "guard.commit.status": status,
                "guard.findings.count": len(findings),
                "guard.effects.count": effects,
            }
        )
        for finding in findings:
            attributes = {
                "guard.finding.judge": finding.judge,
                "guard.finding.severity": finding.severity.value,
                "guard.finding.message": finding.message,
            }
            if finding.rule:
                attributes["guard.finding.rule"] = finding.rule
            if finding.hint:
                attributes["guard.finding.hint"] = finding.hint
            span.add_event("guard.finding", attributes)
        if decision == "block":
            span.set_attribute("error.type", "guard.commit.blocked")
            span.set_status(Status(StatusCode.ERROR, f"commit blocked: {len(findings)} finding(s)"))
        elif status == "partial":
            span.set_attribute("error.type", "guard.commit.partial")
            span.set_status(Status(StatusCode.ERROR, "the upstream applied only part of the commit"))

    def shutdown(self) -> None:
        if self.provider is not None:
            self.provider.force_flush()
            self.provider.shutdown()
