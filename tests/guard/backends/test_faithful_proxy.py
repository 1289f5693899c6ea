"""Faithful proxying: what the upstream answers reaches the agent as it was sent.

An in-process upstream (the SDK's low-level ``Server``) with a file-like tool
that answers with text and an image, a tool with structured content, a tool
that fails, resources and prompts; the guard in front of it in memory; the agent
is the official client in process.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from guard.audit.log import MemoryAudit
from guard.backends.outbox import MemoryOutbox
from guard.clock import FixedClock
from guard.edge.mcp_client import ClientUpstream
from guard.runtime import Runtime, assemble, mcp_backend
from tests.guard.conftest import agent_client, meta, no_sleep
from tests.guard.mcp_support import mcp_settings

_PNG = "iVBORw0KGgo="
_FILE = "line one\nline two\n"

_TOOLS = [
    types.Tool(
        name="read_file",
        description="Read a file.",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    ),
    types.Tool(
        name="stat",
        description="A file's size.",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
        output_schema={"type": "object", "properties": {"size": {"type": "integer"}}},
        annotations=types.ToolAnnotations(read_only_hint=True),
    ),
    types.Tool(
        name="write_file",
        description="Write a file.",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
        annotations=types.ToolAnnotations(read_only_hint=False, open_world_hint=True),
    ),
]


def _files_server() -> Server[Any]:
    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=_TOOLS)

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        path = (params.arguments or {}).get("path")
        if params.name == "read_file" and path == "/missing":
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="ENOENT: no such file /missing")], is_error=True
            )
        if params.name == "read_file":
            return types.CallToolResult(
                content=[
                    types.TextContent(type="text", text=_FILE),
                    types.ImageContent(type="image", data=_PNG, mime_type="image/png"),
                ]
            )
        if params.name == "stat":
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="18 bytes")], structured_content={"size": 18}
            )
        return types.CallToolResult(content=[types.TextContent(type="text", text="written")])

    async def list_resources(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[types.Resource(uri="file:///notes.txt", name="notes", mime_type="text/plain")]
        )

    async def read_resource(
        ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        if str(params.uri) != "file:///notes.txt":
            raise MCPError(-32002, f"no resource {params.uri}")
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=params.uri, text=_FILE, mime_type="text/plain")]
        )

    async def list_prompts(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[types.Prompt(name="summarise", arguments=[types.PromptArgument(name="path")])]
        )

    async def get_prompt(
        ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        path = (params.arguments or {}).get("path")
        message = types.PromptMessage(
            role="user", content=types.TextContent(type="text", text=f"Summarise {path}")
        )
        return types.GetPromptResult(messages=[message])

    return Server(
        "files",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


@asynccontextmanager
async def _guard(tmp_path: Path) -> AsyncIterator[Runtime]:
    settings = mcp_settings(tmp_path)
    clock = FixedClock()
    upstream = ClientUpstream(_files_server(), name="files")
    backend = mcp_backend(settings, upstream, MemoryOutbox(), clock=clock, sleep=no_sleep)
    runtime = assemble(settings, backend, MemoryAudit(), clock=clock, sleep=no_sleep)
    await runtime.start()
    try:
        yield runtime
    finally:
        await runtime.stop()


async def test_content_blocks_reach_the_agent_as_the_upstream_sent_them(tmp_path: Path) -> None:
    """Requirement G48: a file's text arrives as text (not JSON), an image as an image block, structured
    content as it was."""
    async with _guard(tmp_path) as runtime, agent_client(runtime) as agent:
        read = await agent.call_tool("read_file", {"path": "/a.txt"}, meta=meta("f-1"))
        stat = await agent.call_tool("stat", {"path": "/a.txt"}, meta=meta("f-1"))
        await agent.call_tool("guard_commit", {"summary": "read"}, meta=meta("f-1"))
    assert read.is_error is False
    assert read.content == [
        types.TextContent(type="text", text=_FILE),
        types.ImageContent(type="image", data=_PNG, mime_type="image/png"),
    ]
    assert stat.structured_content == {"size": 18}
    assert stat.content == [types.TextContent(type="text", text="18 bytes")]


async def test_an_upstream_error_is_passed_on_and_annotations_are_kept(tmp_path: Path) -> None:
    """Requirement G48: an upstream tool error arrives as its own text with isError; openWorldHint is
    listed as the upstream gave it."""
    async with _guard(tmp_path) as runtime, agent_client(runtime) as agent:
        listed = {tool.name: tool for tool in (await agent.list_tools()).tools}
        missing = await agent.call_tool("read_file", {"path": "/missing"}, meta=meta("f-2"))
    assert missing.is_error is True
    assert missing.content == [types.TextContent(type="text", text="ENOENT: no such file /missing")]
    hints = {name: tool.annotations for name, tool in listed.items()}
    assert hints["read_file"] is not None
    assert hints["read_file"].open_world_hint is False
    assert hints["write_file"] is not None
    assert hints["write_file"].open_world_hint is True
    assert hints["stat"] is not None
    assert hints["stat"].open_world_hint is None


async def test_resources_and_prompts_are_relayed_read_only(tmp_path: Path) -> None:
    """Requirement G48: resources (list, read) and prompts (list, get) are the upstream's answers; an
    upstream's refusal arrives as its error; nothing opens a transaction."""
    async with _guard(tmp_path) as runtime, agent_client(runtime) as agent:
        resources = await agent.list_resources()
        read = await agent.read_resource("file:///notes.txt")
        prompts = await agent.list_prompts()
        prompt = await agent.get_prompt("summarise", {"path": "/a.txt"})
        with pytest.raises(MCPError, match="no resource file:///other"):
            await agent.read_resource("file:///other")
        audit = runtime.manager.audit
        assert isinstance(audit, MemoryAudit)
        assert await audit.list_transactions(None, 10) == []
    assert [str(r.uri) for r in resources.resources] == ["file:///notes.txt"]
    assert read.contents[0].text == _FILE  # type: ignore[union-attr]
    assert [p.name for p in prompts.prompts] == ["summarise"]
    assert prompt.messages[0].content == types.TextContent(type="text", text="Summarise /a.txt")
