"""The repair loop in front of an upstream: a blocked commit fixed in place, reads that say what they miss,
dry runs that reach the upstream.

The fake shop in process behind the guard, the rule pack of the refund limit
(a refund above 100 blocks); the agent is the official client in process.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from guard.clock import FixedClock
from guard.errors import ConfigError
from tests.fakes.mcp_shop import Shop
from tests.guard.conftest import agent_client, meta
from tests.guard.mcp_support import body, mcp_settings, memory_guard, text


async def test_a_blocked_commit_is_repaired_by_withdrawing_the_write_it_names(tmp_path: Path) -> None:
    """Requirement G47: the blocked reply names the held write and how to withdraw it; withdrawn and
    redone, the commit goes through without a rollback, and the withdrawn write never reaches the shop."""
    shop = Shop()
    async with (
        memory_guard(mcp_settings(tmp_path, rules=True), shop, FixedClock()) as runtime,
        agent_client(runtime) as agent,
    ):
        await agent.call_tool("create_order", {"item": "desk", "quantity": 1}, meta=meta("r-1"))
        await agent.call_tool("refund", {"order_id": "ORD-1", "amount": 500}, meta=meta("r-1"))
        await agent.call_tool("add_note", {"order_id": "ORD-1", "text": "refunded"}, meta=meta("r-1"))
        blocked = body(await agent.call_tool("guard_commit", {"summary": "refunded"}, meta=meta("r-1")))
        assert blocked["status"] == "blocked"
        assert "withdraw the held write(s) concerned (#2 refund)" in blocked["message"]
        assert 'guard_withdraw {"seq": 2}' in blocked["message"]
        withdrawn = body(await agent.call_tool("guard_withdraw", {"seq": 2}, meta=meta("r-1")))
        assert (withdrawn["status"], withdrawn["tool"]) == ("withdrawn", "refund")
        assert withdrawn["arguments"] == {"order_id": "ORD-1", "amount": 500}
        await agent.call_tool("refund", {"order_id": "ORD-1", "amount": 80}, meta=meta("r-1"))
        committed = body(await agent.call_tool("guard_commit", {"summary": "refunded"}, meta=meta("r-1")))
    assert committed["status"] == "committed", committed
    assert [(w["seq"], w["tool"], w["status"]) for w in committed["dispatch"]] == [
        (1, "create_order", "applied"),
        (2, "refund", "discarded"),
        (3, "add_note", "applied"),
        (4, "refund", "applied"),
    ]
    assert [(e["tool"], e["arguments"].get("amount")) for e in shop.journal] == [
        ("create_order", None),
        ("add_note", None),
        ("refund", 80),
    ]


async def test_what_cannot_be_withdrawn_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    """Requirement G47: no such write, a write already withdrawn, and a passthrough write (sent when
    called) are each refused with the reason; the held writes stay held."""
    shop = Shop()
    settings = mcp_settings(tmp_path, tools={"send_email": {"mode": "passthrough"}})
    async with memory_guard(settings, shop, FixedClock()) as runtime, agent_client(runtime) as agent:
        await agent.call_tool("create_order", {"item": "desk", "quantity": 1}, meta=meta("w-1"))
        await agent.call_tool("send_email", {"to": "a@example.com", "body": "hi"}, meta=meta("w-1"))
        missing = await agent.call_tool("guard_withdraw", {"seq": 7}, meta=meta("w-1"))
        sent = await agent.call_tool("guard_withdraw", {"seq": 2}, meta=meta("w-1"))
        bad = await agent.call_tool("guard_withdraw", {"seq": "two"}, meta=meta("w-1"))
        first = await agent.call_tool("guard_withdraw", {"seq": 1}, meta=meta("w-1"))
        again = await agent.call_tool("guard_withdraw", {"seq": 1}, meta=meta("w-1"))
        committed = body(await agent.call_tool("guard_commit", {"summary": "mail"}, meta=meta("w-1")))
    assert missing.is_error is True
    assert "no write #7" in text(missing)
    assert sent.is_error is True
    assert "sent to the upstream when called and cannot be taken back" in text(sent)
    assert bad.is_error is True
    assert first.is_error is False
    assert again.is_error is True
    assert "it is discarded" in text(again)
    assert committed["status"] == "committed"
    assert [e["tool"] for e in shop.journal] == ["send_email"]


async def test_reads_after_a_deferred_write_say_so_whatever_they_come_to(tmp_path: Path) -> None:
    """Requirement G47: a read that succeeds, one the upstream refuses and one that fails for good each
    carry the note naming the held writes they do not see."""
    shop = Shop()
    shop.orders["ORD-0"] = {"id": "ORD-0", "item": "lamp", "quantity": 1, "status": "placed"}
    shop.faults["get_order"] = ["unavailable"] * 10
    async with (
        memory_guard(mcp_settings(tmp_path), shop, FixedClock()) as runtime,
        agent_client(runtime) as agent,
    ):
        failing = await agent.call_tool("get_order", {"order_id": "ORD-0"}, meta=meta("n-1"))
        assert len(failing.content) == 1  # nothing held yet: no note
        await agent.call_tool("create_order", {"item": "desk", "quantity": 1}, meta=meta("n-1"))
        unavailable = await agent.call_tool("get_order", {"order_id": "ORD-0"}, meta=meta("n-1"))
        shop.faults["get_order"] = []
        missing = await agent.call_tool("get_order", {"order_id": "ORD-9"}, meta=meta("n-1"))
        found = await agent.call_tool("get_order", {"order_id": "ORD-0"}, meta=meta("n-1"))
    note = "(guard: this transaction holds 1 deferred write(s) (create_order (#1))"
    for reply, is_error in ((unavailable, True), (missing, True), (found, False)):
        assert reply.is_error is is_error
        last = reply.content[-1]
        assert getattr(last, "text", "").startswith(note), reply


async def test_a_dry_run_of_a_deferred_write_reaches_the_upstream_and_changes_nothing(tmp_path: Path) -> None:
    """Requirement G47: with ``preview: dry_run`` a call with dry_run true is answered by the upstream at
    once; the same call without it is held as before."""
    shop = Shop()
    shop.orders["ORD-0"] = {"id": "ORD-0", "item": "lamp", "quantity": 1, "status": "placed"}
    settings = mcp_settings(tmp_path, tools={"cancel_order": {"preview": "dry_run"}})
    async with memory_guard(settings, shop, FixedClock()) as runtime, agent_client(runtime) as agent:
        tools = {tool.name: tool for tool in (await agent.list_tools()).tools}
        preview = body(
            await agent.call_tool("cancel_order", {"order_id": "ORD-0", "dry_run": True}, meta=meta("p-1"))
        )
        held = body(await agent.call_tool("cancel_order", {"order_id": "ORD-0"}, meta=meta("p-1")))
        assert shop.orders["ORD-0"]["status"] == "placed"
        await agent.call_tool("guard_commit", {"summary": "cancelled"}, meta=meta("p-1"))
    assert "dry_run: true is a dry run" in (tools["cancel_order"].description or "")
    assert preview["status"] == "would be cancelled (dry run: nothing changed)"
    assert held["status"] == "deferred"
    assert [e["tool"] for e in shop.journal] == ["cancel_order"]
    assert shop.orders["ORD-0"]["status"] == "cancelled"


@pytest.mark.parametrize(
    ("tools", "problem"),
    [
        ({"get_order": {"preview": "dry_run"}}, "the tool is a read"),
        ({"cancel_order": {"preview": "reason"}}, "no boolean argument 'reason'"),
        ({"cancel_order": {"preview": "dryRun"}}, "no boolean argument 'dryRun'"),
    ],
)
async def test_a_preview_the_tool_cannot_honour_is_a_config_error(
    tmp_path: Path, tools: dict[str, object], problem: str
) -> None:
    """Requirement G47: preview names a boolean argument of a write, checked against the upstream's schema."""
    with pytest.raises(ConfigError, match=problem):
        async with memory_guard(mcp_settings(tmp_path, tools=tools), Shop(), FixedClock()):
            pass
