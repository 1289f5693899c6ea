"""Transactions end to end through the MCP server, in process: commit, block, repair, limits, isolation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from guard.clock import FixedClock
from guard.edge.server import build_server
from guard.errors import ConfigError
from guard.runtime import Runtime, build_runtime
from guard.settings import GuardSettings
from guard.store.migrate import upgrade
from guard.transaction.manager import TxnKey
from tests.guard.conftest import agent_client, demo_settings, meta, no_sleep, table_rows, ticket_status


def body(result: types.CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


async def test_tool_list_has_the_commit_tool_and_honest_annotations(runtime: Runtime) -> None:
    async with agent_client(runtime) as agent:
        listed = {tool.name: tool for tool in (await agent.list_tools()).tools}
    assert "guard_commit" in listed
    assert listed["get_ticket"].annotations is not None
    assert listed["get_ticket"].annotations.read_only_hint is True
    update = listed["update_ticket"].annotations
    assert update is not None
    assert (update.read_only_hint, update.destructive_hint, update.idempotent_hint) == (False, False, True)
    assert listed["guard_commit"].input_schema["required"] == ["summary"]
    assert listed["guard_commit"].output_schema is not None


async def test_a_server_without_output_schemas_lists_none_for_its_own_tools_either(runtime: Runtime) -> None:
    """As the benchmark's servers do: a client then compiles no schema, and results stay structured."""
    server = build_server(runtime.manager, lambda ctx: TxnKey("plain-1", "agent-a"), output_schemas=False)
    async with Client(server) as agent:
        listed = (await agent.list_tools()).tools
        committed = await agent.call_tool("guard_commit", {"summary": "nothing to do"})
    assert {"guard_commit", "guard_rollback", "get_ticket"} <= {tool.name for tool in listed}
    assert all(tool.output_schema is None for tool in listed)
    assert body(committed)["status"] == "committed"


async def test_allowed_commit_persists(runtime: Runtime, settings: GuardSettings) -> None:
    """Requirement G2: an allowed commit persists exactly its effects."""
    before = table_rows(settings, "tickets")
    async with agent_client(runtime) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "solved"}, meta=meta("ok-1"))
        assert ticket_status(settings, 21) == "open"
        result = await agent.call_tool("guard_commit", {"summary": "receipt sent"}, meta=meta("ok-1"))
    reply = body(result)
    assert result.is_error is False
    assert reply["status"] == "committed"
    assert [(e["table"], e["key"], e["changed_fields"]) for e in reply["effects"]] == [
        ("tickets", "21", ["status"])
    ]
    after = table_rows(settings, "tickets")
    assert [row for row in after if row[0] != 21] == [row for row in before if row[0] != 21]
    assert ticket_status(settings, 21) == "solved"


async def test_blocked_commit_persists_nothing_and_says_why(
    runtime: Runtime, settings: GuardSettings
) -> None:
    """Requirement G1: a blocked commit changes nothing, and its findings say why."""
    async with agent_client(runtime) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"}, meta=meta("b-1"))
        result = await agent.call_tool("guard_commit", {"summary": "solved"}, meta=meta("b-1"))
        reply = body(result)
        assert result.is_error is True
        assert reply["status"] == "blocked"
        assert reply["attempts_left"] == 2
        (finding,) = reply["findings"]
        assert finding["message"].startswith(
            "ticket 20: status 'solved' while carrier exception for ORD-10000020 is open"
        )
        assert finding["hint"] == "allowed: hold, pending, open"
        assert ticket_status(settings, 20) == "open"
        inside = body(await agent.call_tool("get_ticket", {"ticket_id": 20}, meta=meta("b-1")))
        assert inside["status"] == "solved"
        outside = body(await agent.call_tool("get_ticket", {"ticket_id": 20}, meta=meta("b-2")))
        assert outside["status"] == "open"


