"""The plain MCP server over a tool registry: one world, each call its own transaction."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.clock import FixedClock
from guard.demo import backend as demo
from guard.edge.plain import build_plain_server
from guard.edge.server import spec_tool
from guard.store.engine import create_engine


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(f"sqlite:///{tmp_path / 'plain.db'}")
    async with engine.begin() as conn:
        await demo.prepare(conn)
    yield engine
    await engine.dispose()


async def test_a_call_runs_before_any_listing_and_the_listing_is_the_registrys(engine: AsyncEngine) -> None:
    async with Client(build_plain_server(engine, demo.tools, FixedClock(), output_schemas=False)) as client:
        got = await client.call_tool("get_order", {"order_id": "ORD-10000020"})
        assert not got.is_error, got.content
        assert isinstance(got.structured_content, dict)
        assert got.structured_content["id"] == "ORD-10000020"
        listed = await client.list_tools()
    assert listed.tools == [spec_tool(spec, output_schema=False) for spec in demo.tools]


async def test_an_unknown_tool_is_invalid_params_and_a_failed_call_an_error_result(
    engine: AsyncEngine,
) -> None:
    async with Client(build_plain_server(engine, demo.tools, FixedClock())) as client:
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("drop_tables", {})
        assert unknown.value.code == types.INVALID_PARAMS
        missing = await client.call_tool("get_ticket", {"ticket_id": 999999})
        assert missing.is_error
