"""A :class:`ToolChannel` over an MCP client: what every agent talks through."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import mcp_types as types
from mcp import Client
from mcp.shared.exceptions import MCPError

from benchmark.agents.base import ToolInfo, ToolResult
from guard.transaction.conversation import META_KEY as CONVERSATION
from judges import Turn

__all__ = ["McpChannel"]


class McpChannel:
    """Tools listed once from an MCP server, called through the same client.

    A call the server refuses with a JSON-RPC error is answered to the agent
    as an error result (models read those and recover) and kept in
    ``protocol_errors`` for the runner.

    ``meta`` is sent with every call (the benchmark names the trial there,
    when one client serves many trials); a call's conversation is added to it
    as ``_meta["guard/conversation"]`` when the channel leads to a guard (it
    has a commit tool). ``tools``, when given, is the listing
    another channel on the same client already made; :meth:`open` is then not
    needed.
    """

    def __init__(
        self,
        client: Client,
        *,
        commit_tool: str | None,
        meta: Mapping[str, Any] | None = None,
        tools: list[ToolInfo] | None = None,
    ) -> None:
        self._client = client
        self._commit_tool = commit_tool
        self._meta = cast(types.RequestParamsMeta, dict(meta)) if meta else None
        self._tools: list[ToolInfo] = tools or []
        self.calls = 0
        self.errors = 0
        self.protocol_errors: list[tuple[int, str]] = []

    async def open(self) -> McpChannel:
        listed = await self._client.list_tools()
        self._tools = [
            ToolInfo(
                name=tool.name,
                description=tool.description or "",
                input_schema=tool.input_schema,
                read_only=tool.annotations.read_only_hint if tool.annotations else None,
            )
            for tool in listed.tools
        ]
        return self

    @property
    def tools(self) -> list[ToolInfo]:
        return self._tools

    @property
    def commit_tool(self) -> str | None:
        return self._commit_tool

    async def call(
        self, name: str, arguments: Mapping[str, Any], *, conversation: Sequence[Turn] | None = None
    ) -> ToolResult:
        """The tool's result; a JSON-RPC error (unknown tool, refused call) comes back as an error result."""
        self.calls += 1
        meta = self._meta
        if conversation is not None and self._commit_tool is not None:
            said = [turn.to_dict() for turn in conversation]
            meta = cast(types.RequestParamsMeta, {**(self._meta or {}), CONVERSATION: said})
        try:
            result = await self._client.call_tool(name, dict(arguments), meta=meta)
        except MCPError as exc:
            self.errors += 1
            self.protocol_errors.append((exc.code, exc.message))
            return ToolResult(text=f"error {exc.code}: {exc.message}", structured=None, is_error=True)
        text = "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))
        structured = result.structured_content if isinstance(result.structured_content, dict) else None
        if result.is_error:
            self.errors += 1
        return ToolResult(text=text, structured=structured, is_error=result.is_error)
