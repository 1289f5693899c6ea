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
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar, cast
from urllib.parse import quote, urlsplit

import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from tenacity import AsyncRetrying, retry_if_exception_type, wait_exponential_jitter

from guard.backends.base import ACTING_FOR
from guard.backends.outbox import IDEMPOTENCY_KEY
from guard.backends.upstream import Namespaced, Upstream, UpstreamResult, UpstreamTool
from guard.errors import BackendError, UpstreamDown
from guard.settings import NAMESPACE, McpSettings, ReconnectSettings, UpstreamSettings

__all__ = ["ClientUpstream", "LinkStatus", "connect_upstream"]

log = logging.getLogger(__name__)

Target = Server[Any] | MCPServer | StdioServerParameters | str
R = TypeVar("R")


def _text(block: types.ContentBlock) -> str:
    """A block as the audit log and the judges read it: text as it is, anything else named (the agent
    gets the block itself)."""
    if isinstance(block, types.TextContent):
        return block.text
    kind = getattr(block, "type", type(block).__name__)
    mime = getattr(block, "mime_type", None)
    return f"[{kind} content{' ' + mime if mime else ''}]"


def _bare_text(block: types.ContentBlock) -> bool:
    return isinstance(block, types.TextContent) and block.annotations is None and block.meta is None


def _result(result: types.CallToolResult) -> UpstreamResult:
    text = "\n".join(_text(block) for block in result.content)
    structured = result.structured_content
    if not text and structured is not None:
        text = json.dumps(structured, ensure_ascii=False)
    plain = len(result.content) == 1 and _bare_text(result.content[0])
    # the SDK's own block objects, handed to the edge as they are (a single bare text block is rendered
    # the same from the text, so it is not kept)
    blocks: tuple[Any, ...] = () if structured is None and plain else tuple(result.content)
    return UpstreamResult(
        text, structured if isinstance(structured, dict) else None, bool(result.is_error), blocks
    )


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
        open_world=None if hints is None else hints.open_world_hint,
    )


_WATCH_S = 0.5
"""How often the supervisor looks whether an idle link closed under it."""

_SESSION_GONE = re.compile(r"session (not found|terminated|expired)|unknown session", re.IGNORECASE)


def _connection_closed(exc: BaseException) -> bool:
    """The SDK's report that the link to the upstream is gone (stdio EOF, HTTP stream closed)."""
    return isinstance(exc, MCPError) and exc.error.code == types.CONNECTION_CLOSED


def _session_gone(exc: BaseException) -> bool:
    """An HTTP upstream that restarted or expired the session: it refused the request unread."""
    return isinstance(exc, MCPError) and bool(_SESSION_GONE.search(exc.error.message))


def _closed_before_send(client: Client) -> bool:
    """Whether the client's link is already closed, so a request would not even be written.

    The SDK keeps this on its dispatcher without a public accessor; read defensively (unknown means
    open, so a failure stays "may have been applied"). ``tests/guard/backends/test_upstream_supervision``
    pins the behaviour against a real server.
    """
    dispatcher = getattr(getattr(client, "_session", None), "_dispatcher", None)
    return bool(getattr(dispatcher, "_closed", False))


class _Transport(httpx2.AsyncBaseTransport):
    """The HTTP transport: it names the agent a request is made for, and notes the idempotency key of
    every write whose POST never connected.

    ``agent_headers`` are rendered for the agent of the transaction the request is made in
    (:data:`guard.backends.base.ACTING_FOR`, which the request's task inherits). The SDK reports a link
    that failed under a call as "connection closed", whether or not the call had been sent; a connect
    error is the one failure that proves it was not. Only failures pay the parse.
    """

    def __init__(self, inner: httpx2.AsyncBaseTransport, agent_headers: Mapping[str, str]) -> None:
        self._inner = inner
        self._agent_headers = dict(agent_headers)
        self.unsent: deque[str] = deque(maxlen=1024)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        principal = ACTING_FOR.get()
        if principal is not None and self._agent_headers:
            named = quote(principal, safe="@._-:")
            for header, template in self._agent_headers.items():
                request.headers[header] = template.replace("{principal}", named)
        try:
            return await self._inner.handle_async_request(request)
        except httpx2.ConnectError:
            key = _write_key(request.content)
            if key is not None:
                self.unsent.append(key)
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()


def _write_key(content: bytes) -> str | None:
    try:
        meta = json.loads(content)["params"]["_meta"]
        key = meta[IDEMPOTENCY_KEY]
    except (ValueError, LookupError, TypeError):
        return None
    return key if isinstance(key, str) else None


@dataclass(frozen=True, slots=True)
class LinkStatus:
    """What the supervisor knows of the upstream: connected or not, since when, and why not."""

    connected: bool
    connections: int
    since: float
    last_error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "connected": self.connected,
            "connections": self.connections,
            "since_monotonic": round(self.since, 3),
            "last_error": self.last_error,
        }