async def test_repair_then_commit_persists_exactly_the_repair(
    runtime: Runtime, settings: GuardSettings
) -> None:
    """Requirement G2: after a block, the repaired transaction commits exactly its end state."""
    shipments = table_rows(settings, "shipments")
    others = [row for row in table_rows(settings, "tickets") if row[0] != 20]
    async with agent_client(runtime) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"}, meta=meta("r-1"))
        assert (
            body(await agent.call_tool("guard_commit", {"summary": "x"}, meta=meta("r-1")))["status"]
            == "blocked"
        )
        await agent.call_tool(
            "update_ticket", {"ticket_id": 20, "status": "hold", "note": "waiting"}, meta=meta("r-1")
        )
        reply = body(await agent.call_tool("guard_commit", {"summary": "on hold"}, meta=meta("r-1")))
    assert reply["status"] == "committed"
    (effect,) = reply["effects"]
    assert effect["before"]["status"] == "open"
    assert effect["after"]["status"] == "hold"
    assert effect["changed_fields"] == ["note", "status"]
    assert table_rows(settings, "shipments") == shipments
    assert [row for row in table_rows(settings, "tickets") if row[0] != 20] == others
    assert ticket_status(settings, 20) == "hold"
    detail = await runtime.manager.audit.get_transaction("r-1")
    assert detail is not None
    assert [c.status for c in detail.commits] == ["blocked", "committed"]
    assert [c.tool for c in detail.calls] == ["update_ticket", "update_ticket"]
    assert detail.transaction.status == "committed"
    assert detail.transaction.blocked_attempts == 1


async def test_max_blocked_rolls_back(runtime: Runtime, settings: GuardSettings) -> None:
    """Requirement G9: the max_blocked-th blocked attempt rolls the transaction back."""
    async with agent_client(runtime) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"}, meta=meta("m-1"))
        statuses = [
            body(await agent.call_tool("guard_commit", {"summary": "s"}, meta=meta("m-1")))["status"]
            for _ in range(3)
        ]
        assert statuses == ["blocked", "blocked", "rolled_back"]
        late = await agent.call_tool("get_ticket", {"ticket_id": 20}, meta=meta("m-1"))
        assert late.is_error is True
        assert late.content[0].text == "transaction m-1 is rolled_back; use a new transaction key"  # type: ignore[union-attr]
    assert ticket_status(settings, 20) == "open"


async def test_idle_transactions_are_rolled_back(
    runtime: Runtime, settings: GuardSettings, clock: FixedClock
) -> None:
    """Requirement G8: an idle transaction is rolled back after commit.idle_timeout_s."""
    async with agent_client(runtime) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "solved"}, meta=meta("i-1"))
        clock.advance(59)
        assert await runtime.manager.reap() == []
        clock.advance(1)
        assert await runtime.manager.reap() == ["i-1"]
        late = await agent.call_tool("guard_commit", {"summary": "late"}, meta=meta("i-1"))
        assert late.is_error is True
        assert late.content[0].text == "transaction i-1 is rolled_back; use a new transaction key"  # type: ignore[union-attr]
    assert ticket_status(settings, 21) == "open"
    record = await runtime.manager.audit.get_transaction("i-1")
    assert record is not None
    assert record.transaction.close_reason == "idle timeout"


async def test_bad_arguments_change_nothing(runtime: Runtime, settings: GuardSettings) -> None:
    """Requirement G4: arguments that violate the schema get a clear error and open nothing."""
    async with agent_client(runtime) as agent:
        result = await agent.call_tool(
            "update_ticket", {"ticket_id": "twenty", "status": "done"}, meta=meta("v-1")
        )
        assert result.is_error is True
        text = result.content[0].text  # type: ignore[union-attr]
        assert "ticket_id: Input should be a valid integer" in text
        assert "status: Input should be 'new', 'open', 'pending', 'hold', 'solved' or 'closed'" in text
        empty = await agent.call_tool("guard_commit", {}, meta=meta("v-2"))
        assert empty.is_error is True
    assert runtime.manager.live("v-1") is None
    assert await runtime.manager.audit.status_of("v-1") is None
    assert ticket_status(settings, 20) == "open"


async def test_unknown_and_reserved_tools_are_refused(runtime: Runtime) -> None:
    """Requirement G4: unknown tools and reserved names are refused before anything runs."""
    async with agent_client(runtime) as agent:
        with pytest.raises(MCPError, match="unknown tool 'drop_tables'"):
            await agent.call_tool("drop_tables", {}, meta=meta("u-1"))
        with pytest.raises(MCPError, match="tool name '__reserved__init' is reserved"):
            await agent.call_tool("__reserved__init", {}, meta=meta("u-1"))
        with pytest.raises(MCPError, match="invalid transaction key"):
            await agent.call_tool("get_ticket", {"ticket_id": 20}, meta=meta("bad key!"))
    assert runtime.manager.live_transactions == []


