"""A plain MCP server over a tool registry: no transaction across calls, no judges.

Each call runs in its own database transaction, committed when it ends, even
when the tool reported an error, so that a tool which changed state and then
failed leaves that change behind, as an unguarded tool server does. (A call
that raised instead, a database error or a bug, is rolled back: the
connection may not be usable for a commit.) It serves the benchmark's
baseline arm and the guard's overhead measurement.
"""

from __future__ import annotations

import logging
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from sqlalchemy.ext.asyncio import AsyncEngine

from guard.clock import Clock
from guard.edge.server import spec_tool
from guard.errors import ToolError
from guard.tools import ToolContext, ToolRegistry
from guard.transaction.execute import CallOutcome, execute

__all__ = ["build_plain_server", "run_plain_call"]

log = logging.getLogger(__name__)


async def run_plain_call(
    engine: AsyncEngine, registry: ToolRegistry, clock: Clock, tool: str, arguments: dict[str, Any] | None
) -> CallOutcome:
    """One call in its own transaction, committed whatever the tool reported."""
    spec = registry[tool]
    async with engine.connect() as conn:
        await conn.begin()
        try:
            outcome = await execute(spec, ToolContext(conn, clock, tool), arguments)
        except Exception as exc:
            await conn.rollback()
            log.exception("tool %s raised", tool)
            return CallOutcome(error=ToolError(f"{type(exc).__name__}: {exc}"))
        await conn.commit()
    return outcome


def build_plain_server(
    engine: AsyncEngine,
    registry: ToolRegistry,
    clock: Clock,
    *,
    name: str = "tools",
    output_schemas: bool = True,
) -> Server[Any]:
    """The plain MCP server over ``registry`` on ``engine``.

    The listing is built when first asked for: a call checks its tool's name against the
    registry alone, so a server that is never asked to list never builds it.
    """
    listed: list[types.Tool] = []
    schemas = {spec.name: spec.input_schema for spec in registry}

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        if not listed:
            listed.extend(spec_tool(spec, output_schema=output_schemas) for spec in registry)
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in schemas:
            raise MCPError(types.INVALID_PARAMS, f"unknown tool {params.name!r}")
        outcome = await run_plain_call(engine, registry, clock, params.name, params.arguments)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.text(params.name, registry.error_text))],
            structured_content=outcome.structured,
            is_error=not outcome.ok,
        )

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool, get_tool_input_schema=schemas.get)
