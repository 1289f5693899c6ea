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
from collections.abc import Callable
from dataclasses import dataclass
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

__all__ = ["PlainTarget", "build_plain_server", "build_routed_plain_server", "run_plain_call"]

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


@dataclass(frozen=True)
class PlainTarget:
    """Where a plain call runs: the database, the tools and the clock."""

    engine: AsyncEngine
    registry: ToolRegistry
    clock: Clock


def build_plain_server(
    engine: AsyncEngine,
    registry: ToolRegistry,
    clock: Clock,
    *,
    name: str = "tools",
    output_schemas: bool = True,
) -> Server[Any]:
    """The plain MCP server over ``registry`` on ``engine``."""
    target = PlainTarget(engine, registry, clock)
    return build_routed_plain_server(registry, lambda ctx: target, name=name, output_schemas=output_schemas)


def build_routed_plain_server(
    registry: ToolRegistry,
    route: Callable[[ServerRequestContext[Any, Any]], PlainTarget],
    *,
    name: str = "tools",
    output_schemas: bool = True,
) -> Server[Any]:
    """A plain MCP server listing ``registry``'s tools, whose every call runs where ``route`` says.

    One server in front of many databases with the same tools (the benchmark's trials, each on
    its own world); ``route`` reads the request (its ``_meta``, say) and raises ``MCPError`` for a
    request it cannot place.
    """
    listed = [spec_tool(spec, output_schema=output_schemas) for spec in registry]
    schemas = {tool.name: tool.input_schema for tool in listed}

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in schemas:
            raise MCPError(types.INVALID_PARAMS, f"unknown tool {params.name!r}")
        target = route(ctx)
        outcome = await run_plain_call(
            target.engine, target.registry, target.clock, params.name, params.arguments
        )
        return types.CallToolResult(
            content=[
                types.TextContent(type="text", text=outcome.text(params.name, target.registry.error_text))
            ],
            structured_content=outcome.structured,
            is_error=not outcome.ok,
        )

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool, get_tool_input_schema=schemas.get)
