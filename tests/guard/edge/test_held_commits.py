"""A commit held for a reviewer, in the protocol itself: the official client is sent the console page as
a URL elicitation (an input-required result, MCP 2026-07-28) and waits for the decision; a client that
cannot take it keeps the pending reply."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.server.context import ServerRequestContext

from guard.clock import FixedClock
from guard.edge.server import build_server
from guard.runtime import Runtime, build_runtime
from guard.store.migrate import upgrade
from guard.transaction.replies import TxnKey
from tests.guard.conftest import meta, no_sleep, ticket_status
from tests.guard.edge.test_console import console_settings

CLOSE = {"ticket_id": 21, "status": "closed"}


@pytest.fixture
async def held(tmp_path: Path) -> AsyncIterator[Runtime]:
    settings = console_settings(
        tmp_path,
        console={"public_url": "https://guard.example.com", "approval_wait_s": 0.3, "approval_rounds": 6},
    )
    runtime = build_runtime(settings, clock=FixedClock(), sleep=no_sleep)
    assert runtime.audit_engine is not None
    await upgrade(runtime.audit_engine)
    await runtime.start()
    try:
        yield runtime
    finally:
        await runtime.stop()


def _client(runtime: Runtime, on_page: Any = None) -> Client:
    def resolve(ctx: ServerRequestContext[Any, Any]) -> TxnKey:
        found = ctx.meta if isinstance(ctx.meta, dict) else {}
        return TxnKey(str(found["guard/transaction"]), "agent-a", found)

    server = build_server(runtime.manager, resolve)
    return Client(server) if on_page is None else Client(server, elicitation_callback=on_page)


def _reviewer(runtime: Runtime, approve: bool, pages: list[str], *, after_s: float = 0.0) -> Any:
    async def on_page(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestURLParams)
        pages.append(params.url)

        async def decide() -> None:
            await asyncio.sleep(after_s)
            await runtime.manager.review("e-1", approve=approve, reviewer="ana")

        asyncio.get_running_loop().create_task(decide())
        return types.ElicitResult(action="accept")

    return on_page


async def _commit(client: Client) -> types.CallToolResult:
    await client.call_tool("update_ticket", CLOSE, meta=meta("e-1"))
    return await client.call_tool("guard_commit", {"summary": "closed 21"}, meta=meta("e-1"))


async def test_an_agent_waits_on_the_page_and_sees_the_approved_commit(held: Runtime) -> None:
    """Requirement G53: the client is sent the transaction's console page, waits, and gets committed."""
    pages: list[str] = []
    async with _client(held, _reviewer(held, True, pages)) as agent:
        result = await _commit(agent)
    assert pages == ["https://guard.example.com/console/t/e-1"]
    assert result.is_error is False
    assert (result.structured_content or {})["status"] == "committed"
    assert "approved by ana" in (result.structured_content or {})["message"]
    assert ticket_status(held.settings, 21) == "closed"


async def test_an_agent_waits_and_sees_the_rejection(held: Runtime) -> None:
    """Requirement G53: rejected while the client waits, it gets rolled_back, and nothing changed."""
    pages: list[str] = []
    async with _client(held, _reviewer(held, False, pages)) as agent:
        result = await _commit(agent)
    assert (result.structured_content or {})["status"] == "rolled_back"
    assert "rejected by ana" in (result.structured_content or {})["message"]
    assert ticket_status(held.settings, 21) == "open"


async def test_a_slow_reviewer_is_waited_for_over_several_rounds(held: Runtime) -> None:
    """Requirement G53: a decision later than one round's wait arrives in a later round."""
    pages: list[str] = []
    async with _client(held, _reviewer(held, True, pages, after_s=0.8)) as agent:
        result = await _commit(agent)
    assert (result.structured_content or {})["status"] == "committed"
    assert len(pages) == 1  # the page is sent once; later rounds only ask again


async def test_no_decision_within_the_rounds_or_a_declined_page_leaves_the_commit_pending(
    held: Runtime,
) -> None:
    """Requirement G53: past console.approval_rounds, or when the user declines the page, the client gets
    the pending reply; the commit still waits for a reviewer."""

    async def ignore(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept")

    async def decline(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async with _client(held, ignore) as agent:
        waited = await _commit(agent)
    async with _client(held, decline) as agent:
        declined = await agent.call_tool("guard_commit", {"summary": "closed 21"}, meta=meta("e-1"))
    assert (waited.structured_content or {})["status"] == "pending_approval"
    assert (declined.structured_content or {})["status"] == "pending_approval"
    assert held.manager.live("e-1") is not None


async def test_a_client_without_url_elicitation_keeps_the_pending_reply(held: Runtime) -> None:
    """Requirement G53: a client that cannot open a page is answered as before."""
    async with _client(held) as agent:
        result = await _commit(agent)
    assert (result.structured_content or {})["status"] == "pending_approval"


async def test_a_forged_request_state_changes_nothing(held: Runtime) -> None:
    """Requirement G53: request_state naming another transaction is invalid params."""
    async with _client(held) as agent:
        await _commit(agent)
        forged = types.CallToolRequestParams(
            name="guard_commit",
            arguments={"summary": "x"},
            request_state='{"transaction": "other", "rounds": 0}',
            _meta={"guard/transaction": "e-1"},  # type: ignore[call-arg]
        )
        with pytest.raises(Exception, match="names transaction other"):
            await agent.session.send_request(types.CallToolRequest(params=forged), types.CallToolResult)
    assert held.manager.live("e-1") is not None


@pytest.mark.parametrize(
    "state",
    [
        "",
        "null",
        "[]",
        "{}",
        '{"transaction": "e-1"}',
        '{"rounds": "x", "transaction": "e-1"}',
        "\x00",
        "{" * 500,
    ],
)
async def test_any_request_state_the_guard_did_not_write_is_refused_and_changes_nothing(
    held: Runtime, state: str
) -> None:
    """Requirement G53: a malformed request_state is invalid params; the held commit still waits."""
    async with _client(held) as agent:
        await _commit(agent)
        forged = types.CallToolRequestParams(
            name="guard_commit",
            arguments={"summary": "x"},
            request_state=state,
            _meta={"guard/transaction": "e-1"},  # type: ignore[call-arg]
        )
        with pytest.raises(Exception, match=r"request_state is not the guard's|names transaction"):
            await agent.session.send_request(types.CallToolRequest(params=forged), types.CallToolResult)
    assert held.manager.live("e-1") is not None