async def test_another_agents_transaction_is_refused(runtime: Runtime, settings: GuardSettings) -> None:
    """Requirement G4: a foreign transaction key is refused and changes nothing."""
    async with agent_client(runtime, "agent-a") as a, agent_client(runtime, "agent-b") as b:
        await a.call_tool("update_ticket", {"ticket_id": 21, "status": "solved"}, meta=meta("f-1"))
        with pytest.raises(MCPError, match="f-1 belongs to another agent"):
            await b.call_tool("guard_commit", {"summary": "mine now"}, meta=meta("f-1"))
        with pytest.raises(MCPError, match="belongs to another agent"):
            await b.call_tool("get_ticket", {"ticket_id": 21}, meta=meta("f-1"))
    assert ticket_status(settings, 21) == "open"


async def test_business_refusals_are_tool_errors_in_the_trace(runtime: Runtime) -> None:
    async with agent_client(runtime) as agent:
        result = await agent.call_tool("get_ticket", {"ticket_id": 999}, meta=meta("n-1"))
        assert result.is_error is True
        assert result.content[0].text == "ticket 999 not found"  # type: ignore[union-attr]
        reply = body(await agent.call_tool("guard_commit", {"summary": "nothing"}, meta=meta("n-1")))
    assert reply["status"] == "committed"
    detail = await runtime.manager.audit.get_transaction("n-1")
    assert detail is not None
    assert [(c.tool, c.outcome, c.error_class) for c in detail.calls] == [
        ("get_ticket", "error", "not_found")
    ]


async def test_stream_keys_open_a_new_transaction_after_commit(
    runtime: Runtime, settings: GuardSettings
) -> None:
    async with agent_client(runtime) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "pending"})
        first = body(await agent.call_tool("guard_commit", {"summary": "one"}))
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "solved"})
        second = body(await agent.call_tool("guard_commit", {"summary": "two"}))
    assert first["transaction"] != second["transaction"]
    assert (first["status"], second["status"]) == ("committed", "committed")
    assert ticket_status(settings, 21) == "solved"


async def test_two_transactions_do_not_see_each_others_writes(
    runtime: Runtime, settings: GuardSettings
) -> None:
    """Requirement G6: uncommitted writes are invisible to other transactions (SQLite)."""
    async with agent_client(runtime) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "pending"}, meta=meta("a"))
        seen = body(await agent.call_tool("get_ticket", {"ticket_id": 21}, meta=meta("b")))
        assert seen["status"] == "open"
        reply = body(await agent.call_tool("guard_commit", {"summary": "a"}, meta=meta("a")))
        assert reply["status"] == "committed"
    assert ticket_status(settings, 21) == "pending"


async def test_sqlite_second_writer_waits_then_gets_a_conflict_naming_the_holder(
    runtime: Runtime, settings: GuardSettings, clock: FixedClock
) -> None:
    """Requirement G24: a second writer waits lock_timeout_s once, then gets a conflict naming the holder."""
    async with agent_client(runtime) as agent:
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "pending"}, meta=meta("w-1"))
        clock.advance(42)
        blocked = await agent.call_tool(
            "update_ticket", {"ticket_id": 20, "status": "hold"}, meta=meta("w-2")
        )
        assert blocked.is_error is True
        text = blocked.content[0].text  # type: ignore[union-attr]
        assert "locked by another open transaction, transaction w-1 (open 42 s, last call 42 s ago)" in text
        assert "nothing was changed" in text
        assert (
            body(await agent.call_tool("guard_commit", {"summary": "a"}, meta=meta("w-1")))["status"]
            == "committed"
        )
        closed = body(await agent.call_tool("guard_commit", {"summary": "nothing to do"}, meta=meta("w-2")))
        assert closed["status"] == "committed"
        assert closed["effects"] == []
    assert ticket_status(settings, 21) == "pending"
    assert ticket_status(settings, 20) == "open"
    detail = await runtime.manager.audit.get_transaction("w-2")
    assert detail is not None
    assert (detail.calls[0].error_class, detail.calls[0].retries) == ("conflict", 0)


