"""OpenTelemetry: the guard's spans, and their export over OTLP/HTTP.

The one module that sets up the OpenTelemetry SDK. The spans follow the
OpenTelemetry conventions:

* A transaction is its own trace: a root ``guard.transaction`` span from open
  to close, and under it one ``guard.call {tool}`` span per tool call (tool
  names are the backend's listed tools, a bounded set) and one ``guard.commit``
  span per commit attempt. Names carry no ids: the transaction id is the
  ``guard.transaction.id`` attribute. A transaction outlives the requests that
  make it, so it is linked to them rather than parented by one.
* Every MCP request already has the MCP SDK's ``SERVER`` span (``tools/call
  {tool}``), and that is the one span per tool execution that claims
  ``gen_ai.operation.name=execute_tool``; the guard's spans set neither it nor
  ``mcp.method.name``, and ``guard.operation.name`` says what they are. A call
  or commit span links to the request span it runs for, and the request span
  gets the transaction id and a link back.
* A blocked commit is an ERROR span with one ``guard.finding`` event per
  finding; a partial one is an ERROR too. In shadow mode a shadowed finding's
  event has ``guard.finding.shadow=true``, and a commit that went ahead
  although they would have stopped it has ``guard.commit.would_block=true``
  and is not an ERROR (it was not blocked).

Export happens when ``telemetry.otlp_endpoint`` is set or the standard
``OTEL_*`` variables ask for it (:func:`exports`); the guard's settings win
over the variables, which the SDK reads itself (endpoint, headers, resource,
sampler, batching). The resource names the service, its version (the
package's) and its instance (``server.instance``). With no export the tracer
is the global one (no-op unless an embedding program set one), or the
provider passed in (tests pass one with an in-memory exporter).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from enum import StrEnum
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.propagate import extract
from opentelemetry.sdk.resources import (
    SERVICE_INSTANCE_ID,
    SERVICE_NAME,
    SERVICE_VERSION,
    OTELResourceDetector,
    Resource,
)
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Link, Span, SpanKind, Status, StatusCode
from opentelemetry.util.types import AttributeValue

from guard.settings import TelemetrySettings
from guard.transaction.state import CommitStatus
from guard.transaction.state import Status as TxnStatus
from judges import Decision, Finding

__all__ = [
    "Operation",
    "Telemetry",
    "exports",
    "install_provider",
    "provider_from_settings",
    "service_resource",
]

log = logging.getLogger(__name__)

_TRACER = "guard"
_DEFAULT_SERVICE_NAME = "guard"
_ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
_PROTOCOL_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
_PROTOCOL = "http/protobuf"


class Operation(StrEnum):
    """What a guard span is, in its ``guard.operation.name`` attribute."""

    TRANSACTION = "transaction"
    CALL = "call"
    COMMIT = "commit"


def exports(settings: TelemetrySettings) -> bool:
    """Whether spans are exported.

    Never with ``OTEL_SDK_DISABLED=true``; else when ``otlp_endpoint`` is set;
    else as ``OTEL_TRACES_EXPORTER`` says (``otlp`` among its names: yes, any
    other value: no); else when an OTLP endpoint variable is set.
    """
    environment = settings.otel_environment
    if environment.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if settings.otlp_endpoint:
        return True
    named = {name.strip().lower() for name in environment.get("OTEL_TRACES_EXPORTER", "").split(",")}
    named.discard("")
    if named:
        return "otlp" in named
    return any(environment.get(variable) for variable in _ENDPOINT_VARIABLES)


def _package_version() -> str:
    try:
        return version("guard")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def service_resource(settings: TelemetrySettings, instance: str) -> Resource:
    """The resource: ``service.name``, ``service.version``, ``service.instance.id``, then the SDK's own.

    The name is ``telemetry.service_name``, else the SDK's (``OTEL_SERVICE_NAME``
    or ``OTEL_RESOURCE_ATTRIBUTES``), else ``guard``. The version and instance
    are the guard's and win over ``OTEL_RESOURCE_ATTRIBUTES``.
    """
    attributes: dict[str, str] = {SERVICE_VERSION: _package_version(), SERVICE_INSTANCE_ID: instance}
    if settings.service_name:
        attributes[SERVICE_NAME] = settings.service_name
    elif SERVICE_NAME not in OTELResourceDetector().detect().attributes:
        attributes[SERVICE_NAME] = _DEFAULT_SERVICE_NAME
    return Resource.create(attributes)


def provider_from_settings(settings: TelemetrySettings, *, instance: str) -> TracerProvider | None:
    """A provider exporting over OTLP/HTTP, or ``None`` when nothing asks for export (:func:`exports`).

    ``instance`` is the ``service.instance.id`` (``server.instance``: required, since the SDK would
    otherwise make up a random one that names no replica). The
    sampler comes from ``OTEL_TRACES_SAMPLER``; endpoint and headers not set in
    ``settings`` come from the ``OTEL_EXPORTER_OTLP_*`` variables.
    """
    if not exports(settings):
        return None
    for variable in _PROTOCOL_VARIABLES:
        protocol = settings.otel_environment.get(variable)
        if protocol:
            if protocol.strip().lower() != _PROTOCOL:
                log.warning(
                    "%s=%s is not supported: the guard exports OTLP as %s", variable, protocol, _PROTOCOL
                )
            break
    provider = TracerProvider(resource=service_resource(settings, instance))
    exporter = OTLPSpanExporter(
        endpoint=settings.otlp_endpoint or None, headers=settings.otlp_headers or None
    )
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def install_provider(settings: TelemetrySettings, *, instance: str) -> TracerProvider | None:
    """:func:`provider_from_settings`, made the process's global provider when there is one.

    Global so that the MCP SDK's request spans (on the global tracer) are
    exported with the guard's and the links between them resolve.
    """
    provider = provider_from_settings(settings, instance=instance)
    if provider is not None:
        trace.set_tracer_provider(provider)
    return provider


def _request_links(meta: Mapping[str, Any] | None = None) -> list[Link]:
    """A link to the request being served: the current span, else a W3C trace context in ``meta``."""
    current = trace.get_current_span().get_span_context()
    if current.is_valid:
        return [Link(current)]
    if meta:
        try:
            extracted = extract(dict(meta))
        except (TypeError, ValueError):
            return []
        carried = trace.get_current_span(extracted).get_span_context()
        if carried.is_valid:
            return [Link(carried)]
    return []


class Telemetry:
    """The guard's tracer, and the spans it opens."""

    def __init__(self, provider: TracerProvider | None = None) -> None:
        self.provider = provider
        source = provider if provider is not None else trace.get_tracer_provider()
        self.tracer = source.get_tracer(_TRACER)

    def open_transaction(
        self,
        transaction_id: str,
        principal: str,
        meta: Mapping[str, Any] | None = None,
        claims: Mapping[str, Any] | None = None,
    ) -> Span:
        """The transaction's span: the root of its own trace, linked to the request that opened it.

        That request is the current span, else the W3C trace context the client
        put in the request's ``_meta`` (when the MCP SDK's spans are not recorded).
        The principal's kept claims are attributes ``guard.principal.claim.<name>``.
        """
        attributes: dict[str, AttributeValue] = {
            "guard.operation.name": Operation.TRANSACTION.value,
            "guard.transaction.id": transaction_id,
            "guard.principal": principal,
        }
        for name, value in (claims or {}).items():
            attributes[f"guard.principal.claim.{name}"] = _attribute(value)
        return self.tracer.start_span(
            "guard.transaction",
            context=Context(),
            kind=SpanKind.INTERNAL,
            attributes=attributes,
            links=_request_links(meta),
        )

    @staticmethod
    def close_transaction(span: Span, status: TxnStatus, reason: str | None, calls: int) -> None:
        span.set_attributes({"guard.transaction.status": status.value, "guard.transaction.calls": calls})
        if reason:
            span.set_attribute("guard.transaction.close_reason", reason)
        if status is TxnStatus.ABORTED:
            span.set_status(Status(StatusCode.ERROR, reason or "aborted"))
        span.end()

    @contextmanager
    def _step(self, transaction: Span, name: str, attributes: dict[str, Any]) -> Iterator[Span]:
        """A span under the transaction's, current while it lasts, linked both ways with the request's
        (none when nothing records spans: the transaction's own stands in, at no cost to the call)."""
        if not transaction.is_recording():
            yield transaction
            return
        request = trace.get_current_span()
        with self.tracer.start_as_current_span(
            name,
            context=trace.set_span_in_context(transaction),
            kind=SpanKind.INTERNAL,
            links=_request_links(),
            attributes=attributes,
            record_exception=True,
            set_status_on_exception=True,
        ) as span:
            if request.is_recording():
                request.set_attribute("guard.transaction.id", attributes["guard.transaction.id"])
                request.add_link(span.get_span_context())
            yield span

    @contextmanager
    def call_span(self, transaction: Span, transaction_id: str, tool: str, write: bool) -> Iterator[Span]:
        """One tool call's span (``guard.call {tool}``); not an ``execute_tool`` span: the request's is."""
        attributes = {
            "guard.operation.name": Operation.CALL.value,
            "guard.transaction.id": transaction_id,
            "gen_ai.tool.name": tool,
            "guard.tool.write": write,
        }
        with self._step(transaction, f"guard.call {tool}", attributes) as span:
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
        """One commit attempt's span (``guard.commit``): the gate's judgement and what was carried out."""
        attributes = {
            "guard.operation.name": Operation.COMMIT.value,
            "guard.transaction.id": transaction_id,
            "guard.commit.attempt": attempt,
            "guard.commit.via": via,
        }
        with self._step(transaction, "guard.commit", attributes) as span:
            yield span

    @staticmethod
    def end_commit(
        span: Span,
        *,
        decision: Decision,
        status: CommitStatus,
        findings: Sequence[Finding],
        effects: int,
        would_block: bool = False,
    ) -> None:
        """Close out a commit span; ``would_block``: shadowed findings would have stopped this commit."""
        span.set_attributes(
            {
                "guard.commit.decision": decision.value,
                "guard.commit.status": status.value,
                "guard.findings.count": len(findings),
                "guard.effects.count": effects,
            }
        )
        if would_block:
            span.set_attribute("guard.commit.would_block", True)
        for finding in findings:
            attributes: dict[str, str | bool] = {
                "guard.finding.judge": finding.judge,
                "guard.finding.severity": finding.severity.value,
                "guard.finding.message": finding.message,
            }
            if finding.rule:
                attributes["guard.finding.rule"] = finding.rule
            if finding.hint:
                attributes["guard.finding.hint"] = finding.hint
            if finding.shadow:
                attributes["guard.finding.shadow"] = True
            span.add_event("guard.finding", attributes)
        if decision is Decision.BLOCK:
            span.set_attribute("error.type", "guard.commit.blocked")
            span.set_status(Status(StatusCode.ERROR, f"commit blocked: {len(findings)} finding(s)"))
        elif status is CommitStatus.PARTIAL:
            span.set_attribute("error.type", "guard.commit.partial")
            span.set_status(Status(StatusCode.ERROR, "the upstream applied only part of the commit"))

    def shutdown(self) -> None:
        if self.provider is not None:
            self.provider.force_flush()
            self.provider.shutdown()


def _attribute(value: Any) -> AttributeValue:
    """A claim as a span attribute: a string, a number or a bool as it is, a list of them as strings,
    anything else as its JSON text."""
    if isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, list) and all(isinstance(item, str | bool | int | float) for item in value):
        return [str(item) for item in value]
    return json.dumps(value, default=str, sort_keys=True)
