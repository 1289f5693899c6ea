"""The upstream MCP server as the ``mcp`` backend reaches it, through the official SDK's client.

:class:`ClientUpstream` holds one ``mcp.Client`` for the guard's lifetime,
entered and exited in a task of its own (the SDK's client is an anyio
context that must end in the task it began in, and the guard starts and
stops in whatever task its host uses). Given an in-process ``Server`` or
``MCPServer`` it talks to it in memory; :func:`connect_upstream` builds the
real one from settings: streamable HTTP (``url``, ``headers``) or stdio
(``command``, ``args``, ``env``, ``cwd``). The SDK's types stop here:
the backend sees :class:`guard.backends.upstream.UpstreamTool` and
:class:`~guard.backends.upstream.UpstreamResult`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Mapping
from typing import Any, cast
from urllib.parse import urlsplit

import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer

from guard.backends.upstream import UpstreamResult, UpstreamTool
from guard.errors import BackendError
from guard.settings import McpSettings

__all__ = ["ClientUpstream", "connect_upstream"]

log = logging.getLogger(__name__)

Target = Server[Any] | MCPServer | StdioServerParameters | str


def _text(block: types.ContentBlock) -> str:
    if isinstance(block, types.TextContent):
        return block.text
    kind = getattr(block, "type", type(block).__name__)
    mime = getattr(block, "mime_type", None)
    return f"[{kind} content{' ' + mime if mime else ''} not forwarded by the guard]"


def _result(result: types.CallToolResult) -> UpstreamResult:
    text = "\n".join(_text(block) for block in result.content)
    structured = result.structured_content
    if not text and structured is not None:
        text = json.dumps(structured, ensure_ascii=False)
    return UpstreamResult(text, structured if isinstance(structured, dict) else None, bool(result.is_error))


def _tool(tool: types.Tool) -> UpstreamTool:
    hints = tool.annotations
    return UpstreamTool(
        name=tool.name,
        description=tool.description or "",
        input_schema=dict(tool.input_schema),
        output_schema=None if tool.output_schema is None else dict(tool.output_schema),
        title=tool.title or (hints.title if hints is not None else None),
        read_only=None if hints is None else hints.read_only_hint,
        destructive=None if hints is None else hints.destructive_hint,
        idempotent=None if hints is None else hints.idempotent_hint,
    )


class ClientUpstream:
    """An :class:`guard.backends.upstream.Upstream` over ``mcp.Client``."""

    def __init__(
        self,
        target: Target,
        *,
        name: str = "upstream",
        timeout_s: float = 30.0,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.name = name
        self._target = target
        self._timeout_s = timeout_s
        self._headers = dict(headers or {})
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    async def _hold(self, ready: asyncio.Event) -> None:
        async with contextlib.AsyncExitStack() as stack:
            target: Any = self._target
            if isinstance(target, str):
                http = await stack.enter_async_context(
                    httpx2.AsyncClient(
                        headers=self._headers, timeout=httpx2.Timeout(self._timeout_s, read=300.0)
                    )
                )
                target = streamable_http_client(target, http_client=http)
            client = Client(target, read_timeout_seconds=self._timeout_s, cache=None)
            try:
                self._client = await stack.enter_async_context(client)
                ready.set()
                await self._stop.wait()
            finally:
                self._client = None

    async def start(self) -> None:
        ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task = asyncio.create_task(self._hold(ready), name=f"guard-upstream {self.name}")
        waiter = asyncio.create_task(ready.wait())
        try:
            done, _ = await asyncio.wait(
                {self._task, waiter}, timeout=self._timeout_s, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            waiter.cancel()
        if ready.is_set():
            return
        if self._task in done:
            problem = self._task.exception()
            raise BackendError(f"cannot connect to the upstream {self.name}: {problem}") from problem
        await self.close()
        raise BackendError(f"cannot connect to the upstream {self.name}: no answer in {self._timeout_s:g}s")

    def _session(self) -> Client:
        if self._client is None:
            raise BackendError(f"the upstream {self.name} is not connected")
        return self._client

    async def list_tools(self) -> list[UpstreamTool]:
        client = self._session()
        tools: list[UpstreamTool] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools.extend(_tool(tool) for tool in page.tools)
            cursor = page.next_cursor
            if cursor is None:
                return tools

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], *, meta: Mapping[str, Any] | None = None
    ) -> UpstreamResult:
        request_meta = cast(types.RequestParamsMeta, dict(meta)) if meta is not None else None
        result = await self._session().call_tool(name, dict(arguments), meta=request_meta)
        return _result(result)

    async def ping(self) -> None:
        """One ``tools/list`` round trip (MCP 2026-07-28 has no ``ping``)."""
        await self._session().list_tools()

    async def close(self) -> None:
        self._stop.set()
        if self._task is not None:
            task, self._task = self._task, None
            await asyncio.gather(task, return_exceptions=True)


def _url_name(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or ''}{':' + str(parts.port) if parts.port else ''}{parts.path}"


def connect_upstream(settings: McpSettings) -> ClientUpstream:
    """The upstream a config names (not yet started)."""
    if settings.url is not None:
        return ClientUpstream(
            settings.url, name=_url_name(settings.url), timeout_s=settings.timeout_s, headers=settings.headers
        )
    if settings.command is None:
        raise BackendError("backend.mcp names no upstream: set url or command")
    params = StdioServerParameters(
        command=settings.command, args=list(settings.args), env=dict(settings.env) or None, cwd=settings.cwd
    )
    return ClientUpstream(
        params, name=" ".join([settings.command, *settings.args])[:200], timeout_s=settings.timeout_s
    )
