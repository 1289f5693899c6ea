"""Spans per transaction, call and commit attempt; a blocked commit is an ERROR span with its findings."""

from __future__ import annotations

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from guard.runtime import Runtime
from guard.settings import TelemetrySettings
from guard.telemetry import provider_from_settings
from tests.guard.conftest import agent_client, meta


async def test_blocked_commit_span(runtime: Runtime, exporter: InMemorySpanExporter) -> None:
    """Requirement G10: transactions, calls and commit attempts are spans; a block is an ERROR with events."""
    async with agent_client(runtime) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"}, meta=meta("s-1"))
        await agent.call_tool("guard_commit", {"summary": "solved"}, meta=meta("s-1"))
        await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "hold"}, meta=meta("s-1"))
        await agent.call_tool("guard_commit", {"summary": "hold"}, meta=meta("s-1"))
    spans = exporter.get_finished_spans()
    by_name: dict[str, list] = {}
    for span in spans:
        by_name.setdefault(span.name, []).append(span)
    (txn,) = by_name["guard.transaction s-1"]
    assert txn.attributes["guard.transaction.status"] == "committed"
    calls = by_name["guard.call update_ticket"]
    assert len(calls) == 2
    assert all(c.parent is not None and c.parent.span_id == txn.context.span_id for c in calls)
    assert calls[0].attributes["gen_ai.tool.name"] == "update_ticket"
    assert calls[0].attributes["mcp.method.name"] == "tools/call"
    blocked, committed = by_name["guard.commit s-1"]
    assert blocked.status.status_code is StatusCode.ERROR
    assert blocked.attributes["guard.transaction.id"] == "s-1"
    assert blocked.attributes["guard.commit.decision"] == "block"
    assert blocked.attributes["guard.findings.count"] == 1
    assert blocked.attributes["guard.effects.count"] == 1
    (event,) = blocked.events
    assert event.name == "guard.finding"
    assert "carrier exception for ORD-10000020" in event.attributes["guard.finding.message"]
    assert event.attributes["guard.finding.hint"] == "allowed: hold, pending, open"
    assert committed.status.status_code is StatusCode.UNSET
    assert committed.attributes["guard.commit.decision"] == "allow"
    assert committed.parent is not None
    assert committed.parent.span_id == txn.context.span_id


def test_nothing_is_exported_without_an_endpoint() -> None:
    assert provider_from_settings(TelemetrySettings()) is None
    provider = provider_from_settings(TelemetrySettings(otlp_endpoint="http://127.0.0.1:4318/v1/traces"))
    assert provider is not None
    provider.shutdown()
