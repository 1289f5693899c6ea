"""The ``mcp`` backend in memory: the guard in front of an in-process upstream (the fake shop).

The agent talks to the guard through the official client in process; the
guard talks to the shop through the official client in process; the outbox
and the audit log are in memory. What reached the upstream is the shop's
journal.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from guard.audit.log import MemoryAudit
from guard.backends.mcp import McpBackend
from guard.backends.outbox import EntryStatus, MemoryOutbox
from guard.clock import FixedClock
from guard.runtime import Runtime
from tests.fakes.mcp_shop import Shop
from tests.guard.conftest import agent_client, meta
from tests.guard.mcp_support import body, mcp_settings, memory_guard, text


@pytest.fixture
def shop() -> Shop:
    return Shop()


def backend_of(runtime: Runtime) -> McpBackend:
    backend = runtime.manager.backend
    assert isinstance(backend, McpBackend)
    return backend


async def test_tools_are_classified_config_then_annotations_then_unknown(tmp_path: Path, shop: Shop) -> None:
    """Requirement G15: config first, then annotations; a tool with neither is a non-idempotent write."""
    settings = mcp_settings(
        tmp_path,
        tools={
            "send_email": {"mode": "passthrough"},
            "refund": {"idempotent": True},
        },
    )
    async with memory_guard(settings, shop, FixedClock()) as runtime, agent_client(runtime) as agent:
        listed = {tool.name: tool for tool in (await agent.list_tools()).tools}
        policies = backend_of(runtime).policies
    assert sorted(listed) == [
        "add_note",
        "cancel_order",
        "create_order",
        "get_order",
        "guard_commit",
        "guard_rollback",
        "guard_withdraw",
        "refund",
        "send_email",
    ]
    shown = {
        name: (
            policies[name].mode,
            policies[name].source,
            tool.annotations.read_only_hint if tool.annotations else None,
            tool.annotations.idempotent_hint if tool.annotations else None,
            tool.annotations.destructive_hint if tool.annotations else None,
        )
        for name, tool in listed.items()
        if name not in ("guard_commit", "guard_rollback", "guard_withdraw")
    }
    assert shown == {
        "get_order": ("read", "annotations", True, True, None),
        "create_order": ("defer", "annotations", False, False, False),
        "cancel_order": ("defer", "annotations", False, True, True),
        "refund": ("defer", "annotations", False, True, False),
        "add_note": ("defer", "unknown", False, False, True),
        "send_email": ("passthrough", "config", False, False, False),
    }
    assert listed["get_order"].output_schema is not None
    assert listed["create_order"].output_schema is None
    assert "held until the transaction commits" in (listed["create_order"].description or "")
    assert "not undone if the transaction is rolled back" in (listed["send_email"].description or "")
    assert listed["create_order"].input_schema["required"] == ["item", "quantity"]


async def test_reads_pass_through_and_transient_failures_are_retried(tmp_path: Path, shop: Shop) -> None:
    """Requirement G7 for reads: a transient upstream failure is retried by the guard, not the model."""
    shop.orders["ORD-9"] = {"id": "ORD-9", "item": "lamp", "quantity": 1, "status": "placed"}
    shop.faults["get_order"] = ["unavailable"]
    async with memory_guard(mcp_settings(tmp_path), shop, FixedClock()) as runtime:
        async with agent_client(runtime) as agent:
            result = await agent.call_tool("get_order", {"order_id": "ORD-9"}, meta=meta("r-1"))
            missing = await agent.call_tool("get_order", {"order_id": "ORD-1"}, meta=meta("r-1"))
        calls = runtime.manager.audit
        assert isinstance(calls, MemoryAudit)
    assert result.is_error is False
    assert body(result) == shop.orders["ORD-9"]
    assert missing.is_error is True
    assert text(missing) == "order ORD-1 not found"
    assert [(c.tool, c.retries, c.error_class) for c in calls.calls] == [
        ("get_order", 1, None),
        ("get_order", 0, "not_found"),
    ]
    assert shop.journal == []


async def test_a_deferred_write_reaches_the_upstream_only_at_commit(tmp_path: Path, shop: Shop) -> None:
    """Requirement G11: a deferred write changes nothing upstream before an allowed commit, then once."""
    async with (
        memory_guard(mcp_settings(tmp_path), shop, FixedClock()) as runtime,
        agent_client(runtime) as agent,
    ):
        held = await agent.call_tool("create_order", {"item": "lamp", "quantity": 2}, meta=meta("d-1"))
        receipt = body(held)
        assert held.is_error is False
        assert receipt["status"] == "deferred"
        assert shop.journal == []
        assert shop.orders == {}
        reply = body(await agent.call_tool("guard_commit", {"summary": "ordered a lamp"}, meta=meta("d-1")))
    assert reply["status"] == "committed"
    assert [(e["table"], e["key"], e["kind"], e["after"]) for e in reply["effects"]] == [
        ("call:create_order", receipt["idempotency_key"], "call", {"item": "lamp", "quantity": 2})
    ]
    assert [(w["tool"], w["status"], w["attempts"]) for w in reply["dispatch"]] == [
        ("create_order", "applied", 1)
    ]
    assert shop.journal == [
        {
            "tool": "create_order",
            "arguments": {"item": "lamp", "quantity": 2},
            "key": receipt["idempotency_key"],
        }
    ]
    assert shop.orders["ORD-1"]["status"] == "placed"


async def test_a_blocked_commit_dispatches_nothing(tmp_path: Path, shop: Shop) -> None:
    """Requirements G1, G11: a rule pack on call:refund blocks; nothing is sent, then or on rollback."""
    settings = mcp_settings(tmp_path, rules=True)
    async with memory_guard(settings, shop, FixedClock()) as runtime, agent_client(runtime) as agent:
        await agent.call_tool("add_note", {"order_id": "ORD-1", "text": "refund asked"}, meta=meta("b-1"))
        await agent.call_tool("refund", {"order_id": "ORD-1", "amount": 500}, meta=meta("b-1"))
        blocked = await agent.call_tool("guard_commit", {"summary": "refunded"}, meta=meta("b-1"))
        reply = body(blocked)
        assert blocked.is_error is True
        assert reply["status"] == "blocked"
        assert [f["message"] for f in reply["findings"]] == [
            "refund of 500 on ORD-1 is above the limit of 100"
        ]
        assert shop.journal == []
        rolled = await runtime.manager.rollback_by_id("b-1", "the customer withdrew")
    assert rolled.status == "rolled_back"
    assert rolled.message == "rolled back: the customer withdrew; discarded 2 held write(s)"
    assert shop.journal == []
    assert shop.calls == []


async def test_an_allowed_commit_dispatches_in_order_once_despite_transient_failures(
    tmp_path: Path, shop: Shop
) -> None:
    """Requirement G11: in call order, each write once, with its own stable key, retried when transient."""
    shop.faults["add_note"] = ["unavailable", "unavailable"]
    async with (
        memory_guard(mcp_settings(tmp_path), shop, FixedClock()) as runtime,
        agent_client(runtime) as agent,
    ):
        keys = []
        for tool, arguments in [
            ("create_order", {"item": "desk", "quantity": 1}),
            ("add_note", {"order_id": "ORD-1", "text": "gift"}),
            ("refund", {"order_id": "ORD-1", "amount": 20}),
        ]:
            keys.append(body(await agent.call_tool(tool, arguments, meta=meta("o-1")))["idempotency_key"])
        reply = body(await agent.call_tool("guard_commit", {"summary": "done"}, meta=meta("o-1")))
    assert reply["status"] == "committed"
    assert [entry["tool"] for entry in shop.journal] == ["create_order", "add_note", "refund"]
    assert [entry["key"] for entry in shop.journal] == keys
    assert len(set(keys)) == 3
    assert shop.calls == [
        ("create_order", keys[0]),
        ("add_note", keys[1]),
        ("add_note", keys[1]),
        ("add_note", keys[1]),
        ("refund", keys[2]),
    ]
    assert [(w["tool"], w["status"], w["attempts"]) for w in reply["dispatch"]] == [
        ("create_order", "applied", 1),
        ("add_note", "applied", 3),
        ("refund", "applied", 1),
    ]


async def test_a_permanent_dispatch_failure_is_reported_exactly(tmp_path: Path, shop: Shop) -> None:
    """Requirement G12: earlier writes stay applied, later ones are not sent, reply and audit say which."""
    shop.faults["refund"] = ["refuse"]
    async with memory_guard(mcp_settings(tmp_path), shop, FixedClock()) as runtime:
        async with agent_client(runtime) as agent:
            for tool, arguments in [
                ("create_order", {"item": "desk", "quantity": 1}),
                ("refund", {"order_id": "ORD-1", "amount": 20}),
                ("send_email", {"to": "ann@example.com", "body": "refunded"}),
            ]:
                await agent.call_tool(tool, arguments, meta=meta("p-1"))
            result = await agent.call_tool("guard_commit", {"summary": "refunded"}, meta=meta("p-1"))
        audit = runtime.manager.audit
        assert isinstance(audit, MemoryAudit)
        detail = await audit.get_transaction("p-1")
    reply = body(result)
    assert result.is_error is True
    assert reply["status"] == "partial"
    assert [(w["tool"], w["status"]) for w in reply["dispatch"]] == [
        ("create_order", "applied"),
        ("refund", "failed"),
        ("send_email", "skipped"),
    ]
    assert reply["message"] == (
        "the commit was allowed, but not all of it was applied: "
        "the upstream applied 1 of 3 deferred write(s); applied: create_order (#1); "
        "failed: refund (#2): precondition_failed: order ORD-1 cannot be refunded: "
        "amount exceeds the order total; not sent: send_email (#3)"
    )
    assert [entry["tool"] for entry in shop.journal] == ["create_order"]
    assert detail is not None
    assert detail.transaction.status == "partial"
    assert detail.transaction.close_reason is not None
    assert "not sent: send_email (#3)" in detail.transaction.close_reason
    assert detail.commits[-1].status == "partial"
    assert detail.commits[-1].dispatch == reply["dispatch"]


async def test_an_ambiguous_failure_of_a_non_idempotent_write_is_not_repeated(
    tmp_path: Path, shop: Shop
) -> None:
    """Requirement G12: applied then reply lost, key not honoured: outcome unknown, never sent twice."""
    shop.faults["create_order"] = ["lost"]
    async with (
        memory_guard(mcp_settings(tmp_path), shop, FixedClock()) as runtime,
        agent_client(runtime) as agent,
    ):
        await agent.call_tool("create_order", {"item": "desk", "quantity": 1}, meta=meta("u-1"))
        await agent.call_tool("add_note", {"order_id": "ORD-1", "text": "x"}, meta=meta("u-1"))
        reply = body(await agent.call_tool("guard_commit", {"summary": "ordered"}, meta=meta("u-1")))
    assert reply["status"] == "partial"
    assert [(w["tool"], w["status"], w.get("error_class")) for w in reply["dispatch"]] == [
        ("create_order", "unknown", "timeout"),
        ("add_note", "skipped", None),
    ]
    assert "outcome unknown (may have been applied): create_order (#1)" in reply["message"]
    assert [entry["tool"] for entry in shop.journal] == ["create_order"]
    assert [tool for tool, _ in shop.calls] == ["create_order"]


async def test_an_upstream_that_honours_keys_gets_ambiguous_writes_retried_once(
    tmp_path: Path, shop: Shop
) -> None:
    """Requirement G11: an upstream that honours keys gets a lost reply retried under its key, once."""
    shop.honour_keys = True
    shop.faults["create_order"] = ["lost"]
    settings = mcp_settings(tmp_path, honours_idempotency_key=True)
    async with memory_guard(settings, shop, FixedClock()) as runtime, agent_client(runtime) as agent:
        key = body(await agent.call_tool("create_order", {"item": "desk", "quantity": 1}, meta=meta("k-1")))[
            "idempotency_key"
        ]
        reply = body(await agent.call_tool("guard_commit", {"summary": "ordered"}, meta=meta("k-1")))
    assert reply["status"] == "committed"
    assert shop.calls == [("create_order", key), ("create_order", key)]
    assert len(shop.journal) == 1
    assert len(shop.orders) == 1


async def test_passthrough_writes_are_compensated_on_rollback(tmp_path: Path, shop: Shop) -> None:
    """Requirement G14: undone by the declared tool; what has none is named as not undone."""
    settings = mcp_settings(
        tmp_path,
        tools={
            "create_order": {
                "mode": "passthrough",
                "compensate": {
                    "tool": "cancel_order",
                    "arguments": {"order_id": "$result.id", "reason": "rollback"},
                },
            },
            "send_email": {"mode": "passthrough"},
        },
    )
    async with memory_guard(settings, shop, FixedClock()) as runtime:
        async with agent_client(runtime) as agent:
            placed = await agent.call_tool("create_order", {"item": "desk", "quantity": 1}, meta=meta("c-1"))
            assert body(placed)["id"] == "ORD-1"
            assert shop.orders["ORD-1"]["status"] == "placed"
            await agent.call_tool("send_email", {"to": "ann@example.com", "body": "placed"}, meta=meta("c-1"))
            assert [entry["tool"] for entry in shop.journal] == ["create_order", "send_email"]
        rolled = await runtime.manager.rollback_by_id("c-1", "wrong customer")
        audit = runtime.manager.audit
        assert isinstance(audit, MemoryAudit)
        detail = await audit.get_transaction("c-1")
    assert shop.orders["ORD-1"]["status"] == "cancelled"
    create_key = shop.journal[0]["key"]
    assert shop.journal[-1] == {
        "tool": "cancel_order",
        "arguments": {"order_id": "ORD-1", "reason": "rollback"},
        "key": f"{create_key}:undo",
    }
    expected = (
        "wrong customer; undone: create_order (#1); "
        "not undone: send_email (#2): no compensating tool is configured"
    )
    assert rolled.message == f"rolled back: {expected}"
    assert detail is not None
    assert detail.transaction.close_reason == expected


async def test_a_passthrough_write_is_an_effect_judged_at_commit(tmp_path: Path, shop: Shop) -> None:
    """Requirement G11: passthrough writes are effects too (call:<tool>); committing sends nothing more."""
    settings = mcp_settings(tmp_path, rules=True, tools={"refund": {"mode": "passthrough"}})
    async with memory_guard(settings, shop, FixedClock()) as runtime, agent_client(runtime) as agent:
        await agent.call_tool("refund", {"order_id": "ORD-1", "amount": 50}, meta=meta("e-1"))
        reply = body(await agent.call_tool("guard_commit", {"summary": "refund"}, meta=meta("e-1")))
    assert reply["status"] == "committed"
    assert [e["table"] for e in reply["effects"]] == ["call:refund"]
    assert reply["message"].endswith("no deferred writes; 1 passthrough write(s) were applied when called")
    assert len(shop.journal) == 1


async def test_a_passthrough_timeout_is_reported_as_unknown_and_not_retried(
    tmp_path: Path, shop: Shop
) -> None:
    """Requirement G7: an ambiguous failure of a non-idempotent passthrough write is reported, not redone."""
    shop.faults["send_email"] = ["lost"]
    settings = mcp_settings(tmp_path, tools={"send_email": {"mode": "passthrough"}})
    async with memory_guard(settings, shop, FixedClock()) as runtime, agent_client(runtime) as agent:
        result = await agent.call_tool("send_email", {"to": "a@example.com", "body": "hi"}, meta=meta("t-1"))
        outbox = backend_of(runtime).outbox
        assert isinstance(outbox, MemoryOutbox)
        (entry,) = outbox.rows.values()
    assert result.is_error is True
    assert "it may or may not have been applied" in text(result)
    assert entry.status is EntryStatus.UNKNOWN
    assert len(shop.calls) == 1


async def test_bad_arguments_against_the_upstream_schema_change_nothing(tmp_path: Path, shop: Shop) -> None:
    """Requirement G4: arguments are checked against the upstream's input schema before anything runs."""
    async with (
        memory_guard(mcp_settings(tmp_path), shop, FixedClock()) as runtime,
        agent_client(runtime) as agent,
    ):
        bad = await agent.call_tool(
            "create_order", {"item": "", "quantity": "two", "colour": "red"}, meta=meta("v-1")
        )
        reply = body(await agent.call_tool("guard_commit", {"summary": "nothing"}, meta=meta("v-1")))
        outbox = backend_of(runtime).outbox
        assert isinstance(outbox, MemoryOutbox)
    assert bad.is_error is True
    assert text(bad) == (
        "Input validation failed: arguments: Additional properties are not allowed "
        "('colour' was unexpected); item: '' should be non-empty; quantity: 'two' is not of type 'integer'"
    )
    assert reply["status"] == "committed"
    assert reply["effects"] == []
    assert outbox.rows == {}
    assert shop.calls == []
