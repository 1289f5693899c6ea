"""The benchmark's trial router: one client in front of one server per trial, each call to its trial's."""

from __future__ import annotations

from typing import Any, cast

import mcp_types as types
import pytest
from mcp import Client
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from benchmark.run.router import TRIAL_META, TrialRouter


def _server(world: str) -> Server[Any]:
    """A server whose one tool names the world it runs on."""

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="where", input_schema={"type": "object"})])

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=world)])

    return Server(
        f"tools-{world}",
        version="1.2.3",
        instructions=f"on {world}",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _where(client: Client, trial: str) -> str:
    result = await client.call_tool("where", {}, meta=cast(types.RequestParamsMeta, {TRIAL_META: trial}))
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


async def test_each_call_reaches_the_server_of_its_trial() -> None:
    first, second = _server("first"), _server("second")
    router = TrialRouter(first)
    router.add("t0", first)
    router.add("t1", second)
    async with Client(router.server) as client:
        listed = await client.list_tools()
        assert [tool.name for tool in listed.tools] == ["where"]
        assert client.server_info is not None
        assert (client.server_info.name, client.server_info.version) == ("tools-first", "1.2.3")
        assert client.instructions == "on first"
        assert [await _where(client, "t1"), await _where(client, "t0")] == ["second", "first"]


async def test_a_call_naming_no_trial_or_an_ended_one_is_refused() -> None:
    server = _server("only")
    router = TrialRouter(server)
    router.add("t0", server)
    async with Client(router.server) as client:
        assert await _where(client, "t0") == "only"
        router.remove("t0")
        with pytest.raises(MCPError) as ended:
            await _where(client, "t0")
        assert (ended.value.code, ended.value.message) == (types.INVALID_PARAMS, "the trial has ended")
        with pytest.raises(MCPError) as unnamed:
            await client.call_tool("where", {})
        assert unnamed.value.code == types.INVALID_PARAMS
        assert TRIAL_META in unnamed.value.message
