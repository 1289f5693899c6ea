"""Replies a model can act on: refusals as tool results, honest commit lines, results that reach the agent.

And what the guard writes down: values named by ``audit.redact`` stay out of
the audit log and the settled outbox, while the upstream still gets them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types as types
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from guard.audit.log import MemoryAudit
from guard.audit.redact import REDACTED, Redactor
from guard.backends.outbox import MemoryOutbox
from guard.clock import FixedClock
from guard.edge.mcp_client import ClientUpstream
from guard.runtime import Runtime, assemble, mcp_backend
from guard.settings import GuardSettings
from judges import Effect, EffectKind, Finding, Severity
from tests.fakes.mcp_shop import Shop, shop_server
from tests.guard.conftest import agent_client, demo_settings, meta, no_sleep
from tests.guard.mcp_support import body, mcp_settings, memory_guard, text


def texts(result: types.CallToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, types.TextContent)]


async def test_a_key_whose_transaction_ended_is_a_tool_error_the_model_reads(runtime: Runtime) -> None:
    """Requirement G4: reusing a committed key is told to the model (isError, next step), not raised."""
    async with agent_client(runtime) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "pending"}, meta=meta("r-1"))
        assert body(await agent.call_tool("guard_commit", {"summary": "done"}, meta=meta("r-1")))[
            "status"
        ] == ("committed")
        again = await agent.call_tool("get_ticket", {"ticket_id": 21}, meta=meta("r-1"))
        assert again.is_error is True
        assert text(again) == "transaction r-1 is committed; use a new transaction key"
        late = await agent.call_tool("guard_commit", {"summary": "again"}, meta=meta("r-1"))
        assert late.is_error is True
        assert "use a new transaction key" in text(late)


async def test_a_rollback_the_agent_asked_for_is_not_an_error(runtime: Runtime) -> None:
    async with agent_client(runtime) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "pending"}, meta=meta("rb-1"))
        rolled = await agent.call_tool("guard_rollback", {"reason": "wrong ticket"}, meta=meta("rb-1"))
        assert rolled.is_error is False
        assert body(rolled)["status"] == "rolled_back"
        nothing = await agent.call_tool("guard_rollback", {}, meta=meta("rb-2"))
        assert text(nothing) == "no open transaction rb-2: there is nothing to roll back"


async def test_a_limit_is_a_tool_error_that_says_what_to_do(tmp_path: Path, clock: FixedClock) -> None:
    """Requirement G20: the refusal reaches the model as a tool result naming the limit and the way out."""
    from guard.runtime import build_runtime
    from guard.store.migrate import upgrade
    from tests.guard.conftest import no_sleep

    settings = demo_settings(tmp_path, limits={"max_open_per_agent": 1})
    runtime = build_runtime(settings, clock=clock, sleep=no_sleep)
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    await runtime.start()
    try:
        async with agent_client(runtime) as agent:
            await agent.call_tool("get_ticket", {"ticket_id": 20}, meta=meta("one"))
            refused = await agent.call_tool("get_ticket", {"ticket_id": 20}, meta=meta("two"))
        assert refused.is_error is True
        assert "the limit is 1 (limits.max_open_per_agent); commit or roll back one first" in text(refused)
    finally:
        await runtime.stop()


def shop_settings(tmp_path: Path, **audit: Any) -> GuardSettings:
    settings = mcp_settings(
        tmp_path,
        rules=True,
        tools={"send_email": {"mode": "passthrough"}},
    )
    if audit:
        settings = settings.model_copy(update={"audit": settings.audit.model_copy(update=audit)})
    return settings


async def test_a_deferred_write_says_what_reads_miss_and_its_result_comes_back_at_commit(
    tmp_path: Path,
) -> None:
    shop = Shop()
    async with (
        memory_guard(shop_settings(tmp_path), shop, FixedClock()) as runtime,
        agent_client(runtime) as agent,
    ):
        receipt = body(
            await agent.call_tool("create_order", {"item": "desk", "quantity": 1}, meta=meta("d-1"))
        )
        assert receipt["status"] == "deferred"
        assert "reads before the commit do not see it" in receipt["message"]
        assert "the commit reply gives its answer" in receipt["message"]
        read = await agent.call_tool("get_order", {"order_id": "ORD-1"}, meta=meta("d-1"))
        assert read.is_error is True, "the order does not exist upstream yet"
        assert texts(read)[-1].startswith("(guard: this transaction holds 1 deferred write(s)")
        shop.orders["ORD-0"] = {"id": "ORD-0", "item": "lamp", "quantity": 1, "status": "placed"}
        seen = await agent.call_tool("get_order", {"order_id": "ORD-0"}, meta=meta("d-1"))
        assert seen.is_error is False
        assert texts(seen)[-1] == (
            "(guard: this transaction holds 1 deferred write(s) (create_order (#1)) that reach the upstream "
            "only when it commits; this read does not reflect them)"
        )
        committed = body(await agent.call_tool("guard_commit", {"summary": "ordered"}, meta=meta("d-1")))
    assert committed["status"] == "committed"
    (write,) = committed["dispatch"]
    created = write["result"]["id"]
    assert write["result"] == shop.orders[created], "what the upstream created (its id) reaches the agent"


async def test_a_deferred_write_the_upstreams_schema_refuses_is_refused_at_the_call(tmp_path: Path) -> None:
    """A write held for the commit is checked against the upstream tool's input schema when it is made:
    the model hears of a bad argument at once, with the field, and nothing is held."""
    shop, outbox = Shop(), MemoryOutbox()
    async with (
        memory_guard(shop_settings(tmp_path), shop, FixedClock(), outbox=outbox) as runtime,
        agent_client(runtime) as agent,
    ):
        bad = await agent.call_tool("create_order", {"item": "desk", "quantity": 0}, meta=meta("v-1"))
        assert bad.is_error is True
        assert "quantity" in text(bad)
        assert outbox.rows == {}
        good = body(await agent.call_tool("create_order", {"item": "desk", "quantity": 1}, meta=meta("v-1")))
        assert good["status"] == "deferred"
        committed = body(await agent.call_tool("guard_commit", {"summary": "ordered"}, meta=meta("v-1")))
    assert committed["status"] == "committed"
    assert [w["arguments"] for w in shop.writes("create_order")] == [{"item": "desk", "quantity": 1}]


async def test_a_blocked_commit_says_which_writes_already_took_effect(tmp_path: Path) -> None:
    shop = Shop()
    async with (
        memory_guard(shop_settings(tmp_path), shop, FixedClock()) as runtime,
        agent_client(runtime) as agent,
    ):
        await agent.call_tool("send_email", {"to": "a@example.com", "body": "hi"}, meta=meta("p-1"))
        await agent.call_tool("refund", {"order_id": "ORD-9", "amount": 500}, meta=meta("p-1"))
        blocked = body(await agent.call_tool("guard_commit", {"summary": "refunded"}, meta=meta("p-1")))
    assert blocked["status"] == "blocked"
    assert blocked["message"].startswith(
        "blocked: nothing more was committed, but 1 write(s) already took effect when called and stay "
        "applied (send_email); roll back to undo what can be undone: refund of 500"
    )
    assert [w["tool"] for w in shop.journal] == ["send_email"]


async def test_redacted_paths_stay_out_of_the_log_and_the_settled_outbox(tmp_path: Path) -> None:
    """Requirement G30: the upstream gets the value; the audit log, the commit log and the outbox keep
    ``[redacted]`` once the write is settled."""
    shop, outbox = Shop(), MemoryOutbox()
    settings = shop_settings(tmp_path, redact=["create_order.item", "*.body"])
    async with memory_guard(settings, shop, FixedClock(), outbox=outbox) as runtime:
        async with agent_client(runtime) as agent:
            await agent.call_tool("create_order", {"item": "secret-desk", "quantity": 2}, meta=meta("s-1"))
            held = [e.arguments for e in outbox.rows.values()]
            assert held == [{"item": "secret-desk", "quantity": 2}], "a held write keeps what it must send"
            await agent.call_tool("guard_commit", {"summary": "ordered"}, meta=meta("s-1"))
            await agent.call_tool("send_email", {"to": "a@example.com", "body": "pin 1234"}, meta=meta("s-2"))
            await agent.call_tool("guard_rollback", {}, meta=meta("s-2"))
        audit = runtime.manager.audit
        assert isinstance(audit, MemoryAudit)
        logged = json.dumps(
            [c.to_dict() for c in audit.calls] + [c.to_dict() for c in audit.commits.values()]
        )
    assert "secret-desk" not in logged
    assert "pin 1234" not in logged
    assert REDACTED in logged
    assert "a@example.com" in logged, "only the named paths are redacted"
    assert {json.dumps(e.arguments) for e in outbox.rows.values()} == {
        json.dumps({"item": REDACTED, "quantity": 2}),
        json.dumps({"to": "a@example.com", "body": REDACTED}),
    }
    assert shop.writes("create_order")[0]["arguments"]["item"] == "secret-desk"


async def test_a_finding_that_quotes_a_redacted_value_is_logged_and_traced_without_it(tmp_path: Path) -> None:
    """Requirement G30: a rule's message quotes the order id; with ``refund.order_id`` redacted, neither the
    commit log nor the span's finding events keep it, while the agent's reply still names it."""
    shop, exporter = Shop(), InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = shop_settings(tmp_path, redact=["refund.order_id"])
    backend = mcp_backend(
        settings, ClientUpstream(shop_server(shop), name="shop"), MemoryOutbox(), clock=FixedClock()
    )
    audit = MemoryAudit()
    runtime = assemble(settings, backend, audit, clock=FixedClock(), provider=provider, sleep=no_sleep)
    await runtime.start()
    try:
        async with agent_client(runtime) as agent:
            await agent.call_tool("refund", {"order_id": "ORD-77123", "amount": 500}, meta=meta("q-1"))
            reply = body(await agent.call_tool("guard_commit", {"summary": "refunded"}, meta=meta("q-1")))
    finally:
        await runtime.stop()
    assert reply["status"] == "blocked"
    assert "ORD-77123" in reply["findings"][0]["message"], "the agent is told what it sent"
    logged = json.dumps([c.to_dict() for c in audit.commits.values()])
    assert "ORD-77123" not in logged
    assert f"refund of 500 on {REDACTED} is above the limit of 100" in logged
    events = [dict(e.attributes or {}) for s in exporter.get_finished_spans() for e in s.events]
    messages = [str(e["guard.finding.message"]) for e in events if "guard.finding.message" in e]
    assert messages == [f"refund of 500 on {REDACTED} is above the limit of 100"]


def test_a_quote_is_scrubbed_wherever_a_finding_holds_it() -> None:
    """Requirement G30: message, hint and evidence; short values (a flag, a small number) are left alone."""
    redact = Redactor(["customers.ssn", "customers.vip"])
    effect = Effect(
        "customers", (1,), EffectKind.UPDATE, {"ssn": "123-45-6789"}, {"ssn": "987-65-4321", "vip": 1}, ()
    )
    finding = Finding(
        "rules",
        Severity.BLOCK,
        "ssn changed from 123-45-6789 to 987-65-4321",
        hint="allowed: 987-65-4321 only with a form",
        evidence={"after": {"ssn": "987-65-4321", "vip": 1}},
    )
    (scrubbed,) = redact.findings([finding], [effect])
    assert scrubbed.message == f"ssn changed from {REDACTED} to {REDACTED}"
    assert scrubbed.hint == f"allowed: {REDACTED} only with a form"
    assert scrubbed.evidence == {"after": {"ssn": REDACTED, "vip": 1}}
    assert Redactor().findings([finding], [effect]) == (finding,)


def test_redaction_paths_reach_nested_fields_and_wildcards() -> None:
    """Requirement G30: <tool or table>.<field>[...] with * for any scope or key."""
    redact = Redactor(["pay.card.number", "*.password", "customers.ssn"])
    assert redact.arguments("pay", {"card": {"number": "4111", "exp": "12/30"}, "password": "x"}) == {
        "card": {"number": REDACTED, "exp": "12/30"},
        "password": REDACTED,
    }
    assert redact.arguments("other", {"card": {"number": "4111"}}) == {"card": {"number": "4111"}}
    effect = {"table": "customers", "before": {"ssn": "1"}, "after": {"ssn": "2", "name": "A"}}
    assert redact.effect(effect) == {
        "table": "customers",
        "before": {"ssn": REDACTED},
        "after": {"ssn": REDACTED, "name": "A"},
    }
    call = {"table": "call:pay", "before": None, "after": {"card": {"number": "4111"}}}
    assert redact.effect(call)["after"] == {"card": {"number": REDACTED}}


async def test_a_stream_whose_transaction_ended_moves_on_to_a_new_one(
    runtime: Runtime, clock: FixedClock
) -> None:
    """A key the guard chose (a stdio stream's) is renewed by the guard: the agent cannot name another."""
    async with agent_client(runtime) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "pending"})
        clock.advance(61)
        (reaped,) = await runtime.manager.reap()
        ended = await agent.call_tool("get_ticket", {"ticket_id": 21})
        assert ended.is_error is True
        assert text(ended) == f"transaction {reaped} is rolled_back; the next call starts a new transaction"
        again = await agent.call_tool("get_ticket", {"ticket_id": 21})
        assert again.is_error is False
        assert body(again)["status"] == "open"