async def test_configured_chain_runs_before_the_backend_judges(tmp_path: Path) -> None:
    settings = demo_settings(
        tmp_path,
        judges={
            "chain": [
                {"judge": "python", "target": "tests.guard.sample_judges:TicketLimit", "limit": 1},
                {"judge": "failed_write"},
            ]
        },
    )
    runtime = build_runtime(settings, clock=FixedClock(), sleep=no_sleep)
    await upgrade(runtime.audit_engine)
    await runtime.start()
    try:
        async with agent_client(runtime) as agent:
            await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"}, meta=meta("c-1"))
            await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "solved"}, meta=meta("c-1"))
            reply = body(await agent.call_tool("guard_commit", {"summary": "both"}, meta=meta("c-1")))
    finally:
        await runtime.stop()
    assert reply["status"] == "blocked"
    assert [f["judge"] for f in reply["findings"]] == ["ticket-limit", "support-policy"]


async def test_the_judges_see_the_commit_time_by_the_guards_clock(tmp_path: Path) -> None:
    entry = {"judge": "python", "target": "tests.guard.sample_judges:CommitTime"}
    clock = FixedClock("2025-10-01T13:00:00+00:00")
    clock.advance(90)
    runtime = build_runtime(demo_settings(tmp_path, judges={"chain": [entry]}), clock=clock, sleep=no_sleep)
    await upgrade(runtime.audit_engine)
    await runtime.start()
    try:
        async with agent_client(runtime) as agent:
            await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "solved"}, meta=meta("n-1"))
            reply = body(await agent.call_tool("guard_commit", {"summary": "done"}, meta=meta("n-1")))
    finally:
        await runtime.stop()
    assert reply["findings"][0]["message"] == "committed at 2025-10-01T13:01:30+00:00"


HOLD_NEEDS_A_NOTE = """\
name: holding
rules:
  - id: hold-needs-a-note
    when: {table: tickets, changed: [status]}
    require: "effect.after.status != 'hold' || effect.after.note != null"
    decision: block
    message: "ticket {{effect.key}} is on hold without a note"
"""


async def test_one_agents_hung_judge_blocks_only_that_agents_commits(tmp_path: Path) -> None:
    """Requirement G22: a judge that hangs on one agent's commits is quarantined for that agent (its
    third commit is refused at once); another agent's commits still get the judge's verdict."""
    (tmp_path / "holding.yaml").write_text(HOLD_NEEDS_A_NOTE)
    entry = {
        "judge": "python",
        "target": "tests.guard.sample_judges:HangingPack",
        "path": str(tmp_path / "holding.yaml"),
        "hangs_on": [20],
    }
    settings = demo_settings(tmp_path, commit={"judge_timeout_s": 0.05}, judges={"chain": [entry]})
    runtime = build_runtime(settings, clock=FixedClock(), sleep=no_sleep)
    await upgrade(runtime.audit_engine)
    await runtime.start()
    (pack,) = [judge for judge in runtime.manager.gate.judges if judge.name == "holding"]
    try:
        async with agent_client(runtime, "mallory") as mallory:
            await mallory.call_tool("update_ticket", {"ticket_id": 20, "status": "hold"}, meta=meta("m-1"))
            replies = [
                body(await mallory.call_tool("guard_commit", {"summary": "hold"}, meta=meta("m-1")))
                for _ in range(3)
            ]
        assert [r["status"] for r in replies] == ["blocked", "blocked", "rolled_back"]
        async with agent_client(runtime, "alice") as alice:
            await alice.call_tool("update_ticket", {"ticket_id": 21, "status": "hold"}, meta=meta("a-1"))
            held = body(await alice.call_tool("guard_commit", {"summary": "hold"}, meta=meta("a-1")))
            assert held["status"] == "blocked"
            assert held["findings"][0]["message"] == "ticket 21 is on hold without a note"
            await alice.call_tool(
                "update_ticket",
                {"ticket_id": 21, "status": "hold", "note": "waits for the carrier"},
                meta=meta("a-1"),
            )
            done = body(await alice.call_tool("guard_commit", {"summary": "hold"}, meta=meta("a-1")))
        assert done["status"] == "committed"
        assert pack.calls == 2 + 2  # type: ignore[attr-defined]
        assert replies[2]["findings"][0]["message"].startswith(
            "judge holding is quarantined for agent 'mallory': 2 of its evaluations"
        )
    finally:
        pack.release.set()  # type: ignore[attr-defined]
        await runtime.stop()
    assert ticket_status(settings, 21) == "hold"