class ClientUpstream:
    """An :class:`guard.backends.upstream.Upstream` over ``mcp.Client``, supervised.

    A task of its own holds the client: it connects, and whenever the link goes (a stdio child that died,
    an HTTP server that went away or no longer knows the session) it reconnects, at once and then with
    tenacity's exponential backoff, until the guard stops. A call made while the link is down waits up to
    ``reconnect.wait_s`` for it, then is refused with :class:`guard.errors.UpstreamDown` (unsent, so
    ``transient``); a call cut off mid-flight by the link going stays ambiguous (the classifier's
    ``timeout``), except a request the upstream refused for an unknown session, which is resent once on
    the new link (the upstream never read it).
    """

    def __init__(
        self,
        target: Target,
        *,
        name: str = "upstream",
        timeout_s: float = 30.0,
        headers: Mapping[str, str] | None = None,
        reconnect: ReconnectSettings | None = None,
        agent_headers: Mapping[str, str] | None = None,
    ) -> None:
        self.name = name
        self._target = target
        self._timeout_s = timeout_s
        self._headers = dict(headers or {})
        self._reconnect = reconnect or ReconnectSettings()
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._up = asyncio.Event()
        self._broken = asyncio.Event()
        self._status = LinkStatus(False, 0, time.monotonic(), "not started")
        self._agent_headers = dict(agent_headers or {})
        self._transport: _Transport | None = None

    @property
    def status(self) -> LinkStatus:
        return self._status

    # -- the supervisor ----------------------------------------------------------------------

    async def _open(self, stack: contextlib.AsyncExitStack) -> Client:
        target: Any = self._target
        if isinstance(target, str):
            self._transport = _Transport(httpx2.AsyncHTTPTransport(), self._agent_headers)
            http = await stack.enter_async_context(
                httpx2.AsyncClient(
                    headers=self._headers,
                    timeout=httpx2.Timeout(self._timeout_s, read=300.0),
                    transport=self._transport,
                )
            )
            target = streamable_http_client(target, http_client=http)
        client = Client(target, read_timeout_seconds=self._timeout_s, cache=None)
        async with asyncio.timeout(self._timeout_s):
            return await stack.enter_async_context(client)

    async def _hold_once(self) -> None:
        """Connect and hold the link until it breaks or the guard stops; a failed connect raises."""
        if self._stop.is_set():
            return
        held = False
        try:
            async with contextlib.AsyncExitStack() as stack:
                client = await self._open(stack)
                held = True
                self._client = client
                self._broken = asyncio.Event()
                self._status = LinkStatus(True, self._status.connections + 1, time.monotonic())
                self._up.set()
                if self._status.connections > 1:
                    log.warning("upstream %s: reconnected", self.name)
                while not (self._broken.is_set() or self._stop.is_set()):
                    await _first(self._broken.wait(), self._stop.wait(), asyncio.sleep(_WATCH_S))
                    if _closed_before_send(client):  # a link gone quiet (a stdio child that died)
                        self._broken.set()
        except Exception as exc:
            if not held:
                self._went_down(exc)
                raise
            self._went_down(exc)
        finally:
            self._up.clear()
            self._client = None
        if not self._stop.is_set() and self._status.connected:
            self._went_down(None)

    def _went_down(self, exc: BaseException | None) -> None:
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            exc = exc.exceptions[0]
        reason = "the link closed" if exc is None else f"{type(exc).__name__}: {exc}"[:500]
        if self._status.connected:
            log.warning("upstream %s: disconnected (%s); reconnecting", self.name, reason)
            self._status = LinkStatus(False, self._status.connections, time.monotonic(), reason)
        else:
            self._status = replace(self._status, last_error=reason)

    async def _supervise(self) -> None:
        policy = self._reconnect
        while not self._stop.is_set():
            retrying = AsyncRetrying(
                retry=retry_if_exception_type(Exception),
                wait=wait_exponential_jitter(
                    multiplier=policy.initial_backoff_s,
                    max=policy.max_backoff_s,
                    jitter=policy.initial_backoff_s,
                ),
                before_sleep=lambda state: log.info(
                    "upstream %s: connection attempt %d failed (%s)",
                    self.name,
                    state.attempt_number,
                    self._status.last_error,
                ),
            )
            await retrying(self._hold_once)

    def _mark_broken(self, client: Client) -> None:
        if self._client is client:
            self._broken.set()

    async def start(self) -> None:
        """Start the supervisor and wait up to ``timeout_s`` for the first connection."""
        self._stop = asyncio.Event()
        self._task = asyncio.create_task(self._supervise(), name=f"guard-upstream {self.name}")
        up = asyncio.ensure_future(self._up.wait())
        try:
            await asyncio.wait({up, self._task}, timeout=self._timeout_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            up.cancel()
        if not self._up.is_set():
            await self.close()
            raise BackendError(
                f"cannot connect to the upstream {self.name}: no connection in {self._timeout_s:g}s "
                f"({self._status.last_error})"
            )

    async def _session(self) -> Client:
        """The live client: waits for a reconnection in progress, else refuses (nothing sent)."""
        client = self._client
        if client is not None and not self._broken.is_set():
            if not _closed_before_send(client):
                return client
            self._mark_broken(client)
        if self._task is None or self._stop.is_set():
            raise UpstreamDown(f"the upstream {self.name} is not connected; the request was not sent")
        try:
            return await asyncio.wait_for(self._replaced(client), self._reconnect.wait_s)
        except TimeoutError:
            raise UpstreamDown(
                f"the upstream {self.name} is down ({self._status.last_error}); the guard is reconnecting; "
                "the request was not sent"
            ) from None

    async def _replaced(self, gone: Client | None) -> Client:
        """The next live client after ``gone`` (reconnections are rare: a short poll is enough)."""
        while True:
            client = self._client
            if client is not None and client is not gone and not self._broken.is_set():
                return client
            await asyncio.sleep(0.02)

    async def _request(self, send: Callable[[Client], Awaitable[R]], key: str | None = None) -> R:
        """One request on the live link; a link found gone marks it broken for the supervisor.

        ``key``: the write's idempotency key, by which a write whose request never connected is told
        apart (refused as :class:`UpstreamDown`, unsent) from one cut off in flight (ambiguous).
        """
        client = await self._session()
        try:
            return await send(client)
        except MCPError as exc:
            if _session_gone(exc):
                self._mark_broken(client)
                return await send(await self._session())
            if not _connection_closed(exc):
                raise
            self._mark_broken(client)
            if key is not None and self._transport is not None and key in self._transport.unsent:
                raise UpstreamDown(
                    f"the upstream {self.name} could not be reached; the request was not sent"
                ) from exc
            raise

    async def list_tools(self) -> list[UpstreamTool]:
        async def listed(client: Client) -> list[UpstreamTool]:
            tools: list[UpstreamTool] = []
            cursor: str | None = None
            while True:
                page = await client.list_tools(cursor=cursor)
                tools.extend(_tool(tool) for tool in page.tools)
                cursor = page.next_cursor
                if cursor is None:
                    return tools

        return await self._request(listed)

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], *, meta: Mapping[str, Any] | None = None
    ) -> UpstreamResult:
        request_meta = cast(types.RequestParamsMeta, dict(meta)) if meta is not None else None

        async def called(client: Client) -> types.CallToolResult:
            return await client.call_tool(name, dict(arguments), meta=request_meta)

        key = None if meta is None else meta.get(IDEMPOTENCY_KEY)
        return _result(await self._request(called, key if isinstance(key, str) else None))

    async def relay(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        cursor = params.get("cursor")

        async def relayed(client: Client) -> Any:
            if method == "resources/list":
                return await client.list_resources(cursor=cursor)
            if method == "resources/templates/list":
                return await client.list_resource_templates(cursor=cursor)
            if method == "resources/read":
                return await client.read_resource(str(params["uri"]))
            if method == "prompts/list":
                return await client.list_prompts(cursor=cursor)
            if method == "prompts/get":
                return await client.get_prompt(str(params["name"]), params.get("arguments"))
            raise ValueError(f"{method} is not relayed to the upstream")

        result = await self._request(relayed)
        dumped: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return dumped

    async def ping(self) -> None:
        """One ``tools/list`` round trip (MCP 2026-07-28 has no ``ping``); down, the reason it is."""
        if not self._status.connected:
            raise UpstreamDown(f"the upstream {self.name} is down: {self._status.last_error}")
        await self._request(lambda client: client.list_tools())

    async def close(self) -> None:
        """Stop the supervisor: a held link is closed in its task; a connection attempt or a backoff is
        cancelled."""
        self._stop.set()
        task, self._task = self._task, None
        if task is None:
            return
        if self._client is None:
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def _first(*waits: Coroutine[Any, Any, Any]) -> None:
    tasks = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


def _url_name(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or ''}{':' + str(parts.port) if parts.port else ''}{parts.path}"


def connect_upstream(settings: McpSettings) -> Upstream:
    """The upstream a config names (not yet started): one, or several as one (:class:`Namespaced`)."""
    served = settings.served()
    if list(served) == [""]:
        return _connect(settings, settings, "backend.mcp")
    return Namespaced(
        {
            prefix: _connect(upstream, settings, f"backend.mcp.upstreams.{prefix.removesuffix(NAMESPACE)}")
            for prefix, upstream in served.items()
        }
    )


def _connect(upstream: UpstreamSettings, shared: McpSettings, where: str) -> ClientUpstream:
    if upstream.url is not None:
        return ClientUpstream(
            upstream.url,
            name=_url_name(upstream.url),
            timeout_s=shared.timeout_s,
            headers=upstream.headers,
            reconnect=shared.reconnect,
            agent_headers=upstream.agent_headers,
        )
    if upstream.command is None:
        raise BackendError(f"{where} names no upstream: set url or command")
    params = StdioServerParameters(
        command=upstream.command, args=list(upstream.args), env=dict(upstream.env) or None, cwd=upstream.cwd
    )
    return ClientUpstream(
        params,
        name=" ".join([upstream.command, *upstream.args])[:200],
        timeout_s=shared.timeout_s,
        reconnect=shared.reconnect,
    )