async def test_a_judge_that_allows_with_a_blocking_finding_blocks_the_commit(tmp_path: Path) -> None:
    """Requirement G35: ``Verdict(ALLOW, [block finding])`` does not commit; the agent reads the finding."""
    settings = demo_settings(
        tmp_path, judges={"chain": [{"judge": "python", "target": "tests.guard.sample_judges:Understated"}]}
    )
    runtime = build_runtime(settings, clock=FixedClock(), sleep=no_sleep)
    await upgrade(runtime.audit_engine)
    await runtime.start()
    try:
        async with agent_client(runtime) as agent:
            await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "pending"}, meta=meta("u-1"))
            reply = body(await agent.call_tool("guard_commit", {"summary": "done"}, meta=meta("u-1")))
    finally:
        await runtime.stop()
    assert reply["status"] == "blocked"
    assert [f["message"] for f in reply["findings"]] == ["this commit must not go ahead"]
    assert ticket_status(settings, 21) == "open"


def test_a_bad_judge_entry_is_a_config_error(tmp_path: Path) -> None:
    settings = demo_settings(tmp_path, judges={"chain": [{"judge": "python", "target": "nowhere:Thing"}]})
    with pytest.raises(ConfigError, match="cannot load python judge 'nowhere:Thing'"):
        build_runtime(settings)
    settings = demo_settings(tmp_path, judges={"chain": [{"judge": "rules", "path": "missing.yaml"}]})
    with pytest.raises(ConfigError, match="judges: "):
        build_runtime(settings)


async def test_sqlite_stale_snapshot_is_reported_at_once(runtime: Runtime, settings: GuardSettings) -> None:
    """SQLite: a transaction whose snapshot another commit overtook cannot write; it is told, not retried."""
    async with agent_client(runtime) as agent:
        await agent.call_tool("get_ticket", {"ticket_id": 21}, meta=meta("old"))
        await agent.call_tool("update_ticket", {"ticket_id": 21, "status": "pending"}, meta=meta("new"))
        assert (
            body(await agent.call_tool("guard_commit", {"summary": "x"}, meta=meta("new")))["status"]
            == "committed"
        )
        stale = await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "hold"}, meta=meta("old"))
        assert stale.is_error is True
        assert "another transaction may have changed them" in stale.content[0].text  # type: ignore[union-attr]
    detail = await runtime.manager.audit.get_transaction("old")
    assert detail is not None
    assert (detail.calls[-1].error_class, detail.calls[-1].retries) == ("precondition_failed", 0)
    assert ticket_status(settings, 20) == "open"


async def test_the_agent_can_discard_its_transaction(runtime: Runtime, settings: GuardSettings) -> None:
    """Requirement G1: what the agent discards never reaches the system of record."""
    async with agent_client(runtime) as agent:
        names = {tool.name for tool in (await agent.list_tools()).tools}
        assert {"guard_commit", "guard_rollback"} <= names
        await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "solved"})
        discarded = await agent.call_tool("guard_rollback", {"reason": "wrong ticket"})
        reply = body(discarded)
        assert reply["status"] == "rolled_back"
        assert "wrong ticket" in reply["message"]
        assert ticket_status(settings, 20) == "open"
        nothing = await agent.call_tool("guard_rollback", {})
        assert nothing.is_error is True
        assert "there is nothing to roll back" in nothing.content[0].text  # type: ignore[union-attr]
        await agent.call_tool("update_ticket", {"ticket_id": 20, "status": "hold", "note": "waiting"})
        assert body(await agent.call_tool("guard_commit", {"summary": "hold"}))["status"] == "committed"
    assert ticket_status(settings, 20) == "hold"
